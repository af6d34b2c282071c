// Storage rules: where the datasets live (the case study's bottleneck).
#include <fmt/format.h>

#include "core/i18n.h"
#include "rules/areas.h"
#include "rules/util.h"

namespace tfrig::rules {

namespace {

Check dataset_on_hdd(const Context& ctx) {
  const auto& paths = ctx.inv.storage.data_paths;
  if (paths.empty()) return Check::skip(core::Message(N_("dataset location (give it with --data DIR)")));
  Check c;
  bool known = false;
  for (const auto& p : paths) {
    if (!p.device_kind) continue;
    known = true;
    if (*p.device_kind != "hdd") continue;
    c.add(Hit{
        p.path,
        core::Message(N_("The dataset at {} is on a rotating disk ({}): TFRecord and small-file loading are latency "
                         "bound, and an HDD keeps the GPU waiting."),
                      p.path, p.block_device.value_or("?")),
        {{core::Message(N_("disk")), core::Message(N_("{} (HDD)"), p.block_device.value_or("?")),
          "/sys/block/" + p.block_device.value_or("?") + "/queue/rotational"},
         {core::Message(N_("mount")), p.mount_point.value_or("?") + " " + p.fs_type.value_or(""),
          "/proc/self/mountinfo"}},
        "",
        {}});
  }
  if (!known) return Check::skip(core::Message(N_("the disk under the dataset path")));
  return c;
}

Check dataset_on_network(const Context& ctx) {
  const auto& paths = ctx.inv.storage.data_paths;
  if (paths.empty()) return Check::skip(core::Message(N_("dataset location (give it with --data DIR)")));
  Check c;
  bool known = false;
  for (const auto& p : paths) {
    if (p.error) continue;
    known = true;
    if (!p.network) continue;
    c.add(Hit{
        p.path,
        core::Message(N_("The dataset at {} is on a network filesystem ({}): every small read pays a round trip."),
                      p.path, p.fs_type.value_or("?")),
        {{core::Message(N_("filesystem")),
          core::Message(N_("{0} on {1}"), p.fs_type.value_or("?"), p.device.value_or("?")), "/proc/self/mountinfo"}},
        "",
        {}});
  }
  if (!known) return Check::skip(core::Message(N_("the filesystem under the dataset path")));
  return c;
}

Check no_nvme(const Context& ctx) {
  const auto& devs = ctx.inv.storage.devices;
  if (devs.empty()) return Check::skip(core::Message(N_("block devices (/sys/block)")));
  bool known = false;
  for (const auto& d : devs) {
    // Virtual disks (virtio, loop, zram) hide what backs them: not evidence either way.
    if (!d.kind || *d.kind == "virtual" || *d.kind == "unknown") continue;
    known = true;
    if (*d.kind == "nvme") return Check::pass();
  }
  if (!known)
    return Check::skip(
        core::Message(N_("kind of the block devices (none, or only virtual disks whose backing is unknown)")));
  std::string list;
  for (const auto& d : devs) {
    if (d.kind == "virtual") continue;
    list += (list.empty() ? "" : ", ") + d.name + " (" + d.kind.value_or("?") + ")";
  }
  Check c;
  c.add(Hit{"host",
            core::Message(
                N_("No NVMe SSD on this machine: the configuration guide (docs/guide.md) asks for NVMe for datasets.")),
            {{core::Message(N_("block devices")), list.empty() ? std::string("none but virtual") : list, "/sys/block"}},
            "",
            {}});
  return c;
}

}  // namespace

std::vector<Rule> storage_rules() {
  return {
      {"storage.dataset_on_hdd",
       "storage",
       Severity::kWarning,
       N_("Dataset on a rotating disk"),
       N_("The disk under each --data path (rotational flag)."),
       N_("The configuration guide (docs/guide.md): TFRecord loading is very sensitive to I/O latency; use NVMe SSD."),
       N_("Move the dataset to an NVMe SSD, or pack it into large TFRecord shards (`tfrig pack`) and cache it."),
       {"https://www.tensorflow.org/guide/data_performance"},
       dataset_on_hdd},
      {"storage.dataset_on_network_fs",
       "storage",
       Severity::kWarning,
       N_("Dataset on a network filesystem"),
       N_("The filesystem under each --data path (nfs, cifs, fuse)."),
       N_("The case study: millions of small files over the network held an RTX 3090 at 30% utilisation."),
       N_("Copy the dataset to local NVMe, or pack it into large TFRecord shards read with `interleave` and `prefetch`."),
       {},
       dataset_on_network},
      {"storage.no_nvme",
       "storage",
       Severity::kWarning,
       N_("No NVMe SSD"),
       N_("Whether any block device is NVMe."),
       N_("The configuration guide (docs/guide.md): storage must be NVMe SSD for training data."),
       N_("Add an NVMe SSD for datasets and checkpoints."),
       {},
       no_nvme},
  };
}

}  // namespace tfrig::rules
