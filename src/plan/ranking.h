// Every catalog GPU judged for a workload: does it fit, the largest batch,
// how many are needed, expected throughput, and the order the user asked for.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "plan/gpu_candidate.h"
#include "plan/memory.h"
#include "plan/model.h"
#include "plan/throughput.h"

namespace tfrig::plan {

enum class RankBy { kPricePerformance, kSpeed, kMemory };
std::string_view rank_by_name(RankBy r);
std::optional<RankBy> parse_rank_by(std::string_view s);

struct GpuChoice {
  GpuCandidate gpu;
  Tier tier = Tier::kEntry;
  bool fits = false;               // at least one sample fits on one GPU
  uint64_t max_batch_per_gpu = 0;  // the largest safe batch: estimate + uncertainty fit
  // The batch asked for on as many GPUs as asked (--batch over --gpus), judged
  // with its uncertainty: never "fits" inside it (memory_verdict()).
  uint64_t requested_batch_per_gpu = 0;
  MemoryVerdict requested_verdict = MemoryVerdict::kDoesNotFit;
  int gpus_needed = 0;  // 0 when it does not fit
  uint64_t batch_per_gpu = 0;
  MemoryBreakdown memory;  // at batch_per_gpu (1 when it does not fit)
  std::optional<Throughput> per_gpu;
  double scaling = 1.0;              // multi-GPU efficiency applied
  double est_samples_per_s = 0;      // all gpus_needed together
  double est_samples_per_s_low = 0;  // its uncertainty band
  double est_samples_per_s_high = 0;
  std::optional<double> samples_per_s_per_kusd;  // per GPU, per 1000 USD of launch price
  std::vector<core::Message> notes;              // rendered by each output in its language
};

// Data-parallel scaling efficiency of n GPUs (docs/plan.md).
double scaling_efficiency(const GpuCandidate& gpu, int n);

// model: the measured rows and calibration to use; nullptr = the embedded ones.
GpuChoice judge_gpu(const Workload& w, const GpuCandidate& gpu, std::span<const GpuCandidate> all,
                    const ThroughputModel* model = nullptr);
std::vector<GpuChoice> rank_gpus(const Workload& w, std::span<const GpuCandidate> gpus, RankBy by,
                                 const ThroughputModel* model = nullptr);

}  // namespace tfrig::plan
