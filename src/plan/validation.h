// The planner checked against published measurements it may or may not have
// been fitted on: every TensorFlow throughput row of plan_measurements.json
// estimated with the calibration fitted on all rows but that row's source
// (leave-one-source-out, the headline: a source's rows share a software stack
// and a method), on all rows (calibration), on all rows but that GPU's
// (leave-one-GPU-out) and on all rows but that model's (leave-one-model-out);
// every published batch size judged fits / does not fit.
// render_validation_markdown() writes docs/plan-validation.md.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "plan/gpu_candidate.h"
#include "plan/measurements.h"
#include "plan/throughput.h"

namespace tfrig::plan {

struct ThroughputCase {
  ThroughputRow row;
  double estimate = 0;  // samples/s, the model alone
  double low = 0, high = 0;
  double ratio = 0;  // estimate / published
};

struct ErrorSummary {
  size_t cases = 0;
  size_t within_25 = 0;     // |ratio - 1| <= 25%
  size_t in_band = 0;       // published inside [low, high]
  double median_error = 0;  // median |ratio - 1|
  double worst_error = 0;   // max |ratio - 1|
  double worst_ratio = 0;
};
ErrorSummary summarize(std::span<const ThroughputCase> cases);

struct BoundaryCase {
  BatchLimitRow row;
  uint64_t estimate_bytes = 0;  // total + uncertainty at the published batch
  uint64_t usable_bytes = 0;
  uint64_t max_batch = 0;  // tfrig's largest batch that fits
  bool said_fits = false;
  bool borderline = false;  // the estimate fits, not with its uncertainty: not "fits"
  bool respected() const { return said_fits == row.fits; }
};

struct ValidationReport {
  std::vector<ThroughputCase> calibration;
  std::vector<ThroughputCase> leave_source_out;  // the headline
  std::vector<ThroughputCase> leave_gpu_out;
  std::vector<ThroughputCase> leave_model_out;
  std::vector<BoundaryCase> boundaries;
  Calibration fitted;  // on every row: what the planner uses
  ErrorSummary source_out_summary, calibration_summary, gpu_out_summary, model_out_summary, held_out_summary;
  size_t boundaries_respected = 0;
  size_t oom_called_fits = 0;
  size_t oom_cases = 0;
  size_t fits_called_does_not_fit = 0;  // batches that ran, called "does not fit" (the other wrong side)
  size_t fits_cases = 0;
  size_t borderline = 0;  // published batches tfrig calls borderline (neither fits nor does not fit)
  size_t sources = 0;     // independent sources of the throughput rows (source_group)
};

ValidationReport validate(const Measurements& m, std::span<const GpuCandidate> gpus);
// The batch-size part of validate() alone (boundaries and their counts in r):
// quick to run when only the memory model changed.
void check_batch_limits(const Measurements& m, std::span<const GpuCandidate> gpus, ValidationReport& r);
std::string render_validation_markdown(const ValidationReport& r);

}  // namespace tfrig::plan
