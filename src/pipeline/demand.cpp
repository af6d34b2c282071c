#include "pipeline/demand.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/message.h"
#include "core/text.h"
#include "core/try.h"
#include "knowledge/pcie.h"
#include "plan/model_catalog.h"
#include "plan/plan.h"
#include "plan/ranking.h"
#include "plan/throughput.h"

namespace tfrig::pipeline {

const plan::GpuCandidate* find_gpu(std::span<const plan::GpuCandidate> catalog, const std::string& text) {
  const std::string want = core::to_lower(core::trim(text));
  if (want.empty()) return nullptr;
  for (const auto& g : catalog) {
    if (core::to_lower(g.id) == want || core::to_lower(g.name) == want) return &g;
  }
  const plan::GpuCandidate* best = nullptr;
  for (const auto& g : catalog) {
    if (core::to_lower(g.name).find(want) == std::string::npos) continue;
    if (best == nullptr || g.name.size() < best->name.size()) best = &g;
  }
  if (best != nullptr) return best;
  // The name nvidia-smi and NVML print ("NVIDIA A100-SXM4-80GB"): the same
  // matcher doctor and plan --here use for a live GPU's name (aliases,
  // word by word), then the catalog row it chose.
  inventory::Gpu named;
  named.name = std::string(core::trim(text));
  const plan::GpuCandidate c = plan::candidate_for(named, catalog);
  for (const auto& g : catalog) {
    if (g.id == c.id) return &g;
  }
  return nullptr;
}

std::optional<int> pcie_gen_of_architecture(const std::string& architecture) {
  const std::string a = core::to_lower(architecture);
  if (core::starts_with(a, "hopper") || core::starts_with(a, "blackwell")) return 5;
  if (core::starts_with(a, "ampere") || core::starts_with(a, "ada")) return 4;
  if (core::starts_with(a, "turing") || core::starts_with(a, "volta") || core::starts_with(a, "pascal")) return 3;
  return std::nullopt;
}

core::Result<Demand> resolve_demand(const DemandRequest& r, const inventory::Inventory& inv,
                                    std::span<const plan::GpuCandidate> catalog) {
  Demand d;
  auto precision = plan::parse_precision(r.precision);
  if (!precision)
    return core::fail(core::ErrorCode::kInvalidArgument, "--precision",
                      core::Message(N_("expected fp32, mixed_float16 or mixed_bfloat16")));
  d.mixed = *precision != plan::Precision::kFp32;

  // The GPU: named, or this machine's first.
  std::optional<plan::GpuCandidate> gpu;
  if (r.gpu.empty() || core::to_lower(r.gpu) == "auto") {
    if (!inv.gpus.empty()) gpu = plan::candidate_for(inv.gpus.front(), catalog);
  } else if (const plan::GpuCandidate* g = find_gpu(catalog, r.gpu)) {
    gpu = *g;
  } else {
    return core::fail(
        core::ErrorCode::kInvalidArgument, "--gpu",
        core::Message(
            N_("'{}' is not in the GPU catalog ('tfrig plan --model resnet50 --all' lists the catalog's GPUs)"),
            r.gpu));
  }
  if (gpu) {
    d.gpu_name = gpu->name;
    if (auto gen = pcie_gen_of_architecture(gpu->architecture)) {
      d.link_bytes_per_s = knowledge::pcie_link_bytes_per_second(*gen, 16);
      // TRANSLATORS: {0} a GPU, {1} the PCIe generation, {2} its architecture (Ampere, Ada ...).
      d.link_detail = core::Message(N_("{0}'s link, PCIe {1}.0 x16 ({2} boards, from the catalog)"), gpu->name, *gen,
                                    gpu->architecture);
    }
  }

  if (r.samples_per_s) {
    d.gpu = Stage{kGpu, *r.samples_per_s, Origin::kAssumed, core::Message(N_("given with --samples-per-s"))};
    d.model_name = "(given rate)";
    return d;
  }
  if (!gpu) {
    return core::fail(
        core::ErrorCode::kNotFound, "--gpu",
        core::Message(
            N_("no GPU found on this machine: name the one you train on (--gpu \"NVIDIA GeForce RTX 4090\") or give "
               "its rate (--samples-per-s N)")));
  }
  const plan::CatalogModel* model = plan::find_model(r.model);
  if (model == nullptr)
    return core::fail(core::ErrorCode::kInvalidArgument, "--model",
                      core::Message(N_("'{}' is not a built-in model (tfrig plan --list-models)"), r.model));
  auto w = TFRIG_TRY(plan::catalog_workload(*model, 0, 0));
  d.model_name = model->display_name;
  w.gpus = std::max(1, r.gpus);
  w.batch = r.batch > 0 ? r.batch : 256ull * static_cast<uint64_t>(w.gpus);
  const double scaling = w.gpus > 1 ? plan::scaling_efficiency(*gpu, w.gpus) * w.gpus : 1.0;
  auto rate_at = [&](plan::Precision p) -> std::optional<plan::Throughput> {
    plan::Workload wp = w;
    wp.precision = p;
    return plan::gpu_throughput(wp, *gpu, catalog);
  };
  auto t = rate_at(*precision);
  if (!t || t->samples_per_s <= 0) {
    return core::fail(
        core::ErrorCode::kUnsupported, "--gpu",
        core::Message(N_("no throughput figure or estimate for {0} on {1}"), model->display_name, gpu->name));
  }
  const core::Message how(t->basis == "measured" ? N_("published rate") : N_("scaled estimate"));
  const std::string precision_name(plan::precision_name(*precision));
  d.gpu = Stage{
      kGpu, t->samples_per_s * scaling, t->basis == "measured" ? Origin::kMeasured : Origin::kEstimated,
      // TRANSLATORS: {0} the model, {1} its precision policy, {2} the GPU, ({4}) how the rate was found; {3} is "published rate" or "scaled estimate".
      w.gpus > 1 ? core::Message(N_("{0} {1} on {2} x{5} (scaling {6:.0f}%): {3} ({4})"), model->display_name,
                                 precision_name, gpu->name, how, t->detail, w.gpus, scaling / w.gpus * 100)
                 : core::Message(N_("{0} {1} on {2}: {3} ({4})"), model->display_name, precision_name, gpu->name, how,
                                 t->detail)};
  if (!d.mixed) {
    if (auto m = rate_at(plan::Precision::kMixedFloat16)) d.mixed_samples_per_s = m->samples_per_s * scaling;
  }
  return d;
}

}  // namespace tfrig::pipeline
