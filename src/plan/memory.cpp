#include "plan/memory.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>

#include "core/units.h"
#include "core/version.h"

namespace tfrig::plan {

namespace {

// CUDA context with cuBLAS/cuDNN kernels loaded plus the TensorFlow runtime.
// ASSUMED: 768 MiB. The CUDA C Programming Guide (section "Lazy Loading",
// CUDA 11.7+) explains the context holds every loaded module's code, which is
// why the figure depends on the libraries loaded; observed contexts run from
// ~300 MiB (lazy loading) to ~1 GiB with all of cuDNN loaded eagerly.
constexpr uint64_t kContextBytes = 768 * core::kMiB;

// TensorFlow caps a convolution's cuDNN workspace at 4 GiB by default
// (TF_CUDNN_WORKSPACE_LIMIT_IN_MB, default 1 << 12 MB, in
// tensorflow/core/util/use_cudnn.cc); the planner reserves the largest
// layer's output as workspace, between 64 MiB and that cap.
constexpr uint64_t kCudnnWorkspaceCap = 4 * core::kGiB;
constexpr uint64_t kCudnnWorkspaceFloor = 64 * core::kMiB;

// cuBLAS workspace: the cuBLAS documentation (cublasSetWorkspace, "default
// workspace pool") gives 32 MiB on Hopper and 4 MiB on earlier GPUs; the
// planner reserves the larger.
constexpr uint64_t kCublasWorkspace = 32 * core::kMiB;

// ASSUMED: 5% of the tensors for allocator slack. TensorFlow's BFC allocator
// rounds every request up to 256 bytes and to power-of-two bins
// (tensorflow/core/common_runtime/bfc_allocator.h) and fragments between steps.
constexpr double kFragmentation = 0.05;

// The estimate's uncertainty, added before "fits" is said: 10% of the total.
// Chosen so that no published out-of-memory batch in
// data/knowledge/plan_measurements.json is called "fits" (docs/plan-validation.md
// lists them); when unsure the planner errs toward "does not fit".
constexpr double kUncertainty = 0.10;

// Keras mixed precision keeps variables in float32 and casts them to float16
// or bfloat16 inside each layer's call (TensorFlow guide "Mixed precision",
// https://www.tensorflow.org/guide/mixed_precision, "the variables are float32").
// Gradients of float32 variables are float32.
constexpr uint64_t kVariableBytes = 4;

// Byte counts from outside input (a Keras summary, flags) can exceed 64 bits;
// they saturate so an absurd model reads "does not fit" instead of wrapping
// to a small number (and a double out of range is never converted: that is
// undefined behaviour).
uint64_t saturating_bytes(double v) {
  constexpr double kLimit = 18446744073709549568.0;  // largest double below 2^64
  if (!(v > 0)) return 0;
  return v >= kLimit ? std::numeric_limits<uint64_t>::max() : static_cast<uint64_t>(v);
}

uint64_t saturating_sum(std::initializer_list<uint64_t> parts) {
  uint64_t total = 0;
  for (const uint64_t p : parts) {
    total = p > std::numeric_limits<uint64_t>::max() - total ? std::numeric_limits<uint64_t>::max() : total + p;
  }
  return total;
}

// Bytes per parameter of optimizer state, in float32 (Keras optimizers):
// SGD none; SGD with momentum one slot; Adam/AdamW two slots (m, v:
// Kingma & Ba 2015; Loshchilov & Hutter 2019).
uint64_t optimizer_bytes_per_param(Optimizer o) {
  switch (o) {
    case Optimizer::kSgd: return 0;
    case Optimizer::kMomentum: return 4;
    case Optimizer::kAdam:
    case Optimizer::kAdamW: return 8;
    case Optimizer::kAdafactor: return 0;  // factored: see below
  }
  return 8;
}

// Whether a layer's backward pass reads its input or its own output
// (TensorFlow's registered gradients): Conv2D/MatMul read their input;
// FusedBatchNorm reads its input x (and the saved statistics); Relu's
// gradient ReluGrad(grad, features) reads the Relu *output*; swish/GELU read
// their input; Add and Concat read neither; average pooling needs only the
// shape, max pooling its input; Dropout keeps only its mask.
bool needs_input(LayerKind k) {
  switch (k) {
    case LayerKind::kConv:
    case LayerKind::kDepthwiseConv:
    case LayerKind::kDense:
    case LayerKind::kBatchNorm:
    case LayerKind::kLayerNorm:
    case LayerKind::kActivation:
    case LayerKind::kMultiply:
    case LayerKind::kPool:
    case LayerKind::kAttention:
    case LayerKind::kRecurrent:
    case LayerKind::kNested:
    case LayerKind::kOther: return true;
    default: return false;
  }
}

bool needs_output(LayerKind k) { return k == LayerKind::kRelu || k == LayerKind::kNested || k == LayerKind::kOther; }

bool passes_through(LayerKind k) { return k == LayerKind::kView || k == LayerKind::kPreprocess; }

// How many activation elements a layer's output keeps for backward, as a
// multiple of its size: 1 when its own backward or the next layer's (looking
// through views) reads it, else 0. Dropout adds its 1-byte mask; attention
// and recurrent layers keep internal tensors beyond their output (Q, K, V;
// four LSTM gates) counted as 3 and 4 outputs, coarse bounds.
double stored_factor(const std::vector<Layer>& layers, size_t i, uint64_t elem_bytes) {
  const LayerKind k = layers[i].kind;
  if (passes_through(k)) return 0.0;
  size_t next = i + 1;
  while (next < layers.size() && passes_through(layers[next].kind)) ++next;
  const bool read_next = next < layers.size() && needs_input(layers[next].kind);
  double factor = (needs_output(k) || read_next) ? 1.0 : 0.0;
  if (k == LayerKind::kDropout) factor += 1.0 / static_cast<double>(elem_bytes);
  if (k == LayerKind::kAttention) factor += 3.0;
  if (k == LayerKind::kRecurrent) factor += 4.0;
  return factor;
}

}  // namespace

uint64_t activation_element_bytes(Precision p) { return p == Precision::kFp32 ? 4 : 2; }

namespace {

uint64_t fused_layer_activation_bytes(const TransformerConfig& c, uint64_t s, uint64_t b, Precision p, Recompute r) {
  // Korthikanti et al. 2022, section 4.1, with 16-bit activations: per layer
  // s*b*h*(34 + 5*a*s/h) bytes (attention 11sbh + 5as^2b, MLP 19sbh, two
  // layer norms 4sbh), split into e-byte tensors and 1-byte dropout masks:
  // sbh*(16e + 2) + a*s^2*b*(2e + 1). XLA fuses TensorFlow's elementwise
  // chains (GELU, dropout, softmax, layer norm) into such kernels. Three
  // things TensorFlow's XLA (auto-clustering, TF_XLA_FLAGS=--tf_xla_auto_jit=2
  // or tf.config.optimizer.set_jit, as NVIDIA's, Lambda's and the Model
  // Garden's scripts turn it on) keeps beyond that count:
  //  - the dropout masks: stateful random ops are never auto-clustered
  //    (tensorflow/compiler/jit/compilability_check_util.h,
  //    OperationFilter::allow_stateful_rng_ops: "XLA's RNG does not have the
  //    same seeding behavior as TensorFlow's RNG ... So we avoid
  //    auto-clustering stateful RNG ops"), and tf.nn.dropout draws
  //    RandomUniform in the tensor's own type: each mask's random tensor is
  //    materialised outside the clusters and held as a cluster input, e bytes
  //    per element instead of a fused 1-byte mask (under jit_compile=True XLA
  //    compiles the RNG too and the 1-byte mask holds; the planner cannot
  //    tell which the user runs and takes the larger);
  //  - the GELU's tanh: BERT's TensorFlow code builds the tanh GELU from ops
  //    (google-research/bert and the Model Garden: 0.5x(1 + tanh(...))), and
  //    XLA's instruction fusion does not duplicate an expensive producer
  //    (tanh, exp, power, divide) into a second consumer (tensorflow/compiler/
  //    xla/service/instruction_fusion.cc, ShouldFuse: "don't duplicate
  //    expensive instructions"), so the tanh that the forward output and the
  //    backward's TanhGrad both read is written once and held: one more
  //    ffn-wide tensor beside the GELU's input and output;
  //  - the layer norms' inputs in float32: TensorFlow 2's Keras BERT builds
  //    its LayerNormalization layers with dtype=tf.float32 and adds the
  //    residual in float32 ("Use float32 in keras layer norm ... for numeric
  //    stability", NVIDIA DeepLearningExamples TensorFlow2/LanguageModeling/
  //    BERT/official/nlp/modeling/layers/transformer.py, the Model Garden's
  //    layer), and TensorFlow 1's AMP keeps the statistics in float32 (Mean
  //    on the deny list, the f of the unfused count below); XLA does not
  //    change those types, so each layer norm's gradient reads a 4-byte
  //    input, not an e-byte one.
  // The s^2 terms stay at e bytes: published batches of BERT-large at 384
  // and 512 with XLA (NVIDIA's TF1 and TF2 READMEs) fit only if the softmax
  // output and its dropout's random tensor are 16-bit under XLA, not float32
  // as the unfused count keeps them (docs/plan.md).
  const uint64_t e = activation_element_bytes(p);
  constexpr uint64_t f = 4;
  const uint64_t h = static_cast<uint64_t>(c.hidden), a = static_cast<uint64_t>(c.heads);
  const uint64_t ff = static_cast<uint64_t>(c.ffn);
  const uint64_t sbh = s * b * h;
  if (r == Recompute::kFull) return e * sbh;
  const uint64_t mask = c.dropout ? e : 0;
  const uint64_t attention = 5 * e * sbh + mask * sbh;
  // MLP: its input and three ffn-wide tensors, the GELU's input, tanh and
  // output (SwiGLU: gate, up and their product, as before).
  const uint64_t mlp = e * s * b * (h + 3 * ff) + mask * sbh;
  const uint64_t norms = 2 * f * sbh;
  uint64_t bytes = attention + mlp + norms;
  if (r == Recompute::kNone) bytes += a * s * s * b * (c.dropout ? 2 * e + mask : e);
  return bytes;
}

}  // namespace

uint64_t transformer_layer_activation_bytes(const TransformerConfig& c, uint64_t s, uint64_t b, Precision p,
                                            Recompute r, bool xla) {
  if (xla) return fused_layer_activation_bytes(c, s, b, p, r);
  // What one encoder/decoder layer keeps for backward when TensorFlow runs it
  // op by op, as Keras and the TensorFlow BERT code do without XLA or fused
  // attention. Korthikanti et al. 2022 ("Reducing Activation Recomputation in
  // Large Transformer Models", arXiv:2205.05198, section 4.1) count the
  // fused-kernel case, 34*sbh + 5*a*s^2*b bytes at 16 bit; unfused TensorFlow
  // keeps more, because every op holds the inputs its registered gradient reads:
  //  - e is the element size of the compute (4 fp32, 2 mixed); f = 4 for the
  //    ops TensorFlow's mixed precision keeps in float32 (Softmax, the layer
  //    norm statistics: the deny list of auto_mixed_precision_lists.h);
  //  - tf.nn.dropout is x * scale * cast(mask) (TF 1.x: x / keep_prob *
  //    floor(keep_prob + uniform)): the product's gradient reads the scaled
  //    input and the mask, 2 tensors of e bytes; its output is kept too where
  //    the next op's gradient reads it (a matmul, not a residual add);
  //  - attention: the QKV input, Q, K, V (transposed copies the batched
  //    matmuls read), the context fed to the output projection: 5e sbh;
  //  - each layer norm keeps its input and its normalised value: 2f sbh;
  //  - MLP: its input and four ffn-wide tensors: the pre-activation, the tanh
  //    (TanhGrad reads the output), the cdf (the final multiply's gradient
  //    reads both factors) and the GELU output: e*sb*(h + 4 ffn). The other
  //    intermediates of the tanh GELU built from ops (google-research/bert
  //    modeling.py: x^3, the tanh argument, 1 + tanh) are read only by
  //    gradients with respect to constants, which nothing fetches: graph mode
  //    (a TF 1 session, a tf.function such as Keras fit) prunes them, and the
  //    erf GELU keeps the same four (x / sqrt 2 for ErfGrad instead of the
  //    tanh). SwiGLU (gate, its sigmoid, the SiLU, up, product):
  //    e*sb*(h + 5 ffn);
  //  - per attention score (a*s^2*b): the softmax output and the dropout's
  //    scaled input and mask (f each), and what the second matmul reads: the
  //    dropout output (f) or, under mixed precision, its float16 cast (e).
  //    The raw scores are not kept: the scaling multiply's gradient needs
  //    only its constant.
  // For BERT's shapes that is 120*sbh + 16*a*s^2*b bytes at fp32.
  // Selective recomputation drops the s^2 terms; full recomputation keeps
  // only each layer's input (Korthikanti et al. sections 4.3 and 5).
  const uint64_t e = activation_element_bytes(p);
  constexpr uint64_t f = 4;
  const bool mixed = p != Precision::kFp32;
  const uint64_t h = static_cast<uint64_t>(c.hidden), a = static_cast<uint64_t>(c.heads);
  const uint64_t ff = static_cast<uint64_t>(c.ffn);
  const uint64_t sbh = s * b * h;
  if (r == Recompute::kFull) return e * sbh;
  const uint64_t drop = c.dropout ? 2 * e : 0;
  const uint64_t attention = 5 * e * sbh + drop * sbh;
  const uint64_t mlp = e * s * b * (h + (c.gated_mlp ? 5 : 4) * ff) + drop * sbh;
  const uint64_t norms = 2 * 2 * f * sbh;
  uint64_t bytes = attention + mlp + norms;
  if (r == Recompute::kNone) {
    const uint64_t dropped = c.dropout ? 2 * f : 0;                 // scaled input, mask
    const uint64_t matmul_input = mixed ? e : (c.dropout ? f : 0);  // fp32 without dropout: the softmax output
    const uint64_t per_score = f + dropped + matmul_input;
    bytes += a * s * s * b * per_score;
  }
  return bytes;
}

uint64_t activation_bytes(const Workload& w, uint64_t batch) {
  const uint64_t e = activation_element_bytes(w.precision);
  if (w.family == Family::kTransformer && w.transformer) {
    const TransformerConfig& c = *w.transformer;
    const uint64_t s = static_cast<uint64_t>(w.seq_len);
    const uint64_t h = static_cast<uint64_t>(c.hidden);
    const uint64_t per_layer = transformer_layer_activation_bytes(c, s, batch, w.precision, w.recompute, w.xla);
    uint64_t total = per_layer * static_cast<uint64_t>(c.layers);
    if (c.kind == TransformerKind::kEncoderDecoder) {
      // A decoder layer adds cross-attention: a second attention block
      // (same per-layer terms as self-attention at equal lengths).
      TransformerConfig cross = c;
      cross.ffn = 0;
      const uint64_t extra = w.recompute == Recompute::kFull ? 0
                                                             : transformer_layer_activation_bytes(
                                                                   cross, s, batch, w.precision, w.recompute, w.xla) -
                                                                   e * s * batch * h;  // no second MLP input
      total += (per_layer + extra) * static_cast<uint64_t>(c.decoder_layers);
    }
    // Korthikanti et al. section 4.2: embedding dropout mask (sbh), final
    // layer norm input and output-layer input (e*sbh each), and the logits
    // kept in float32 for the cross-entropy, 4*s*b*v (the paper's 4sbv).
    // Under TensorFlow the embedding dropout keeps mask and scaled input
    // (2e*sbh) and BERT's embedding layer norm its input and output (2f*sbh).
    total += (c.dropout ? 2 * e * s * batch * h : 0) + 2 * e * s * batch * h + 2 * 4 * s * batch * h;
    if (c.vocab > 0 && c.kind != TransformerKind::kEncoder) {
      total += 4 * s * batch * static_cast<uint64_t>(c.vocab);
    }
    return total;
  }
  // Layer lists: what each layer keeps. The peak comes during backward: at
  // layer i the activations of layers <= i are still held (later ones are
  // freed as their backward completes) while layer i's incoming and outgoing
  // gradients are alive: peak = max_i (kept[0..i] + 2 x out_i).
  double kept = 0;
  double peak = 0;
  for (size_t i = 0; i < w.layers.size(); ++i) {
    kept += stored_factor(w.layers, i, e) * static_cast<double>(w.layers[i].out_elems);
    peak = std::max(peak, kept + 2.0 * static_cast<double>(w.layers[i].out_elems));
  }
  return saturating_bytes(std::ceil(peak * static_cast<double>(e) * static_cast<double>(batch)));
}

MemoryBreakdown estimate_memory(const Workload& w, uint64_t batch) {
  MemoryBreakdown m;
  m.batch_per_gpu = batch;
  const bool mixed = w.precision != Precision::kFp32;
  m.weights_bytes = w.params * (mixed ? 2 : kVariableBytes);
  m.master_weights_bytes = mixed ? w.params * kVariableBytes : 0;
  // Gradients are float32 (of float32 variables). A second full copy exists
  // when the step rewrites them: the loss-scale optimizer's unscaling under
  // mixed precision (tf.keras.mixed_precision.LossScaleOptimizer
  // get_unscaled_gradients returns new tensors) and the global-norm clipping
  // transformer fine-tuning uses (tf.clip_by_global_norm, as in
  // google-research/bert optimization.py) both return new tensors while the
  // originals are still referenced.
  const bool rewrites_gradients = mixed || w.family == Family::kTransformer;
  m.gradients_bytes = w.trainable_params * kVariableBytes * (rewrites_gradients ? 2 : 1);
  // Gradient accumulation keeps one more float32 copy of the trainable
  // variables, the accumulators, for the whole run (NVIDIA DeepLearningExamples
  // TensorFlow/LanguageModeling/BERT/optimization.py: an "/accum" variable of
  // dtype float32 per trainable variable when num_accumulation_steps > 1;
  // TensorFlow2/LanguageModeling/BERT/optimization.py GradientAccumulator: a
  // zeros_like variable per gradient).
  if (w.accumulation_steps > 1) m.gradients_bytes += w.trainable_params * kVariableBytes;
  if (w.optimizer == Optimizer::kAdafactor) {
    // Shazeer & Stern 2018, "Adafactor" (arXiv:1804.04235): an r x c matrix
    // keeps r + c second-moment floats instead of r*c; with square-ish
    // matrices of width d that is ~ 2/d of the parameters (d = hidden size,
    // 256 channels for CNNs as a typical width).
    const double d = w.transformer ? static_cast<double>(w.transformer->hidden) : 256.0;
    m.optimizer_bytes = saturating_bytes(4.0 * 2.0 * static_cast<double>(w.trainable_params) / d);
  } else {
    m.optimizer_bytes = w.trainable_params * optimizer_bytes_per_param(w.optimizer);
    // Without XLA a hand-written update (google-research/bert
    // optimization.py: next_m, next_v as new tensors before the assigns) runs
    // as separate ops for every variable, and the executor may run them all at
    // once: one more copy of the slots is alive. XLA fuses the update, and so
    // do Keras's optimizers: one ResourceApply* kernel per variable up to
    // TensorFlow 2.10 (OptimizerV2), jit_compile=True by default from 2.11
    // (tf.keras.optimizers.Adam, TensorFlow 2.14 API docs), the update inside
    // the compiled train step in Keras 3. A plan assumes Keras's optimizers.
    if (!w.xla && w.separate_update_ops) m.optimizer_bytes *= 2;
  }
  m.activations_bytes = activation_bytes(w, batch);
  if (w.family == Family::kTransformer) {
    m.workspace_bytes = kCublasWorkspace;
  } else {
    uint64_t largest = 0;
    for (const Layer& l : w.layers) largest = std::max(largest, l.out_elems);
    m.workspace_bytes =
        std::clamp<uint64_t>(saturating_bytes(static_cast<double>(largest) * static_cast<double>(batch) *
                                              static_cast<double>(activation_element_bytes(w.precision))),
                             kCudnnWorkspaceFloor, kCudnnWorkspaceCap);
  }
  m.context_bytes = kContextBytes;
  const uint64_t tensors = saturating_sum(
      {m.weights_bytes, m.master_weights_bytes, m.gradients_bytes, m.optimizer_bytes, m.activations_bytes});
  m.fragmentation_bytes = saturating_bytes(kFragmentation * static_cast<double>(tensors));
  m.total_bytes = saturating_sum({tensors, m.workspace_bytes, m.context_bytes, m.fragmentation_bytes});
  m.uncertainty_bytes = saturating_bytes(kUncertainty * static_cast<double>(m.total_bytes));
  return m;
}

uint64_t tf_reserved_bytes(uint64_t available_bytes, int cc_major, TfReserveRule rule) {
  // MinSystemMemory in tensorflow/core/common_runtime/gpu/gpu_device.cc: 225
  // MiB below 2 GiB free in every release; above it, since 2.5 (pull request
  // 44810) 500 MiB (compute capability <= 6.x), 1050 MiB (7.x) or 1536 MiB
  // (8.x and later), before it max(300 MiB, 5% of the free memory) in 1.x
  // and 6% in 2.0-2.4.
  if (available_bytes < 2 * core::kGiB) return 225 * core::kMiB;
  const uint64_t by_cc = cc_major <= 6 ? 500 * core::kMiB : cc_major <= 7 ? 1050 * core::kMiB : 1536 * core::kMiB;
  auto fraction = [&](double f) {
    return std::max<uint64_t>(300 * core::kMiB, static_cast<uint64_t>(static_cast<double>(available_bytes) * f));
  };
  switch (rule) {
    case TfReserveRule::kByComputeCapability: return by_cc;
    case TfReserveRule::kFivePercent: return fraction(0.05);
    case TfReserveRule::kSixPercent: return fraction(0.06);
    case TfReserveRule::kLargerOfBoth: return std::max(by_cc, fraction(0.06));
  }
  return by_cc;
}

TfReserveRule tf_reserve_rule_of_version(std::string_view version) {
  const std::optional<core::Version> v = core::Version::parse(version);
  if (!v) return TfReserveRule::kLargerOfBoth;
  if (v->major() == 1) return TfReserveRule::kFivePercent;
  if (v->major() > 2) return TfReserveRule::kByComputeCapability;
  if (v->major() == 2 && v->parts().size() >= 2) {
    return v->minor() >= 5 ? TfReserveRule::kByComputeCapability : TfReserveRule::kSixPercent;
  }
  return TfReserveRule::kLargerOfBoth;  // "2" alone, or 0.x
}

int compute_capability_major(const GpuCandidate& gpu) {
  // The architecture's compute capability major (NVIDIA CUDA C Programming
  // Guide, "Compute Capabilities"); unknown architectures count as the
  // newest, whose reserve is the largest.
  const std::string& a = gpu.architecture;
  if (a == "Kepler") return 3;
  if (a == "Maxwell") return 5;
  if (a == "Pascal") return 6;
  if (a == "Volta" || a == "Turing") return 7;
  if (a == "Ampere" || a == "Ada Lovelace" || a == "Ada") return 8;
  if (a == "Hopper") return 9;
  return 10;
}

uint64_t usable_gpu_bytes(uint64_t memory_bytes, int cc_major, TfReserveRule rule,
                          std::optional<uint64_t> reserve_mib) {
  // ASSUMED: 2% for what the driver reserves (ECC, page tables) beyond the
  // context counted in the estimate; gpus.json notes NVML totals run slightly
  // below the marketed capacity. TensorFlow's own reserve comes off too, or
  // TF_DEVICE_MIN_SYS_MEMORY_IN_MB in its place when set.
  const uint64_t after_driver = static_cast<uint64_t>(static_cast<double>(memory_bytes) * 0.98);
  const uint64_t reserve = reserve_mib ? std::min<uint64_t>(*reserve_mib, memory_bytes / core::kMiB) * core::kMiB
                                       : tf_reserved_bytes(after_driver, cc_major, rule);
  return after_driver > reserve ? after_driver - reserve : 0;
}

uint64_t usable_gpu_bytes(uint64_t memory_bytes) { return usable_gpu_bytes(memory_bytes, 10); }

uint64_t usable_gpu_bytes(const GpuCandidate& gpu) {
  return usable_gpu_bytes(gpu.memory_bytes, compute_capability_major(gpu), gpu.tf_reserve);
}

bool fits_in(const MemoryBreakdown& m, uint64_t usable) {
  return saturating_sum({m.total_bytes, m.uncertainty_bytes}) <= usable;
}

MemoryVerdict memory_verdict(const MemoryBreakdown& m, uint64_t usable) {
  if (fits_in(m, usable)) return MemoryVerdict::kFits;
  return m.total_bytes <= usable ? MemoryVerdict::kBorderline : MemoryVerdict::kDoesNotFit;
}

std::string_view memory_verdict_name(MemoryVerdict v) {
  switch (v) {
    case MemoryVerdict::kFits: return "fits";
    case MemoryVerdict::kBorderline: return "borderline";
    case MemoryVerdict::kDoesNotFit: return "does not fit";
  }
  return "does not fit";
}

uint64_t max_batch_that_fits(const Workload& w, uint64_t usable) {
  auto fits = [&](uint64_t b) { return fits_in(estimate_memory(w, b), usable); };
  if (!fits(1)) return 0;
  uint64_t lo = 1, hi = 2;
  constexpr uint64_t kLimit = uint64_t{1} << 24;
  while (hi < kLimit && fits(hi)) {
    lo = hi;
    hi *= 2;
  }
  if (hi >= kLimit && fits(hi)) return kLimit;
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (fits(mid))
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace tfrig::plan
