#include "plan/ranking.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/text.h"
#include "core/units.h"

namespace tfrig::plan {

std::string_view rank_by_name(RankBy r) {
  switch (r) {
    case RankBy::kPricePerformance: return "price-performance";
    case RankBy::kSpeed: return "speed";
    case RankBy::kMemory: return "memory";
  }
  return "price-performance";
}

std::optional<RankBy> parse_rank_by(std::string_view s) {
  const std::string v = core::to_lower(core::trim(s));
  if (v == "price-performance" || v == "price_performance") return RankBy::kPricePerformance;
  if (v == "speed") return RankBy::kSpeed;
  if (v == "memory") return RankBy::kMemory;
  return std::nullopt;
}

double scaling_efficiency(const GpuCandidate& gpu, int n) {
  if (n <= 1) return 1.0;
  // With NVLink: 0.92, measured: NVIDIA DeepLearningExamples TensorFlow
  // ResNet-50 v1.5 README, DGX A100: 8 GPUs 17400 img/s AMP vs 1 GPU 2375
  // (17400 / (8 x 2375) = 0.916). Over PCIe only: 0.85, ASSUMED (docs/guide.md:
  // "PCIe bandwidth becomes the bottleneck" for multi-GPU training).
  return gpu.nvlink_gbs ? 0.92 : 0.85;
}

namespace {

// How many GPUs the batch needs by memory, and the batch each then runs; a
// GPU that cannot hold one sample says so.
void size_gpu_batch(GpuChoice& c, const Workload& w, const GpuCandidate& gpu) {
  const uint64_t batch = std::max<uint64_t>(1, w.batch);
  if (c.fits) {
    const uint64_t by_memory = (batch + c.max_batch_per_gpu - 1) / c.max_batch_per_gpu;
    c.gpus_needed = static_cast<int>(std::max<uint64_t>(static_cast<uint64_t>(std::max(1, w.gpus)), by_memory));
    c.batch_per_gpu = (batch + static_cast<uint64_t>(c.gpus_needed) - 1) / static_cast<uint64_t>(c.gpus_needed);
    c.memory = estimate_memory(w, c.batch_per_gpu);
  } else {
    c.memory = estimate_memory(w, 1);
    c.notes.push_back(core::Message(
        N_(
            // TRANSLATORS: {0} the memory of one sample, {1} its uncertainty, {2} the GPU memory usable.
            "one sample needs {0} (+{1} uncertainty) of {2} usable: needs model parallelism or sharded optimizer state (not planned here)"),
        core::format_bytes_binary(c.memory.total_bytes), core::format_bytes_binary(c.memory.uncertainty_bytes),
        core::format_bytes_binary(usable_gpu_bytes(gpu))));
  }
}

// The batch asked for on as many GPUs as asked: inside the uncertainty it
// is borderline, never "fits"; the plan then spreads it wider (gpus_needed)
// and says so with the largest safe batch.
void check_requested_batch(GpuChoice& c, const Workload& w, const GpuCandidate& gpu) {
  const uint64_t batch = std::max<uint64_t>(1, w.batch);
  const uint64_t asked =
      (batch + static_cast<uint64_t>(std::max(1, w.gpus)) - 1) / static_cast<uint64_t>(std::max(1, w.gpus));
  const MemoryBreakdown at_asked = estimate_memory(w, asked);
  c.requested_batch_per_gpu = asked;
  c.requested_verdict = memory_verdict(at_asked, usable_gpu_bytes(gpu));
  if (c.requested_verdict == MemoryVerdict::kBorderline) {
    c.notes.push_back(core::Message(
        N_(
            // TRANSLATORS: {0} batch per GPU, {1} its memory estimate, {2} the uncertainty, {3} usable memory, {4} the largest safe batch.
            "batch {0} per GPU is borderline: {1} fits in {3} usable only without its {2} uncertainty; the largest safe batch is {4}"),
        asked, core::format_bytes_binary(at_asked.total_bytes), core::format_bytes_binary(at_asked.uncertainty_bytes),
        core::format_bytes_binary(usable_gpu_bytes(gpu)), c.max_batch_per_gpu));
  }
}

// The rate of one GPU at the batch it runs (the per-step update is spread
// over it), and of all the GPUs needed with their scaling.
void estimate_gpu_rate(GpuChoice& c, const Workload& w, const GpuCandidate& gpu, const ThroughputModel* model) {
  Workload one = w;
  one.batch = std::max<uint64_t>(1, c.batch_per_gpu);
  one.gpus = 1;
  c.per_gpu = gpu_throughput(one, gpu, model != nullptr ? *model : builtin_throughput_model());
  if (c.fits && c.per_gpu) {
    c.scaling = scaling_efficiency(gpu, c.gpus_needed);
    c.est_samples_per_s = c.per_gpu->samples_per_s * c.gpus_needed * c.scaling;
    c.est_samples_per_s_low = c.per_gpu->low * c.gpus_needed * c.scaling;
    c.est_samples_per_s_high = c.per_gpu->high * c.gpus_needed * c.scaling;
    if (gpu.launch_price_usd && *gpu.launch_price_usd > 0) {
      c.samples_per_s_per_kusd = c.per_gpu->samples_per_s / (*gpu.launch_price_usd / 1000.0);
    }
  }
}

// The notes per tier and on consumer vs professional cards of the
// configuration guide (docs/guide.md), on multi-GPU links and on precision.
void add_card_notes(GpuChoice& c, const Workload& w, const GpuCandidate& gpu) {
  switch (c.tier) {
    case Tier::kEntry:
      c.notes.push_back(core::Message(N_(
          "entry tier (docs/guide.md: T4 16 GB, RTX 3060 12 GB, RTX 4060 Ti): VRAM decides first; fine-tuning and small models")));
      break;
    case Tier::kMainstream:
      c.notes.push_back(core::Message(N_("mainstream tier (docs/guide.md: RTX 4090 24 GB, RTX A5000)")));
      break;
    case Tier::kEnterprise:
      c.notes.push_back(core::Message(N_("enterprise tier (docs/guide.md: A100 40/80 GB, H800 with NVLink)")));
      break;
  }
  if (gpu.segment == Segment::kConsumer) {
    c.notes.push_back(core::Message(N_(
        "consumer card: best price/performance, but no ECC, not rated for 24/7 duty, no virtualization (vGPU/MIG); open-air coolers need slot spacing")));
  } else {
    const bool ecc = gpu.ecc.value_or(false);
    if (gpu.segment == Segment::kDatacenter) {
      c.notes.push_back(
          ecc ? core::Message(N_(
                    "professional card: ECC, 24/7 duty rating, virtualization support; passive cooling needs server chassis airflow"))
              : core::Message(N_(
                    "professional card: 24/7 duty rating, virtualization support; passive cooling needs server chassis airflow")));
    } else {
      c.notes.push_back(ecc ? core::Message(N_("professional card: ECC, 24/7 duty rating, virtualization support"))
                            : core::Message(N_("professional card: 24/7 duty rating, virtualization support")));
    }
  }
  if (c.gpus_needed > 1) {
    c.notes.push_back(
        gpu.nvlink_gbs
            ? core::Message(N_("{0} GPUs: NVLink ({1:.0f} GB/s per GPU) carries the gradient all-reduce"),
                            c.gpus_needed, *gpu.nvlink_gbs)
            : core::Message(
                  N_("{0} GPUs without NVLink: the gradient all-reduce crosses PCIe, which the configuration guide (docs/guide.md) names as the multi-GPU bottleneck"),
                  c.gpus_needed));
  }
  if (w.precision == Precision::kMixedBfloat16 && !gpu.bf16_tflops) {
    c.notes.push_back(core::Message(
        N_("no bfloat16 tensor cores (before Ampere): mixed_bfloat16 runs at float32 speed; use mixed_float16")));
  }
  if (w.precision == Precision::kMixedFloat16 && !gpu.fp16_tflops) {
    c.notes.push_back(core::Message(
        N_("no tensor cores: TensorFlow's mixed precision guide expects no speed-up below compute capability 7.0")));
  }
}

}  // namespace

// One GPU for the workload: how many it takes and at what batch, whether the
// batch asked for fits, the rate, and the notes on the card.
GpuChoice judge_gpu(const Workload& w, const GpuCandidate& gpu, std::span<const GpuCandidate> /*all*/,
                    const ThroughputModel* model) {
  GpuChoice c;
  c.gpu = gpu;
  c.tier = tier_of(gpu);
  c.max_batch_per_gpu = max_batch_that_fits(w, usable_gpu_bytes(gpu));
  c.fits = c.max_batch_per_gpu > 0;
  size_gpu_batch(c, w, gpu);
  check_requested_batch(c, w, gpu);
  estimate_gpu_rate(c, w, gpu, model);
  add_card_notes(c, w, gpu);
  return c;
}

std::vector<GpuChoice> rank_gpus(const Workload& w, std::span<const GpuCandidate> gpus, RankBy by,
                                 const ThroughputModel* model) {
  std::vector<GpuChoice> out;
  out.reserve(gpus.size());
  for (const GpuCandidate& g : gpus) out.push_back(judge_gpu(w, g, gpus, model));
  auto key = [by](const GpuChoice& c) -> double {
    switch (by) {
      case RankBy::kPricePerformance: return c.samples_per_s_per_kusd.value_or(-1.0);
      case RankBy::kSpeed: return c.est_samples_per_s / std::max(1, c.gpus_needed);
      case RankBy::kMemory: return static_cast<double>(c.gpu.memory_bytes);
    }
    return 0;
  };
  std::stable_sort(out.begin(), out.end(), [&](const GpuChoice& a, const GpuChoice& b) {
    if (a.fits != b.fits) return a.fits;
    const double ka = key(a), kb = key(b);
    if (ka != kb) return ka > kb;
    // Ties (no price known): the faster GPU, then fewer GPUs, then the id.
    const double sa = a.per_gpu ? a.per_gpu->samples_per_s : 0, sb = b.per_gpu ? b.per_gpu->samples_per_s : 0;
    if (sa != sb) return sa > sb;
    if (a.gpus_needed != b.gpus_needed) return a.gpus_needed < b.gpus_needed;
    return a.gpu.id < b.gpu.id;
  });
  return out;
}

}  // namespace tfrig::plan
