// `tfrig inspect`: what is in a TFRecord file: record count, the Example
// feature schema, and the first records as JSON.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "core/text_width.h"
#include "tfrecord/example.h"
#include "tfrecord/record.h"

namespace tfrig::tfrecord {

struct InspectOptions {
  std::optional<Compression> compression;
  size_t show = 3;          // first N Examples as JSON
  bool show_bytes = false;  // bytes values in full (text as a string, else hex) instead of size + CRC-32C
};

struct FeatureStats {
  std::string kinds;     // "bytes_list", or "float_list|int64_list" when records disagree
  uint64_t records = 0;  // records that carry the key
  uint64_t min_values = UINT64_MAX;
  uint64_t max_values = 0;
};

struct InspectReport {
  std::string path;
  Compression compression = Compression::kNone;
  uint64_t records = 0;
  uint64_t stream_bytes = 0;
  uint64_t not_examples = 0;         // records that do not decode as an Example
  core::Message first_not_example;   // why the first of them did not
  std::optional<RecordError> error;  // framing problem that stopped the read
  std::map<std::string, FeatureStats> schema;
  nlohmann::ordered_json examples = nlohmann::ordered_json::array();
};

core::Result<InspectReport> inspect_file(const std::string& path, const InspectOptions& options);

// One Example as JSON: {"key": {"bytes_list": [...]}}; bytes as
// {"size": n, "crc32c": "0x..."} unless show_bytes.
nlohmann::ordered_json example_to_json(const FeaturesView& ex, bool show_bytes);

// The report's texts (messages) in `language`, the output's.
nlohmann::ordered_json report_to_json(const InspectReport& r, std::string_view language);
// Lines wrap and the feature table folds to `width` columns (core/text_width.h);
// the Example dumps stay one JSON document a line.
std::string report_to_text(const InspectReport& r, std::string_view language, size_t width = core::kDefaultTextWidth);

}  // namespace tfrig::tfrecord
