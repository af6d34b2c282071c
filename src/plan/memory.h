// GPU memory of one data-parallel replica, term by term (docs/plan.md gives
// every formula with its source).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plan/gpu_candidate.h"
#include "plan/model.h"

namespace tfrig::plan {

struct MemoryBreakdown {
  uint64_t batch_per_gpu = 0;
  uint64_t weights_bytes = 0;         // the weights compute reads (fp16/bf16 casts under mixed precision)
  uint64_t master_weights_bytes = 0;  // float32 variables under mixed precision (0 at fp32)
  uint64_t gradients_bytes = 0;
  uint64_t optimizer_bytes = 0;
  uint64_t activations_bytes = 0;
  uint64_t workspace_bytes = 0;      // cuDNN / cuBLAS scratch
  uint64_t context_bytes = 0;        // CUDA context, library kernels, TF runtime
  uint64_t fragmentation_bytes = 0;  // allocator slack
  uint64_t total_bytes = 0;
  uint64_t uncertainty_bytes = 0;  // margin added before "fits" (not part of total)

  // The JSON contract's five terms (docs/plan.md): weights include the master copy,
  // overhead is workspace + context + fragmentation; they sum to total.
  uint64_t contract_weights() const { return weights_bytes + master_weights_bytes; }
  uint64_t contract_overhead() const { return workspace_bytes + context_bytes + fragmentation_bytes; }
};

// Bytes of one activation element: 4 at fp32, 2 under mixed precision.
uint64_t activation_element_bytes(Precision p);

// Activation bytes of one batch (exposed for tests and docs).
uint64_t activation_bytes(const Workload& w, uint64_t batch);
// The per-layer transformer term of Korthikanti et al. 2022 for one layer.
// Op by op as TensorFlow runs it, or fused (xla: Korthikanti et al.'s count).
uint64_t transformer_layer_activation_bytes(const TransformerConfig& c, uint64_t seq, uint64_t batch, Precision p,
                                            Recompute r, bool xla = false);

MemoryBreakdown estimate_memory(const Workload& w, uint64_t batch_per_gpu);

// What a GPU's memory leaves to the training process: the nominal capacity
// less what the driver keeps (gpus.json notes NVML reports slightly less
// than marketed: A100 80GB -> 81920 MiB, H100 80GB -> ~81559 MiB).
// TensorFlow's own reserve (MinSystemMemory) comes off as well, by compute
// capability major.
uint64_t usable_gpu_bytes(const GpuCandidate& gpu);
// reserve_mib: TF_DEVICE_MIN_SYS_MEMORY_IN_MB when a run set it (2.5 and
// later read it instead of the rule).
uint64_t usable_gpu_bytes(uint64_t memory_bytes, int cc_major, TfReserveRule rule = TfReserveRule::kByComputeCapability,
                          std::optional<uint64_t> reserve_mib = std::nullopt);
uint64_t usable_gpu_bytes(uint64_t memory_bytes);  // the newest GPUs' reserve
uint64_t tf_reserved_bytes(uint64_t available_bytes, int cc_major,
                           TfReserveRule rule = TfReserveRule::kByComputeCapability);
// The rule of a TensorFlow release ("2.4.1" -> 6%); an unparsed version gets
// the larger of the rules it may have had.
TfReserveRule tf_reserve_rule_of_version(std::string_view version);
int compute_capability_major(const GpuCandidate& gpu);

// "fits" only when the estimate plus its uncertainty fits.
bool fits_in(const MemoryBreakdown& m, uint64_t usable_bytes);

// Three answers, never "fits" inside the uncertainty: kBorderline when the
// estimate fits but the estimate plus its uncertainty does not (a real run
// may or may not go out of memory; the plan names the largest safe batch).
enum class MemoryVerdict { kFits, kBorderline, kDoesNotFit };
MemoryVerdict memory_verdict(const MemoryBreakdown& m, uint64_t usable_bytes);
// "fits", "borderline", "does not fit"
std::string_view memory_verdict_name(MemoryVerdict v);

// The largest batch per GPU whose estimate plus uncertainty fits in usable
// bytes; 0 when not even one sample fits.
uint64_t max_batch_that_fits(const Workload& w, uint64_t usable_bytes);

}  // namespace tfrig::plan
