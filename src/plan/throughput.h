// Training throughput of one GPU: a published TensorFlow measurement where
// one exists for the model, input size, GPU and precision, else a two-roof
// estimate (compute peak of the math the precision really runs, DRAM
// bandwidth) with a few efficiencies fitted on the published TensorFlow rows
// of data/knowledge/plan_measurements.json. Every rate carries an
// uncertainty band and says which it is. docs/plan.md explains the model.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/message.h"
#include "plan/gpu_candidate.h"
#include "plan/measurements.h"
#include "plan/model.h"

namespace tfrig::plan {

// The arithmetic a precision runs on a GPU. TensorFlow runs float32 matmuls
// and convolutions on TF32 tensor cores on Ampere and later by default
// (since TF 2.4: tf.config.experimental.enable_tensor_float_32_execution),
// so fp32 there is kTf32. Mixed float16 uses FP16 tensor cores with FP32
// accumulate (GeForce cards run that at half their FP16-accumulate rate;
// the catalog's figures are the FP32-accumulate ones).
enum class MathMode { kFp32, kTf32, kFp16, kBf16 };
std::string_view math_mode_name(MathMode m);  // "FP32", "TF32", "FP16 tensor", "BF16 tensor"
MathMode math_mode(const GpuCandidate& gpu, Precision p);
MathMode math_mode(const GpuCandidate& gpu, MeasuredPrecision p);
// Dense peak TFLOPS of that math on the GPU; FP32 CUDA cores where the GPU
// lacks the tensor mode.
std::optional<double> peak_tflops(const GpuCandidate& gpu, MathMode m);
std::optional<double> peak_tflops(const GpuCandidate& gpu, Precision p);

// The work and DRAM traffic of one training sample (forward + backward).
struct SampleCost {
  double flops = 0;            // all training FLOPs
  double cuda_core_flops = 0;  // of which depthwise convolutions: no tensor-core path, they run at the FP32 rate
  double bytes = 0;
  double winograd_flops = 0;  // of the flops, dense 3x3 stride-1 convolutions (Layer::winograd)
  // Bytes the matrix products read and write as GEMM operands (A, B and C of
  // every convolution as an implicit GEMM, every dense and attention matmul),
  // forward and backward: flops / (2 x the product's arithmetic intensity).
  // Narrow layers move more operand bytes per FLOP (operand_bytes_per_sample).
  double operand_bytes = 0;
  // GPU kernels one training step launches whatever its batch (layers x
  // forward and backward): each costs a fixed time, which weighs on small
  // batches and on models of many small layers (kernels_per_step).
  double kernels = 0;
};
// Multiplications Winograd's F(2x2, 3x3) saves on a 3x3 convolution: 16
// instead of 36 per 2x2 output tile (Lavin & Gray 2016, "Fast Algorithms for
// Convolutional Neural Networks", arXiv:1509.09308). cuDNN offers it for
// FP32 on CUDA cores; the tensor-core paths TensorFlow picks run implicit GEMM.
inline constexpr double kWinogradSaving = 36.0 / 16.0;
SampleCost sample_cost(const Workload& w);
// The batch one GPU runs: w.batch split over w.gpus.
uint64_t per_gpu_batch(const Workload& w);
// DRAM bytes of one training step that do not grow with the batch: reading
// the weights, writing and reading the gradients, the optimizer update. Per
// sample it is this over the batch per GPU, which is why small batches run
// slower per sample. With gradient accumulation (accumulation_steps batches
// per update) a step also adds its gradients to the accumulator and pays
// 1/accumulation_steps of the update.
double update_bytes_per_step(const Workload& w, int accumulation_steps = 1);
// The update of one float32 parameter when the optimizer runs as separate
// element-wise ops (Workload::separate_update_ops), counted op by op in
// NVIDIA/DeepLearningExamples TensorFlow/LanguageModeling/BERT/optimization.py
// (AdamWeightDecayOptimizer.apply_gradients, the same at 9de48bc, 58a3ed6 and
// f5d1a8b; google-research/bert's is the same code) with create_optimizer's
// gradient clipping, each op reading its operands and writing its result in
// DRAM, 4 bytes per element: tf.global_norm reads the gradient (1),
// clip_by_global_norm scales it (2); next_m = b1 * m + (1 - b1) * g (2 + 2
// + 3); next_v = b2 * v + (1 - b2) * square(g) (2 + 2 + 2 + 3); sqrt(next_v)
// + epsilon (2 + 2); next_m / that (3); + decay_rate * param (2 + 3);
// learning_rate * update (2); param - that (3); the three assign ops (2
// each): 42 passes, of which the first read of the gradient is already in
// every step's bytes: 41 x 4 = 164 bytes, where a fused ResourceApplyAdam moves the
// variable and its two slots once each way (24 bytes). LAMBOptimizer (the
// pretraining rows) adds bias corrections and two norms: a few passes more,
// not counted.
inline constexpr double kSeparateUpdateBytesPerParameter = 41.0 * 4.0;
// Bytes of activations moved through DRAM per training sample.
double memory_traffic_per_sample(const Workload& w);
// Of those, for transformers without XLA: what the unfused element-wise ops
// (bias adds, GELU, layer norm, softmax, casts, dropout, residual adds) read
// and write, op by op as the model code builds them; 0 under XLA (fused)
// and for layer lists.
double elementwise_bytes_per_sample(const Workload& w);
// Operand bytes of the matrix products of one training sample. A product of
// an M x K by a K x N matrix does 2MNK FLOPs on M(K + N) + KN operand
// elements; with M (batch x positions) large its intensity is N K / (N + K)
// multiply-accumulates per element, so narrow products (few channels, short
// reductions, 64-wide attention heads) feed the tensor cores with more bytes
// per FLOP from caches and shared memory. Forward, data gradient and weight
// gradient each move about the same operands: 3 x M(K + N) per layer.
double operand_bytes_per_sample(const Workload& w);
// Kernels of one training step: every layer that computes, once forward and
// twice backward (data and weight gradients, or the gradient and its
// accumulation into the next layer's).
double kernels_per_step(const Workload& w);

// The fitted parameters: the fraction of the compute peak reached per cost
// family and math mode, the fraction of DRAM bandwidth reached per family
// (how much of the counted traffic really goes to DRAM), and the band
// (multipliers on the estimate) that held-out published rows fell in.
struct Calibration {
  // [cost family][math mode]; cost families: 0 CNNs of dense convolutions,
  // 1 transformers, 2 depthwise-separable CNNs (EfficientNet, MobileNet),
  // whose depthwise and elementwise layers cost differently per FLOP.
  std::array<std::array<double, 4>, 3> compute_efficiency{};
  std::array<double, 3> memory_efficiency{0.6, 0.6, 0.6};  // [cost family]
  // The operand bytes of the matrix products move at this multiple of the
  // DRAM bandwidth (most come from L2 and shared memory): the one parameter
  // that makes narrow layers slower per FLOP than wide ones.
  double operand_bandwidth = 8.0;
  // Seconds a kernel costs beyond its work (launch, the executor's dispatch,
  // the tail of a kernel too small to fill the GPU), per step.
  double kernel_seconds = 5e-6;
  // The software stack's age: a row whose stack (stack_year, from its
  // container or TensorFlow release) is y years older than the newest stack
  // among the fitted rows runs at stack_factor_per_year^y of the rate the
  // efficiencies above give (every roof alike). Fitted like the rest; the
  // planner estimates for today's stack, reference_year, where it is 1.
  double stack_factor_per_year = 1.0;
  double reference_year = 0;  // newest stack_year among the fitted rows; 0: none given
  double band_low = 0.75;     // kBandQuantile of published / estimate, leave-one-source-out
  double band_high = 1.25;    // 1 - kBandQuantile
  int rows = 0;               // published rows fitted
};
Calibration default_calibration();
// The rate multiplier of a stack released in stack_year: 1 at the reference
// year and for 0 (not given).
double stack_factor(const Calibration& c, double stack_year);
// The band's percentiles of published / estimate (held out by source):
// 7.5th and 92.5th, so that at least 80% of a new source's rows fall inside.
inline constexpr double kBandQuantile = 0.075;
size_t cost_family(const Workload& w);
std::string_view cost_family_name(size_t f);  // "cnn", "transformer", "depthwise cnn"

// Fits the calibration on the TensorFlow one-GPU rows whose GPU is in gpus.
// with_band also derives the band from leave-one-source-out refits
// (leave-one-GPU-out when the rows come from fewer than three sources).
// With the band and the built-in data, the shipped fit (plan/shipped_fit.h).
Calibration fit_calibration(std::span<const ThroughputRow> rows, std::span<const GpuCandidate> gpus,
                            bool with_band = true);
// The same fit, band included, never the shipped one (what plan_fit.json is
// made of and checked against).
Calibration fresh_fit_calibration(std::span<const ThroughputRow> rows, std::span<const GpuCandidate> gpus);
// What identifies the fit's inputs: every row the fit uses, as its features.
std::string fit_fingerprint(std::span<const ThroughputRow> rows, std::span<const GpuCandidate> gpus);

// The user's own run (tfrig plan --calibrate, plan/calibrate.h): every GPU's
// rate times factor, the run's GPU at the measured rate itself.
struct RateCalibration {
  std::string gpu_id;
  double factor = 1;
  double measured_samples_per_s = 0;  // per GPU, on gpu_id
  core::Message text;                 // for basis_detail and the plan's notes
  // Not empty when the factor is extreme (UserCalibration::warning): the
  // plan adds it to its notes (text, JSON "notes", the HTML page).
  core::Message warning;
  core::Message where;  // what of the file was read ("lines 12-40"): the JSON's step.where in the output's language
  nlohmann::json json;  // the plan JSON's "calibration"
};

// What the calibration and the measured rows give a plan.
struct ThroughputModel {
  std::vector<ThroughputRow> rows;
  Calibration calibration;
  std::optional<RateCalibration> user;
};
ThroughputModel make_throughput_model(const Measurements& m, std::span<const GpuCandidate> gpus);
// The embedded measurements fitted on the embedded GPU catalog.
const ThroughputModel& builtin_throughput_model();

struct Throughput {
  double samples_per_s = 0;  // one GPU
  double low = 0;            // uncertainty band, samples/s
  double high = 0;
  std::string basis;  // "measured" | "estimated" | "calibrated" (on the user's run)
  std::string math;   // math_mode_name of what the precision runs
  std::string
      bound;  // estimated: "compute" | "memory" (DRAM and operands) | "launch" (fixed cost per kernel); measured: ""
  core::Message detail;  // where the number comes from (JSON basis_detail), rendered by each output in its language
};

// The published TensorFlow rows for this model, input size, GPU and
// precision: fp32 matches fp32 and tf32 rows on GPUs with TF32 (the same
// math), fp32 rows only elsewhere; mixed_float16 matches mixed_float16.
std::vector<const ThroughputRow*> matching_rows(std::span<const ThroughputRow> rows, const Workload& w,
                                                const GpuCandidate& gpu);

// What the measured lookup requires of a row beyond model, input size, GPU,
// framework and precision (matching_rows): the same XLA setting, a batch per
// GPU within kBatchFactor of the request's, and a TensorFlow generation that
// is not older than the request's (the planner plans for TensorFlow 2; a
// source that does not name its version is not taken as older).
inline constexpr double kBatchFactor = 2.0;
inline constexpr int kRequestGeneration = 2;
// The conditions in which the row differs from the request, as words for
// basis_detail ("XLA on (request: off)"); empty when the row can be used as
// measured.
std::vector<core::Message> condition_differences(const ThroughputRow& r, const Workload& w);

// The low end of the band on GPUs of compute capability 6.x and older
// (P100-era stacks: TensorFlow 1.x, cuDNN 5-7), as a multiple of the
// estimate: published runs there came out 1.35-1.5x slower than the model.
inline constexpr double kOldStackBandLow = 1.0 / 1.5;

// The model alone (no measured row), for validation and for GPUs without rows.
// accumulation_steps: batches per optimizer update (gradient accumulation).
// stack_year: the software stack the rate is for (validation estimates a
// published row on its own stack); 0, what a plan asks, is today's stack
// (the calibration's reference year).
std::optional<Throughput> estimate_throughput(const Workload& w, const GpuCandidate& gpu, const Calibration& c,
                                              int accumulation_steps = 1, double stack_year = 0);

std::optional<Throughput> gpu_throughput(const Workload& w, const GpuCandidate& gpu, const ThroughputModel& m);
// With the embedded model (gpus is kept for callers that rank a list).
std::optional<Throughput> gpu_throughput(const Workload& w, const GpuCandidate& gpu,
                                         std::span<const GpuCandidate> gpus);

}  // namespace tfrig::plan
