#include "plan/plan.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/terminal_text.h"
#include "core/text.h"
#include "core/units.h"
#include "knowledge/knowledge.h"

namespace tfrig::plan {

PlanResult make_plan(const Workload& w, std::span<const GpuCandidate> gpus, RankBy rank_by, const DataOptions& data,
                     const ThroughputModel* model) {
  PlanResult r;
  r.workload = w;
  // An extreme calibration factor (plan/calibrate.h): the plan's notes warn.
  if (model != nullptr && model->user && !model->user->warning.empty())
    r.workload.notes.push_back(model->user->warning);
  // Keras 3 (TensorFlow 2.16 and later) compiles model.fit's step with XLA
  // by default on a GPU machine, except under a tf.distribute strategy or for
  // a layer that does not support it (jit_compile="auto":
  // keras/src/trainers/trainer.py _resolve_auto_jit_compile). The plan stays
  // on the safe side, without XLA, unless --xla says the run uses it.
  if (!w.xla && w.gpus <= 1) {
    r.workload.notes.push_back(core::Message(
        N_("without XLA (the safe side): Keras 3 (TensorFlow 2.16+) compiles model.fit with XLA on one GPU unless "
           "jit_compile=False; if your run does, --xla gives its memory and speed")));
  }
  r.rank_by = rank_by;
  const uint64_t n = static_cast<uint64_t>(std::max(1, w.gpus));
  r.batch_per_gpu = (std::max<uint64_t>(1, w.batch) + n - 1) / n;
  r.memory = estimate_memory(w, r.batch_per_gpu);
  r.gpus = rank_gpus(w, gpus, rank_by, model);
  for (const GpuChoice& c : r.gpus) {
    if (c.fits && c.per_gpu) {
      r.server = balance_server(w, c, data);
      break;
    }
  }
  return r;
}

namespace {

// A GPU name as the set of its words, without the vendor and brand words
// NVML prints on some drivers and not others and without a memory size
// ("80GB"), which is kept apart: "NVIDIA A100-SXM4-80GB" and the catalog's
// "NVIDIA A100 80GB SXM4" are the same. Whole words, never substrings: "A10"
// is not part of "A100", and "RTX 3060 Laptop GPU" or "A10G" is another part.
struct NameWords {
  std::vector<std::string> words;
  std::string memory;  // "80gb", or empty
};

NameWords name_words(std::string_view name) {
  NameWords out;
  for (std::string& w : knowledge::gpu_name_tokens(name)) {
    const bool memory_size = w.size() > 2 && w.ends_with("gb") && std::all_of(w.begin(), w.end() - 2, [](char c) {
                               return std::isdigit(static_cast<unsigned char>(c)) != 0;
                             });
    if (memory_size) {
      out.memory = w;
    } else {
      out.words.push_back(std::move(w));
    }
  }
  std::sort(out.words.begin(), out.words.end());
  out.words.erase(std::unique(out.words.begin(), out.words.end()), out.words.end());
  return out;
}

// The same part: the same words, and the same memory size where both names give one.
bool same_part(const NameWords& gpu, std::string_view catalog_name) {
  const NameWords c = name_words(catalog_name);
  if (gpu.words.empty() || c.words != gpu.words) return false;
  return gpu.memory.empty() || c.memory.empty() || gpu.memory == c.memory;
}

}  // namespace

GpuCandidate candidate_for(const inventory::Gpu& gpu, std::span<const GpuCandidate> catalog) {
  const GpuCandidate* best = nullptr;
  auto closer = [&gpu](const GpuCandidate* a, const GpuCandidate& b) {
    if (a == nullptr) return true;
    if (!gpu.memory_total_bytes) return false;
    const auto diff = [&](const GpuCandidate& c) {
      return c.memory_bytes > *gpu.memory_total_bytes ? c.memory_bytes - *gpu.memory_total_bytes
                                                      : *gpu.memory_total_bytes - c.memory_bytes;
    };
    return diff(b) < diff(*a);
  };
  // Several cards share a PCI id or a name (RTX 3060 8/12 GB): the memory
  // size decides (gpus.json: "disambiguate by NVML total memory").
  if (gpu.pci_device_id) {
    for (const GpuCandidate& c : catalog) {
      if (std::find(c.pci_device_ids.begin(), c.pci_device_ids.end(), *gpu.pci_device_id) != c.pci_device_ids.end() &&
          closer(best, c)) {
        best = &c;
      }
    }
  }
  if (best == nullptr && gpu.name) {
    // By name (the catalog's or one NVML prints for it); a name that names
    // no catalog part stays unknown rather than borrowing a neighbour's figures.
    const NameWords want = name_words(*gpu.name);
    for (const GpuCandidate& c : catalog) {
      const bool named =
          same_part(want, c.name) ||
          std::any_of(c.aliases.begin(), c.aliases.end(), [&](const std::string& a) { return same_part(want, a); });
      if (named && closer(best, c)) best = &c;
    }
  }
  GpuCandidate out;
  if (best != nullptr) {
    out = *best;
  } else {
    out.id = "unknown";
    out.name = gpu.name.value_or("unknown GPU");
    out.confidence = "low";
  }
  // The memory this GPU really has wins over the catalog's nominal figure.
  if (gpu.memory_total_bytes && *gpu.memory_total_bytes > 0) out.memory_bytes = *gpu.memory_total_bytes;
  return out;
}

namespace {

// One stave of the machine: what it has against what the workload needs;
// short below a ratio of 1, unknown without one.
void add_stave(MachineVerdict& v, std::string name, core::Message have, core::Message need,
               std::optional<double> ratio) {
  Stave s{std::move(name), std::move(have), std::move(need), "unknown", 0};
  if (ratio) {
    s.ratio = *ratio;
    s.verdict = *ratio >= 1.0 ? "ok" : "short";
  }
  v.staves.push_back(std::move(s));
}

// The GPU probes fill inv.gpus; without them (no driver, or an older
// snapshot) the NVIDIA display/3D controllers on the PCI bus stand in,
// matched to the catalog by device id.
std::vector<inventory::Gpu> machine_gpus(const inventory::Inventory& inv, MachineVerdict& v) {
  std::vector<inventory::Gpu> found = inv.gpus;
  if (!found.empty()) return found;
  for (const inventory::PciDevice& d : inv.pci.devices) {
    if (!d.is_gpu) continue;
    inventory::Gpu g;
    g.index = static_cast<int>(found.size());
    g.source = "pci";
    g.pci_bus_id = d.address;
    g.pci_device_id = d.device_id;
    g.pcie_link_width_current = d.link_width_current;
    found.push_back(std::move(g));
  }
  if (!found.empty())
    v.notes.push_back(core::Message(N_("GPUs taken from the PCI bus (no driver data): memory is the catalog's")));
  return found;
}

// The GPU the rest of the machine must feed: the machine's first, else the plan's best.
std::optional<GpuChoice> feeding_gpu(const MachineVerdict& v, const Workload& w, std::span<const GpuCandidate> catalog,
                                     const ThroughputModel* model) {
  if (!v.gpus.empty()) return v.gpus.front();
  for (GpuChoice& c : rank_gpus(w, catalog, RankBy::kPricePerformance, model)) {
    if (c.fits && c.per_gpu) return c;
  }
  return std::nullopt;
}

// GPU memory (the batch per GPU must fit) and the GPU count; a machine
// without a GPU gets one stave naming the GPU it needs.
void add_gpu_staves(MachineVerdict& v, const Workload& w, int have_gpus, const std::optional<GpuChoice>& feed) {
  if (v.gpus.empty()) {
    add_stave(v, "GPU", core::Message(N_("none")),
              feed ? core::verbatim(feed->gpu.name) : core::Message(N_("a GPU that fits")), 0.0);
    return;
  }
  const GpuChoice& g = v.gpus.front();
  const uint64_t per_gpu =
      (std::max<uint64_t>(1, w.batch) + static_cast<uint64_t>(have_gpus) - 1) / static_cast<uint64_t>(have_gpus);
  const MemoryBreakdown m = estimate_memory(w, per_gpu);
  // A GPU whose memory neither the inventory nor the catalog gives (an
  // unnamed device in an older snapshot) is unknown, never "0 B" short or
  // "need 0 GPUs" ok.
  const bool memory_known = g.gpu.memory_bytes > 0;
  add_stave(v, "GPU memory",
            memory_known ? core::Message(N_("{0} per GPU (largest batch {1})"),
                                         core::format_bytes_binary(g.gpu.memory_bytes), g.max_batch_per_gpu)
                         : core::Message(N_("unknown")),
            // TRANSLATORS: {0} the memory of one replica, {1} its uncertainty, {2} the batch per GPU.
            core::Message(N_("{0} (+{1} uncertainty) for batch {2} per GPU"), core::format_bytes_binary(m.total_bytes),
                          core::format_bytes_binary(m.uncertainty_bytes), per_gpu),
            memory_known ? std::optional<double>(static_cast<double>(usable_gpu_bytes(g.gpu)) /
                                                 static_cast<double>(m.total_bytes + m.uncertainty_bytes))
                         : std::nullopt);
  const core::Message count_need = !memory_known ? core::Message(N_("unknown (GPU memory unknown)"))
                                   : g.fits      ? core::verbatim(std::to_string(g.gpus_needed))
                                                 : core::Message(N_("none (one sample does not fit one GPU)"));
  add_stave(v, "GPU count", core::verbatim(std::to_string(have_gpus)), count_need,
            memory_known && g.fits ? std::optional<double>(static_cast<double>(have_gpus) / std::max(1, g.gpus_needed))
                                   : std::nullopt);
}

// CPU cores and RAM against the server balance_server sizes for the GPUs
// the machine has (or would have).
void add_host_staves(MachineVerdict& v, const inventory::Inventory& inv, const Workload& w, const DataOptions& data,
                     const GpuChoice& feed, int have_gpus) {
  GpuChoice sized = feed;
  sized.gpus_needed = std::max(1, have_gpus);
  if (sized.per_gpu)
    sized.est_samples_per_s =
        sized.per_gpu->samples_per_s * sized.gpus_needed * scaling_efficiency(sized.gpu, sized.gpus_needed);
  const ServerPlan need = balance_server(w, sized, data);
  const std::optional<int> cores = inv.cpu.physical_cores ? inv.cpu.physical_cores
                                   : inv.cpu.threads      ? std::optional<int>(*inv.cpu.threads / 2)
                                                          : std::nullopt;
  // A GPU of unknown rate or memory leaves the CPU and RAM it needs unknown.
  const bool rate_known = need.samples_per_s > 0;
  const bool ram_need_known = need.ram_min_bytes > 0;
  add_stave(
      v, "CPU cores", cores ? core::verbatim(std::to_string(*cores)) : core::Message(N_("unknown")),
      rate_known
          ?  // TRANSLATORS: {0} cores to decode at {1} samples/s, {2} per core, {3} how that rate is known (assumed, measured (FILE)).
          core::Message(N_("{0} to decode at {1:.0f} samples/s ({2:.0f} per core, {3})"), need.cpu_cores_needed,
                        need.samples_per_s, need.per_core_rate, need.per_core_basis_text)
          : core::Message(N_("unknown (the GPU's rate is unknown)")),
      cores && rate_known ? std::optional<double>(static_cast<double>(*cores) / std::max(1, need.cpu_cores_needed))
                          : std::nullopt);
  add_stave(v, "RAM",
            inv.memory.total_bytes ? core::verbatim(core::format_bytes_binary(*inv.memory.total_bytes))
                                   : core::Message(N_("unknown")),
            ram_need_known ? core::Message(N_("{0} (2 x GPU memory)"), core::format_bytes_binary(need.ram_min_bytes))
                           : core::Message(N_("unknown (GPU memory unknown)")),
            inv.memory.total_bytes && ram_need_known
                ? std::optional<double>(static_cast<double>(*inv.memory.total_bytes) /
                                        static_cast<double>(need.ram_min_bytes))
                : std::nullopt);
}

// PCIe: x16 per GPU (docs/guide.md); the narrowest link decides.
void add_pcie_stave(MachineVerdict& v, const inventory::Inventory& inv, const std::vector<inventory::Gpu>& found) {
  std::optional<int> narrowest;
  for (const inventory::Gpu& g : found) {
    if (g.pcie_link_width_current) narrowest = std::min(narrowest.value_or(64), *g.pcie_link_width_current);
  }
  if (!narrowest) {
    for (const inventory::PciDevice& d : inv.pci.devices) {
      if (d.is_gpu && d.link_width_current) narrowest = std::min(narrowest.value_or(64), *d.link_width_current);
    }
  }
  if (!found.empty()) {
    add_stave(v, "PCIe",
              narrowest ? core::Message(N_("x{0} (narrowest GPU link)"), *narrowest) : core::Message(N_("unknown")),
              core::Message(N_("x16 per GPU")), narrowest ? std::optional<double>(*narrowest / 16.0) : std::nullopt);
  }
}

// Storage: where the data lives (--data) decides.
void add_storage_staves(MachineVerdict& v, const inventory::Inventory& inv, const DataOptions& data) {
  for (const inventory::DataPath& d : inv.storage.data_paths) {
    const std::string kind = d.device_kind.value_or(d.network ? "network" : "unknown");
    std::optional<double> ratio;
    if (kind == "nvme")
      ratio = 1.0;
    else if (kind == "hdd")
      ratio =
          0.25;  // a disk's ~100 random reads/s cannot serve small files (the configuration guide, docs/guide.md: NVMe for datasets)
    else if (kind == "ssd")
      ratio = 1.0;
    else if (d.network)
      ratio = data.storage_separate ? 1.0 : 0.5;
    // TRANSLATORS: {0} the dataset's path, {1} the kind of disk (nvme, ssd, hdd, network, unknown).
    add_stave(v, "storage", core::Message(N_("{0} on {1}"), d.path, kind),
              core::Message(N_("NVMe (docs/guide.md: TFRecord loading is sensitive to I/O latency)")), ratio);
  }
  if (inv.storage.data_paths.empty()) {
    v.notes.push_back(core::Message(
        N_("pass --data DIR to judge the disk the dataset lives on; 'tfrig bench storage' measures its rate")));
  }
}

}  // namespace

namespace {

// The reserve rule of the TensorFlow installed on the machine (memory.h):
// one release, its rule; several with different rules, the larger reserve.
// None found: today's TensorFlow, the one a plan is for.
std::optional<TfReserveRule> installed_tf_reserve(const inventory::Inventory& inv, std::string& version) {
  std::optional<TfReserveRule> rule;
  for (const inventory::PythonEnvironment& env : inv.python.environments) {
    if (!env.tensorflow || env.tensorflow->version.empty()) continue;
    const TfReserveRule r = tf_reserve_rule_of_version(env.tensorflow->version);
    if (!rule) {
      rule = r;
      version = env.tensorflow->version;
    } else if (*rule != r) {
      rule = TfReserveRule::kLargerOfBoth;
    }
  }
  return rule;
}

}  // namespace

// A machine against the workload, stave by stave: its GPUs judged, then the
// GPU memory and count, the CPU and RAM that feed them, PCIe and storage; the
// shortest stave is the one furthest below what is needed.
MachineVerdict judge_machine(const inventory::Inventory& inv, core::Message source, const Workload& w,
                             std::span<const GpuCandidate> catalog, const DataOptions& data,
                             const ThroughputModel* model) {
  MachineVerdict v;
  v.source = std::move(source);
  const std::vector<inventory::Gpu> found = machine_gpus(inv, v);
  std::string tf_version;
  const std::optional<TfReserveRule> reserve = installed_tf_reserve(inv, tf_version);
  std::vector<GpuCandidate> mine;
  for (const inventory::Gpu& g : found) {
    mine.push_back(candidate_for(g, catalog));
    if (reserve) mine.back().tf_reserve = *reserve;
  }
  if (reserve && *reserve != TfReserveRule::kByComputeCapability && !mine.empty()) {
    v.notes.push_back(core::Message(
        N_("TensorFlow {0} here keeps a share of each GPU's memory from its allocator (5% in 1.x, 6% in 2.0-2.4; "
           "a fixed 0.5-1.5 GiB from 2.5): the memory verdicts use its rule"),
        core::terminal_line(tf_version)));  // another machine's text: on one line, escapes shown
  }
  const int have_gpus = static_cast<int>(mine.size());
  Workload here = w;
  here.gpus = std::max(1, have_gpus);
  for (const GpuCandidate& c : mine) v.gpus.push_back(judge_gpu(here, c, catalog, model));

  if (mine.empty()) {
    v.notes.push_back(core::Message(
        N_("no NVIDIA GPU in this inventory: the staves below are judged for the top-ranked GPU of the plan")));
  }
  const std::optional<GpuChoice> feed = feeding_gpu(v, w, catalog, model);
  add_gpu_staves(v, w, have_gpus, feed);
  if (feed) add_host_staves(v, inv, w, data, *feed, have_gpus);
  add_pcie_stave(v, inv, found);
  add_storage_staves(v, inv, data);

  double lowest = 1.0;
  for (const Stave& s : v.staves) {
    if (s.verdict == "short" && s.ratio < lowest) {
      lowest = s.ratio;
      v.shortest = s.name;
    }
  }
  return v;
}

}  // namespace tfrig::plan
