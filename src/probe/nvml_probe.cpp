// nvml: GPUs, their topology and the driver through NVML (gpulib/nvml).
//
// Runs beside the other probes: nvmlInit can take seconds when persistence
// mode is off, so it must never hold up the non-GPU parts, and the time it
// took is recorded in driver.nvml.init_seconds. When NVML cannot be used the
// reason is recorded exactly (driver.nvml.state) and the GPUs listed by the
// nvidia_driver probe from /proc and sysfs stay, each with that reason.
#include <cstdlib>

#include <fmt/format.h>

#include "gpulib/nvml.h"
#include "probe/parse/proc_driver_nvidia.h"
#include "probe/host_mount.h"
#include "probe/probe.h"
#include "probe/probes.h"

namespace tfrig::probe {

namespace {

using gpulib::Nvml;
namespace nv = gpulib::nvml;

// nvmlDeviceArchitecture_t -> the names NVIDIA uses in nvidia-smi's
// <product_architecture> (so NVML and an XML import agree).
std::optional<std::string> architecture_name(unsigned arch) {
  switch (arch) {
    case nv::kArchKepler: return "Kepler";
    case nv::kArchMaxwell: return "Maxwell";
    case nv::kArchPascal: return "Pascal";
    case nv::kArchVolta: return "Volta";
    case nv::kArchTuring: return "Turing";
    case nv::kArchAmpere: return "Ampere";
    case nv::kArchAda: return "Ada Lovelace";
    case nv::kArchHopper: return "Hopper";
    case nv::kArchBlackwell: return "Blackwell";
    default: return std::nullopt;
  }
}

std::optional<std::string> compute_mode_name(int mode) {
  switch (mode) {
    case nv::kComputeDefault: return "default";
    case nv::kComputeExclusiveThread: return "exclusive_thread";
    case nv::kComputeProhibited: return "prohibited";
    case nv::kComputeExclusiveProcess: return "exclusive_process";
    default: return std::nullopt;
  }
}

// nvmlGpuTopologyLevel_t -> inventory::GpuPair::level; the same six levels
// `nvidia-smi topo -m` prints as PIX, PXB, PHB, NODE and SYS (INTERNAL is
// two GPUs on one board).
std::optional<std::string> topology_level_name(int level) {
  switch (level) {
    case nv::kTopologyInternal: return "same_board";
    case nv::kTopologySingle: return "single_switch";
    case nv::kTopologyMultiple: return "multiple_switches";
    case nv::kTopologyHostbridge: return "host_bridge";
    case nv::kTopologyNode: return "same_cpu";
    case nv::kTopologySystem: return "across_sockets";
    default: return std::nullopt;
  }
}

std::optional<std::string> bus_id_of(const nv::PciInfo& p) {
  // Built from the numeric fields: busId's text form differs between the
  // _v1 (16-byte) and _v3 (32-byte) structs.
  return core::normalize_pci_bus_id(fmt::format("{:04x}:{:02x}:{:02x}.0", p.domain, p.bus, p.device));
}

// CPUs the affinity mask may name: cpu_set_t's 1024 bits covers every
// machine Linux boots by default (CONFIG_NR_CPUS defaults to <= 8192, but
// NVML's own examples size it by the online CPU count).
constexpr unsigned kAffinityCpus = 1024;

class NvmlProbe final : public Probe {
 public:
  std::string_view id() const override { return "nvml"; }
  ProbeStatus run(const Context& ctx, inventory::Inventory& out) const override {
    auto& nvs = out.driver.nvml;
    if (ctx.root.in_memory()) {
      // A capture: NVML is not in it (it talks to a kernel, not to files),
      // and nothing from another machine is ever loaded; whatever its
      // environment says, no library is opened.
      return not_tried(
          nvs, core::Message(N_("NVML reads only the live machine; {} is a capture (NVML answers are not in it)"),
                             ctx.root.root()));
    }
    auto override_path = ctx.root.env("TFRIG_NVML_LIBRARY");
    // The host mounted into a container (--root /host) runs this kernel:
    // NVML describes it. The library to load is this process's choice, so
    // its override comes from this process's environment.
    const bool host_mount = !ctx.root.is_live() && root_is_running_kernel(ctx.root);
    if (host_mount && !override_path) {
      if (const char* lib = std::getenv("TFRIG_NVML_LIBRARY"); lib != nullptr && lib[0] != '\0') override_path = lib;
    }
    if (!ctx.root.is_live() && !host_mount && !override_path) {
      // NVML talks to the running kernel: under --root of a captured tree it
      // would describe this machine, not the captured one.
      return not_tried(nvs, core::Message(N_("NVML reads only the live machine; --root {} given"), ctx.root.root()));
    }
    auto opened = Nvml::open(override_path);
    if (!opened) return open_failed(opened.error(), nvs);
    const std::unique_ptr<Nvml> nvml = std::move(*opened);
    nvs.library_path = nvml->library_path();
    nvs.init_seconds = nvml->init_seconds();
    out.driver.loaded = true;  // nvmlInit succeeds only with the kernel module loaded
    out.driver.version = nvml->driver_version();
    out.driver.cuda_version = nvml->cuda_driver_version();
    out.driver.nvml_version = nvml->nvml_version();

    auto counted = nvml->device_count();
    if (!counted) {
      ProbeStatus status;
      nvs.state = "error";
      inventory::set_text(nvs.detail, nvs.detail_message, counted.error().message);
      status.state = State::kError;
      status.set_detail(counted.error().message);
      return status;
    }
    if (*counted == 0) {
      ProbeStatus status;
      nvs.state = "no_device";
      status.set_detail(core::Message(N_("NVML initialised but reports no GPU")));
      nvs.detail = status.detail;
      nvs.detail_message = status.detail_message;
      status.state = State::kAbsent;
      return status;
    }
    // A machine has at most a few dozen GPUs; a larger count is a broken library.
    const unsigned count = std::min(*counted, 1024u);
    list_gpus(*nvml, count, out);
    return listed_status(*nvml, count, out);
  }

  // Runs after the nvidia_driver probe's merge (table order): NVML's GPUs
  // replace the /proc and sysfs ones with the same PCI address; GPUs NVML
  // did not list stay, with the reason.
  void merge(inventory::Inventory& into, inventory::Inventory&& from) const override {
    into.driver.nvml = std::move(from.driver.nvml);
    if (from.driver.version) into.driver.version = from.driver.version;
    if (from.driver.cuda_version) into.driver.cuda_version = from.driver.cuda_version;
    if (from.driver.nvml_version) into.driver.nvml_version = from.driver.nvml_version;
    if (from.driver.loaded) into.driver.loaded = from.driver.loaded;
    if (!into.driver.version && into.driver.kernel_module_version)
      into.driver.version = into.driver.kernel_module_version;
    merge_gpu_lists(into, std::move(from.gpus));
    into.gpu_topology = std::move(from.gpu_topology);
  }

 private:
  // NVML not tried: the root is not this machine's running kernel.
  static ProbeStatus not_tried(inventory::NvmlStatus& nvs, core::Message why) {
    ProbeStatus status;
    nvs.state = "not_tried";
    status.set_detail(std::move(why));
    nvs.detail = status.detail;
    nvs.detail_message = status.detail_message;
    status.state = State::kSkipped;
    return status;
  }

  // The library missing (absent) or nvmlInit failing (error), with the reason.
  static ProbeStatus open_failed(const gpulib::NvmlError& error, inventory::NvmlStatus& nvs) {
    ProbeStatus status;
    nvs.state = gpulib::failure_state_name(error.failure);
    inventory::set_text(nvs.detail, nvs.detail_message, error.message);
    status.state = error.failure == gpulib::NvmlFailure::kLibraryMissing ? State::kAbsent : State::kError;
    // "driver_mismatch: nvmlInit_v2 returned ...": the state key and NVML's error, as messages.
    status.set_detail(core::Message(N_("{0}: {1}"), inventory::nvml_state_message(nvs.state), error.message));
    return status;
  }

  // One inventory GPU per NVML index (a GPU NVML cannot open keeps its index,
  // with the reason), then the topology of the pairs it opened.
  static void list_gpus(Nvml& nvml, unsigned count, inventory::Inventory& out) {
    std::vector<std::optional<nv::Device>> handles;
    for (unsigned i = 0; i < count; ++i) {
      auto h = nvml.handle(i);
      handles.push_back(h);
      inventory::Gpu g;
      g.index = static_cast<int>(i);
      g.source = "nvml";
      if (!h) {
        inventory::set_text(g.driver_problem, g.driver_problem_message,
                            core::Message(N_("NVML could not open GPU {} (see the probe's problems)"), i));
        out.gpus.push_back(std::move(g));
        continue;
      }
      fill_gpu(nvml, *h, g);
      out.gpus.push_back(std::move(g));
    }
    fill_topology(nvml, handles, out);
  }

  // The status of a run that listed `count` GPUs.
  static ProbeStatus listed_status(const Nvml& nvml, unsigned count, inventory::Inventory& out) {
    ProbeStatus status;
    auto& nvs = out.driver.nvml;
    nvs.state = "ok";
    inventory::set_text(
        nvs.detail, nvs.detail_message,
        core::Message::plural(NP_("{0} GPU via {1}", "{0} GPUs via {1}"), count, count, nvml.library_path()));
    status.state = State::kOk;
    status.set_detail(core::Message(
        N_("{0}; {1}"),
        core::Message::plural(NP_("{0} GPU, driver {1}, CUDA {2}", "{0} GPUs, driver {1}, CUDA {2}"), count, count,
                              out.driver.version.value_or("?"), out.driver.cuda_version.value_or("?")),
        core::Message(N_("nvmlInit took {}"), core::Message(N_("{:.2f} s"), nvml.init_seconds()))));
    status.problems = nvml.problems();
    return status;
  }

  static void fill_gpu(Nvml& nvml, nv::Device d, inventory::Gpu& g) {
    g.name = nvml.name(d);
    g.uuid = nvml.uuid(d);
    g.serial = nvml.serial(d);
    if (auto p = nvml.pci_info(d)) {
      g.pci_bus_id = bus_id_of(*p);
      // pciDeviceId: device id in the upper 16 bits, vendor 0x10de below.
      g.pci_device_id = p->pci_device_id >> 16;
    }
    if (auto a = nvml.architecture(d)) g.architecture = architecture_name(*a);
    if (auto cc = nvml.compute_capability(d)) g.compute_capability = fmt::format("{}.{}", cc->first, cc->second);
    if (auto m = nvml.memory(d)) {
      g.memory_total_bytes = m->first;
      g.memory_used_bytes = m->second;
    }
    if (auto mw = nvml.power_limit_milliwatts(d)) g.power_limit_watts = *mw / 1000.0;
    if (auto t = nvml.temperature(d)) g.temperature_celsius = static_cast<int>(*t);
    if (auto c = nvml.clock(d, nv::kClockSm)) g.clock_sm_mhz = static_cast<int>(*c);
    if (auto c = nvml.clock(d, nv::kClockMem)) g.clock_memory_mhz = static_cast<int>(*c);
    if (auto c = nvml.max_clock(d, nv::kClockSm)) g.clock_sm_max_mhz = static_cast<int>(*c);
    g.persistence_mode = nvml.persistence_mode(d);
    if (auto e = nvml.ecc_mode(d)) {
      g.ecc_mode_current = e->first;
      g.ecc_mode_pending = e->second;
    }
    g.ecc_errors_corrected_volatile = nvml.ecc_errors(d, nv::kMemoryErrorCorrected, nv::kVolatileEcc);
    g.ecc_errors_uncorrected_volatile = nvml.ecc_errors(d, nv::kMemoryErrorUncorrected, nv::kVolatileEcc);
    g.ecc_errors_uncorrected_aggregate = nvml.ecc_errors(d, nv::kMemoryErrorUncorrected, nv::kAggregateEcc);
    // Page retirement (up to Volta) and row remapping (Ampere on) are
    // alternatives: each GPU answers one and says NOT_SUPPORTED to the other.
    auto sbe = nvml.retired_pages(d, nv::kRetiredMultipleSingleBit);
    auto dbe = nvml.retired_pages(d, nv::kRetiredDoubleBit);
    if (sbe || dbe) g.retired_pages_count = uint64_t{sbe.value_or(0)} + dbe.value_or(0);
    g.retired_pages_pending = nvml.retired_pages_pending(d);
    if (auto r = nvml.remapped_rows(d)) {
      g.remapped_rows_correctable = r->correctable;
      g.remapped_rows_uncorrectable = r->uncorrectable;
      g.remapped_rows_pending = r->pending;
      g.remapped_rows_failure = r->failure;
    }
    if (auto m = nvml.mig_mode(d)) {
      g.mig_mode_current = m->first;
      g.mig_mode_pending = m->second;
    }
    // 0 is what some virtual GPUs answer: not a link generation.
    auto positive = [](std::optional<unsigned> v) -> std::optional<int> {
      if (!v || *v == 0 || *v > 64) return std::nullopt;
      return static_cast<int>(*v);
    };
    g.pcie_link_gen_current = positive(nvml.pcie_link_gen(d, false));
    g.pcie_link_gen_max = positive(nvml.pcie_link_gen(d, true));
    g.pcie_link_width_current = positive(nvml.pcie_link_width(d, false));
    g.pcie_link_width_max = positive(nvml.pcie_link_width(d, true));
    if (auto n = nvml.numa_node(d); n && *n < 4096) g.numa_node = static_cast<int>(*n);
    if (auto cpus = nvml.cpu_affinity(d, kAffinityCpus)) g.cpu_affinity = std::move(*cpus);
    if (auto m = nvml.compute_mode(d)) g.compute_mode = compute_mode_name(*m);
    if (auto p = nvml.processes(d)) {
      g.process_count = p->first;
      g.process_memory_bytes = p->second;
    }
    for (unsigned link = 0; link < nv::kNvLinkMaxLinks; ++link) {
      auto active = nvml.nvlink_active(d, link);
      if (!active) continue;  // this GPU has no such link
      inventory::NvLink l;
      l.link = static_cast<int>(link);
      l.active = active;
      if (*active) {
        if (auto p = nvml.nvlink_remote_pci(d, link)) l.remote_pci_bus_id = bus_id_of(*p);
        if (auto t = nvml.nvlink_remote_type(d, link)) {
          l.remote_kind = *t == nv::kNvLinkDeviceGpu      ? std::optional<std::string>("gpu")
                          : *t == nv::kNvLinkDeviceSwitch ? std::optional<std::string>("switch")
                          : *t == nv::kNvLinkDeviceIbmNpu ? std::optional<std::string>("cpu")
                                                          : std::nullopt;
        }
        if (auto v = nvml.nvlink_version(d, link)) l.version = static_cast<int>(*v);
      }
      g.nvlinks.push_back(std::move(l));
    }
  }

  static void fill_topology(Nvml& nvml, const std::vector<std::optional<nv::Device>>& handles,
                            inventory::Inventory& out) {
    for (size_t a = 0; a < handles.size(); ++a) {
      for (size_t b = a + 1; b < handles.size(); ++b) {
        if (!handles[a] || !handles[b]) continue;
        inventory::GpuPair pair;
        pair.gpu_a = static_cast<int>(a);
        pair.gpu_b = static_cast<int>(b);
        if (auto level = nvml.topology_common_ancestor(*handles[a], *handles[b]))
          pair.level = topology_level_name(*level);
        pair.p2p_read = nvml.p2p_read(*handles[a], *handles[b]);
        const auto& ga = out.gpus[a];
        const auto& gb = out.gpus[b];
        if (ga.nvlinks.empty() && gb.nvlinks.empty()) {
          // No NVLink state at all: unknown unless NVML answered "no links".
        } else {
          bool joined = false;
          for (const auto& l : ga.nvlinks)
            joined = joined || (l.active == true && l.remote_pci_bus_id && l.remote_pci_bus_id == gb.pci_bus_id);
          for (const auto& l : gb.nvlinks)
            joined = joined || (l.active == true && l.remote_pci_bus_id && l.remote_pci_bus_id == ga.pci_bus_id);
          pair.nvlink = joined;
        }
        out.gpu_topology.push_back(std::move(pair));
      }
    }
  }

  static void merge_gpu_lists(inventory::Inventory& into, std::vector<inventory::Gpu>&& nvml_gpus) {
    const auto& nvs = into.driver.nvml;
    const bool renumber = !nvml_gpus.empty();
    std::vector<inventory::Gpu> others = std::move(into.gpus);
    into.gpus = std::move(nvml_gpus);
    int next = static_cast<int>(into.gpus.size());
    for (auto& g : others) {
      bool seen = false;
      for (const auto& n : into.gpus) seen = seen || (g.pci_bus_id && n.pci_bus_id == g.pci_bus_id);
      if (seen) continue;
      if (!g.driver_problem && nvs.state != "ok" && nvs.state != "not_tried") {
        const core::MessageArg why = nvs.detail_message ? core::MessageArg(*nvs.detail_message) : nvs.detail;
        inventory::set_text(
            g.driver_problem, g.driver_problem_message,
            core::Message(N_("NVML unavailable ({0}): {1}"), inventory::nvml_state_arg(nvs.state), why));
      } else if (!g.driver_problem && nvs.state == "ok") {
        inventory::set_text(g.driver_problem, g.driver_problem_message,
                            core::Message(N_("present on the PCI bus but not listed by NVML")));
      }
      // NVML's indices come first; the rest follow in PCI order.
      if (renumber) g.index = next++;
      into.gpus.push_back(std::move(g));
    }
  }
};

}  // namespace

std::shared_ptr<const Probe> make_nvml_probe() { return std::make_shared<NvmlProbe>(); }

}  // namespace tfrig::probe
