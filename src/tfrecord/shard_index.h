// The JSON index written next to each shard ("<shard>.index.json"): exact
// record count and each record's offset in the (uncompressed) record stream,
// so a reader can seek to record k of an uncompressed shard, and `verify`
// can check that the shard is the one the index describes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "tfrecord/record.h"

namespace tfrig::tfrecord {

constexpr int kShardIndexSchemaVersion = 1;

struct ShardIndex {
  std::string shard;  // file name, no directory
  Compression compression = Compression::kNone;
  uint64_t records = 0;
  uint64_t file_bytes = 0;    // size on disk
  uint64_t stream_bytes = 0;  // uncompressed record stream size
  std::vector<uint64_t> offsets;
  // What the shard was planned from (pack's plan_fingerprint): --resume keeps
  // a shard only when it matches. Empty in indexes written before it existed.
  std::string plan_fingerprint;
};

std::string index_path_for(const std::string& shard_path);
std::string serialize_index(const ShardIndex& index);
core::Result<ShardIndex> parse_index(std::string_view text, const std::string& where);
core::Result<ShardIndex> read_index(const std::string& path);

}  // namespace tfrig::tfrecord
