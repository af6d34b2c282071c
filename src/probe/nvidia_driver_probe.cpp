// nvidia_driver: the NVIDIA kernel driver without NVML or nvidia-smi.
//
// Reads /proc/driver/nvidia/version and gpus/*/information (what the kernel
// module publishes), /proc/modules (nvidia, nvidia_uvm, nvidia_drm, nouveau),
// the /dev/nvidia* nodes and whether this user can open them, and the NVIDIA
// GPUs on the PCI bus from sysfs (read here, not taken from the pci probe,
// because probes run concurrently). Every NVIDIA GPU on the bus is listed,
// and one without a working driver carries the reason in driver_problem.
// The nvml probe's merge (table order: after this one) replaces these
// entries with NVML's where both see the same PCI address.
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/text.h"
#include "probe/parse/proc_driver_nvidia.h"
#include "probe/parse/proc_text.h"
#include "probe/probe.h"
#include "probe/probes.h"

namespace tfrig::probe {

namespace {

// PCIe generation from the link speed sysfs reports (PCIe base spec:
// 2.5, 5, 8, 16, 32, 64 GT/s for gen 1..6).
std::optional<int> pcie_generation(std::optional<double> gts) {
  if (!gts) return std::nullopt;
  constexpr double kSpeeds[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  for (int i = 0; i < 6; ++i) {
    if (std::fabs(*gts - kSpeeds[i]) < 0.3) return i + 1;
  }
  return std::nullopt;
}

// The loaded modules that matter: nvidia and its uvm/drm parts, and
// nouveau, which takes the GPU from it.
void read_modules(const core::SysRoot& root, inventory::DriverInfo& drv, ProblemLog& problems) {
  if (auto text = root.read_text("proc/modules"); text) {
    const auto mods = parse::parse_proc_modules(*text);
    drv.module_nvidia = mods.count("nvidia") > 0;
    drv.module_nvidia_uvm = mods.count("nvidia_uvm") > 0;
    drv.module_nvidia_drm = mods.count("nvidia_drm") > 0;
    drv.module_nouveau = mods.count("nouveau") > 0;
  } else if (text.error().code != core::ErrorCode::kNotFound) {
    problems.add(text.error());
  }
}

// The kernel module's own version line: present iff the module is loaded.
// Decides `loaded` together with /proc/modules.
void read_module_version(const core::SysRoot& root, inventory::DriverInfo& drv, ProblemLog& problems) {
  bool have_version_file = false;
  if (auto text = root.read_text("proc/driver/nvidia/version"); text) {
    have_version_file = true;
    if (auto v = parse::parse_nvidia_version(*text)) {
      drv.kernel_module_version = v->version;
      drv.kernel_module_flavor = v->flavor;
    } else {
      problems.add(root.full_path("proc/driver/nvidia/version"), v.error());
    }
  } else if (text.error().code != core::ErrorCode::kNotFound) {
    problems.add(text.error());
  }
  if (have_version_file || drv.module_nvidia == true) {
    drv.loaded = true;
  } else if (drv.module_nvidia.has_value() || root.is_dir("proc")) {
    // /proc is there and says nothing of nvidia: not loaded.
    drv.loaded = false;
  }
  if (!drv.version && drv.kernel_module_version) drv.version = drv.kernel_module_version;
}

// Device nodes and access for this user (the classic "no permission": not
// in the video/render group, or a container without --gpus).
std::vector<inventory::DeviceNode> read_device_nodes(const core::SysRoot& root) {
  std::vector<inventory::DeviceNode> nodes;
  if (auto names = root.list_dir("dev"); names) {
    for (const auto& n : *names) {
      if (!core::starts_with(n, "nvidia")) continue;
      const std::string rel = "dev/" + n;
      if (root.is_dir(rel)) continue;  // /dev/nvidia-caps
      inventory::DeviceNode node;
      node.path = "/" + rel;
      node.readable = root.accessible(rel, R_OK);
      node.writable = root.accessible(rel, W_OK);
      nodes.push_back(std::move(node));
    }
  }
  return nodes;
}

// /proc/driver/nvidia/gpus/<bus id>/information, one per GPU the module
// drives, keyed by its PCI address.
using GpuInformation = std::vector<std::pair<std::string, parse::NvidiaGpuInformation>>;

GpuInformation read_gpu_information(const core::SysRoot& root, ProblemLog& problems) {
  GpuInformation infos;
  if (auto dirs = root.list_dir("proc/driver/nvidia/gpus"); dirs) {
    for (const auto& d : *dirs) {
      const std::string rel = "proc/driver/nvidia/gpus/" + d + "/information";
      auto text = root.read_text(rel, 1 << 16);
      if (!text) {
        problems.add(text.error());
        continue;
      }
      auto info = parse::parse_nvidia_gpu_information(*text);
      if (!info) {
        problems.add(root.full_path(rel), info.error());
        continue;
      }
      std::string bus = info->bus_location.value_or(core::normalize_pci_bus_id(d).value_or(d));
      infos.emplace_back(std::move(bus), std::move(*info));
    }
  }
  return infos;
}

// An NVIDIA display-class device on the PCI bus, as sysfs describes it.
struct PciGpu {
  std::string address;
  std::optional<uint32_t> device_id;
  std::optional<std::string> bound_driver;
  std::optional<int> numa_node;
  std::optional<double> speed_cur, speed_max;
  std::optional<int> width_cur, width_max;
};

// One sysfs PCI device; nullopt when it is not an NVIDIA display device.
std::optional<PciGpu> read_pci_gpu(const core::SysRoot& root, const std::string& addr) {
  const std::string base = "sys/bus/pci/devices/" + addr + "/";
  auto vendor = root.read_line(base + "vendor");
  auto cls = root.read_line(base + "class");
  if (!vendor || !cls) return std::nullopt;
  auto v = core::parse_hex(*vendor);
  auto c = core::parse_hex(*cls);
  if (!v || !c || *v != kPciVendorNvidia || (*c >> 16) != 0x03) return std::nullopt;
  PciGpu g;
  g.address = core::normalize_pci_bus_id(addr).value_or(addr);
  if (auto dev = root.read_line(base + "device")) {
    if (auto id = core::parse_hex(*dev); id && *id <= 0xffff) g.device_id = static_cast<uint32_t>(*id);
  }
  if (auto link = root.read_link(base + "driver")) g.bound_driver = std::string(core::split(*link, '/').back());
  if (auto numa = root.read_line(base + "numa_node")) {
    if (auto n = core::parse_i64(*numa); n && *n >= 0 && *n < 4096) g.numa_node = static_cast<int>(*n);
  }
  if (auto s = root.read_line(base + "current_link_speed")) g.speed_cur = parse::parse_link_speed(*s);
  if (auto s = root.read_line(base + "max_link_speed")) g.speed_max = parse::parse_link_speed(*s);
  auto width = [&](const char* attr) -> std::optional<int> {
    auto t = root.read_line(base + attr);
    if (!t) return std::nullopt;
    auto w = core::parse_u64(*t);
    if (!w || *w == 0 || *w > 32) return std::nullopt;
    return static_cast<int>(*w);
  };
  g.width_cur = width("current_link_width");
  g.width_max = width("max_link_width");
  return g;
}

std::vector<PciGpu> read_pci_gpus(const core::SysRoot& root) {
  std::vector<PciGpu> pci_gpus;
  if (auto names = root.list_dir("sys/bus/pci/devices"); names) {
    for (const auto& addr : *names) {
      if (auto g = read_pci_gpu(root, addr)) pci_gpus.push_back(std::move(*g));
    }
  }
  return pci_gpus;
}

// Why a GPU on the bus has no working NVIDIA driver; nullopt when it has one
// as far as the kernel side can tell.
std::optional<core::Message> driver_problem(const inventory::DriverInfo& drv, const std::optional<std::string>& bound,
                                            bool on_bus, const parse::NvidiaGpuInformation* info) {
  if (info != nullptr && info->excluded == true) {
    return core::Message(N_("excluded by the NVIDIA driver (NVreg_ExcludedGpus or a failed init)"));
  }
  if (on_bus && bound) {
    if (*bound == "nouveau")
      return core::Message(N_("bound to nouveau, the open-source driver: CUDA needs the NVIDIA driver"));
    if (*bound == "vfio-pci") return core::Message(N_("bound to vfio-pci: passed through to a virtual machine"));
    if (*bound != "nvidia") return core::Message(N_("bound to driver '{}', not nvidia"), *bound);
  }
  if (on_bus && !bound) {
    if (drv.loaded == true) {
      return core::Message(
          N_("no driver bound: the nvidia module is loaded but did not take this GPU (unsupported by this driver "
             "branch?)"));
    }
    if (drv.module_nouveau == true) return core::Message(N_("no driver bound; nouveau is loaded"));
    return core::Message(N_("no driver bound: the NVIDIA kernel module is not loaded"));
  }
  if (info == nullptr && drv.loaded == true) {
    return core::Message(N_("bound to nvidia but absent from /proc/driver/nvidia/gpus"));
  }
  return std::nullopt;
}

// Joins the bus's list and the module's list on the PCI address, in address
// order: a GPU in either is listed, with what each side knows of it.
std::vector<inventory::Gpu> join_gpus(const inventory::DriverInfo& drv, const std::vector<PciGpu>& pci_gpus,
                                      const GpuInformation& infos) {
  std::vector<std::string> addresses;
  for (const auto& g : pci_gpus) addresses.push_back(g.address);
  for (const auto& [bus, info] : infos) addresses.push_back(bus);
  std::sort(addresses.begin(), addresses.end());
  addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
  std::vector<inventory::Gpu> gpus;
  int index = 0;
  for (const auto& addr : addresses) {
    inventory::Gpu g;
    g.index = index++;
    g.pci_bus_id = addr;
    const PciGpu* pci = nullptr;
    for (const auto& p : pci_gpus) pci = p.address == addr ? &p : pci;
    const parse::NvidiaGpuInformation* info = nullptr;
    for (const auto& [bus, i] : infos) info = bus == addr ? &i : info;
    g.source = info != nullptr ? "proc" : "pci";
    if (info != nullptr) {
      g.name = info->model;
      // The module prints "GPU-????????-...." when it cannot read the UUID.
      if (info->uuid && info->uuid->find('?') == std::string::npos) g.uuid = info->uuid;
    }
    if (pci != nullptr) {
      g.pci_device_id = pci->device_id;
      g.numa_node = pci->numa_node;
      g.pcie_link_gen_current = pcie_generation(pci->speed_cur);
      g.pcie_link_gen_max = pcie_generation(pci->speed_max);
      g.pcie_link_width_current = pci->width_cur;
      g.pcie_link_width_max = pci->width_max;
    }
    if (auto why = driver_problem(drv, pci != nullptr ? pci->bound_driver : std::nullopt, pci != nullptr, info)) {
      inventory::set_text(g.driver_problem, g.driver_problem_message, std::move(*why));
    }
    gpus.push_back(std::move(g));
  }
  return gpus;
}

// The probe's one-line summary, or "absent" when there is no trace of an
// NVIDIA driver or GPU at all.
ProbeStatus summary(const inventory::DriverInfo& drv, size_t gpus, const ProblemLog& problems) {
  ProbeStatus status;
  problems.into(status);
  if (!drv.loaded.value_or(false) && gpus == 0) {
    status.state = State::kAbsent;
    status.set_detail(core::Message(N_("no NVIDIA kernel module loaded and no NVIDIA GPU on the PCI bus")));
    return status;
  }
  status.state = State::kOk;
  const core::MessageArg module = drv.loaded.value_or(false)
                                      ? core::MessageArg(drv.kernel_module_version.value_or("loaded"))
                                      : core::MessageArg(core::Message(N_("not loaded")));
  core::Message on_bus = core::Message::plural(NP_("{} GPU", "{} GPUs"), gpus, gpus);
  core::Message nodes = core::Message::plural(NP_("{} /dev/nvidia* node", "{} /dev/nvidia* nodes"),
                                              drv.device_nodes.size(), drv.device_nodes.size());
  if (drv.kernel_module_flavor) {
    // TRANSLATORS: the flavour is "proprietary" or "open"; {2} is "N GPUs", {3} "N /dev/nvidia* nodes".
    const std::string& f = *drv.kernel_module_flavor;
    const core::MessageArg flavor =
        f == "proprietary" ? core::MessageArg(core::Message::in_context(NC_("kernel module", "proprietary")))
        : f == "open"      ? core::MessageArg(core::Message::in_context(NC_("kernel module", "open")))
                           : core::MessageArg(f);
    status.set_detail(core::Message(N_("kernel module {0} ({1}), {2} on the bus, {3}"), module, flavor,
                                    std::move(on_bus), std::move(nodes)));
  } else {
    status.set_detail(
        // TRANSLATORS: {1} is "N GPUs", {2} "N /dev/nvidia* nodes".
        core::Message(N_("kernel module {0}, {1} on the bus, {2}"), module, std::move(on_bus), std::move(nodes)));
  }
  return status;
}

class NvidiaDriverProbe final : public Probe {
 public:
  std::string_view id() const override { return "nvidia_driver"; }
  // The module's state first (the GPUs' driver problems depend on it), then
  // the GPUs the bus and the module each know, joined.
  ProbeStatus run(const Context& ctx, inventory::Inventory& out) const override {
    const core::SysRoot& root = ctx.root;
    ProblemLog problems;
    auto& drv = out.driver;
    read_modules(root, drv, problems);
    read_module_version(root, drv, problems);
    drv.device_nodes = read_device_nodes(root);
    const GpuInformation infos = read_gpu_information(root, problems);
    const std::vector<PciGpu> pci_gpus = read_pci_gpus(root);
    for (auto& g : join_gpus(drv, pci_gpus, infos)) out.gpus.push_back(std::move(g));
    return summary(drv, out.gpus.size(), problems);
  }

  void merge(inventory::Inventory& into, inventory::Inventory&& from) const override {
    auto& d = into.driver;
    auto& f = from.driver;
    d.loaded = f.loaded;
    d.kernel_module_version = std::move(f.kernel_module_version);
    d.kernel_module_flavor = std::move(f.kernel_module_flavor);
    d.module_nvidia = f.module_nvidia;
    d.module_nvidia_uvm = f.module_nvidia_uvm;
    d.module_nvidia_drm = f.module_nvidia_drm;
    d.module_nouveau = f.module_nouveau;
    d.device_nodes = std::move(f.device_nodes);
    if (!d.version) d.version = d.kernel_module_version;
    into.gpus = std::move(from.gpus);
  }
};

}  // namespace

std::shared_ptr<const Probe> make_nvidia_driver_probe() { return std::make_shared<NvidiaDriverProbe>(); }

}  // namespace tfrig::probe
