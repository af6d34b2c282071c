#include "rules/util.h"

#include <algorithm>

#include "core/i18n.h"
#include "core/text.h"
#include "core/units.h"

namespace tfrig::rules::util {

using core::Version;

const std::vector<inventory::Gpu>& gpus(const Context& ctx) { return ctx.inv.gpus; }

std::vector<const inventory::PciDevice*> pci_gpus(const Context& ctx) {
  std::vector<const inventory::PciDevice*> out;
  for (const auto& d : ctx.inv.pci.devices) {
    if (d.is_gpu) out.push_back(&d);
  }
  return out;
}

int gpu_count(const Context& ctx) { return static_cast<int>(std::max(ctx.inv.gpus.size(), pci_gpus(ctx).size())); }

bool gpu_unusable(const inventory::Gpu& g) {
  return g.lost == true || g.init_error.has_value() || g.driver_problem.has_value();
}

bool driver_failed(const Context& ctx) {
  const auto& s = ctx.inv.driver.nvml.state;
  return s == "driver_not_loaded" || s == "driver_mismatch" || s == "library_missing" || s == "no_device";
}

std::optional<std::string> nvidia_smi_source(const inventory::DriverInfo& d) {
  // The importer writes "nvidia-smi: <line> (<file:line (section)>)".
  if (!d.nvidia_smi_error) return std::nullopt;
  const std::string head = "nvidia-smi: " + *d.nvidia_smi_error + " (";
  const std::string& t = d.nvml.detail;
  if (t.size() <= head.size() || t.compare(0, head.size(), head) != 0 || t.back() != ')') return std::nullopt;
  return t.substr(head.size(), t.size() - head.size() - 1);
}

int usable_gpu_count(const Context& ctx) {
  if (driver_failed(ctx)) return 0;
  int unusable = 0;
  for (const auto& g : ctx.inv.gpus) unusable += gpu_unusable(g) ? 1 : 0;
  return std::max(gpu_count(ctx) - unusable, 0);
}

bool gpu_presence_known(const Context& ctx) { return !ctx.inv.pci.devices.empty() || !ctx.inv.gpus.empty(); }

core::Message no_nvml_gpus_reason(const Context& ctx) {
  return gpu_count(ctx) > 0 ? core::Message(N_("GPU details (NVML could not read the GPUs)"))
                            : core::Message(N_("an NVIDIA GPU (none found)"));
}

std::string reported_by(const inventory::Gpu& g) {
  if (g.source == "nvml") return "NVML";
  if (g.source == "nvidia-smi-xml") return "nvidia-smi -q -x (XML)";
  if (g.source == "nvidia-smi-q") return "nvidia-smi -q (text)";
  if (g.source == "nvidia-smi-csv") return "nvidia-smi --query-gpu (CSV)";
  if (g.source == "pci") return "lspci / sysfs";
  if (g.source == "proc") return "/proc/driver/nvidia/gpus";
  if (g.source == "nvidia-smi-topo") return "nvidia-smi topo -m";
  if (g.source == "nvidia-smi-header") return "nvidia-smi -q header";
  if (g.source == "nvidia-smi-nvlink") return "nvidia-smi nvlink";
  return g.source.empty() ? std::string("NVML") : g.source;
}

std::string gpu_entity(const inventory::Gpu& g) { return "gpu" + std::to_string(g.index); }

std::string gpu_label(const inventory::Gpu& g) {
  return "GPU " + std::to_string(g.index) + (g.name ? " (" + *g.name + ")" : "");
}

std::optional<knowledge::GpuMatch> gpu_catalog(const Context& ctx, const inventory::Gpu& g) {
  auto by_id = g.pci_device_id ? ctx.k.find_gpu_by_pci_id(*g.pci_device_id) : std::nullopt;
  if (g.name) {
    if (auto m = ctx.k.find_gpu(*g.name)) {
      // One marketing name, two cards ("NVIDIA GeForce RTX 4060 Ti" is 8 or
      // 16 GB): the device id decides when the name's entry does not hold it.
      const bool id_elsewhere = by_id && by_id->spec && m->spec &&
                                std::find(m->spec->pci_device_ids.begin(), m->spec->pci_device_ids.end(),
                                          *g.pci_device_id) == m->spec->pci_device_ids.end();
      return id_elsewhere ? by_id : m;
    }
  }
  return by_id;
}

std::optional<GpuCc> gpu_cc(const Context& ctx, const inventory::Gpu& g) {
  if (g.compute_capability) {
    // Where the value was read: NVML live, or the file an import read it from.
    if (auto v = Version::parse(*g.compute_capability))
      return GpuCc{*v, g.source == "nvml" || g.source.empty() ? "nvml" : reported_by(g), false};
  }
  if (auto m = gpu_catalog(ctx, g); m && m->compute_capability) {
    if (auto v = Version::parse(*m->compute_capability)) return GpuCc{*v, m->source, m->uncertain};
  }
  return std::nullopt;
}

std::optional<uint64_t> gpu_memory_bytes(const Context& ctx, const inventory::Gpu& g) {
  if (g.memory_total_bytes) return g.memory_total_bytes;
  if (auto m = gpu_catalog(ctx, g); m && m->spec && m->spec->vram_gib) {
    return static_cast<uint64_t>(*m->spec->vram_gib * static_cast<double>(core::kGiB));
  }
  return std::nullopt;
}

const inventory::PythonEnvironment* tf_env(const inventory::Inventory& inv) {
  const inventory::PythonEnvironment* cpu_only = nullptr;
  for (const auto& e : inv.python.environments) {
    if (!e.tensorflow) continue;
    // Prefer a GPU-capable install when several environments have TF.
    if (e.tensorflow->distribution == "tensorflow-cpu" || e.tensorflow->is_cuda_build == false) {
      if (!cpu_only) cpu_only = &e;
      continue;
    }
    return &e;
  }
  return cpu_only;
}

namespace {

// Rank in the loader's order; -1: not a place dlopen searches.
int loader_rank(const Context& ctx, const inventory::CudaLibrary& lib) {
  if (lib.found_via == "LD_LIBRARY_PATH") return 0;
  if (core::starts_with(lib.found_via, "pip_wheel:")) {
    // Only TF's own environment is on its RUNPATH (TF >= 2.14).
    static const Version k214 = *Version::parse("2.14");
    if (ctx.target.tf < k214) return -1;
    const std::string prefix = lib.found_via.substr(std::string("pip_wheel:").size());
    if (ctx.target.env && ctx.target.env->prefix != prefix) return -1;
    return 1;
  }
  if (lib.found_via == "ld.so.cache") return 2;
  if (lib.found_via == "default_dir") return 3;
  return -1;
}

}  // namespace

bool loader_searched(const Context& ctx, const inventory::CudaLibrary& lib) { return loader_rank(ctx, lib) >= 0; }

const inventory::CudaLibrary* would_load(const Context& ctx, const std::string& soname) {
  const inventory::CudaLibrary* best = nullptr;
  int best_rank = 1000;
  for (const auto& lib : ctx.inv.cuda.libraries) {
    if (lib.soname != soname) continue;
    const int r = loader_rank(ctx, lib);
    if (r >= 0 && r < best_rank) {
      best = &lib;
      best_rank = r;
    }
  }
  return best;
}

std::optional<std::string> newest_tf_for_cc(const knowledge::Knowledge& k, const Version& cc, bool allow_jit) {
  for (const auto& b : k.tf_builds()) {  // newest first
    auto v = Version::parse(b.tf);
    if (!v) continue;
    auto s = k.kernel_support(*v, cc).support;
    if (s == knowledge::KernelSupport::kSass || (allow_jit && s == knowledge::KernelSupport::kPtxJit)) return b.tf;
  }
  return std::nullopt;
}

core::Message yes_no(bool b) { return b ? core::Message(N_("yes")) : core::Message(N_("no")); }

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

Text or_text(const std::optional<std::string>& value, core::Message instead) {
  return value ? Text(*value) : Text(std::move(instead));
}

core::MessageArg or_arg(const std::optional<std::string>& value, core::Message instead) {
  return value ? core::MessageArg(*value) : core::MessageArg(std::move(instead));
}

core::MessageArg listed(const std::vector<std::string>& items) {
  std::vector<core::MessageArg> args(items.begin(), items.end());
  return core::MessageArg::list(std::move(args));
}

std::string bytes(uint64_t b) { return core::format_bytes_binary(b); }

Text uncertain_value(core::MessageArg value, bool uncertain, std::optional<core::Message> what) {
  if (!uncertain) {
    if (const core::Message* m = value.message()) return *m;
    if (const auto* text = std::get_if<std::string>(&value.value())) return *text;
    return core::english(core::Message("{}", std::move(value)));  // a number: shown as it is, a literal
  }
  // TRANSLATORS: {0} a value from the knowledge base that its source does not state exactly; {1} why.
  if (what) return core::Message(N_("{0} (uncertain: {1})"), std::move(value), std::move(*what));
  // TRANSLATORS: {0} a value from the knowledge base that its source does not state exactly.
  return core::Message(N_("{0} (uncertain fact: see the knowledge source)"), std::move(value));
}

Text knowledge_source(const std::string& file, const std::string& id) {
  // A source stays English in JSON (a key to look up); the report renders its message.
  if (id.empty()) return core::Message(N_("knowledge {}"), file);
  return core::Message(N_("knowledge {0} [{1}]"), file, id);
}

}  // namespace tfrig::rules::util
