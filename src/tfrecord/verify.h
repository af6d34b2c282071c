// `tfrig verify`: every record's framing and both CRCs, the shard index when
// one sits next to the shard, and optionally every record as an Example.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/message.h"
#include "core/text_width.h"
#include "tfrecord/record.h"

namespace tfrig::tfrecord {

struct VerifyOptions {
  std::optional<Compression> compression;  // nullopt = sniff each file
  bool examples = false;                   // also decode each record as a tf.train.Example
  bool check_index = true;
  unsigned jobs = 0;  // files verified in parallel; 0 = all cores
  bool progress = false;
};

struct FileVerdict {
  std::string path;
  bool ok = true;
  Compression compression = Compression::kNone;
  uint64_t records = 0;       // good records before the first problem
  uint64_t stream_bytes = 0;  // uncompressed bytes of those records
  uint64_t file_bytes = 0;
  std::string index;  // "none", "ok" or "mismatch"
  // The first problem: its kind ("length_crc", "data_crc", "truncated_record",
  // "truncated_header", "trailing_garbage", "decompress", "io",
  // "bad_example", "index_mismatch"), where, and what was expected.
  std::string problem;
  uint64_t offset = 0;
  uint64_t record_index = 0;
  std::string message;  // in English (english(text))
  core::Message text;
  core::Message to_message() const;                        // one line for people
  std::string to_string(std::string_view language) const;  // that line in a language, foreign bytes escaped
};

FileVerdict verify_file(const std::string& path, const VerifyOptions& options);

// Expands directories to the files in them (sorted; *.json sidecars
// skipped) and verifies all files in parallel. Results in input order.
std::vector<FileVerdict> verify_paths(const std::vector<std::string>& paths, const VerifyOptions& options);

// For each directory in paths: every shard set PREFIX-*-of-N.tfrecord found
// there that lacks some of its N shards, and temporary files left by an
// interrupted pack. One line per problem, naming the folder; empty = complete.
std::vector<core::Message> check_shard_sets(const std::vector<std::string>& paths);

// What one `tfrig verify` found: each file's verdict and the folders' shard
// set problems. Rendered to a string like every other command's output.
struct VerifyReport {
  std::vector<FileVerdict> files;
  std::vector<core::Message> set_problems;
  size_t bad_files() const;
  uint64_t good_records() const;
};

// One line per file, one per incomplete set, then the totals, in `language`
// (the output's: the report holds messages). Lines wider than `width` wrap
// (core/text_width.h).
std::string render_verify_text(const VerifyReport& report, std::string_view language,
                               size_t width = core::kDefaultTextWidth);
// {"files", "files_bad", "records", "results": [...], "set_problems"}; file
// names and messages escaped (core::escape_bytes), the messages in `language`.
std::string render_verify_json(const VerifyReport& report, std::string_view language);

}  // namespace tfrig::tfrecord
