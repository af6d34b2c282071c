#include "plan/keras_summary.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/try.h"
#include "core/text.h"

namespace tfrig::plan {

namespace {

constexpr std::string_view kBoxV = "\xe2\x94\x82";       // │ light vertical: Keras 3 body rows
constexpr std::string_view kBoxHeavyV = "\xe2\x94\x83";  // ┃ heavy vertical: Keras 3 header row
constexpr size_t kMaxLayers = 1000000;

bool ascii_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// "12,560" or "12560" at the start of s; the digits consumed in *used.
std::optional<uint64_t> parse_count(std::string_view s, size_t* used = nullptr) {
  uint64_t v = 0;
  size_t i = 0;
  bool any = false;
  while (i < s.size() && (ascii_digit(s[i]) || (s[i] == ',' && any))) {
    if (s[i] != ',') {
      const uint64_t d = static_cast<uint64_t>(s[i] - '0');
      if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return std::nullopt;
      v = v * 10 + d;
      any = true;
    }
    ++i;
  }
  if (!any) return std::nullopt;
  if (used != nullptr) *used = i;
  return v;
}

std::vector<std::string_view> split_on(std::string_view s, std::string_view sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t p = s.find(sep, start);
    if (p == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, p - start));
    start = p + sep.size();
  }
}

// A shape as Keras prints it: "(None, 26, 26, 32)", "[(None, 224, 224, 3)]",
// "(None,)", "multiple". Only the first tuple counts.
bool parse_shape(std::string_view s, KerasLayer& layer) {
  s = core::trim(s);
  const size_t open = s.find('(');
  if (open == std::string_view::npos) return false;
  const size_t close = s.find(')', open);
  if (close == std::string_view::npos) return false;
  std::vector<std::optional<int64_t>> dims;
  for (std::string_view tok : core::split(s.substr(open + 1, close - open - 1), ',')) {
    tok = core::trim(tok);
    if (tok.empty()) continue;
    if (tok == "None") {
      dims.emplace_back(std::nullopt);
      continue;
    }
    const auto v = core::parse_i64(tok);
    if (!v || *v < 0) return false;
    dims.emplace_back(*v);
  }
  layer.shape = std::move(dims);
  layer.shape_known = true;
  return true;
}

// Splits "conv2d (Conv2D)" (or a truncated "max_pooling2d_1 (MaxPooling2")
// into the layer's name and type.
void split_name_type(const std::string& text, KerasLayer& layer) {
  const std::string_view t = core::trim(text);
  const size_t open = t.rfind('(');
  if (open == std::string_view::npos || open == 0) {
    layer.name = std::string(t);
    return;
  }
  layer.name = std::string(core::trim(t.substr(0, open)));
  std::string_view type = t.substr(open + 1);
  if (const size_t close = type.find(')'); close != std::string_view::npos) type = type.substr(0, close);
  layer.type = std::string(core::trim(type));
}

// Where a shape starts in a Keras 2 row: "(None", "(12", "()", "[(" or
// "multiple" after whitespace. npos when the line has none.
size_t find_shape_start(std::string_view line, size_t from) {
  for (size_t i = from; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '(' && i > 0) {
      size_t j = i + 1;
      while (j < line.size() && line[j] == ' ') ++j;
      if (j < line.size() && (line.compare(j, 4, "None") == 0 || ascii_digit(line[j]) || line[j] == ')')) return i;
    } else if (c == '[' && i + 1 < line.size() && line[i + 1] == '(') {
      return i;
    } else if (c == 'm' && i > 0 && is_space(line[i - 1]) && line.compare(i, 8, "multiple") == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

struct PlainRow {
  std::string name_type;
  std::string shape;
  uint64_t params = 0;
};

std::optional<PlainRow> parse_plain_row(std::string_view line) {
  const size_t first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos) return std::nullopt;
  const size_t shape_start = find_shape_start(line, first + 1);
  if (shape_start == std::string_view::npos) return std::nullopt;
  size_t shape_end;
  if (line[shape_start] == 'm') {
    shape_end = shape_start + 8;
  } else if (line[shape_start] == '[') {
    const size_t close = line.find(']', shape_start);
    if (close == std::string_view::npos) return std::nullopt;
    shape_end = close + 1;
  } else {
    const size_t close = line.find(')', shape_start);
    if (close == std::string_view::npos) return std::nullopt;
    shape_end = close + 1;
  }
  size_t p = shape_end;
  while (p < line.size() && is_space(line[p])) ++p;
  size_t used = 0;
  const auto params = parse_count(line.substr(p), &used);
  if (!params) return std::nullopt;
  // The count ends at a space or the end of the line ("Connected to" may follow).
  if (p + used < line.size() && !is_space(line[p + used])) return std::nullopt;
  PlainRow row;
  row.name_type = std::string(core::trim(line.substr(first, shape_start - first)));
  row.shape = std::string(line.substr(shape_start, shape_end - shape_start));
  row.params = *params;
  if (row.name_type.empty()) return std::nullopt;
  return row;
}

bool is_rule(std::string_view line) {
  const std::string_view t = core::trim(line);
  if (t.empty()) return false;
  return t.find_first_not_of("_=-") == std::string_view::npos;
}

void read_total(std::string_view line, std::string_view label, std::optional<uint64_t>& out) {
  const size_t p = line.find(label);
  if (p == std::string_view::npos) return;
  std::string_view rest = line.substr(p + label.size());
  const size_t d = rest.find_first_not_of(" \t");
  if (d == std::string_view::npos) return;
  if (auto v = parse_count(rest.substr(d))) out = *v;
}

}  // namespace

LayerKind keras_layer_kind(std::string_view type_in, std::string_view name_in) {
  const std::string t = core::to_lower(type_in);
  const std::string n = core::to_lower(name_in);
  auto starts = [&t](std::string_view p) { return core::starts_with(t, p); };
  if (t.empty()) return LayerKind::kOther;
  if (starts("inputlayer")) return LayerKind::kInput;
  if (starts("depthwiseconv")) return LayerKind::kDepthwiseConv;
  if (starts("conv") || starts("separableconv")) return LayerKind::kConv;
  if (starts("dense") || starts("einsumdense")) return LayerKind::kDense;
  if (starts("batchnorm")) return LayerKind::kBatchNorm;
  if (starts("layernorm") || starts("groupnorm") || starts("unitnorm") || starts("rmsnorm"))
    return LayerKind::kLayerNorm;
  if (starts("relu") || starts("leakyrelu")) return LayerKind::kRelu;
  if (starts("activation")) return n.find("relu") != std::string::npos ? LayerKind::kRelu : LayerKind::kActivation;
  if (starts("softmax") || starts("prelu") || starts("elu")) return LayerKind::kActivation;
  if (starts("add")) return LayerKind::kAdd;
  if (starts("multiply")) return LayerKind::kMultiply;
  if (starts("concatenate")) return LayerKind::kConcat;
  if (starts("globalaverage") || starts("globalmax")) return LayerKind::kGlobalPool;
  if (starts("maxpool") || starts("averagepool") || starts("avgpool")) return LayerKind::kPool;
  if (t.find("dropout") != std::string::npos) return LayerKind::kDropout;
  if (starts("flatten") || starts("reshape") || starts("permute")) return LayerKind::kView;
  if (starts("rescaling") || starts("normalization") || starts("resizing") || starts("random") ||
      starts("centercrop") || starts("textvectorization"))
    return LayerKind::kPreprocess;
  if (starts("embedding")) return LayerKind::kEmbedding;
  if (starts("multiheadattention") || starts("attention")) return LayerKind::kAttention;
  if (starts("lstm") || starts("gru") || starts("simplernn") || starts("bidirectional") || starts("convlstm"))
    return LayerKind::kRecurrent;
  if (starts("functional") || starts("sequential") || starts("model")) return LayerKind::kNested;
  return LayerKind::kOther;
}

namespace {

// What reading a summary line by line keeps between lines.
struct SummaryReader {
  KerasSummary out;
  bool in_table = false;
  bool box = false;
  size_t shape_column = std::string_view::npos;
  // Per row: the raw "name (type)" text, joined across wrapped lines.
  std::vector<std::string> name_texts;
  std::string pending_shape;  // Keras 3: a wrapped shape cell waiting for its row
};

// The lines around the table: the model's name, the totals (which end the
// table) and the table's header, Keras 3's box or Keras 2's columns. False
// when the line is none of them.
bool read_summary_frame(SummaryReader& r, std::string_view line, std::string_view trimmed) {
  if (core::starts_with(trimmed, "Model:")) {
    std::string_view name = core::trim(trimmed.substr(6));
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = name.substr(1, name.size() - 2);
    r.out.model_name = std::string(name);
    return true;
  }
  if (trimmed.find("params:") != std::string_view::npos) {
    read_total(trimmed, "Non-trainable params:", r.out.non_trainable_params);
    read_total(trimmed, "Optimizer params:", r.out.optimizer_params);
    if (trimmed.find("Non-trainable") == std::string_view::npos &&
        trimmed.find("Optimizer") == std::string_view::npos) {
      read_total(trimmed, "Trainable params:", r.out.trainable_params);
      read_total(trimmed, "Total params:", r.out.total_params);
    }
    r.in_table = false;
    return true;
  }
  if (line.find(kBoxHeavyV) != std::string_view::npos) {  // Keras 3 header row
    r.box = true;
    r.in_table = true;
    r.out.layout = "keras3-box";
    return true;
  }
  if (line.find("Layer (type)") != std::string_view::npos) {
    r.in_table = true;
    r.out.layout = "keras2-columns";
    r.shape_column = line.find("Output Shape");
    return true;
  }
  return false;
}

// A layer row: its parameters, line and output shape (a warning when the
// shape is not understood).
void add_summary_layer(SummaryReader& r, uint64_t params, int line_no, const std::string& shape,
                       std::string name_type) {
  KerasLayer layer;
  layer.params = params;
  layer.line = line_no;
  if (!parse_shape(shape, layer) && shape.find("multiple") == std::string::npos) {
    r.out.warnings.push_back(
        core::Message(N_("line {0}: output shape '{1}' not understood"), line_no, core::printable(shape, 60)));
  }
  r.out.layers.push_back(std::move(layer));
  r.name_texts.push_back(std::move(name_type));
}

// A line of Keras 3's box table: a row, or a wrapped cell of the row above.
// False when the layer limit is reached.
bool read_box_line(SummaryReader& r, std::string_view line, int line_no) {
  std::vector<std::string_view> cells = split_on(line, kBoxV);
  // cells: "", name, shape, params, [trainable / connected to...], ""
  if (cells.size() < 4) return true;
  const std::string_view name_cell = core::trim(cells[1]);
  const std::string_view shape_cell = core::trim(cells[2]);
  const std::string_view params_cell = core::trim(cells[3]);
  const auto params = parse_count(params_cell);
  if (params && !name_cell.empty()) {
    if (r.out.layers.size() >= kMaxLayers) return false;
    const std::string shape = r.pending_shape + std::string(shape_cell);
    r.pending_shape.clear();
    add_summary_layer(r, *params, line_no, shape, std::string(name_cell));
  } else if (!r.out.layers.empty()) {
    // A wrapped cell: the rest of the name "(GlobalAveragePooling2D)" or of a long shape.
    if (!name_cell.empty()) r.name_texts.back() += std::string(" ") + std::string(name_cell);
    if (!shape_cell.empty() && !r.out.layers.back().shape_known) {
      KerasLayer& last = r.out.layers.back();
      parse_shape(shape_cell, last);
    }
  }
  return true;
}

// A line of Keras 2's column table: a row, or a wrapped line. False when the
// layer limit is reached.
bool read_column_line(SummaryReader& r, std::string_view line, int line_no) {
  if (is_rule(line)) return true;
  if (auto row = parse_plain_row(line)) {
    if (r.out.layers.size() >= kMaxLayers) return false;
    add_summary_layer(r, row->params, line_no, row->shape, row->name_type);
    return true;
  }
  // A wrapped line: text in the name column continues the previous row's
  // "name (type)"; text further right is the "Connected to" column.
  if (!r.out.layers.empty()) {
    const size_t first = line.find_first_not_of(" \t");
    if (r.shape_column == std::string_view::npos || first < r.shape_column) {
      const size_t end = r.shape_column == std::string_view::npos ? line.size() : std::min(line.size(), r.shape_column);
      const std::string_view piece = core::trim(line.substr(first, end - first));
      if (!piece.empty()) r.name_texts.back() += std::string(piece);
    }
  }
  return true;
}

}  // namespace

// A model.summary() text, line by line: the frame (name, header, totals),
// then the rows of whichever table it prints; the names and types split once
// the wrapped lines are joined, and the rows' sum checked against the totals.
core::Result<KerasSummary> parse_keras_summary(std::string_view text) {
  if (text.size() > kMaxKerasSummaryBytes) {
    return core::fail(
        core::ErrorCode::kInvalidArgument, "summary",
        trf("{0} bytes; a model.summary() text is expected to be under {1} bytes", text.size(), kMaxKerasSummaryBytes));
  }
  SummaryReader r;
  int line_no = 0;
  for (std::string_view raw : core::split(text, '\n')) {
    ++line_no;
    std::string_view line = raw;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string_view trimmed = core::trim(line);
    if (trimmed.empty()) continue;
    if (read_summary_frame(r, line, trimmed)) continue;
    if (r.box && line.find(kBoxV) != std::string_view::npos) {
      if (!read_box_line(r, line, line_no)) break;
      continue;
    }
    if (!r.in_table || r.box) continue;
    if (!read_column_line(r, line, line_no)) break;
  }
  KerasSummary& out = r.out;
  for (size_t i = 0; i < out.layers.size(); ++i) split_name_type(r.name_texts[i], out.layers[i]);
  if (out.layers.empty()) {
    return core::fail(
        core::ErrorCode::kParse, "summary",
        _("no layer rows found; expected the text printed by Keras model.summary() (a 'Layer (type)' table)"));
  }
  uint64_t sum = 0;
  for (const KerasLayer& l : out.layers) sum += l.params;
  if (const auto weights = keras_weight_count(out); weights && *weights != sum) {
    out.warnings.push_back(
        core::Message(N_("the rows add up to {0} parameters, the summary's totals say {1} weights"), sum, *weights));
  }
  return std::move(r.out);
}

std::optional<uint64_t> keras_weight_count(const KerasSummary& s) {
  if (s.trainable_params && s.non_trainable_params) return *s.trainable_params + *s.non_trainable_params;
  if (s.total_params && s.optimizer_params && *s.optimizer_params <= *s.total_params)
    return *s.total_params - *s.optimizer_params;
  return s.total_params;
}

// Bounds far above any real model (the largest published models have ~2^41
// parameters; a 139 GiB GPU holds ~2^37 bytes) that keep every byte count
// below: layers x elements x batch x 4 bytes stays inside 64 bits.
constexpr uint64_t kMaxLayerElems = uint64_t{1} << 40;
constexpr uint64_t kMaxParams = uint64_t{1} << 44;

namespace {

// One row of the summary as a layer: its parameters (within bounds), output
// elements per sample and multiply-accumulates; a note where its activations
// are not counted. A None beyond the batch counts as --seq-len (or 1, and
// `unknown_dims` is set).
core::Result<Layer> keras_layer(const KerasLayer& kl, int seq_len, bool& unknown_dims,
                                std::vector<core::Message>& notes) {
  Layer l;
  l.name = kl.name;
  l.type = kl.type;
  l.kind = keras_layer_kind(kl.type, kl.name);
  l.params = kl.params;
  if (kl.params > kMaxParams) {
    return core::fail(
        core::ErrorCode::kInvalidArgument, trf("line {}", kl.line),
        trf("layer '{0}' claims {1} parameters (more than 2^44): not a model that fits any GPU", kl.name, kl.params));
  }
  if (kl.shape_known) {
    // The first dimension is the batch; None elsewhere is a variable length.
    uint64_t elems = 1;
    uint64_t positions = 1;  // output positions a kernel is applied at
    for (size_t i = 1; i < kl.shape.size(); ++i) {
      uint64_t d = 1;
      if (kl.shape[i]) {
        d = static_cast<uint64_t>(*kl.shape[i]);
      } else if (seq_len > 0) {
        d = static_cast<uint64_t>(seq_len);
      } else {
        unknown_dims = true;
      }
      if (d != 0 && elems > kMaxLayerElems / d) {
        return core::fail(
            core::ErrorCode::kInvalidArgument, trf("line {}", kl.line),
            trf("output shape of '{}' has more than 2^40 elements per sample: not a model that fits any GPU", kl.name));
      }
      elems *= d;
      if (i + 1 < kl.shape.size()) positions *= d;
    }
    l.out_elems = elems;
    if (l.kind == LayerKind::kConv || l.kind == LayerKind::kDepthwiseConv || l.kind == LayerKind::kDense) {
      // Multiply-accumulates ~ weights x positions they are applied at.
      l.macs = kl.params * positions;
    }
  } else if (l.kind != LayerKind::kInput) {
    notes.push_back(core::Message(
        N_("layer '{}' has no single output shape ('multiple'): its activations are not counted"), kl.name));
  }
  if (l.kind == LayerKind::kNested) {
    notes.push_back(core::Message(
        N_("'{}' is a nested model shown as one row: its inner activations are not counted; print the summary with expand_nested=True"),
        kl.name));
  }
  if (l.kind == LayerKind::kAttention) {
    notes.push_back(core::Message(
        N_("'{}' (attention): only its output is listed; the attention scores (batch x heads x seq^2) are not counted"),
        kl.name));
  }
  return l;
}

}  // namespace

core::Result<Workload> keras_workload(const KerasSummary& s, int seq_len, std::string_view source_name) {
  Workload w;
  w.model_id = "keras:" + std::string(source_name);
  w.display_name = s.model_name.empty() ? core::verbatim(std::string(source_name))
                                        : core::Message(N_("{} (Keras summary)"), s.model_name);
  w.family = Family::kCnn;
  w.params_source = core::Message(N_("Keras model.summary() of {}"), source_name);
  uint64_t sum = 0;
  bool unknown_dims = false;
  for (const KerasLayer& kl : s.layers) {
    w.layers.push_back(TFRIG_TRY(keras_layer(kl, seq_len, unknown_dims, w.notes)));
    sum += kl.params;
  }
  if (unknown_dims)
    w.notes.push_back(
        core::Message(N_("some shapes have None beyond the batch (a variable length): counted as 1; pass --seq-len")));
  w.params = keras_weight_count(s).value_or(sum);  // never the printed total when it includes optimizer slots
  w.trainable_params = s.trainable_params.value_or(w.params);
  if (w.params > kMaxParams || w.trainable_params > kMaxParams) {
    return core::fail(core::ErrorCode::kInvalidArgument, "summary",
                      trf("the totals claim {} parameters (more than 2^44): not a model that fits any GPU",
                          std::max(w.params, w.trainable_params)));
  }
  for (const core::Message& warn : s.warnings) w.notes.push_back(warn);
  // An image input gives the image side for the data defaults.
  for (const KerasLayer& kl : s.layers) {
    if (kl.shape_known && kl.shape.size() == 4 && kl.shape[1] && kl.shape[2]) {
      w.image_size = static_cast<int>(std::min<int64_t>(*kl.shape[1], 1 << 20));
      break;
    }
  }
  w.seq_len = seq_len;
  return w;
}

}  // namespace tfrig::plan
