// A parser for the text Keras `model.summary()` prints, so any user model
// can be planned. It reads the three layouts Keras has printed:
//  - Keras 2 (standalone and TF1-era tf.keras): rows between "____" rules,
//    names truncated to the column ("max_pooling2d_1 (MaxPooling2"), and an
//    optional "Connected to" column for functional models;
//  - tf.keras 2.x (TF 2.9+): the same columns without row rules, long names
//    wrapped onto a second line;
//  - Keras 3: a box-drawing table (┏ ┃ ┡ │ └) with wrapped cells and totals
//    followed by their size ("Total params: 34,826 (136.04 KB)").
// Fixtures with their sources: tests/data/keras_summary/README.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "plan/model.h"

namespace tfrig::plan {

struct KerasLayer {
  std::string name;
  std::string type;                           // may be truncated by Keras 2's column width ("MaxPooling2")
  std::vector<std::optional<int64_t>> shape;  // first output; None -> nullopt
  bool shape_known = false;                   // false for "multiple" or an unparsable shape
  uint64_t params = 0;
  int line = 0;  // 1-based line of the row
};

struct KerasSummary {
  std::string model_name;
  std::string layout;  // "keras3-box" or "keras2-columns"
  std::vector<KerasLayer> layers;
  std::optional<uint64_t> total_params;
  std::optional<uint64_t> trainable_params;
  std::optional<uint64_t> non_trainable_params;
  // Keras 3 on a compiled, built model: "Optimizer params: 101,782 (397.59 KB)";
  // its "Total params" then includes them (the optimizer's slots, not weights).
  std::optional<uint64_t> optimizer_params;
  std::vector<core::Message> warnings;  // rendered by each output in its language
};

// The model's weights: trainable + non-trainable when both are printed, else
// the total less the optimizer's slots, else the total.
std::optional<uint64_t> keras_weight_count(const KerasSummary& summary);

// Inputs larger than this are refused (a summary of thousands of layers is
// well under a megabyte).
constexpr size_t kMaxKerasSummaryBytes = 16 * 1024 * 1024;

core::Result<KerasSummary> parse_keras_summary(std::string_view text);

// How a Keras layer class keeps activations (name helps: "conv1_relu (Activation)").
LayerKind keras_layer_kind(std::string_view type, std::string_view name);

// A plannable workload from a parsed summary. Dimensions printed as None
// beyond the batch take seq_len when given, else 1 (with a warning).
core::Result<Workload> keras_workload(const KerasSummary& summary, int seq_len, std::string_view source_name);

}  // namespace tfrig::plan
