#include "fleet/facts.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/units.h"
#include "knowledge/pcie.h"

namespace tfrig::fleet {

namespace {

// MemTotal is the installed RAM less what firmware and the kernel keep
// (proc(5), /proc/meminfo: "Total usable RAM (i.e., physical RAM minus a few
// reserved bits and the kernel binary code)"), so two nodes with the same
// DIMMs differ slightly: two real 128 GiB machines in tests/data
// (nvidia-bug-report pavana27__rtx-bug-report, mikhail99__PaperAntXGradio)
// read 131725808 and 131078716 kB, 0.5% apart. 2% keeps such nodes together
// and still tells 128 from 96 or 120 GiB (a missing 8 GiB DIMM is 6%).
constexpr double kRamTolerance = 0.02;

const std::vector<FactKind> kKinds = {
    {"os.release", N_("operating system"), N_("reinstall or upgrade the node to {expected}, as on the other nodes"), 0},
    {"os.kernel", N_("kernel"),
     N_("install kernel {expected} and make it the default boot entry, so the NVIDIA module "
        "is built for the same kernel as on the other nodes"),
     0},
    {"driver.version", N_("NVIDIA driver"),
     N_("install NVIDIA driver {expected} (the same branch and packages as the "
        "other nodes), then reboot"),
     0},
    {"driver.cuda_version", N_("CUDA version the driver supports"),
     N_("comes with the driver: install the driver the other nodes run (supports CUDA {expected})"), 0},
    {"cuda.library", N_("CUDA library the loader resolves"),
     N_("make the loader find {scope} {expected} as on the other nodes: install that version, or remove the copy "
        "that shadows it (`ldconfig -p | grep {scope}`, LD_LIBRARY_PATH, pip wheels under site-packages/nvidia)"),
     0},
    {"tf.environments", N_("Python environments with TensorFlow"),
     N_("make TensorFlow's environments match the other nodes' ({expected}): install it there, or remove the stray one"),
     0},
    {"python.tensorflow", N_("TensorFlow in a Python environment"),
     N_("`{scope}/bin/pip install {expected}` (the version the other nodes run)"), 0},
    {"python.version", N_("Python version of an environment"),
     N_("recreate {scope} with Python {expected}, as on the other nodes"), 0},
    {"gpu.count", N_("number of GPUs"),
     N_("a GPU is missing or extra ({expected} expected): check `nvidia-smi -L`, `lspci -d 10de:` and the kernel log "
        "for Xid 79 (fallen off the bus); reseat or replace the card"),
     0},
    {"gpu.model", N_("GPU model"), N_("the node has a different GPU ({expected} expected): check its hardware record"),
     0},
    {"gpu.memory", N_("GPU memory"),
     N_("a different GPU or MIG/ECC setting ({expected} expected): check "
        "`nvidia-smi -q -d MEMORY,ECC`"),
     0},
    {"gpu.pcie_link", N_("GPU PCIe link (generation the slot allows, width in use)"),
     N_("reseat {scope} or move it to an x16 slot of the generation the other nodes use ({expected}); check the BIOS "
        "PCIe speed setting and riser cables"),
     0},
    {"gpu.nvlink", N_("GPU pairs joined by NVLink"),
     N_("check the NVLink bridges or NVSwitch and the fabric manager (`nvidia-smi nvlink --status`); the other nodes "
        "have {expected}"),
     0},
    {"cpu.model", N_("CPU model"), N_("the node has a different CPU ({expected} expected): check its hardware record"),
     0},
    {"cpu.numa", N_("NUMA layout"),
     N_("match the BIOS NUMA settings (NPS, sub-NUMA clustering, node interleaving) of the other nodes: {expected}"),
     0},
    {"memory.total", N_("RAM"),
     N_("RAM differs from the other nodes' ({expected}): a DIMM missing or disabled, or another machine type; check "
        "`dmidecode -t memory` and the EDAC counters"),
     kRamTolerance},
    {"memory.swap", N_("swap"), N_("match the other nodes (swap {expected}): `swapoff -a` and the fstab entry"), 0},
    {"limits.nofile", N_("open-files limit (soft / hard)"),
     N_("set nofile to {expected} in /etc/security/limits.d/ as on the other nodes, then log in again"), 0},
    {"limits.memlock", N_("locked-memory limit (soft / hard)"),
     N_("set memlock to {expected} in /etc/security/limits.d/ as on the other nodes, then log in again"), 0},
    {"cpu.governor", N_("CPU frequency governor"),
     N_("`cpupower frequency-set -g {expected}` (and make it persistent)"), 0},
    {"container.toolkit", N_("NVIDIA Container Toolkit"),
     N_("make the container setup match the other nodes ({expected}): install nvidia-container-toolkit and run "
        "`nvidia-ctk runtime configure --runtime=docker`"),
     0},
};

core::Message limit_text(const inventory::Limit& l) {
  auto one = [](const std::optional<uint64_t>& v) -> core::MessageArg {
    if (!v) return "?";
    if (*v == inventory::Limit::kUnlimited) return core::Message::in_context(NC_("fleet value", "unlimited"));
    return std::to_string(*v);
  };
  return core::Message("{0} / {1}", one(l.soft), one(l.hard));  // not a catalog pattern: its words are
}

core::Message fleet_word(std::pair<const char*, const char*> context_and_word) {
  return core::Message::in_context(context_and_word);
}

// "0-3,8,10-11" from a sorted CPU list.
std::string cpu_ranges(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += j == i ? std::to_string(cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out;
}

// PCIe generation from the per-lane rate (PCI-SIG: 2.5, 5, 8, 16, 32, 64 GT/s).
std::optional<int> generation_of(double gts) {
  for (int gen = 1; gen <= 6; ++gen) {
    auto rate = knowledge::pcie_transfer_rate_gts(gen);
    if (rate && gts > *rate * 0.9 && gts < *rate * 1.1) return gen;
  }
  return std::nullopt;
}

bool probe_ran(const report::Report& r, std::string_view id) {
  if (r.probes.empty()) return true;  // hand-made or imported: every section counts
  for (const auto& p : r.probes) {
    if (p.id == id) return p.state == probe::State::kOk || p.state == probe::State::kAbsent;
  }
  return false;
}

class Collector {
 public:
  void add(std::string kind, std::string scope, std::string value, std::optional<double> number = std::nullopt) {
    facts_.push_back(Fact{std::move(kind), std::move(scope), std::move(value), number});
  }
  // A value with words: English to compare, the message to show.
  void add(std::string kind, std::string scope, core::Message value) {
    std::string english = core::english(value);
    facts_.push_back(Fact{std::move(kind), std::move(scope), std::move(english), std::nullopt,
                          std::make_shared<const core::Message>(std::move(value))});
  }
  template <class T>
  void add_opt(std::string kind, const std::optional<T>& v) {
    if (v && !v->empty()) add(std::move(kind), "", *v);
  }
  // Sorted by id. Each id is built once (not twice per comparison: that was
  // about 5% of fleet's time); sorting the positions by the same comparisons
  // gives the order sorting the facts did.
  std::vector<Fact> take() {
    std::vector<std::string> ids;
    ids.reserve(facts_.size());
    for (const auto& f : facts_) ids.push_back(f.id());
    std::vector<size_t> order(facts_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ids[a] < ids[b]; });
    std::vector<Fact> sorted;
    sorted.reserve(facts_.size());
    for (size_t i : order) sorted.push_back(std::move(facts_[i]));
    return sorted;
  }

 private:
  std::vector<Fact> facts_;
};

void host_facts(const report::Report& r, Collector& c) {
  const auto& h = r.inventory.host;
  if (h.os_pretty_name) {
    c.add("os.release", "", *h.os_pretty_name);
  } else if (h.os_id) {
    c.add("os.release", "", *h.os_id + (h.os_version_id ? " " + *h.os_version_id : ""));
  }
  c.add_opt("os.kernel", h.kernel_release);
  const auto& cpu = r.inventory.cpu;
  c.add_opt("cpu.model", cpu.model_name);
  c.add_opt("cpu.governor", cpu.governor);
  if (!cpu.numa_nodes.empty()) {
    const core::Message count =
        // TRANSLATORS: starts the NUMA layout value ("2 nodes: 0=0-15 1=16-31"); NUMA nodes, not fleet nodes.
        core::Message::plural(NP_("{} node:", "{} nodes:"), cpu.numa_nodes.size(), cpu.numa_nodes.size());
    std::string v;
    for (const auto& n : cpu.numa_nodes) v += fmt::format(" {}={}", n.id, cpu_ranges(n.cpus));
    c.add("cpu.numa", "", core::Message("{0}{1}", count, v));
  }
  const auto& m = r.inventory.memory;
  if (m.total_bytes)
    c.add("memory.total", "", core::format_bytes_binary(*m.total_bytes), static_cast<double>(*m.total_bytes));
  if (m.swap_total_bytes) {
    c.add("memory.swap", "",
          fleet_word(*m.swap_total_bytes == 0 ? NC_("fleet value", "off") : NC_("fleet value", "on")));
  }
  const auto& l = r.inventory.limits;
  if (l.nofile.soft || l.nofile.hard) c.add("limits.nofile", "", limit_text(l.nofile));
  if (l.memlock.soft || l.memlock.hard) c.add("limits.memlock", "", limit_text(l.memlock));
}

void driver_facts(const report::Report& r, Collector& c) {
  const auto& d = r.inventory.driver;
  c.add_opt("driver.version", d.version ? d.version : d.kernel_module_version);
  c.add_opt("driver.cuda_version", d.cuda_version);
  // The libraries the loader resolves, one per family. libcuda and NVML come
  // with the driver and follow driver.version, so they are not repeated.
  std::map<std::string, std::string> chosen;
  std::map<std::string, bool> chosen_resolved;
  for (const auto& lib : r.inventory.cuda.libraries) {
    if (lib.family == "libcuda" || lib.family == "nvml") continue;
    const bool resolved = lib.resolved.value_or(false);
    // Older snapshots lack `resolved`: then the first listed (the loader's
    // search order) stands for the family.
    auto it = chosen.find(lib.family);
    if (it != chosen.end() && (chosen_resolved[lib.family] || !resolved)) continue;
    chosen[lib.family] = lib.version ? *lib.version : lib.soname;
    chosen_resolved[lib.family] = resolved;
  }
  for (auto& [family, version] : chosen) c.add("cuda.library", family, version);
}

void python_facts(const report::Report& r, Collector& c) {
  if (!probe_ran(r, "python")) return;
  std::vector<std::string> with_tf;
  for (const auto& env : r.inventory.python.environments) {
    if (env.python_version) c.add("python.version", env.prefix, *env.python_version);
    if (env.tensorflow) {
      with_tf.push_back(env.prefix);
      c.add("python.tensorflow", env.prefix, env.tensorflow->distribution + "==" + env.tensorflow->version);
    }
  }
  std::sort(with_tf.begin(), with_tf.end());
  std::string v;
  for (const auto& p : with_tf) v += (v.empty() ? "" : ", ") + p;
  if (v.empty()) {
    c.add("tf.environments", "", fleet_word(NC_("fleet value", "none")));
  } else {
    c.add("tf.environments", "", v);
  }
}

void gpu_facts(const report::Report& r, Collector& c) {
  const auto& inv = r.inventory;
  // The count: NVML's (or the importer's) GPUs, else the NVIDIA devices on
  // the PCI bus, which a GPU without a working driver still shows.
  size_t pci_gpus = 0;
  for (const auto& d : inv.pci.devices) pci_gpus += d.is_gpu ? 1 : 0;
  if (!inv.gpus.empty()) {
    size_t working = 0;
    for (const auto& g : inv.gpus) working += g.lost.value_or(false) ? 0 : 1;
    c.add("gpu.count", "", std::to_string(working));
  } else if (probe_ran(r, "pci") && (!inv.pci.devices.empty() || probe_ran(r, "nvml"))) {
    c.add("gpu.count", "", std::to_string(pci_gpus));
  }
  for (const auto& g : inv.gpus) {
    if (g.lost.value_or(false)) continue;
    const std::string scope = "gpu" + std::to_string(g.index);
    if (g.name) c.add("gpu.model", scope, *g.name);
    if (g.memory_total_bytes) c.add("gpu.memory", scope, core::format_bytes_binary(*g.memory_total_bytes));
    // The generation the link can reach (NVML's max is min(GPU, slot)) and
    // the width in use: an idle GPU lowers its current generation to save
    // power (NVML docs, nvmlDeviceGetCurrPcieLinkGeneration), its width not.
    std::optional<int> gen = g.pcie_link_gen_max;
    std::optional<int> width = g.pcie_link_width_current;
    if ((!gen || !width) && g.pci_bus_id) {
      for (const auto& d : inv.pci.devices) {
        if (d.address != *g.pci_bus_id) continue;
        if (!gen && d.link_speed_max_gts) gen = generation_of(*d.link_speed_max_gts);
        if (!width) width = d.link_width_current;
      }
    }
    if (gen && width) c.add("gpu.pcie_link", scope, fmt::format("gen{} x{}", *gen, *width));
  }
  if (!inv.gpu_topology.empty()) {
    std::vector<std::string> pairs;
    for (const auto& p : inv.gpu_topology) {
      if (p.nvlink.value_or(false)) pairs.push_back(fmt::format("{}-{}", p.gpu_a, p.gpu_b));
    }
    std::string v;
    for (const auto& p : pairs) v += (v.empty() ? "" : " ") + p;
    if (v.empty()) {
      c.add("gpu.nvlink", "", fleet_word(NC_("fleet value", "none")));
    } else {
      c.add("gpu.nvlink", "", v);
    }
  }
}

void container_facts(const report::Report& r, Collector& c) {
  if (!probe_ran(r, "containers")) return;
  const auto& k = r.inventory.containers;
  // The probe leaves a tool it did not find null, so null here means absent.
  const bool toolkit = k.nvidia_ctk || k.nvidia_container_runtime || k.nvidia_container_cli;
  const bool docker_nvidia =
      std::find(k.docker_runtimes.begin(), k.docker_runtimes.end(), "nvidia") != k.docker_runtimes.end();
  core::Message v = fleet_word(toolkit ? NC_("fleet value", "installed") : NC_("fleet value", "not installed"));
  // "{0}, {1}" is not a catalog pattern: the parts are.
  if (docker_nvidia) v = core::Message("{0}, {1}", v, core::Message(N_("docker runtime {}"), "nvidia"));
  if (k.docker_default_runtime)
    v = core::Message("{0}, {1}", v, core::Message(N_("docker default {}"), *k.docker_default_runtime));
  c.add("container.toolkit", "", std::move(v));
}

}  // namespace

const std::vector<FactKind>& fact_kinds() { return kKinds; }

const FactKind* find_fact_kind(std::string_view id) {
  for (const auto& k : kKinds) {
    if (k.id == id) return &k;
  }
  return nullptr;
}

std::vector<Fact> extract_facts(const report::Report& report) {
  Collector c;
  host_facts(report, c);
  driver_facts(report, c);
  python_facts(report, c);
  gpu_facts(report, c);
  container_facts(report, c);
  return c.take();
}

std::string fact_value_in(const std::string& value, const std::shared_ptr<const core::Message>& message,
                          std::string_view language) {
  return message ? core::render(*message, language) : value;
}

std::string fact_fix(const FactKind& kind, const std::string& scope, const std::string& expected,
                     std::string_view language) {
  // The catalog of that language, looked up directly: its {expected} and {scope} are named, not a core::Message's fields.
  const core::i18n::Catalog* catalog = core::i18n::embedded_catalog(language);
  const auto translated = catalog != nullptr ? catalog->find(kind.fix) : std::nullopt;
  std::string out(translated ? *translated : kind.fix);
  for (auto [key, value] : {std::pair<std::string_view, const std::string&>{"{expected}", expected},
                            std::pair<std::string_view, const std::string&>{"{scope}", scope}}) {
    for (size_t at = out.find(key); at != std::string::npos; at = out.find(key, at + value.size())) {
      out.replace(at, key.size(), value);
    }
  }
  return out;
}

}  // namespace tfrig::fleet
