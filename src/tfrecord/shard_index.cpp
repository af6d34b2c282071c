#include "tfrecord/shard_index.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/i18n.h"
#include "core/input_file.h"
#include "core/try.h"

namespace tfrig::tfrecord {

std::string index_path_for(const std::string& shard_path) { return shard_path + ".index.json"; }

std::string serialize_index(const ShardIndex& index) {
  // Key order fixed (ordered_json) and no timestamps: two runs over the same
  // input write byte-identical indexes.
  nlohmann::ordered_json j;
  j["schema_version"] = kShardIndexSchemaVersion;
  j["shard"] = index.shard;
  j["compression"] = std::string(compression_name(index.compression));
  j["records"] = index.records;
  j["file_bytes"] = index.file_bytes;
  j["stream_bytes"] = index.stream_bytes;
  if (!index.plan_fingerprint.empty()) j["plan_fingerprint"] = index.plan_fingerprint;
  j["offsets"] = index.offsets;
  return j.dump() + "\n";
}

core::Result<ShardIndex> parse_index(std::string_view text, const std::string& where) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return core::fail(core::ErrorCode::kParse, where, core::Message(N_("not a JSON object")));
  ShardIndex idx;
  try {
    if (j.at("schema_version").get<int>() != kShardIndexSchemaVersion) {
      return core::fail(core::ErrorCode::kUnsupported, where,
                        core::Message(N_("schema_version {}; expected 1"), j.at("schema_version").dump()));
    }
    idx.shard = j.at("shard").get<std::string>();
    auto c = parse_compression(j.at("compression").get<std::string>());
    if (!c) return core::fail(core::ErrorCode::kParse, where + ": compression", c.error().text);
    idx.compression = *c;
    idx.records = j.at("records").get<uint64_t>();
    idx.file_bytes = j.at("file_bytes").get<uint64_t>();
    idx.stream_bytes = j.at("stream_bytes").get<uint64_t>();
    idx.offsets = j.at("offsets").get<std::vector<uint64_t>>();
    if (j.contains("plan_fingerprint")) idx.plan_fingerprint = j.at("plan_fingerprint").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    // Caught here: nothing crosses the stage boundary.
    return core::fail(core::ErrorCode::kParse, where, core::Message(N_("bad shard index: {}"), e.what()));
  }
  if (idx.offsets.size() != idx.records) {
    return core::fail(
        core::ErrorCode::kParse, where,
        core::Message(N_("offsets has {} entries; expected records = {}"), idx.offsets.size(), idx.records));
  }
  return idx;
}

core::Result<ShardIndex> read_index(const std::string& path) {
  // 8 bytes of text per record offset: 64 MiB is millions of records.
  auto text = TFRIG_TRY(core::read_input_file(path, 64u << 20));
  return parse_index(text, path);
}

}  // namespace tfrig::tfrecord
