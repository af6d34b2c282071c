// Published training measurements the planner calibrates on and is validated
// against (data/knowledge/plan_measurements.json): one-GPU throughput rows and
// batch sizes reported to fit or to run out of memory. Every row keeps its
// framework, precision (an explicit column, never guessed from free text),
// batch, sequence length or image size, GPU count and source.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "plan/memory.h"
#include "plan/model.h"

namespace tfrig::plan {

// The precision a row was published at. kTf32 is its own value: a row that
// says TF32 ran float32 variables with TF32 tensor-core math.
enum class MeasuredPrecision { kFp32, kTf32, kMixedFloat16 };
std::string_view measured_precision_name(MeasuredPrecision p);  // "fp32", "tf32", "mixed_float16"
std::optional<MeasuredPrecision> parse_measured_precision(std::string_view s);

struct ThroughputRow {
  std::string model;             // catalog id: "resnet50", "bert_large"
  int image_size = 0;            // CNNs
  int seq_len = 0;               // transformers
  std::string framework;         // "tensorflow", "pytorch", "mxnet", "paddlepaddle"
  std::string framework_detail;  // "TensorFlow 1.15 (NGC tensorflow:20.06-tf1-py3)"
  // When the row's software stack (framework, CUDA libraries, container)
  // was released, as a fractional year (NGC "19.08" = 2019.625), and how
  // that date was derived (the container tag, the TensorFlow release, or the
  // commit date of the source when the stack is not stated). 0: not given,
  // taken as today's stack. The throughput model's stack-age factor
  // (Calibration::stack_factor_per_year) is fitted on it.
  double stack_year = 0;
  std::string stack_year_basis;
  MeasuredPrecision precision = MeasuredPrecision::kFp32;
  bool xla = false;
  std::string gpu;     // as the publisher names it
  std::string gpu_id;  // the GPU catalog's id
  int gpu_count = 1;
  std::optional<int> batch;                // per GPU
  Optimizer optimizer = Optimizer::kAdam;  // what the run used (sets the per-step update traffic)
  int accumulation_steps = 1;              // gradient accumulation: batches per optimizer update
  // "optimizer_ops": "separate": the run's optimizer updates each variable
  // with separate element-wise TensorFlow ops (google-research/bert's and
  // NVIDIA's TensorFlow 1 BERT AdamWeightDecayOptimizer and LAMBOptimizer in
  // Python), not one fused ResourceApply* kernel (Workload::separate_update_ops).
  bool separate_update_ops = false;
  double samples_per_s = 0;
  std::string source;     // URL or repo:path@commit
  std::string table_row;  // which row of the source
  // Its source's "verified" is not "none" (knowledge::MeasurementSource): a
  // measured figure from an unverified source says so where it is used.
  bool source_verified = false;
};

struct BatchLimitRow {
  std::string model;
  int image_size = 0;
  int seq_len = 0;
  std::string framework;
  std::string framework_detail;  // the release it ran, as the source names it
  MeasuredPrecision precision = MeasuredPrecision::kFp32;
  Optimizer optimizer = Optimizer::kAdam;
  std::string gpu;
  std::string gpu_id;                    // empty when the GPU is not in the catalog
  std::optional<double> gpu_memory_gib;  // given when gpu_id is empty
  std::optional<int> compute_capability_major;
  // TF_DEVICE_MIN_SYS_MEMORY_IN_MB as the source's container set it, when it
  // did (memory.h: it replaces TensorFlow's own reserve).
  std::optional<uint64_t> tf_min_system_memory_mib;
  bool xla = false;
  int accumulation_steps = 1;  // batches per optimizer update, as the run used
  // The update ran as element-wise ops (optimizer_ops "separate": a Python
  // optimizer such as BERT's AdamWeightDecayOptimizer; Workload::separate_update_ops).
  bool separate_update_ops = false;
  int batch = 0;
  bool fits = true;  // outcome: "fits" or "oom"
  std::string source;
  std::string table_row;
};

struct Measurements {
  std::vector<ThroughputRow> throughput;
  std::vector<BatchLimitRow> batch_limits;
};

// Parses the document; a row with a missing or unknown field is an error
// naming the array, the index and the field.
core::Result<Measurements> parse_measurements(const nlohmann::json& doc);

// The TensorFlow generation a row ran, from its framework_detail: 1 for
// "TensorFlow 1.x" (or an NGC "-tf1-" container), 2 for "TensorFlow 2...",
// 0 when the source does not say.
int software_generation(std::string_view framework_detail);

// Which reserve rule (memory.h) the release a row ran used, from its
// framework_detail: "TensorFlow 1.11.0" -> 5%, "TensorFlow 2.3.0" -> 6%,
// "TensorFlow 2.5"+ -> by compute capability. An NGC container named by its
// tag (tensorflow:YY.MM-...) from before November 2020 predates the fixed
// reserve; a later one, or a release the text does not name, gets the larger
// of the rules it may have had.
TfReserveRule tf_reserve_rule(std::string_view framework_detail);

// The publication a row comes from, for leave-one-source-out validation:
// rows of one source share a software stack, a harness and a method, so they
// are held out together. It is the repository and folder of the source (a
// README's tables, a benchmark's CSV files), without the commit, file name,
// anchor or a trailing "(...)" note: "owner/repo/dir" for GitHub URLs and
// "owner/repo:path@commit" references, the URL's host and folder otherwise.
std::string source_group(std::string_view source);

// The embedded measurements (a broken embedded file is a build bug: tests
// load it).
const Measurements& builtin_measurements();
// The measurements a command uses: DIR/plan_measurements.json when
// --knowledge DIR has one, else the embedded file.
core::Result<Measurements> load_measurements(const std::string& knowledge_dir);

// The workload a row describes (catalog model at its input size and
// precision); nullopt when the model is not in the catalog.
std::optional<Workload> row_workload(std::string_view model, int image_size, int seq_len, MeasuredPrecision p,
                                     bool xla);
// A throughput row's workload: the above at the row's batch (one GPU) and
// optimizer. A row without a batch is taken at 256 per GPU (ASSUMED: the
// per-step update then weighs little, as at the batches such tables use).
std::optional<Workload> throughput_row_workload(const ThroughputRow& r);

}  // namespace tfrig::plan
