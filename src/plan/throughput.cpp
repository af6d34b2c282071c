#include "plan/throughput.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/fnv1a.h"
#include "core/i18n.h"
#include "core/stats.h"
#include "plan/catalog_adapter.h"
#include "plan/memory.h"
#include "plan/shipped_fit.h"

namespace tfrig::plan {

namespace {

size_t mode_index(MathMode m) { return static_cast<size_t>(m); }

// What one sample costs on one GPU before any efficiency: the work split by
// the units that run it, the DRAM traffic, and the GPU's roofs.
struct Roofs {
  size_t family = 0;
  MathMode mode = MathMode::kFp32;
  double winograd = 0;   // FLOPs of dense 3x3 stride-1 convolutions
  double dense = 0;      // the other tensor-path FLOPs
  double core = 0;       // depthwise FLOPs, FP32 CUDA cores whatever the precision
  double bytes = 0;      // DRAM bytes per sample, the step's update spread over the batch
  double operand = 0;    // operand bytes of the matrix products per sample (mostly from L2 / shared memory)
  double kernels = 0;    // kernels per sample: those of a step over the batch one GPU runs
  double peak = 0;       // FLOP/s of the math mode
  double fp32_peak = 0;  // FLOP/s on CUDA cores
  double bandwidth = 0;  // B/s
  // cuDNN's autotuner (TF_CUDNN_USE_AUTOTUNE, on by default) times every
  // convolution algorithm and keeps the fastest: with TF32 allowed a
  // convolution still runs on FP32 CUDA cores (Winograd included) where that
  // is faster, as on GeForce Ampere, whose FP32 and TF32 peaks are equal.
  bool autotune = false;
};

std::optional<Roofs> make_roofs(const Workload& w, const GpuCandidate& g, int accumulation_steps = 1) {
  const MathMode m = math_mode(g, w.precision);
  const auto peak = peak_tflops(g, m);
  const SampleCost cost = sample_cost(w);
  if (!peak || *peak <= 0 || cost.flops <= 0) return std::nullopt;
  Roofs r;
  r.family = cost_family(w);
  r.mode = m;
  r.core = cost.cuda_core_flops;
  r.winograd = cost.winograd_flops;
  r.dense = std::max(0.0, cost.flops - cost.cuda_core_flops - cost.winograd_flops);
  const uint64_t batch = per_gpu_batch(w);
  r.bytes = cost.bytes + update_bytes_per_step(w, accumulation_steps) / static_cast<double>(batch);
  r.operand = cost.operand_bytes;
  r.kernels = cost.kernels / static_cast<double>(batch);
  r.peak = *peak * 1e12;
  r.fp32_peak = g.fp32_tflops.value_or(*peak) * 1e12;
  r.bandwidth = g.memory_bandwidth_gbs.value_or(0) * 1e9;
  r.autotune = w.family == Family::kCnn && m == MathMode::kTf32;
  return r;
}

struct SampleTimes {
  double compute = 0;   // s per sample: the arithmetic
  double operands = 0;  // the matrix products' operands through caches
  double kernels = 0;   // the fixed cost of the step's kernels, per sample
  double memory = 0;    // DRAM traffic
  double total() const { return compute + operands + kernels + memory; }
};

// Two roofs that do not overlap fully: a step spends its FLOPs at a fraction
// of the compute peak and its DRAM traffic at a fraction of the bandwidth,
// and the times add. (Williams, Waterman & Patterson 2009, "Roofline", take
// the larger of the two; adding them is the pessimistic end of the same
// model and fits the published rows better where neither roof dominates,
// such as GeForce cards under mixed precision.)
SampleTimes sample_times(const Roofs& r, const Calibration& c) {
  const double e = c.compute_efficiency[r.family][mode_index(r.mode)];
  const double e32 = c.compute_efficiency[r.family][mode_index(MathMode::kFp32)];
  const double rate = e * r.peak, rate32 = e32 * r.fp32_peak;
  SampleTimes t;
  if (r.mode == MathMode::kFp32) {
    t.compute = (r.winograd / kWinogradSaving + r.dense) / rate;
  } else if (r.autotune) {
    t.compute =
        std::min(r.winograd / rate, r.winograd / kWinogradSaving / rate32) + std::min(r.dense / rate, r.dense / rate32);
  } else {
    t.compute = (r.winograd + r.dense) / rate;
  }
  if (r.core > 0) t.compute += r.core / rate32;
  // Narrow products wait on their operands: the bytes they move per FLOP at
  // a fitted multiple of the DRAM bandwidth (on-chip caches feed most of it).
  if (r.bandwidth > 0) t.operands = r.operand / (c.operand_bandwidth * r.bandwidth);
  t.kernels = r.kernels * c.kernel_seconds;
  if (r.bandwidth > 0) t.memory = r.bytes / (c.memory_efficiency[r.family] * r.bandwidth);
  return t;
}

// What the fit needs of one published row, computed once.
struct RowFeatures {
  Roofs roofs;
  double measured = 0;  // samples/s
  std::string gpu_id;
  std::string group;  // source_group of the row's source
  double stack_year = 0;
};

double predicted_rate(const RowFeatures& f, const Calibration& c) {
  const double sum = sample_times(f.roofs, c).total();
  return sum > 0 ? stack_factor(c, f.stack_year) / sum : 0.0;
}

std::optional<RowFeatures> features(const ThroughputRow& r, std::span<const GpuCandidate> gpus) {
  auto g = std::find_if(gpus.begin(), gpus.end(), [&](const GpuCandidate& c) { return c.id == r.gpu_id; });
  if (g == gpus.end()) return std::nullopt;
  auto w = throughput_row_workload(r);
  if (!w) return std::nullopt;
  auto roofs = make_roofs(*w, *g, r.accumulation_steps);
  if (!roofs) return std::nullopt;
  return RowFeatures{*roofs, r.samples_per_s, r.gpu_id, source_group(r.source), r.stack_year};
}

// The objective: the sum of absolute log errors (robust to the odd row), and
// a weak pull of every parameter toward the default so a family and math
// mode without rows keeps a plausible value.
double objective(std::span<const RowFeatures> rows, const Calibration& c, const Calibration& prior) {
  double s = 0;
  for (const RowFeatures& f : rows) s += std::abs(std::log(predicted_rate(f, c) / f.measured));
  constexpr double kPull = 0.02;
  for (size_t i = 0; i < c.compute_efficiency.size(); ++i) {
    for (size_t j = 0; j < 4; ++j)
      s += kPull * std::pow(std::log(c.compute_efficiency[i][j] / prior.compute_efficiency[i][j]), 2);
  }
  for (size_t i = 0; i < c.memory_efficiency.size(); ++i) {
    s += kPull * std::pow(std::log(c.memory_efficiency[i] / prior.memory_efficiency[i]), 2);
  }
  s += kPull * std::pow(std::log(c.operand_bandwidth / prior.operand_bandwidth), 2);
  s += kPull * std::pow(std::log(c.kernel_seconds / prior.kernel_seconds), 2);
  s += kPull * std::pow(std::log(c.stack_factor_per_year / prior.stack_factor_per_year), 2);
  return s;
}

Calibration fit_toward(std::span<const RowFeatures> rows, const Calibration& prior) {
  Calibration c = prior;
  c.rows = static_cast<int>(rows.size());
  // Each parameter with the range its logarithm is searched in.
  struct Param {
    double* value;
    double lo, hi;
  };
  std::vector<Param> params;
  for (auto& fam : c.compute_efficiency) {
    // BF16 is not fitted: it takes FP16's value below.
    for (size_t m = 0; m < fam.size(); ++m) {
      if (m != mode_index(MathMode::kBf16)) params.push_back({&fam[m], 0.01, 1.0});
    }
  }
  for (double& m : c.memory_efficiency) params.push_back({&m, 0.01, 1.0});
  // Operands from caches: between the DRAM bandwidth and 100 times it (L2
  // and shared memory serve most of them, faster than DRAM).
  params.push_back({&c.operand_bandwidth, 1.0, 100.0});
  // A kernel's fixed cost: 0.1 to 100 microseconds (a bare CUDA launch takes
  // a few microseconds; TensorFlow's executor adds its dispatch per op).
  params.push_back({&c.kernel_seconds, 1e-7, 1e-4});
  // The stack's age: from half to twice the rate per year newer.
  params.push_back({&c.stack_factor_per_year, 0.5, 2.0});
  // Coordinate descent with a golden-section search on each parameter's
  // logarithm (efficiencies between 1% and 100% of the peak); each step
  // reuses the inner point the previous one evaluated. A search stops when
  // its bracket is narrower than kLogTolerance (a relative 1e-6 of the
  // value), and the sweeps stop when one no longer lowers the objective by
  // kSweepTolerance: the parameters have settled, and the validation's ~500
  // refits (tests: PlanValidation) take that much less time.
  constexpr double kPhi = 0.6180339887498949;
  constexpr double kLogTolerance = 1e-6;
  constexpr double kSweepTolerance = 1e-9;
  auto at = [&](double* p, double x) {
    *p = std::exp(x);
    return objective(rows, c, prior);
  };
  double last = objective(rows, c, prior);
  for (int sweep = 0; sweep < 8; ++sweep) {
    for (const Param& param : params) {
      double* p = param.value;
      double lo = std::log(param.lo), hi = std::log(param.hi);
      double a = hi - kPhi * (hi - lo), b = lo + kPhi * (hi - lo);
      double fa = at(p, a), fb = at(p, b);
      for (int it = 0; it < 40 && hi - lo > kLogTolerance; ++it) {
        if (fa <= fb) {
          hi = b;
          b = a;
          fb = fa;
          a = hi - kPhi * (hi - lo);
          fa = at(p, a);
        } else {
          lo = a;
          a = b;
          fa = fb;
          b = lo + kPhi * (hi - lo);
          fb = at(p, b);
        }
      }
      *p = std::exp((lo + hi) / 2);
    }
    const double now = objective(rows, c, prior);
    if (last - now < kSweepTolerance) break;
    last = now;
  }
  // No published bfloat16 rows: bf16 tensor cores run at the FP16 rate
  // (NVIDIA A100 whitepaper, Table 1), so they share its efficiency.
  for (auto& fam : c.compute_efficiency) fam[mode_index(MathMode::kBf16)] = fam[mode_index(MathMode::kFp16)];
  return c;
}

// Two stages: one set of efficiencies shared by every family (all rows
// pooled), then each family's own, pulled toward the shared set, so a family
// with few or no rows (a model left out) inherits what the others show.
Calibration fit(std::span<const RowFeatures> rows) {
  std::vector<RowFeatures> pooled(rows.begin(), rows.end());
  for (RowFeatures& f : pooled) f.roofs.family = 0;
  // Today's stack: the newest among the rows fitted (what a plan targets).
  Calibration start = default_calibration();
  for (const RowFeatures& f : rows) start.reference_year = std::max(start.reference_year, f.stack_year);
  const Calibration shared = fit_toward(pooled, start);
  Calibration prior = shared;
  for (auto& fam : prior.compute_efficiency) fam = shared.compute_efficiency[0];
  prior.memory_efficiency.fill(shared.memory_efficiency[0]);
  prior.operand_bandwidth = shared.operand_bandwidth;
  prior.kernel_seconds = shared.kernel_seconds;
  prior.stack_factor_per_year = shared.stack_factor_per_year;
  return fit_toward(rows, prior);
}

std::string percent(double v) { return fmt::format("{:.0f}%", v * 100); }

// A detail and the clause after it ("; ..."): the clause is its own message,
// so each renders in the output's language and reads as before.
core::Message detail_then(core::Message detail, core::Message clause) {
  return core::Message("{0}{1}", std::move(detail), std::move(clause));
}

// XLA on or off, in the reader's words.
core::Message xla_word(bool on) { return core::Message::in_context(on ? NC_("xla", "on") : NC_("xla", "off")); }

}  // namespace

std::string_view math_mode_name(MathMode m) {
  switch (m) {
    case MathMode::kFp32: return "FP32";
    case MathMode::kTf32: return "TF32";
    case MathMode::kFp16: return "FP16 tensor";
    case MathMode::kBf16: return "BF16 tensor";
  }
  return "FP32";
}

MathMode math_mode(const GpuCandidate& gpu, Precision p) {
  switch (p) {
    case Precision::kFp32: return gpu.tf32_tflops ? MathMode::kTf32 : MathMode::kFp32;
    case Precision::kMixedFloat16: return gpu.fp16_tflops ? MathMode::kFp16 : MathMode::kFp32;
    case Precision::kMixedBfloat16: return gpu.bf16_tflops ? MathMode::kBf16 : MathMode::kFp32;
  }
  return MathMode::kFp32;
}

MathMode math_mode(const GpuCandidate& gpu, MeasuredPrecision p) {
  switch (p) {
    case MeasuredPrecision::kFp32: return math_mode(gpu, Precision::kFp32);
    case MeasuredPrecision::kTf32: return gpu.tf32_tflops ? MathMode::kTf32 : MathMode::kFp32;
    case MeasuredPrecision::kMixedFloat16: return math_mode(gpu, Precision::kMixedFloat16);
  }
  return MathMode::kFp32;
}

std::optional<double> peak_tflops(const GpuCandidate& gpu, MathMode m) {
  switch (m) {
    case MathMode::kFp32: return gpu.fp32_tflops;
    case MathMode::kTf32: return gpu.tf32_tflops ? gpu.tf32_tflops : gpu.fp32_tflops;
    case MathMode::kFp16: return gpu.fp16_tflops ? gpu.fp16_tflops : gpu.fp32_tflops;
    case MathMode::kBf16: return gpu.bf16_tflops ? gpu.bf16_tflops : gpu.fp32_tflops;
  }
  return std::nullopt;
}

std::optional<double> peak_tflops(const GpuCandidate& gpu, Precision p) { return peak_tflops(gpu, math_mode(gpu, p)); }

double memory_traffic_per_sample(const Workload& w) {
  const double e = static_cast<double>(activation_element_bytes(w.precision));
  if (w.family == Family::kCnn) {
    // Every layer's output is written and read once forward, and its
    // gradient written and read in backward, which also rereads the output:
    // about 2 x 3 passes over the activations.
    double elems = 0;
    for (const Layer& l : w.layers) elems += static_cast<double>(l.out_elems);
    return elems * e * 2.0 * 3.0;
  }
  // Transformers: the tensors a fused layer keeps for backward (Korthikanti
  // et al.'s count, what XLA keeps) are written once forward and read once
  // backward, and the gradients of the same tensors pass once more: 3 x
  // those bytes of one sample. Without XLA every element-wise op also reads
  // and writes its tensors through DRAM (elementwise_bytes_per_sample).
  Workload fused = w;
  fused.xla = true;
  return 3.0 * static_cast<double>(activation_bytes(fused, 1)) + elementwise_bytes_per_sample(w);
}

double elementwise_bytes_per_sample(const Workload& w) {
  if (w.family != Family::kTransformer || !w.transformer || w.xla) return 0;
  // The element-wise ops of one encoder layer as TensorFlow runs BERT op by
  // op (google-research/bert modeling.py, which NVIDIA's TensorFlow BERT
  // and tensorflow/models' Keras layers follow op for op), each reading its
  // inputs and writing its output in DRAM; XLA fuses these chains into the
  // kernels around them.
  // Forward and backward bytes per element of the tensor each op runs on,
  // e the element size of the compute, f = 4 for the float32 ops of mixed
  // precision (softmax, layer norm); backward, each op's registered gradient:
  //  - bias adds (tf.layers.dense / EinsumDense: MatMul then BiasAdd), Q, K,
  //    V, the output projection, both MLP matmuls: forward read and write
  //    (2e); BiasAddGrad reads the gradient once (e);
  //  - tf.nn.dropout: RandomUniform (e), GreaterEqual (e + 1 byte), Cast of
  //    the bool mask (1 + e), the 1/(1 - rate) scale (2e), the product with
  //    the mask (3e): 8e + 2; backward the two products (3e + 2e); after
  //    attention, after the MLP, and on the attention probabilities;
  //  - residual adds: two reads, one write (3e); backward the gradient is
  //    passed on as is and summed with the branch's where they meet (AddN, 3e);
  //  - layer norm (tf.contrib.layers.layer_norm, Keras LayerNormalization
  //    with BERT's epsilon of 1e-12, which rules out its fused kernel):
  //    tf.nn.moments (mean: read; squared difference: read, write; mean:
  //    read) and tf.nn.batch_normalization (x * inv: read, write; + offset:
  //    read, write): 8 passes, in float32 under mixed precision with a cast
  //    in and out (e + f each, the same backward); backward the gradients of
  //    the same ops, each reading the incoming gradient and its saved
  //    operand and writing one gradient: 12 passes;
  //  - the tanh GELU of modeling.py (tf.nn.gelu(approximate=True) is the
  //    same ops) on the ffn-wide tensor: pow, * 0.044715, + x, * sqrt(2/pi),
  //    tanh, 1 +, 0.5 * x, the product: 18e forward; backward PowGrad (4e),
  //    the constant products (2e each), TanhGrad (3e), the product's two
  //    gradients (5e), and summing the three gradients of x (6e): 24e.
  //    SwiGLU: sigmoid, x * sig, * up: 8e forward, 13e backward;
  //  - per attention score: the 1/sqrt(d) scale (2e, backward 2e), the mask
  //    add (2e; its gradient is the incoming one), softmax (read, write, f;
  //    SoftmaxGrad reads two and writes one, 3f), casts in and out of float32
  //    under mixed precision, and the dropout of the probabilities (in f).
  const TransformerConfig& c = *w.transformer;
  const double e = static_cast<double>(activation_element_bytes(w.precision));
  const bool mixed = w.precision != Precision::kFp32;
  const double f = mixed ? 4.0 : e;         // float32 ops under mixed precision
  const double cast = mixed ? e + f : 0.0;  // one cast between the two, forward or backward
  const double s = w.seq_len, h = c.hidden, ff = c.ffn, a = c.heads;
  const double biases_h = c.gated_mlp ? 0.0 : 5.0;  // Llama-style layers have no biases
  const double biases_f = c.gated_mlp ? 0.0 : 1.0;
  const double dropouts = c.dropout ? 1.0 : 0.0;
  const double per_h = biases_h * (2.0 * e + e)                        // bias adds
                       + 2.0 * dropouts * ((8.0 * e + 2.0) + 5.0 * e)  // two dropouts
                       + 2.0 * (3.0 * e + 3.0 * e)                     // two residual adds
                       + 2.0 * (8.0 * f + 12.0 * f + 4.0 * cast);      // two layer norms
  const double per_f = c.gated_mlp ? 8.0 * e + 13.0 * e : biases_f * 3.0 * e + 18.0 * e + 24.0 * e;
  const double per_s =
      (2.0 * e + 2.0 * e) + 2.0 * e + (2.0 * f + 3.0 * f) + 4.0 * cast + dropouts * ((8.0 * f + 2.0) + 5.0 * f);
  const double per_layer = per_h * s * h + per_f * s * ff + per_s * a * s * s;
  return per_layer * static_cast<double>(c.layers + c.decoder_layers);
}

double operand_bytes_per_sample(const Workload& w) {
  const double e = static_cast<double>(activation_element_bytes(w.precision));
  double elems = 0;  // operand elements of one forward pass
  if (w.family == Family::kTransformer && w.transformer) {
    // Per token: a K x N weight costs K + N elements (its input row and output
    // row); the attention core per head QK^T (d + s) and the product with V
    // (s + d), d = h / a the head width.
    const TransformerConfig& c = *w.transformer;
    const double h = c.hidden, ff = c.ffn, s = w.seq_len;
    const double a = std::max(1, c.heads), d = h / a;
    const double mlp = c.gated_mlp ? 3 * (h + ff) : 2 * (h + ff);
    const double attention = 4 * (h + h) + 2 * a * (s + d);
    double per_token = (attention + mlp) * c.layers;
    if (c.kind == TransformerKind::kEncoderDecoder) per_token += (2 * attention + mlp) * c.decoder_layers;
    if (c.vocab > 0 && c.kind != TransformerKind::kEncoder) per_token += h + c.vocab;
    elems = per_token * s;
  } else {
    for (const Layer& l : w.layers) {
      if (l.macs == 0 || l.out_elems == 0) continue;
      // As an implicit GEMM a convolution has M = output positions, N = output
      // channels, K = input channels x kernel area = macs / output elements;
      // the kernel's parameters are K x N (a bias adds N, ignored).
      const double out = static_cast<double>(l.out_elems);
      const double k = static_cast<double>(l.macs) / out;
      if (l.kind == LayerKind::kDepthwiseConv) {
        elems += out * (k + 1);  // one channel per product: N = 1
      } else if (l.kind == LayerKind::kConv || l.kind == LayerKind::kDense) {
        const double n = std::max(1.0, static_cast<double>(l.params) / k);
        elems += out * (1 + k / n);  // M (K + N) with M = out / N
      }
    }
  }
  return 3.0 * elems * e;
}

double kernels_per_step(const Workload& w) {
  double layers = 0;
  if (w.family == Family::kTransformer && w.transformer) {
    // Per block as Keras builds it: Q, K, V and output projections, the two
    // attention matmuls, softmax, three dropouts, two residual adds, two layer
    // norms, two MLP matmuls and the activation: 17 (a decoder's
    // cross-attention adds 9); embeddings, final norm and head: 4.
    const TransformerConfig& c = *w.transformer;
    layers = 17.0 * c.layers + 4;
    if (c.kind == TransformerKind::kEncoderDecoder) layers += 26.0 * c.decoder_layers;
  } else {
    for (const Layer& l : w.layers) {
      if (l.kind != LayerKind::kInput && l.kind != LayerKind::kView) layers += 1;
    }
  }
  return 3.0 * layers;
}

SampleCost sample_cost(const Workload& w) {
  SampleCost c{training_flops_per_sample(w), 0, memory_traffic_per_sample(w)};
  c.operand_bytes = operand_bytes_per_sample(w);
  c.kernels = kernels_per_step(w);
  // Depthwise convolutions have no tensor-core kernel in cuDNN's common
  // paths: a MobileNet/EfficientNet block's depthwise part runs on CUDA cores
  // whatever the precision (3 x forward MACs x 2, as for the rest).
  for (const Layer& l : w.layers) {
    if (l.kind == LayerKind::kDepthwiseConv) c.cuda_core_flops += 6.0 * static_cast<double>(l.macs);
    if (l.winograd) c.winograd_flops += 6.0 * static_cast<double>(l.macs);
  }
  return c;
}

uint64_t per_gpu_batch(const Workload& w) {
  const uint64_t gpus = static_cast<uint64_t>(std::max(1, w.gpus));
  return std::max<uint64_t>(1, (w.batch + gpus - 1) / gpus);
}

double update_bytes_per_step(const Workload& w, int accumulation_steps) {
  // Per trainable parameter, in float32 unless said: the gradient written by
  // backward and read again (8 B); the weights read by forward and backward
  // (8 B), or under mixed precision the float16 copy written once and read
  // twice (6 B) plus the loss-scale optimizer's unscaling of the gradients
  // (8 B); with accumulation, the accumulator read and written (8 B). Once per
  // update: the update kernel (TensorFlow's fused ResourceApply* ops) reading
  // and writing the variable (8 B) and each slot (8 B per slot: momentum 1,
  // Adam/AdamW 2, Adafactor's factored moments ~0).
  double slots = 0;
  switch (w.optimizer) {
    case Optimizer::kSgd: slots = 0; break;
    case Optimizer::kMomentum: slots = 1; break;
    case Optimizer::kAdam:
    case Optimizer::kAdamW: slots = 2; break;
    case Optimizer::kAdafactor: slots = 0; break;
  }
  const double acc = static_cast<double>(std::max(1, accumulation_steps));
  const double weights = w.precision == Precision::kFp32 ? 8.0 : 6.0 + 8.0;
  const double every_step = 8.0 + weights + (acc > 1 ? 8.0 : 0.0);
  // An optimizer run as separate element-wise ops (BERT's Python Adam and
  // LAMB) moves each parameter many more times (kSeparateUpdateBytesPerParameter).
  const double per_update = w.separate_update_ops ? kSeparateUpdateBytesPerParameter : 8.0 + 8.0 * slots;
  return static_cast<double>(w.trainable_params) * (every_step + per_update / acc);
}

size_t cost_family(const Workload& w) {
  if (w.family == Family::kTransformer) return 1;
  for (const Layer& l : w.layers) {
    if (l.kind == LayerKind::kDepthwiseConv) return 2;
  }
  return 0;
}

std::string_view cost_family_name(size_t f) {
  switch (f) {
    case 0: return "cnn";
    case 1: return "transformer";
    default: return "depthwise cnn";
  }
}

Calibration default_calibration() {
  Calibration c;
  // ASSUMED before any fit: 40% of the compute peak (a typical model FLOPs
  // utilisation; Chowdhery et al. 2022, PaLM, Table 3 reports 20-46%) and
  // 60% of the DRAM bandwidth. The fit replaces every value that has rows.
  for (auto& fam : c.compute_efficiency) fam.fill(0.4);
  c.memory_efficiency.fill(0.6);
  // ASSUMED before the fit: operands at 8x the DRAM bandwidth.
  c.operand_bandwidth = 8.0;
  // ASSUMED before the fit: 5 microseconds per kernel.
  c.kernel_seconds = 5e-6;
  // Before the fit: no difference between software stacks.
  c.stack_factor_per_year = 1.0;
  return c;
}

double stack_factor(const Calibration& c, double stack_year) {
  if (stack_year <= 0 || c.reference_year <= 0) return 1.0;
  return std::pow(c.stack_factor_per_year, stack_year - c.reference_year);
}

namespace {

// The rows the fit uses (TensorFlow, one GPU, GPU in the catalog) as features.
std::vector<RowFeatures> fit_features(std::span<const ThroughputRow> rows, std::span<const GpuCandidate> gpus) {
  std::vector<RowFeatures> feats;
  for (const ThroughputRow& r : rows) {
    if (r.framework != "tensorflow" || r.gpu_count != 1) continue;
    if (auto f = features(r, gpus)) feats.push_back(std::move(*f));
  }
  return feats;
}

// FNV-1a of every feature written out, a row at a time: numbers to 12
// significant digits, so that a last-bit difference between compilers does
// not count.
std::string fingerprint_of(std::span<const RowFeatures> feats) {
  core::Fnv1a hash;
  std::string line;
  for (const RowFeatures& f : feats) {
    const Roofs& r = f.roofs;
    line.clear();
    fmt::format_to(
        std::back_inserter(line),
        "{}|{}|{:.12g}|{:.12g}|{:.12g}|{:.12g}|{:.12g}|{:.12g}|{:.12g}|{:.12g}|{:.12g}|{}|{:.12g}|{}|{}|{:.12g}",
        r.family, mode_index(r.mode), r.winograd, r.dense, r.core, r.bytes, r.operand, r.kernels, r.peak, r.fp32_peak,
        r.bandwidth, r.autotune, f.measured, f.gpu_id, f.group, f.stack_year);
    hash.add(line);
  }
  return fmt::format("fnv1a64:{:016x}:{}", hash.h, feats.size());
}

Calibration fresh_fit(std::span<const RowFeatures> feats, bool with_band) {
  Calibration c = fit(feats);
  if (!with_band) return c;
  // The band: how far published rows fell from a fit that had not seen
  // their source (leave-one-source-out: a source's rows share a software
  // stack and a method, so a fit that saw any of them is not a fair test),
  // 7.5th to 92.5th percentile. With fewer than three sources, leave-one-GPU-out.
  std::set<std::string> groups, ids;
  for (const RowFeatures& f : feats) {
    groups.insert(f.group);
    ids.insert(f.gpu_id);
  }
  const bool by_source = groups.size() >= 3;
  std::vector<double> ratios;
  for (const std::string& key : by_source ? groups : ids) {
    auto held_out = [&](const RowFeatures& f) { return (by_source ? f.group : f.gpu_id) == key; };
    std::vector<RowFeatures> train;
    for (const RowFeatures& f : feats) {
      if (!held_out(f)) train.push_back(f);
    }
    if (train.empty()) continue;
    const Calibration held = fit(train);
    for (const RowFeatures& f : feats) {
      if (held_out(f)) ratios.push_back(f.measured / predicted_rate(f, held));
    }
  }
  // 7.5th to 92.5th percentile: the band is itself judged held out (a fit
  // without a source, its band from the remaining sources), and a 10th-90th
  // band of the remaining sources covered fewer than the 80% of a new
  // source's rows the band promises (issue 29: 79.4% once the element-wise
  // traffic was added, docs/plan.md).
  if (ratios.size() >= 5) {
    c.band_low = std::min(0.95, core::quantile(ratios, kBandQuantile));
    c.band_high = std::max(1.05, core::quantile(ratios, 1.0 - kBandQuantile));
  }
  return c;
}

}  // namespace

std::string fit_fingerprint(std::span<const ThroughputRow> rows, std::span<const GpuCandidate> gpus) {
  return fingerprint_of(fit_features(rows, gpus));
}

Calibration fit_calibration(std::span<const ThroughputRow> rows, std::span<const GpuCandidate> gpus, bool with_band) {
  const std::vector<RowFeatures> feats = fit_features(rows, gpus);
  if (feats.empty()) return default_calibration();
  // The built-in data's fit is shipped (plan/shipped_fit.h): seconds saved a run.
  if (with_band) {
    if (auto shipped = shipped_calibration(fingerprint_of(feats))) return *shipped;
  }
  return fresh_fit(feats, with_band);
}

Calibration fresh_fit_calibration(std::span<const ThroughputRow> rows, std::span<const GpuCandidate> gpus) {
  const std::vector<RowFeatures> feats = fit_features(rows, gpus);
  return feats.empty() ? default_calibration() : fresh_fit(feats, true);
}

ThroughputModel make_throughput_model(const Measurements& m, std::span<const GpuCandidate> gpus) {
  ThroughputModel t;
  t.rows = m.throughput;
  t.calibration = fit_calibration(m.throughput, gpus);
  return t;
}

const ThroughputModel& builtin_throughput_model() {
  static const ThroughputModel kModel = [] {
    const std::vector<GpuCandidate> gpus = plan_gpus_from_catalog();
    return make_throughput_model(builtin_measurements(), gpus);
  }();
  return kModel;
}

std::vector<const ThroughputRow*> matching_rows(std::span<const ThroughputRow> rows, const Workload& w,
                                                const GpuCandidate& gpu) {
  std::vector<const ThroughputRow*> out;
  if (w.precision == Precision::kMixedBfloat16) return out;  // no published bfloat16 rows
  const bool cnn = w.family == Family::kCnn;
  for (const ThroughputRow& r : rows) {
    if (r.framework != "tensorflow" || r.gpu_count != 1 || r.gpu_id != gpu.id || r.model != w.model_id) continue;
    if (cnn ? r.image_size != w.image_size : r.seq_len != w.seq_len) continue;
    bool same = false;
    switch (r.precision) {
      case MeasuredPrecision::kMixedFloat16: same = w.precision == Precision::kMixedFloat16; break;
      case MeasuredPrecision::kFp32: same = w.precision == Precision::kFp32; break;
      // A TF32 row is float32 training on a GPU with TF32 tensor cores: what
      // fp32 runs there by default, and nothing else.
      case MeasuredPrecision::kTf32: same = w.precision == Precision::kFp32 && gpu.tf32_tflops.has_value(); break;
    }
    if (same) out.push_back(&r);
  }
  return out;
}

std::optional<Throughput> estimate_throughput(const Workload& w, const GpuCandidate& gpu, const Calibration& c,
                                              int accumulation_steps, double stack_year) {
  const auto roofs = make_roofs(w, gpu, accumulation_steps);
  if (!roofs) return std::nullopt;
  const MathMode m = roofs->mode;
  const SampleCost cost = sample_cost(w);
  const size_t fam = roofs->family;
  const double ce = c.compute_efficiency[fam][mode_index(m)];
  const double me = c.memory_efficiency[fam];
  const double bw = roofs->bandwidth;
  const double peak = roofs->peak / 1e12;
  const SampleTimes times = sample_times(*roofs, c);
  Throughput t;
  const double stack = stack_factor(c, stack_year);
  t.samples_per_s = stack / times.total();
  t.low = t.samples_per_s * c.band_low;
  t.high = t.samples_per_s * c.band_high;
  t.basis = "estimated";
  t.math = std::string(math_mode_name(m));
  // The largest share of the time names the bound: the arithmetic, the bytes
  // (DRAM and the products' operands), or the fixed cost of the kernels.
  const double bytes_time = times.memory + times.operands;
  t.bound = times.kernels > std::max(times.compute, bytes_time) ? "launch"
            : bytes_time > times.compute                        ? "memory"
                                                                : "compute";
  const core::Message bound_text =
      core::Message::in_context(t.bound == "launch"   ? NC_("throughput bound", "launch")
                                : t.bound == "memory" ? NC_("throughput bound", "memory")
                                                      : NC_("throughput bound", "compute"));
  // TRANSLATORS: {0} what bounds the rate (compute, memory, launch), {1} the model family (cnn, transformer), then the roofline's figures.
  t.detail = core::Message(
      N_("{0}-bound ({1}): {2:.3g} training FLOPs per sample at {3} of {4:.1f} TFLOPS {5} + {6:.3g} bytes per sample at {7} of {8:.0f} GB/s; "
         "{9:.3g} operand bytes per sample at {10:.1f}x the DRAM bandwidth + {11:.0f} kernels per step at {12:.0f} us each over a batch of {13}; "
         "efficiencies fitted on {14} published TensorFlow rows, band {15:.2f}x-{16:.2f}x (leave-one-source-out)"),
      bound_text, std::string(cost_family_name(fam)), cost.flops, percent(ce), peak, t.math, roofs->bytes, percent(me),
      bw / 1e9, roofs->operand, c.operand_bandwidth, cost.kernels, c.kernel_seconds * 1e6, per_gpu_batch(w), c.rows,
      c.band_low, c.band_high);
  if (roofs->autotune)
    t.detail = detail_then(
        std::move(t.detail),
        core::Message(
            N_("; convolutions take the faster of TF32 and FP32 CUDA cores with Winograd (cuDNN autotuning)")));
  if (stack != 1.0) {
    t.detail = detail_then(
        std::move(t.detail),
        core::Message(
            // TRANSLATORS: {0} the factor applied, {1} the stack's year, {2} the newest stack's year, {3} the fitted factor per year.
            N_("; x {0:.2f} for a software stack of {1:.1f} against today's of {2:.1f} (fitted: x {3:.3f} per year newer)"),
            stack, stack_year, c.reference_year, c.stack_factor_per_year));
  }
  // Pascal and older (compute capability 6.x and below) are usually run with
  // older software (TensorFlow 1.x with cuDNN 5-7, before the tensor-core and
  // fused kernels of the newer rows' containers). Published TensorFlow 1.x
  // training runs on P100-class GPUs (issue 29; since the corpus extension,
  // tensorflow.org's DGX-1 P100 table is among the fitted rows) came out up
  // to 1.5x slower than the model, which has no software-generation factor:
  // the band's low end reaches at least 1/1.5 of the estimate there.
  if (compute_capability_major(gpu) <= 6) {
    t.low = std::min(t.low, t.samples_per_s * kOldStackBandLow);
    t.detail = detail_then(
        std::move(t.detail),
        core::Message(
            // TRANSLATORS: {0} the low end of the band as a multiple of the estimate (0.67).
            N_("; band reaches at least {0:.2f}x below: published TensorFlow 1.x runs on P100-class GPUs (cuDNN 5-7) "
               "came out up to 1.5x slower than this model"),
            kOldStackBandLow));
  }
  return t;
}

std::vector<core::Message> condition_differences(const ThroughputRow& r, const Workload& w) {
  std::vector<core::Message> out;
  // TRANSLATORS: a published row ran with XLA {0} (on/off), the plan asks for {1}.
  if (r.xla != w.xla) out.push_back(core::Message(N_("XLA {0} (request: {1})"), xla_word(r.xla), xla_word(w.xla)));
  if (r.batch) {
    const double row_batch = *r.batch, want = static_cast<double>(per_gpu_batch(w));
    if (want > kBatchFactor * row_batch || row_batch > kBatchFactor * want) {
      out.push_back(
          // TRANSLATORS: {0} the row's batch per GPU, {1} the plan's, {2} the factor allowed (2).
          core::Message(N_("batch {0} per GPU (request: {1}, more than {2:g}x apart)"), *r.batch, per_gpu_batch(w),
                        kBatchFactor));
    }
  }
  const int gen = software_generation(r.framework_detail);
  if (gen != 0 && gen < kRequestGeneration) {
    // TRANSLATORS: {0} the row's framework version as published ("TensorFlow 1.15 (NGC ...)").
    out.push_back(core::Message(N_("{0} (request: TensorFlow 2)"), r.framework_detail));
  }
  return out;
}

namespace {

core::Message row_name(const ThroughputRow& r) {
  // Lambda's rows name the file of their batch sizes after the throughput file
  // ("URL (batch sizes: FILE)", plan_measurements.json): that note in the reader's words.
  constexpr std::string_view kBatchNote = " (batch sizes: ";
  const std::string& source = r.source;
  if (const size_t at = source.find(kBatchNote); at != std::string::npos && source.back() == ')') {
    const std::string file = source.substr(at + kBatchNote.size(), source.size() - 1 - at - kBatchNote.size());
    // TRANSLATORS: {0} a published table (URL), {1} the file of its batch sizes.
    const core::Message named(N_("{0} (batch sizes: {1})"), source.substr(0, at), file);
    return core::Message("\"{0}\" ({1})", r.table_row, named);
  }
  return core::Message("\"{0}\" ({1})", r.table_row, source);
}

}  // namespace

namespace {

std::optional<Throughput> uncalibrated_throughput(const Workload& w, const GpuCandidate& gpu, const ThroughputModel& m);

}  // namespace

std::optional<Throughput> gpu_throughput(const Workload& w, const GpuCandidate& gpu, const ThroughputModel& m) {
  auto t = uncalibrated_throughput(w, gpu, m);
  if (!t || !m.user) return t;
  const RateCalibration& u = *m.user;
  if (gpu.id == u.gpu_id) {
    // The user's GPU at the user's rate, times the model's batch effect when
    // the plan runs it at another batch per GPU (factor x model = measured
    // at the run's batch). Its band: 10%, as rows of one GPU spread.
    t->samples_per_s *= u.factor;
    t->low = t->samples_per_s * 0.9;
    t->high = t->samples_per_s * 1.1;
  } else {
    t->samples_per_s *= u.factor;
    t->low *= u.factor;
    t->high *= u.factor;
  }
  t->basis = "calibrated";
  t->detail = core::Message(N_("{0}; {1}"), u.text, std::move(t->detail));
  return t;
}

namespace {

// The published rows measured in the plan's own conditions: their median,
// with the spread of container releases as the band.
Throughput throughput_of_measured_rows(const std::vector<const ThroughputRow*>& exact, const Workload& w,
                                       const GpuCandidate& gpu, const core::Message& tf32_note) {
  std::vector<double> v;
  for (const ThroughputRow* r : exact) v.push_back(r->samples_per_s);
  Throughput t;
  t.samples_per_s = core::median(v);
  // Published rows of the same GPU and precision differ by about 10%
  // between container releases (DeepLearningExamples TensorFlow BERT-large
  // AMP on V100 32GB: 51.0 on DGX-1, 55.3 on DGX-2).
  t.low = *std::min_element(v.begin(), v.end()) * 0.9;
  t.high = *std::max_element(v.begin(), v.end()) * 1.1;
  t.basis = "measured";
  t.math = std::string(math_mode_name(math_mode(gpu, w.precision)));
  // TRANSLATORS: {0} rows, {1} their precision, {2} the row's setup, {3} its batch, {4} the source (a URL).
  t.detail = core::Message::plural(NP_("median of {0} published TensorFlow {1} row ({2}, batch {3}): {4}",
                                       "median of {0} published TensorFlow {1} rows ({2}, batch {3}): {4}"),
                                   v.size(), v.size(), std::string(measured_precision_name(exact.front()->precision)),
                                   exact.front()->table_row, exact.front()->batch.value_or(0), exact.front()->source);
  t.detail = detail_then(
      std::move(t.detail),
      core::Message(
          // TRANSLATORS: the conditions a published row had to share with the plan to be used as measured; {0} XLA on/off, {1} the factor (2).
          N_("; conditions matched: precision, XLA {0}, batch per GPU within {1:g}x, TensorFlow 2 or unstated"),
          xla_word(w.xla), kBatchFactor));
  if (t.math == "TF32") t.detail = detail_then(std::move(t.detail), tf32_note);
  if (std::any_of(exact.begin(), exact.end(), [](const ThroughputRow* r) { return !r->source_verified; })) {
    t.detail =
        detail_then(std::move(t.detail),
                    core::Message(N_(
                        "; unverified: the source of these rows was not re-checked against its logs, scripts or README "
                        "(plan_measurements.json sources[].verified)")));
  }
  return t;
}

std::optional<Throughput> uncalibrated_throughput(const Workload& w, const GpuCandidate& gpu,
                                                  const ThroughputModel& m) {
  const auto candidates = matching_rows(m.rows, w, gpu);
  std::vector<const ThroughputRow*> exact;
  for (const ThroughputRow* r : candidates) {
    if (condition_differences(*r, w).empty()) exact.push_back(r);
  }
  const core::Message tf32_note(N_("; fp32 runs as TF32 on this GPU (TensorFlow's default since 2.4)"));
  if (!exact.empty()) return throughput_of_measured_rows(exact, w, gpu, tf32_note);
  auto t = estimate_throughput(w, gpu, m.calibration, w.accumulation_steps);
  if (!t) return t;
  // The nearest row whose only difference is the batch: its rate times the
  // model's batch factor (the model's rate at the request's batch over its
  // rate at the row's). A row that differs in XLA or TensorFlow generation is
  // not rescaled: no published pair isolates those factors for every model
  // (docs/plan.md), so the model's own estimate stands and the row is named.
  const ThroughputRow* nearest = nullptr;
  double nearest_distance = 0;
  std::vector<core::Message> unused;
  for (const ThroughputRow* r : candidates) {
    const auto diff = condition_differences(*r, w);
    const bool batch_only = r->batch && r->xla == w.xla &&
                            !(software_generation(r->framework_detail) != 0 &&
                              software_generation(r->framework_detail) < kRequestGeneration);
    if (batch_only) {
      const double d = std::abs(std::log(static_cast<double>(*r->batch) / static_cast<double>(per_gpu_batch(w))));
      if (nearest == nullptr || d < nearest_distance) {
        nearest = r;
        nearest_distance = d;
      }
    } else {
      std::vector<core::MessageArg> joined(diff.begin(), diff.end());
      // TRANSLATORS: {0} a published row (its table row and source), {1} how its conditions differ from the plan's.
      unused.push_back(core::Message(N_("{0} not used: {1}"), row_name(*r), core::MessageArg::list(std::move(joined))));
    }
  }
  if (nearest != nullptr) {
    Workload at_row = w;
    at_row.batch = static_cast<uint64_t>(*nearest->batch) * static_cast<uint64_t>(std::max(1, w.gpus));
    const auto row_model = estimate_throughput(at_row, gpu, m.calibration, nearest->accumulation_steps);
    if (row_model && row_model->samples_per_s > 0) {
      const double factor = t->samples_per_s / row_model->samples_per_s;
      const double rate = nearest->samples_per_s * factor;
      // The factor is the model's, so the model's band stays (no narrower
      // than the 10% that rows of one GPU spread, as for measured rows).
      const double band_low = std::min(0.9, t->low / t->samples_per_s),
                   band_high = std::max(1.1, t->high / t->samples_per_s);
      t->samples_per_s = rate;
      t->low = rate * band_low;
      t->high = rate * band_high;
      t->detail = core::Message(
          // TRANSLATORS: {0} the published rate, {1} the row, {2} the batch factor, {3} the row's batch, {4} the plan's batch.
          N_("published {0:.1f} samples/s of {1} x batch factor {2:.2f} (tfrig's model at batch {4} over batch {3} per GPU: "
             "the step's update and kernel costs over more or fewer samples); the model alone: {5}"),
          nearest->samples_per_s, row_name(*nearest), factor, *nearest->batch, per_gpu_batch(w), std::move(t->detail));
    }
  }
  for (core::Message& u : unused) t->detail = core::Message(N_("{0}; {1}"), std::move(t->detail), std::move(u));
  if (t->math == "TF32") t->detail = detail_then(std::move(t->detail), tf32_note);
  return t;
}

}  // namespace

std::optional<Throughput> gpu_throughput(const Workload& w, const GpuCandidate& gpu,
                                         std::span<const GpuCandidate> /*gpus*/) {
  return gpu_throughput(w, gpu, builtin_throughput_model());
}

}  // namespace tfrig::plan
