// What is being trained: a layer list (CNNs, Keras summaries) or a
// transformer configuration, with its parameter count and the options that
// size its memory (batch, precision, optimizer, recomputation).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/message.h"

namespace tfrig::plan {

enum class Precision { kFp32, kMixedFloat16, kMixedBfloat16 };
std::string_view precision_name(Precision p);  // "fp32", "mixed_float16", "mixed_bfloat16"
std::optional<Precision> parse_precision(std::string_view s);

enum class Optimizer { kSgd, kMomentum, kAdam, kAdamW, kAdafactor };
std::string_view optimizer_name(Optimizer o);
std::optional<Optimizer> parse_optimizer(std::string_view s);

// Activation recomputation (Korthikanti et al. 2022): none, selective (the
// attention core is recomputed), full (only each layer's input is kept).
enum class Recompute { kNone, kSelective, kFull };
std::string_view recompute_name(Recompute r);
std::optional<Recompute> parse_recompute(std::string_view s);

// What a layer keeps for its backward pass decides activation memory; the
// kind says which rule applies (memory.cpp: stored_factor).
enum class LayerKind {
  kInput,
  kConv,  // Conv1D/2D/3D, also transposed
  kDepthwiseConv,
  kDense,
  kBatchNorm,
  kLayerNorm,
  kRelu,        // ReLU, ReLU6, Activation('relu'): backward reads the output
  kActivation,  // swish, sigmoid, gelu, softmax, tanh...: backward reads the input or output
  kAdd,
  kMultiply,
  kConcat,
  kPool,
  kGlobalPool,
  kDropout,
  kView,        // Flatten, Reshape, Permute: no copy kept
  kPreprocess,  // Rescaling, Normalization: applied to the input batch
  kEmbedding,
  kAttention,  // MultiHeadAttention (Keras): treated as a block
  kRecurrent,  // LSTM/GRU: keeps its gates per step
  kNested,     // a nested model collapsed to one row (Functional/Sequential)
  kOther,
};
std::string_view layer_kind_name(LayerKind k);

struct Layer {
  std::string name;
  std::string type;  // Keras class name: "Conv2D"
  LayerKind kind = LayerKind::kOther;
  uint64_t out_elems = 0;  // elements of the output per sample
  uint64_t params = 0;
  uint64_t macs = 0;  // multiply-accumulates per sample, forward
  // A dense 3x3 stride-1 convolution: cuDNN can run it with Winograd's
  // minimal filtering on CUDA cores (fewer multiplications than counted).
  // Unknown (false) for Keras summaries, which do not give the kernel size.
  bool winograd = false;
};

enum class Family { kCnn, kTransformer };
std::string_view family_name(Family f);

enum class TransformerKind { kEncoder, kDecoder, kEncoderDecoder, kVision };

struct TransformerConfig {
  TransformerKind kind = TransformerKind::kEncoder;
  int layers = 0;          // encoder (or decoder-only) layers
  int decoder_layers = 0;  // encoder-decoder only
  int hidden = 0;          // h
  int heads = 0;           // a
  int ffn = 0;             // MLP inner width
  int vocab = 0;           // v (0 for vision)
  bool dropout = true;     // dropout masks are kept (Llama trains without dropout)
  bool gated_mlp = false;  // SwiGLU: three MLP matrices
  int patch = 0;           // ViT patch size
};

struct Workload {
  std::string model_id;  // catalog id, "keras:FILE" or "params"
  // Texts are messages, rendered by each output in its language.
  core::Message display_name;  // "ResNet-50"
  Family family = Family::kCnn;
  uint64_t params = 0;
  uint64_t trainable_params = 0;
  core::Message params_source;
  std::vector<Layer> layers;  // CNNs and Keras summaries: per sample
  std::optional<TransformerConfig> transformer;
  int image_size = 0;  // CNN/ViT input side
  int seq_len = 0;     // transformers
  uint64_t batch = 1;  // global batch (split across gpus)
  int gpus = 1;        // --gpus: at least this many
  Precision precision = Precision::kFp32;
  Optimizer optimizer = Optimizer::kAdam;
  Recompute recompute = Recompute::kNone;
  // XLA (jit_compile / TF_XLA_FLAGS): fused kernels keep fewer activations and
  // the optimizer update is fused; off is TensorFlow's default.
  bool xla = false;
  // The optimizer updates each variable with separate element-wise ops (a
  // Python optimizer such as BERT's AdamWeightDecayOptimizer), not a fused
  // ResourceApply* kernel: its update moves every parameter through DRAM
  // many more times (update_bytes_per_step). Set by published rows that ran
  // so (plan_measurements.json optimizer_ops); a plan assumes Keras's fused
  // optimizers.
  bool separate_update_ops = false;
  // Gradient accumulation: the optimizer updates once every this many
  // batches, and the gradients in between are summed into one float32
  // accumulator per trainable variable (estimate_memory counts it).
  int accumulation_steps = 1;
  std::string throughput_key;  // key into the measured rates ("resnet50", "bert_large@384"); empty = none
  std::vector<core::Message> notes;
};

// Forward FLOPs per sample (2 per multiply-accumulate).
double forward_flops_per_sample(const Workload& w);
// Training FLOPs per sample: forward + backward = 3 x forward (the backward
// pass costs two forwards: Kaplan et al. 2020, "Scaling Laws for Neural
// Language Models", section 2.1, C ~ 6N per token = 3 x 2N).
double training_flops_per_sample(const Workload& w);

}  // namespace tfrig::plan
