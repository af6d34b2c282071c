// storage: block devices and their kind (docs/guide.md: NVMe for datasets; TFRecord
// loading is latency-sensitive), mounts, and where each --data path lives.
#include <climits>
#include <cstdlib>

#include "core/text.h"
#include "core/units.h"
#include "probe/parse/proc_text.h"
#include "probe/probe.h"
#include "probe/probes.h"

namespace tfrig::probe {

namespace {

// Devices that are not disks of their own.
bool is_virtual_block(std::string_view name) {
  return core::starts_with(name, "loop") || core::starts_with(name, "ram") || core::starts_with(name, "zram") ||
         core::starts_with(name, "dm-") || core::starts_with(name, "md") || core::starts_with(name, "nbd");
}

// Transport from where the device sits in the sysfs device tree.
std::optional<std::string> transport_from_link(std::string_view name, std::string_view link) {
  if (core::starts_with(name, "nvme")) return "nvme";
  if (link.find("/usb") != std::string_view::npos) return "usb";
  if (link.find("/virtio") != std::string_view::npos) return "virtio";
  if (link.find("/vmbus") != std::string_view::npos) return "hyperv";
  if (core::starts_with(name, "xvd")) return "xen";
  if (link.find("/ata") != std::string_view::npos) return "sata";
  if (link.find("/host") != std::string_view::npos && link.find("/target") != std::string_view::npos) return "scsi";
  if (link.find("/virtual/") != std::string_view::npos) return "virtual";
  return std::nullopt;
}

std::string classify(const inventory::BlockDevice& dev) {
  if (core::starts_with(dev.name, "sr")) return "optical";  // SCSI CD-ROM driver names
  if (is_virtual_block(dev.name) || dev.transport == "virtual") return "virtual";
  if (dev.transport == "nvme") return "nvme";
  // Paravirtual disks report rotational=1 whatever backs them: say so rather
  // than call them HDDs.
  if (dev.transport == "virtio" || dev.transport == "xen" || dev.transport == "hyperv") return "virtual";
  if (dev.rotational == true) return "hdd";
  if (dev.rotational == false) return "ssd";
  return "unknown";
}

// The disk a block name (disk, partition or device-mapper/md volume) sits on:
// a partition's parent directory in sysfs is its disk; a dm/md volume's disk
// is that of its first slave (LVM, LUKS and RAID over one disk type).
std::string underlying_disk(const core::SysRoot& root, std::string name, int depth = 0) {
  if (depth > 8) return name;  // a loop of slaves in a broken tree
  const std::string cls = "sys/class/block/" + name;
  if (root.exists(cls + "/partition")) {
    if (auto link = root.read_link(cls)) {
      auto parts = core::split(*link, '/');
      if (parts.size() >= 2) name = std::string(parts[parts.size() - 2]);
    }
  }
  if (auto slaves = root.list_dir("sys/block/" + name + "/slaves"); slaves && !slaves->empty()) {
    return underlying_disk(root, slaves->front(), depth + 1);
  }
  return name;
}

// The disk under a mount, from its major:minor: /sys/dev/block/M:m links to
// .../block/<disk>[/<partition>].
std::optional<std::string> disk_for_devnum(const core::SysRoot& root, unsigned major, unsigned minor) {
  if (major == 0) return std::nullopt;  // anonymous devices: tmpfs, overlay, nfs
  const std::string rel = "sys/dev/block/" + std::to_string(major) + ":" + std::to_string(minor);
  auto link = root.read_link(rel);
  if (!link) return std::nullopt;
  auto parts = core::split(*link, '/');
  if (parts.empty()) return std::nullopt;
  return underlying_disk(root, std::string(parts.back()));
}

// One disk of /sys/block: transport, rotational, size, removable, model, kind.
inventory::BlockDevice read_block_device(const core::SysRoot& root, const std::string& name, ProblemLog& problems) {
  inventory::BlockDevice dev;
  dev.name = name;
  const std::string base = "sys/block/" + name + "/";
  auto link = root.read_link("sys/block/" + name);
  dev.transport = transport_from_link(name, link ? std::string_view(*link) : std::string_view());
  if (auto rot = root.read_line(base + "queue/rotational")) {
    if (*rot == "0" || *rot == "1")
      dev.rotational = *rot == "1";
    else
      problems.add(root.full_path(base + "queue/rotational"),
                   core::Message(N_("expected 0 or 1, got '{}'"), core::printable(*rot)));
  } else if (rot.error().code != core::ErrorCode::kNotFound) {
    problems.add(rot.error());
  }
  // sysfs "size" counts 512-byte sectors whatever the logical block size.
  if (auto size = root.read_line(base + "size")) {
    if (auto sectors = core::parse_u64(*size); sectors && *sectors < (UINT64_MAX / 512))
      dev.size_bytes = *sectors * 512;
    else
      problems.add(root.full_path(base + "size"),
                   core::Message(N_("expected a sector count, got '{}'"), core::printable(*size)));
  } else if (size.error().code != core::ErrorCode::kNotFound) {
    problems.add(size.error());
  }
  if (auto rem = root.read_line(base + "removable")) dev.removable = *rem == "1";
  if (auto model = root.read_line(base + "device/model"); model && !model->empty()) dev.model = *model;
  dev.kind = classify(dev);
  return dev;
}

// The mount table: mountinfo has the device numbers; /proc/mounts is the
// fallback. A line that is not a mount entry is a problem naming its line.
parse::MountInfo read_mount_table(const core::SysRoot& root, ProblemLog& problems) {
  parse::MountInfo mounts;
  std::string mount_source = "proc/self/mountinfo";
  auto mi = root.read_text(mount_source);
  if (mi) {
    mounts = parse::parse_mountinfo(*mi);
  } else {
    mount_source = "proc/mounts";
    auto pm = root.read_text(mount_source);
    if (pm) {
      mounts = parse::parse_proc_mounts(*pm);
    } else {
      problems.add(mi.error());
      problems.add(pm.error());
    }
  }
  for (int line : mounts.bad_lines) {
    problems.add(root.full_path(mount_source) + ":" + std::to_string(line),
                 core::Message(N_("expected a mount entry")));
  }
  return mounts;
}

// One mount, with the disk it is on.
inventory::Mount mount_of(const core::SysRoot& root, const parse::MountInfoEntry& e,
                          const std::vector<inventory::BlockDevice>& devices) {
  inventory::Mount m;
  m.device = e.source;
  m.mount_point = e.mount_point;
  m.fs_type = e.fs_type;
  m.options = e.options;
  m.network = parse::is_network_filesystem(e.fs_type);
  m.block_device = disk_for_devnum(root, e.major, e.minor);
  if (!m.block_device && core::starts_with(e.source, "/dev/")) {
    // /proc/mounts fallback: "/dev/nvme0n1p2" -> the disk whose name prefixes it.
    std::string_view dev = std::string_view(e.source).substr(5);
    for (const auto& d : devices) {
      if (core::starts_with(dev, d.name) && (!m.block_device || d.name.size() > m.block_device->size())) {
        m.block_device = d.name;
      }
    }
  }
  return m;
}

class StorageProbe final : public Probe {
 public:
  std::string_view id() const override { return "storage"; }
  ProbeStatus run(const Context& ctx, inventory::Inventory& out) const override {
    const core::SysRoot& root = ctx.root;
    ProblemLog problems;
    auto& st = out.storage;

    auto names = root.list_dir("sys/block");
    if (!names) {
      problems.add(names.error());
    } else {
      for (const auto& name : *names) st.devices.push_back(read_block_device(root, name, problems));
    }
    const parse::MountInfo mounts = read_mount_table(root, problems);
    for (const auto& e : mounts.entries) st.mounts.push_back(mount_of(root, e, st.devices));

    for (const auto& path : ctx.data_paths) st.data_paths.push_back(resolve_data_path(root, st, path));

    ProbeStatus status;
    problems.into(status);
    if (!names && st.mounts.empty()) {
      status.state = State::kError;
      status.set_detail(core::Message(N_("neither /sys/block nor the mount table could be read")));
      return status;
    }
    status.state = State::kOk;
    int nvme = 0, ssd = 0, hdd = 0;
    for (const auto& d : st.devices) {
      if (d.kind == "nvme") ++nvme;
      if (d.kind == "ssd") ++ssd;
      if (d.kind == "hdd") ++hdd;
    }
    status.set_detail(core::Message(N_("{0} block devices ({1} NVMe, {2} SSD, {3} HDD), {4} mounts"), st.devices.size(),
                                    nvme, ssd, hdd, st.mounts.size()));
    return status;
  }

  void merge(inventory::Inventory& into, inventory::Inventory&& from) const override {
    into.storage = std::move(from.storage);
  }

 private:
  static inventory::DataPath resolve_data_path(const core::SysRoot& root, const inventory::StorageInfo& st,
                                               const std::string& path) {
    inventory::DataPath dp;
    dp.path = path;
    // The path as the machine under the root sees it, symlinks resolved
    // (SysRoot::real_path: realpath on disk, the tree's own links in memory).
    auto real = root.real_path(path);
    if (!real) {
      // SysRoot's errors carry their message ("/r/data resolves to ..., outside the root /r").
      if (auto m = core::error_message(real.error())) {
        inventory::set_text(dp.error, dp.error_message, std::move(*m));
      } else {
        dp.error = real.error().to_string();
      }
      return dp;
    }
    const std::string lookup = *real;
    // Longest mount point that is a path prefix; later mounts shadow earlier ones.
    const inventory::Mount* best = nullptr;
    for (const auto& m : st.mounts) {
      const std::string& mp = m.mount_point;
      bool prefix = mp == "/" || lookup == mp || core::starts_with(lookup, mp + "/");
      if (prefix && (!best || mp.size() >= best->mount_point.size())) best = &m;
    }
    if (!best) {
      inventory::set_text(dp.error, dp.error_message, core::Message(N_("no mount point contains {}"), lookup));
      return dp;
    }
    dp.mount_point = best->mount_point;
    dp.fs_type = best->fs_type;
    dp.device = best->device;
    dp.block_device = best->block_device;
    dp.network = best->network;
    if (best->block_device) {
      for (const auto& d : st.devices) {
        if (d.name == *best->block_device) dp.device_kind = d.kind;
      }
    }
    return dp;
  }
};

}  // namespace

std::shared_ptr<const Probe> make_storage_probe() { return std::make_shared<StorageProbe>(); }

}  // namespace tfrig::probe
