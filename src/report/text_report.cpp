// The terminal report: one block per area, the probe's status on its
// heading line, unknowns shown as "unknown" (never as 0).
#include <fmt/format.h>

#include "core/display_width.h"
#include "core/i18n.h"
#include "core/table.h"
#include "core/terminal_text.h"
#include "core/units.h"
#include "inventory/json.h"
#include "report/probe_detail.h"
#include "report/report.h"

namespace tfrig::report {

namespace {

// The inventory holds facts in English (snapshots are read by programs);
// the words a reader sees are translated here, at rendering.
std::string unknown() { return _("unknown"); }

using inventory::fact_word;

template <class T>
std::string or_unknown(const std::optional<T>& v) {
  if (!v) return unknown();
  if constexpr (std::is_same_v<T, std::string>) {
    return fact_word(*v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return *v ? _("yes") : _("no");
  } else {
    return fmt::format("{}", *v);
  }
}

std::string bytes(const std::optional<uint64_t>& v) { return v ? core::format_bytes_binary(*v) : unknown(); }

std::string mhz(const std::optional<double>& v) { return v ? fmt::format("{:.0f} MHz", *v) : unknown(); }

std::string limit(const std::optional<uint64_t>& v) {
  if (!v) return unknown();
  // TRANSLATORS: a resource limit (ulimit) without a ceiling.
  if (*v == inventory::Limit::kUnlimited) return _("unlimited");
  return std::to_string(*v);
}

// A disk's kind as the storage probe names it (JSON keeps the key word).
std::string disk_kind(const std::optional<std::string>& kind) {
  if (!kind) return unknown();
  // TRANSLATORS: a disk's kind; English shows the storage probe's key as it is.
  if (*kind == "ssd") return C_("disk kind", "ssd");
  if (*kind == "hdd") return C_("disk kind", "hdd");
  if (*kind == "nvme") return C_("disk kind", "nvme");
  if (*kind == "virtual") return C_("disk kind", "virtual");
  if (*kind == "optical") return C_("disk kind", "optical");
  return fact_word(*kind);
}

// The PCI class names the report shows (the PCI Code and ID Assignment
// Specification's, and lspci's spelling of them); others print as read.
std::string pci_class(const std::string& name) {
  static const char* const kNames[] = {N_("NVMe controller"),
                                       N_("SATA controller"),
                                       N_("SAS controller"),
                                       N_("RAID controller"),
                                       N_("Mass storage controller"),
                                       N_("Ethernet controller"),
                                       N_("InfiniBand controller"),
                                       N_("Network controller"),
                                       N_("VGA compatible controller"),
                                       N_("3D controller"),
                                       N_("Display controller"),
                                       N_("Co-processor"),
                                       N_("Processor"),
                                       N_("Processing accelerator"),
                                       N_("Processing accelerators"),
                                       N_("Non-Volatile memory controller"),
                                       N_("RAID bus controller"),
                                       N_("Serial Attached SCSI controller"),
                                       N_("Infiniband controller")};
  for (const char* n : kNames) {
    if (name == n) return _(n);
  }
  return name;
}

// The kernel module's flavour as /proc/driver/nvidia/version says it.
std::string module_flavor(const std::string& flavor) {
  if (flavor == "proprietary") return C_("kernel module", "proprietary");
  if (flavor == "open") return C_("kernel module", "open");
  return flavor;
}

// A probe's state on the terminal; JSON keeps state_name.
std::string state_label(probe::State st) {
  switch (st) {
    // TRANSLATORS: a probe's state: it read what it looks for.
    case probe::State::kOk: return C_("probe state", "ok");
    // TRANSLATORS: a probe's state: what it looks for is not on this machine.
    case probe::State::kAbsent: return C_("probe state", "absent");
    case probe::State::kError: return C_("probe state", "error");
    // TRANSLATORS: a probe's state: it did not run (nothing to read, or not asked).
    case probe::State::kSkipped: return C_("probe state", "skipped");
  }
  return C_("probe state", "error");
}

std::string cpu_ranges(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += j > i ? fmt::format("{}-{}", cpus[i], cpus[j]) : std::to_string(cpus[i]);
    i = j + 1;
  }
  return out.empty() ? _("none") : out;
}

std::string link(const std::optional<double>& gts, const std::optional<int>& width) {
  if (!gts && !width) return "-";
  std::string out = gts ? core::format_transfer_rate(*gts) : "? GT/s";
  out += width ? fmt::format(" x{}", *width) : " x?";
  return out;
}

struct Painter {
  bool color;
  size_t width;  // the output's columns (core/text_width.h)
  std::string bold(const std::string& s) const { return color ? "\033[1m" + s + "\033[0m" : s; }
  std::string state(probe::State st) const {
    std::string name = state_label(st);
    if (!color) return name;
    switch (st) {
      case probe::State::kOk: return "\033[32m" + name + "\033[0m";
      case probe::State::kAbsent: return "\033[33m" + name + "\033[0m";
      case probe::State::kError: return "\033[31m" + name + "\033[0m";
      case probe::State::kSkipped: return "\033[2m" + name + "\033[0m";
    }
    return name;
  }
};

const probe::ProbeStatus* find_status(const Report& r, std::string_view id) {
  for (const auto& s : r.probes) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

void heading(std::string& out, const Painter& p, const Report& r, const char* title, std::string_view probe_id) {
  out += "\n" + p.bold(_(title));
  if (const auto* s = find_status(r, probe_id)) {
    out += "  [" + p.state(s->state) + "]";
  } else {
    out += "  [" + _("not probed") + "]";
  }
  out += "\n";
}

void field(std::string& out, const Painter& p, const char* name, const std::string& value) {
  // Names padded by display width: a Chinese name takes two columns a character;
  // a long value wraps under itself.
  out += core::wrap_hanging("  " + core::pad_right(_(name), 16) + " ", core::terminal_line(value), p.width) + "\n";
}

// ---- The NVIDIA and TensorFlow stack (GPU-stack probes) ----

// "ok" / "absent" of two probes on one heading line.
void stack_heading(std::string& out, const Painter& p, const Report& r, const char* title,
                   std::initializer_list<std::string_view> ids) {
  out += "\n" + p.bold(_(title)) + " ";
  for (auto id : ids) {
    if (const auto* s = find_status(r, id)) {
      out += " [" + std::string(id) + " " + p.state(s->state) + "]";
    }
  }
  out += "\n";
}

std::string yes_no_unknown(const std::optional<bool>& v, const std::string& yes, const std::string& no) {
  if (!v) return "?";
  return *v ? yes : no;
}

// A GPU's mode (persistence, ECC, MIG) in the GPU table.
std::string on_off(const std::optional<bool>& v) {
  // TRANSLATORS: a GPU mode that is on / off (GPU table: persistence, ECC, MIG).
  return yes_no_unknown(v, C_("mode", "on"), C_("mode", "off"));
}

// A kernel module in /proc/modules: loaded, or "-".
std::string loaded(const std::optional<bool>& v) { return yes_no_unknown(v, _("loaded"), "-"); }

std::string pcie(const std::optional<int>& gen, const std::optional<int>& width) {
  if (!gen && !width) return "?";
  return fmt::format("gen{} x{}", gen ? std::to_string(*gen) : "?", width ? std::to_string(*width) : "?");
}

// The driver's version and kernel module, or why there is none.
std::string driver_text(const inventory::DriverInfo& drv) {
  std::string driver;
  if (drv.version) {
    driver = *drv.version;
    // TRANSLATORS: {} is the module's flavour as the driver names it ("proprietary", "open").
    if (drv.kernel_module_flavor) driver += trf(" ({} kernel module)", module_flavor(*drv.kernel_module_flavor));
    if (drv.kernel_module_version && drv.kernel_module_version != drv.version) {
      driver += trf(", kernel module {}", *drv.kernel_module_version);
    }
  } else if (drv.loaded == false) {
    driver = _("not loaded (no NVIDIA kernel module)");
  } else {
    driver = unknown();
  }
  return driver;
}

// NVML's state, why (its detail or the probe's status), and how long nvmlInit took.
std::string nvml_text(const Report& r) {
  const auto& drv = r.inventory.driver;
  std::string detail = stored_text(drv.nvml.detail, drv.nvml.detail_message);
  if (detail.empty()) {
    // The probe did not finish (its deadline passed while nvmlInit ran):
    // its status says so; the model still says "not_tried".
    if (const auto* s = find_status(r, "nvml"); s != nullptr) detail = status_detail(*s);
  }
  std::string nvml = nvml_state(drv.nvml.state);
  if (!detail.empty()) nvml = trf("{0}: {1}", nvml, detail);
  if (drv.nvml.init_seconds) nvml += trf(" (nvmlInit took {})", core::format_seconds(*drv.nvml.init_seconds));
  return nvml;
}

// The driver, the CUDA it supports, NVML, the modules loaded and the device nodes.
void render_driver_fields(std::string& out, const Painter& p, const Report& r) {
  const auto& drv = r.inventory.driver;
  field(out, p, N_("Driver"), driver_text(drv));
  // TRANSLATORS: the newest CUDA version the driver supports.
  field(out, p, N_("CUDA (driver)"), drv.cuda_version ? trf("up to {}", *drv.cuda_version) : unknown());
  field(out, p, N_("NVML"), nvml_text(r));
  if (drv.module_nvidia || drv.module_nouveau) {
    field(out, p, N_("Modules"),
          trf("nvidia {0}, nvidia_uvm {1}, nvidia_drm {2}, nouveau {3}", loaded(drv.module_nvidia),
              loaded(drv.module_nvidia_uvm), loaded(drv.module_nvidia_drm), loaded(drv.module_nouveau)));
  }
  if (!drv.device_nodes.empty()) {
    std::string nodes;
    for (const auto& n : drv.device_nodes) {
      if (!nodes.empty()) nodes += " ";
      nodes += n.path + ":" + (n.readable == true ? "r" : "-") + (n.writable == true ? "w" : "-");
    }
    field(out, p, N_("Device nodes"), nodes);
  }
}

// A row per GPU: name, bus, compute capability, memory, PCIe link, modes, temperature, power.
void render_gpu_table(std::string& out, const Painter& p, const inventory::Inventory& inv) {
  core::Table t({_("gpu"), _("name"), _("bus id"), _("CC"), C_("GPU table", "memory"), _("PCIe now"), _("PCIe max"),
                 _("persist"), _("ECC"), _("MIG"), _("temp"), _("power"), _("from")});
  for (const auto& g : inv.gpus) {
    t.add_row({std::to_string(g.index), g.name.value_or(unknown()), g.pci_bus_id.value_or("?"),
               g.compute_capability.value_or("?"), bytes(g.memory_total_bytes),
               pcie(g.pcie_link_gen_current, g.pcie_link_width_current),
               pcie(g.pcie_link_gen_max, g.pcie_link_width_max), on_off(g.persistence_mode), on_off(g.ecc_mode_current),
               on_off(g.mig_mode_current), g.temperature_celsius ? fmt::format("{} C", *g.temperature_celsius) : "?",
               g.power_limit_watts ? fmt::format("{:.0f} W", *g.power_limit_watts) : "?", g.source});
  }
  out += t.render("  ", p.width);
}

// Each GPU without a working driver, and each active NVLink.
void render_gpu_links(std::string& out, const Painter& p, const inventory::Inventory& inv) {
  for (const auto& g : inv.gpus) {
    if (g.driver_problem)
      out += core::wrap_hanging("  ",
                                core::terminal_line(trf("gpu{0}: no working driver: {1}", g.index,
                                                        stored_text(*g.driver_problem, g.driver_problem_message))),
                                p.width) +
             "\n";
    for (const auto& l : g.nvlinks) {
      if (l.active == true) {
        out += fmt::format(
            "  gpu{}: NVLink {} v{} -> {} {}\n", g.index, l.link, l.version ? std::to_string(*l.version) : "?",
            core::terminal_line(l.remote_kind.value_or("?")), core::terminal_line(l.remote_pci_bus_id.value_or("?")));
      }
    }
  }
}

// The GPU pairs' topology (NVML's or nvidia-smi topo -m's).
void render_gpu_topology(std::string& out, const Painter& p, const inventory::Inventory& inv) {
  if (!inv.gpu_topology.empty()) {
    core::Table topo({_("pair"), _("link"), _("P2P read"), _("NVLink")});
    for (const auto& pair : inv.gpu_topology) {
      topo.add_row({fmt::format("gpu{}-gpu{}", pair.gpu_a, pair.gpu_b), pair.level.value_or(unknown()),
                    yes_no_unknown(pair.p2p_read, _("yes"), _("no")), yes_no_unknown(pair.nvlink, _("yes"), _("no"))});
    }
    out += "\n" + topo.render("  ", p.width);
  }
}

void render_gpu_section(std::string& out, const Painter& p, const Report& r) {
  const auto& inv = r.inventory;
  stack_heading(out, p, r, N_("GPUs and driver"), {"nvidia_driver", "nvml", "nvidia_smi_xml"});
  render_driver_fields(out, p, r);
  if (inv.gpus.empty()) {
    field(out, p, N_("GPUs"), _("none found"));
    return;
  }
  if (r.source.rfind("nvidia-smi-xml:", 0) == 0) {
    // Say why these columns are unknown rather than leave "?" unexplained.
    field(out, p, N_("Not in the XML"),
          _("compute capability, NUMA node, CPU affinity, NVLink peers, GPU pair topology"));
  }
  render_gpu_table(out, p, inv);
  render_gpu_links(out, p, inv);
  render_gpu_topology(out, p, inv);
}

void render_software_section(std::string& out, const Painter& p, const Report& r) {
  const auto& inv = r.inventory;
  stack_heading(out, p, r, N_("Software"), {"cuda_libs", "python", "containers"});
  for (const auto& tk : inv.cuda.toolkits) {
    field(out, p, N_("CUDA toolkit"),
          fmt::format("{}{}: {}{}", tk.path, tk.link_target ? " -> " + *tk.link_target : "",
                      tk.version.value_or(unknown()), tk.version_source ? " (" + *tk.version_source + ")" : ""));
  }
  if (inv.cuda.toolkits.empty()) field(out, p, N_("CUDA toolkit"), trf("none under {}", "/usr/local/cuda*"));
  bool have_libcuda = false;
  for (const auto& l : inv.cuda.libraries) have_libcuda = have_libcuda || l.family == "libcuda";
  if (!have_libcuda)
    field(out, p, N_("libcuda"), _("not found: the NVIDIA driver's user-space library is not installed"));
  if (!inv.cuda.libraries.empty()) {
    core::Table t({_("family"), _("soname"), _("version"), _("found via"), _("path")});
    for (const auto& l : inv.cuda.libraries) {
      t.add_row({l.family, l.soname + (l.resolved == true ? " *" : ""), l.version.value_or("?"), l.found_via, l.path});
    }
    out += t.render("  ", p.width);
    out += "  " + _("(* = what dlopen(soname) loads)") + "\n";
  }
  if (inv.python.environments.empty()) field(out, p, N_("Python"), _("no site-packages found"));
  if (!inv.python.environments.empty()) {
    core::Table t({_("python env"), _("kind"), _("python"), _("tensorflow"), _("built for CUDA/cuDNN"), _("keras"),
                   _("nvidia wheels")});
    for (const auto& e : inv.python.environments) {
      std::string tf = "-";
      std::string built = "-";
      if (e.tensorflow) {
        tf = e.tensorflow->distribution + " " + e.tensorflow->version;
        if (e.tensorflow->is_cuda_build == false) {
          built = _("CPU only");
        } else {
          built = e.tensorflow->built_cuda.value_or("?") + " / " + e.tensorflow->built_cudnn.value_or("?");
        }
      }
      t.add_row({e.site_packages.value_or(e.prefix), e.kind, e.python_version.value_or("?"), tf, built,
                 e.keras_version.value_or("-"), std::to_string(e.nvidia_wheels.size())});
    }
    out += "\n" + t.render("  ", p.width);
  }
  const auto& c = inv.containers;
  auto present = [](const std::optional<std::string>& v) { return v ? *v : std::string("-"); };
  field(out, p, N_("Docker"),
        present(c.docker_binary) + (c.podman_binary ? _(", ") + "podman " + *c.podman_binary : ""));
  std::string runtimes;
  for (const auto& rt : c.docker_runtimes) runtimes += (runtimes.empty() ? "" : ", ") + rt;
  field(out, p, N_("Runtimes"),
        c.docker_daemon_json_present == true
            ? trf("[{0}], default {1}", runtimes, c.docker_default_runtime.value_or("runc"))
            : trf("no {}", "/etc/docker/daemon.json"));
  field(out, p, N_("NVIDIA toolkit"),
        trf("nvidia-ctk {0}, nvidia-container-runtime {1}, libnvidia-container {2}", present(c.nvidia_ctk),
            present(c.nvidia_container_runtime), present(c.libnvidia_container)));
  if (!c.cdi_specs.empty()) {
    std::string specs;
    for (const auto& s : c.cdi_specs) specs += (specs.empty() ? "" : ", ") + s;
    field(out, p, N_("CDI specs"), specs);
  }
  if (c.inside_container == true) {
    field(out, p, N_("In container"), trf("yes; NVIDIA_VISIBLE_DEVICES={}", c.visible_devices.value_or(_("(unset)"))));
  }
}

// What the machine is: OS, kernel, and whether it is virtual, a container or WSL.
void render_host_section(std::string& out, const Painter& p, const Report& r) {
  const auto& inv = r.inventory;
  heading(out, p, r, N_("Host"), "host");
  field(out, p, N_("OS"), or_unknown(inv.host.os_pretty_name.has_value() ? inv.host.os_pretty_name : inv.host.os_name));
  field(out, p, N_("Kernel"), or_unknown(inv.host.kernel_release));
  field(out, p, N_("Architecture"), or_unknown(inv.host.architecture));
  field(out, p, N_("Virtualization"), or_unknown(inv.host.virtualization));
  field(out, p, N_("Container"), or_unknown(inv.host.container));
  field(out, p, N_("WSL"), or_unknown(inv.host.wsl));
}

// The CPU: model, topology, the instruction sets TensorFlow builds use, clocks, NUMA.
void render_cpu_section(std::string& out, const Painter& p, const Report& r) {
  const auto& inv = r.inventory;
  heading(out, p, r, N_("CPU"), "cpu");
  const auto& cpu = inv.cpu;
  field(out, p, N_("Model"), or_unknown(cpu.model_name));
  auto count = [](const std::optional<int>& v) { return static_cast<uint64_t>(*v); };
  const std::string sockets =
      cpu.sockets ? trnf("{} socket", "{} sockets", count(cpu.sockets), *cpu.sockets) : _("unknown sockets");
  const std::string cores = cpu.physical_cores
                                ? trnf("{} core", "{} cores", count(cpu.physical_cores), *cpu.physical_cores)
                                : _("unknown cores");
  const std::string threads =
      cpu.threads ? trnf("{} thread", "{} threads", count(cpu.threads), *cpu.threads) : _("unknown threads");
  field(out, p, N_("Topology"), trf("{0}, {1}, {2}", sockets, cores, threads));
  std::string flags;
  auto flag = [&flags](const char* name, const std::optional<bool>& v) {
    if (!flags.empty()) flags += "  ";
    flags += name;
    flags += v ? (*v ? "+" : "-") : "?";
  };
  flag("avx", cpu.flags.avx);
  flag("avx2", cpu.flags.avx2);
  flag("fma", cpu.flags.fma);
  flag("avx512f", cpu.flags.avx512f);
  flag("amx", cpu.flags.amx);
  field(out, p, N_("Flags"), flags);
  // TRANSLATORS: the CPU's base and maximum clock.
  field(out, p, N_("Clocks"), trf("base {0}, max {1}", mhz(cpu.base_mhz), mhz(cpu.max_mhz)));
  field(out, p, N_("Governor"), or_unknown(cpu.governor));
  if (!cpu.numa_nodes.empty()) {
    core::Table t({_("NUMA node"), _("CPUs"), _("memory")});
    for (const auto& n : cpu.numa_nodes)
      t.add_row({std::to_string(n.id), cpu_ranges(n.cpus), bytes(n.memory_total_bytes)});
    out += t.render("  ", p.width);
  }
}

// Memory and the kernel settings that decide how it is paged.
void render_memory_section(std::string& out, const Painter& p, const Report& r) {
  const auto& inv = r.inventory;
  heading(out, p, r, N_("Memory"), "memory");
  const auto& mem = inv.memory;
  field(out, p, N_("Total"), bytes(mem.total_bytes));
  field(out, p, N_("Available"), bytes(mem.available_bytes));
  field(out, p, N_("Swap"),
        mem.swap_total_bytes ? trf("{0} ({1} used)", bytes(mem.swap_total_bytes), bytes(mem.swap_used_bytes))
                             : unknown());
  field(out, p, N_("Swappiness"), or_unknown(mem.swappiness));
  // TRANSLATORS: the kernel's settings (/sys/kernel/mm/transparent_hugepage/enabled and defrag): always, madvise, never.
  field(out, p, N_("Transparent HP"),
        trf("enabled {0}, defrag {1}", or_unknown(mem.thp_enabled), or_unknown(mem.thp_defrag)));
  field(out, p, N_("Hugepages"),
        mem.hugepages_total ? fmt::format("{} x {}", *mem.hugepages_total, bytes(mem.hugepage_size_bytes)) : unknown());
}

// Disks, the mounts that hold data, and where the data paths live.
void render_storage_section(std::string& out, const Painter& p, const Report& r) {
  const auto& inv = r.inventory;
  heading(out, p, r, N_("Storage"), "storage");
  const auto& st = inv.storage;
  if (!st.devices.empty()) {
    core::Table t({_("device"), _("kind"), _("transport"), _("size"), _("model")});
    for (const auto& d : st.devices) {
      // Unused loop/zram devices (size 0) are noise on the terminal; JSON has them.
      if (d.kind == "virtual" && d.size_bytes == 0) continue;
      t.add_row({d.name, disk_kind(d.kind), or_unknown(d.transport),
                 d.size_bytes ? core::format_bytes_decimal(*d.size_bytes) : unknown(), d.model.value_or("")});
    }
    out += t.render("  ", p.width);
  }
  {
    // Only mounts that hold data: skip the kernel's pseudo filesystems.
    core::Table t({_("mount"), _("fs"), _("device"), _("disk")});
    for (const auto& m : st.mounts) {
      if (!m.block_device && !m.network) continue;
      t.add_row({m.mount_point, m.network ? trf("{} (network)", m.fs_type) : m.fs_type, m.device,
                 m.block_device.value_or("-")});
    }
    if (!t.empty()) out += "\n" + t.render("  ", p.width);
  }
  for (const auto& dp : st.data_paths) {
    if (dp.error) {
      field(out, p, N_("Data path"), dp.path + ": " + stored_text(*dp.error, dp.error_message));
    } else {
      // TRANSLATORS: {0} a data path, {1} its mount point, {2} the filesystem, {3} the disk, {4} its kind (SSD, HDD...).
      field(out, p, N_("Data path"),
            dp.network ? trf("{0} on {1} ({2}, network), disk {3} ({4})", dp.path, or_unknown(dp.mount_point),
                             or_unknown(dp.fs_type), or_unknown(dp.block_device), disk_kind(dp.device_kind))
                       : trf("{0} on {1} ({2}), disk {3} ({4})", dp.path, or_unknown(dp.mount_point),
                             or_unknown(dp.fs_type), or_unknown(dp.block_device), disk_kind(dp.device_kind)));
    }
  }
}

// The PCI devices that feed a GPU box.
void render_pci_section(std::string& out, const Painter& p, const Report& r) {
  const auto& inv = r.inventory;
  heading(out, p, r, N_("PCI and GPUs"), "pci");
  int shown = 0;
  core::Table t({_("address"), _("class"), _("vendor:device"), _("driver"), _("NUMA"), _("link now"), _("link max")});
  for (const auto& d : inv.pci.devices) {
    // The full list is in the JSON; the terminal shows what feeds a GPU box:
    // GPUs, storage, network and accelerators.
    uint32_t base = d.class_code ? (*d.class_code >> 16) : 0xff;
    const uint32_t sub = d.class_code ? ((*d.class_code >> 8) & 0xff) : 0xff;
    const bool infiniband = base == 0x0c && sub == 0x06;
    if (!(d.is_gpu || base == 0x01 || base == 0x02 || base == 0x03 || base == 0x0b || base == 0x12 || infiniband))
      continue;
    ++shown;
    t.add_row({d.address,
               d.is_gpu       ? trf("GPU ({})", d.class_name ? pci_class(*d.class_name) : _("display"))
                     : d.class_name ? pci_class(*d.class_name)
                              : unknown(),
               fmt::format("{}:{}", d.vendor_id ? fmt::format("{:04x}", *d.vendor_id) : "?",
                           d.device_id ? fmt::format("{:04x}", *d.device_id) : "?") +
                   (d.vendor_name ? " " + *d.vendor_name : ""),
               d.driver.value_or(_("none")), or_unknown(d.numa_node),
               link(d.link_speed_current_gts, d.link_width_current), link(d.link_speed_max_gts, d.link_width_max)});
  }
  int gpus = 0;
  for (const auto& d : inv.pci.devices) gpus += d.is_gpu ? 1 : 0;
  field(out, p, N_("Devices"),
        shown ? trf("{0} PCI devices, {1} NVIDIA GPUs; storage, network, display and accelerators:",
                    inv.pci.devices.size(), gpus)
              : trf("{0} PCI devices, {1} NVIDIA GPUs", inv.pci.devices.size(), gpus));
  if (shown) out += t.render("  ", p.width);
}

// The resource limits that bite training jobs (open files, locked memory).
void render_limits_section(std::string& out, const Painter& p, const Report& r) {
  const auto& inv = r.inventory;
  heading(out, p, r, N_("Limits"), "limits");
  const auto& lim = inv.limits;
  // TRANSLATORS: a resource limit's soft and hard values (ulimit -Sn / -Hn).
  field(out, p, N_("Open files"), trf("soft {0}, hard {1}", limit(lim.nofile.soft), limit(lim.nofile.hard)));
  field(out, p, N_("Locked memory"),
        trf("soft {0}, hard {1}",
            lim.memlock.soft && *lim.memlock.soft != inventory::Limit::kUnlimited
                ? core::format_bytes_binary(*lim.memlock.soft)
                : limit(lim.memlock.soft),
            lim.memlock.hard && *lim.memlock.hard != inventory::Limit::kUnlimited
                ? core::format_bytes_binary(*lim.memlock.hard)
                : limit(lim.memlock.hard)));
  for (const auto& e : lim.configured) {
    if (e.item != "nofile" && e.item != "memlock") continue;
    field(out, p, N_("limits.conf"),
          fmt::format("{} {} {} {}  ({}:{})", e.domain, e.type, e.item, e.value, e.file, e.line));
  }
}

// What each probe did, and (on request) what it could not read.
void render_probes_section(std::string& out, const Painter& p, const Report& r, bool show_problems) {
  out += "\n" + p.bold(_("Probes")) + "\n";
  core::Table t({_("probe"), _("state"), _("time"), _("detail")});
  for (const auto& s : r.probes) {
    // The time padded to a fixed 10 columns ("999.9 毫秒" is the widest a
    // probe shows): where the detail column starts, and so how it folds,
    // does not depend on how long the probes took.
    t.add_row({s.id, p.state(s.state), core::pad_right(core::format_seconds(s.seconds), 10), status_detail(s)});
  }
  out += t.render("  ", p.width);
  if (show_problems) {
    for (const auto& s : r.probes) {
      for (size_t i = 0; i < s.problems.size(); ++i)
        out +=
            core::wrap_hanging("  ", core::terminal_line(fmt::format("{}: {}", s.id, status_problem(s, i))), p.width) +
            "\n";
    }
  }
}

}  // namespace

// The header and findings, then one section per subsystem in a fixed order.
// Values from the inventory are foreign bytes (a snapshot, a capture): each
// line-shaped value goes through core::terminal_line (tables and fields do it
// themselves), and the whole text through core::terminal_text last.
std::string render_text(const Report& r, const TextOptions& options) {
  const Painter p{options.color, options.width};
  std::string out;
  out += p.bold("tfrig doctor") + core::terminal_line(fmt::format(" {} - {}", r.tool_version,
                                                                  r.source == "live" ? _("this machine") : r.source));
  if (r.root != "/" && !r.root.empty()) out += core::terminal_line(trf(" (root {})", r.root));
  out += "\n";
  if (r.evaluated) out += render_findings_text(r, options.color, options.width);
  out += render_sections_text(r, options);
  return core::terminal_text(out, options.color);
}

std::string render_sections_text(const Report& r, const TextOptions& options) {
  const Painter p{options.color, options.width};
  std::string out;
  render_host_section(out, p, r);
  render_cpu_section(out, p, r);
  render_memory_section(out, p, r);
  render_storage_section(out, p, r);
  render_pci_section(out, p, r);
  render_gpu_section(out, p, r);
  render_software_section(out, p, r);
  render_limits_section(out, p, r);
  render_probes_section(out, p, r, options.show_problems);
  return out;
}

}  // namespace tfrig::report
