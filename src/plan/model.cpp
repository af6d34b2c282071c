#include "plan/model.h"

#include <array>
#include <utility>

#include "core/text.h"

namespace tfrig::plan {

namespace {

template <class E, size_t N>
std::optional<E> parse_enum(std::string_view s, const std::array<std::pair<std::string_view, E>, N>& table) {
  const std::string want = core::to_lower(core::trim(s));
  for (const auto& [name, value] : table) {
    if (name == want) return value;
  }
  return std::nullopt;
}

constexpr std::array<std::pair<std::string_view, Precision>, 5> kPrecisions{{
    {"fp32", Precision::kFp32},
    {"float32", Precision::kFp32},
    {"mixed_float16", Precision::kMixedFloat16},
    {"mixed_bfloat16", Precision::kMixedBfloat16},
    {"fp16", Precision::kMixedFloat16},
}};
constexpr std::array<std::pair<std::string_view, Optimizer>, 5> kOptimizers{{
    {"sgd", Optimizer::kSgd},
    {"momentum", Optimizer::kMomentum},
    {"adam", Optimizer::kAdam},
    {"adamw", Optimizer::kAdamW},
    {"adafactor", Optimizer::kAdafactor},
}};
constexpr std::array<std::pair<std::string_view, Recompute>, 3> kRecomputes{{
    {"none", Recompute::kNone},
    {"selective", Recompute::kSelective},
    {"full", Recompute::kFull},
}};

}  // namespace

std::string_view precision_name(Precision p) {
  switch (p) {
    case Precision::kFp32: return "fp32";
    case Precision::kMixedFloat16: return "mixed_float16";
    case Precision::kMixedBfloat16: return "mixed_bfloat16";
  }
  return "fp32";
}
std::optional<Precision> parse_precision(std::string_view s) { return parse_enum(s, kPrecisions); }

std::string_view optimizer_name(Optimizer o) {
  for (const auto& [name, value] : kOptimizers) {
    if (value == o) return name;
  }
  return "adam";
}
std::optional<Optimizer> parse_optimizer(std::string_view s) { return parse_enum(s, kOptimizers); }

std::string_view recompute_name(Recompute r) {
  for (const auto& [name, value] : kRecomputes) {
    if (value == r) return name;
  }
  return "none";
}
std::optional<Recompute> parse_recompute(std::string_view s) { return parse_enum(s, kRecomputes); }

std::string_view family_name(Family f) { return f == Family::kCnn ? "cnn" : "transformer"; }

std::string_view layer_kind_name(LayerKind k) {
  switch (k) {
    case LayerKind::kInput: return "input";
    case LayerKind::kConv: return "conv";
    case LayerKind::kDepthwiseConv: return "depthwise_conv";
    case LayerKind::kDense: return "dense";
    case LayerKind::kBatchNorm: return "batch_norm";
    case LayerKind::kLayerNorm: return "layer_norm";
    case LayerKind::kRelu: return "relu";
    case LayerKind::kActivation: return "activation";
    case LayerKind::kAdd: return "add";
    case LayerKind::kMultiply: return "multiply";
    case LayerKind::kConcat: return "concat";
    case LayerKind::kPool: return "pool";
    case LayerKind::kGlobalPool: return "global_pool";
    case LayerKind::kDropout: return "dropout";
    case LayerKind::kView: return "view";
    case LayerKind::kPreprocess: return "preprocess";
    case LayerKind::kEmbedding: return "embedding";
    case LayerKind::kAttention: return "attention";
    case LayerKind::kRecurrent: return "recurrent";
    case LayerKind::kNested: return "nested_model";
    case LayerKind::kOther: return "other";
  }
  return "other";
}

double forward_flops_per_sample(const Workload& w) {
  if (w.family == Family::kTransformer && w.transformer) {
    // Kaplan et al. 2020, Table 1: forward FLOPs per token 2 N, with N the
    // non-embedding parameters (every layer's matrices) plus the output
    // projection onto the vocabulary where the model has one; the attention
    // core as Narayanan et al. 2021 (arXiv:2104.04473, section 5.1) count it,
    // 4 b s^2 h per layer (QK^T and the product with V, 2 b s^2 h each, the
    // full square as TensorFlow computes it, masked or not): 4 s h per token.
    const TransformerConfig& c = *w.transformer;
    const double h = c.hidden, ff = c.ffn, s = w.seq_len;
    const double mlp = c.gated_mlp ? 3 * h * ff : 2 * h * ff;
    const double layer = 4 * h * h + mlp;
    double n = layer * c.layers;
    double attn_layers = c.layers;
    if (c.kind == TransformerKind::kEncoderDecoder) {
      n += (layer + 4 * h * h) * c.decoder_layers;
      attn_layers += 2.0 * c.decoder_layers;
    }
    if (c.vocab > 0 && c.kind != TransformerKind::kEncoder) n += h * c.vocab;
    if (c.kind == TransformerKind::kVision) n += 3.0 * c.patch * c.patch * h;
    return s * (2 * n + 4 * attn_layers * s * h);
  }
  double macs = 0;
  for (const Layer& l : w.layers) macs += static_cast<double>(l.macs);
  return 2 * macs;
}

double training_flops_per_sample(const Workload& w) { return 3 * forward_flops_per_sample(w); }

}  // namespace tfrig::plan
