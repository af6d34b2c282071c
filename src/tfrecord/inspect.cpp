#include "tfrecord/inspect.h"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "core/crc32c.h"
#include "core/display_width.h"
#include "core/escape.h"
#include "core/i18n.h"
#include "core/table.h"
#include "core/text.h"
#include "core/try.h"

namespace tfrig::tfrecord {

namespace {

nlohmann::ordered_json bytes_json(std::string_view b, bool show) {
  if (show) {
    // Text only when it is valid UTF-8 (JSON cannot hold anything else).
    if (b.empty() || (core::looks_like_text(b) && core::is_valid_utf8(b))) return std::string(b);
    return nlohmann::ordered_json{{"hex", core::hex_bytes(b)}};
  }
  return nlohmann::ordered_json{{"size", b.size()}, {"crc32c", fmt::format("0x{:08x}", core::crc32c(b))}};
}

}  // namespace

nlohmann::ordered_json example_to_json(const FeaturesView& ex, bool show_bytes) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [key, f] : ex) {
    nlohmann::ordered_json values = nlohmann::ordered_json::array();
    switch (f.kind) {
      case FeatureKind::kBytes:
        for (auto b : f.bytes) values.push_back(bytes_json(b, show_bytes));
        break;
      case FeatureKind::kFloat:
        // Shortest text that reads back as the same float ("0.25694445", not
        // the widened double 0.2569444477558136).
        for (float x : f.floats) {
          if (std::isfinite(x)) {
            values.push_back(std::stod(fmt::format("{}", x)));
          } else {
            values.push_back(nullptr);  // JSON has no NaN/Inf
          }
        }
        break;
      case FeatureKind::kInt64:
        for (int64_t x : f.ints) values.push_back(x);
        break;
      case FeatureKind::kNone: break;
    }
    // Keys are outside bytes too (a feature key "\xff\xfe"): escaped.
    j[core::escape_bytes(key)] = nlohmann::ordered_json{{std::string(feature_kind_name(f.kind)), std::move(values)}};
  }
  return j;
}

core::Result<InspectReport> inspect_file(const std::string& path, const InspectOptions& options) {
  auto reader = TFRIG_TRY(RecordReader::open(path, ReaderOptions{options.compression, true}));
  InspectReport r;
  r.path = path;
  for (;;) {
    auto rec = reader.next();
    r.compression = reader.compression();
    if (!rec) {
      r.error = rec.error();
      break;
    }
    if (!*rec) break;
    r.stream_bytes = reader.record_offset() + kHeaderSize + (*rec)->size() + kFooterSize;
    ++r.records;
    auto ex = decode_example(**rec);
    if (!ex) {
      if (r.not_examples++ == 0) {
        r.first_not_example =
            core::Message(N_("record {}: {}"), r.records - 1,
                          core::error_message(ex.error()).value_or(core::Message("{}", ex.error().to_string())));
      }
      continue;
    }
    for (const auto& [key, f] : *ex) {
      auto& s = r.schema[key];
      std::string kind(feature_kind_name(f.kind));
      if (s.kinds.empty()) {
        s.kinds = kind;
      } else if (s.kinds.find(kind) == std::string::npos) {
        s.kinds += "|" + kind;
      }
      ++s.records;
      s.min_values = std::min<uint64_t>(s.min_values, f.size());
      s.max_values = std::max<uint64_t>(s.max_values, f.size());
    }
    if (r.examples.size() < options.show) r.examples.push_back(example_to_json(*ex, options.show_bytes));
  }
  return r;
}

nlohmann::ordered_json report_to_json(const InspectReport& r, std::string_view language) {
  nlohmann::ordered_json j;
  j["path"] = core::escape_bytes(r.path);
  j["compression"] = std::string(compression_name(r.compression));
  j["records"] = r.records;
  j["stream_bytes"] = r.stream_bytes;
  j["records_not_examples"] = r.not_examples;
  j["first_not_example"] =
      r.first_not_example.empty()
          ? nlohmann::ordered_json()
          : nlohmann::ordered_json(core::escape_bytes(core::render(r.first_not_example, language)));
  if (r.error) {
    j["error"] = nlohmann::ordered_json{{"problem", std::string(record_problem_name(r.error->problem))},
                                        {"record", r.error->record_index},
                                        {"offset", r.error->offset},
                                        {"message", core::escape_bytes(core::render(r.error->text, language))}};
  } else {
    j["error"] = nullptr;
  }
  auto schema = nlohmann::ordered_json::array();
  for (const auto& [key, s] : r.schema) {
    schema.push_back(nlohmann::ordered_json{{"key", core::escape_bytes(key)},
                                            {"kind", s.kinds},
                                            {"records", s.records},
                                            {"min_values", s.records ? s.min_values : 0},
                                            {"max_values", s.max_values}});
  }
  j["schema"] = std::move(schema);
  j["examples"] = r.examples;
  return j;
}

std::string report_to_text(const InspectReport& r, std::string_view language, size_t width) {
  auto say = [language](const core::Message& m) { return core::render(m, language); };
  std::string out = core::wrap_hanging("",
                                       say(core::Message(N_("{}: {} records, {} stream bytes, compression {}"),
                                                         core::escape_bytes(r.path), r.records, r.stream_bytes,
                                                         compression_name(r.compression))),
                                       width) +
                    "\n";
  if (r.error) {
    out += core::wrap_hanging(
               "  ",
               core::escape_bytes(
                   // TRANSLATORS: {2} is the problem's id (length_crc, data_crc, truncated_record, ...), as in --json.
                   say(core::Message(N_("stopped at record {0} (byte offset {1}): {2}: {3}"), r.error->record_index,
                                     r.error->offset, record_problem_name(r.error->problem), r.error->text))),
               width) +
           "\n";
  }
  if (r.not_examples > 0) {
    out +=
        core::wrap_hanging("  ",
                           core::escape_bytes(say(core::Message(N_("{} record(s) are not tf.train.Examples; first: {}"),
                                                                r.not_examples, r.first_not_example))),
                           width) +
        "\n";
  }
  if (!r.schema.empty()) {
    // TRANSLATORS: headers of the feature table: a feature's key, its list type
    // (bytes_list, float_list, int64_list), in how many records it appears, and
    // the fewest and most values it holds in one record.
    core::Table t({say(core::Message::in_context(NC_("feature table", "key"))),
                   say(core::Message::in_context(NC_("feature table", "kind"))),
                   say(core::Message::in_context(NC_("feature table", "records"))),
                   say(core::Message::in_context(NC_("feature table", "min values"))),
                   say(core::Message::in_context(NC_("feature table", "max values")))},
                  {core::Table::Align::kLeft, core::Table::Align::kLeft, core::Table::Align::kRight,
                   core::Table::Align::kRight, core::Table::Align::kRight});
    for (const auto& [key, s] : r.schema) {
      t.add_row({core::escape_bytes(key), s.kinds, std::to_string(s.records),
                 std::to_string(s.records ? s.min_values : 0), std::to_string(s.max_values)});
    }
    out += "\n" + say(core::Message(N_("Features:"))) + "\n" + t.render("  ", width);
  }
  if (!r.examples.empty()) {
    out += "\n" + say(core::Message(N_("First {} Example(s):"), r.examples.size())) + "\n";
    // One JSON document a line, as --json has them: never wrapped.
    for (const auto& e : r.examples) out += e.dump() + "\n";
  }
  return out;
}

}  // namespace tfrig::tfrecord
