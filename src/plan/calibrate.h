// `tfrig plan --calibrate FILE`: the step time of the user's own training run
// on the user's GPU rescales the planner's rate for that workload, and every
// other GPU's estimate follows by the same factor (docs/plan.md,
// "Calibration from your run"). The files are hostile input: parsed as text,
// bounded, every error names the file and the line or field.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "plan/gpu_candidate.h"
#include "plan/model.h"
#include "plan/throughput.h"

namespace tfrig::plan {

// What a file says about the training step.
struct StepMeasurement {
  std::string kind;               // "keras-fit-log", "pipeline-json", "tf-profiler-trace"
  double seconds_per_step = 0;    // of the global batch; 0 when only per_sample is known
  double seconds_per_sample = 0;  // Keras 2.0-2.1 "us/sample" lines, or a pipeline's rate
  size_t epochs_used = 0;         // epoch summary lines behind the median
  size_t epochs_seen = 0;
  core::Message lines;               // "lines 12-40" of the file
  bool includes_validation = false;  // the epoch's time covers its validation pass (val_ metrics on the line)
  // A Profiler trace: the step markers read ("device-steps", "host-step-num",
  // "host-train-function"), how many steps the trace holds and how many step
  // times the median is of. 0 / empty for the other kinds.
  std::string step_events;
  size_t steps_seen = 0;
  size_t steps_used = 0;
  // A trace with no /device:GPU process: the run used no GPU, or the profiler
  // could not trace it (CUPTI not loaded); the text says so.
  bool trace_without_gpu = false;
};

// A decompressed (or plain) Profiler trace larger than this is refused: the
// trace is read whole, and simdjson's index takes about 6 bytes per byte more.
constexpr size_t kMaxTraceBytes = size_t{512} << 20;

// Keras Model.fit output: the epoch summary lines "N/N [====] - 9s 6ms/step -
// loss: ..." (tf.keras Progbar), "N/N ━━━━ 9s 6ms/step" (Keras 3), "N/N - 9s -
// 6ms/step" (verbose=2) and "60000/60000 [...] - 5s 83us/sample" (TF
// 2.0-2.1 with NumPy input). The first epoch (tracing, XLA compilation,
// cuDNN autotuning) is dropped when there are more; the median of the rest.
// Per epoch the more precise of the printed per-step time and the epoch
// seconds over its steps is taken (both are rounded to whole units).
core::Result<StepMeasurement> parse_keras_fit_log(std::string_view text, const std::string& file);
// A `tfrig pipeline --format json` result whose gpu stage the user gave
// (--samples-per-s, origin "assumed") or the pipeline measured: its rate.
core::Result<StepMeasurement> parse_pipeline_step(std::string_view text, const std::string& file);
// A TensorFlow Profiler trace (the Chrome trace JSON that TensorBoard's
// profile plugin reads: plugins/profile/RUN/HOST.trace.json.gz, inflated):
// the training steps it marks, in this order of preference: the profiler's
// "Steps" track of a /device:GPU process (one event per step, grouped by
// group_id), events with a step_num argument (tf.profiler.experimental.Trace,
// Keras 3's "Profiled batch"), tf.keras's "train_function" calls on the host.
// The first step is dropped when there are more; the step time is the median
// interval between the starts of the rest, or the one step's duration.
core::Result<StepMeasurement> parse_profiler_trace(std::string_view json, const std::string& file);
// Detects the kind by content: gzip data is a Profiler trace (inflated at
// most kMaxTraceBytes); a JSON object with "traceEvents" near its start is a
// trace, one with "stages" a pipeline result; a watch recording
// ({"tfrig_watch":1}) is refused with what it lacks; anything else is read as
// a Keras log (at most 16 MiB).
core::Result<StepMeasurement> parse_step_file(std::string_view bytes, const std::string& file);

// The calibration a plan applies: the user's rate on one GPU against what
// tfrig gave that GPU for the same workload.
struct UserCalibration {
  std::string file;
  std::string kind;
  std::string gpu_id, gpu_name;
  uint64_t batch = 0;  // global batch of the run (the plan's --batch)
  int gpus = 1;
  double measured_samples_per_s = 0;  // per GPU
  double model_samples_per_s = 0;     // tfrig's rate for that GPU before calibration
  std::string model_basis;            // "measured" | "estimated"
  double factor = 1;                  // measured / model, applied to every GPU
  StepMeasurement step;
  bool factor_extreme() const;    // outside [kCalibrationFactorLow, kCalibrationFactorHigh]
  core::Message warning() const;  // why an extreme factor likely means the run is not comparable; empty otherwise
  core::Message text() const;     // "calibrated on your run: 412 samples/s on RTX 3060 (FILE) ..."
};

// A run at less than a third or more than three times the model's rate for
// the same model, batch and GPU is more likely not the plan's workload than a
// model error of that size: published TensorFlow rows held out by source ran
// at 0.4x-1.6x of the model's rate (docs/plan-validation.md, the
// leave-one-source-out table), so a
// factor beyond these bounds is warned about (the factor is still applied).
inline constexpr double kCalibrationFactorLow = 1.0 / 3.0;
inline constexpr double kCalibrationFactorHigh = 3.0;

// The rate the run reached per GPU: global batch / step time / GPUs, or the
// per-sample time's inverse.
double measured_rate_per_gpu(const StepMeasurement& s, uint64_t batch, int gpus);

// Applies the measurement to a copy of the model: gpu_throughput then
// multiplies every GPU's rate (and band) by factor, and gives the user's GPU
// the measured rate itself. Fails when the rate is not positive or tfrig has
// no rate for that GPU.
core::Result<ThroughputModel> calibrate_model(const ThroughputModel& base, const Workload& w, const GpuCandidate& gpu,
                                              const StepMeasurement& s, const std::string& file);

// The JSON's texts in English; the plan's output renders "text", "warning"
// and "step"."where" in its language (RateCalibration's messages).
nlohmann::json calibration_to_json(const UserCalibration& c);

}  // namespace tfrig::plan
