// `tfrig pack`: source files -> TFRecord shards of tf.train.Examples, with
// an index per shard and a label map.
//
// Parallelism and memory: the plan is made first (tfrecord/plan.h); then
// --jobs workers each take whole shards from the slice and write them
// start to finish. A worker holds one source file, its encoded Example and
// a 4 MiB write buffer (plus ~0.6 MiB of deflate state when compressing), so
// pack's footprint is about
//     plan (~200 bytes per file + manifest extras)
//   + jobs x (4.6 MiB + 2 x the largest source file),
// whatever the dataset or shard size.
//
// Crash safety: each shard is written under a temporary name; its index is
// written (atomically) before the shard is renamed into place, so a shard
// under its final name is always complete and indexed. --resume skips those.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/text_width.h"
#include "tfrecord/dataset.h"
#include "tfrecord/plan.h"
#include "tfrecord/record.h"

namespace tfrig::tfrecord {

enum class OnError { kSkip, kFail };

enum class Validate { kHeader, kFull };

struct PackOptions {
  std::string src;
  std::string out_dir;
  std::string prefix = "data";
  PlanOptions plan;
  DatasetOptions dataset;
  uint32_t shard_index = 0;  // this slice
  uint32_t num_slices = 1;   // --num-shards: how many slices the plan is cut into
  unsigned jobs = 0;         // 0 = all cores
  Compression compression = Compression::kNone;
  bool resume = false;
  bool overwrite = false;
  OnError on_error = OnError::kSkip;
  // header: read each image's header only (size, channels; fast). full: also
  // decode every JPEG to pixels, so a file cut short is skipped (or fails
  // with --on-error fail) instead of failing later in training.
  Validate validate = Validate::kHeader;
  bool progress = false;
  // Set by a signal (SIGINT/SIGTERM): workers stop between records, the
  // unfinished shards' temporary files are removed, finished shards stay.
  const std::atomic<bool>* cancel = nullptr;
};

struct FileFailure {
  std::string path;
  std::string reason;
};

struct PackSummary {
  std::string source_kind;
  uint64_t files_listed = 0;
  uint32_t shards_total = 0;  // in the whole plan
  uint32_t shards_in_slice = 0;
  uint32_t shards_written = 0;
  uint32_t shards_resumed = 0;  // complete from an earlier run, left as they were
  uint64_t records = 0;
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  double seconds = 0;
  std::vector<FileFailure> failures;
  std::vector<std::string> shard_paths;  // this slice's shards
  std::string label_map_path;
  uint64_t skipped_not_regular = 0;  // FIFOs, devices, sockets in SRC: not packed
  bool interrupted = false;          // stopped by `cancel`: shards_written are complete, the rest are not written
};

struct PackError {
  core::Error error;
  bool output = false;  // the output could not be written (vs. a bad input)
};

tl::expected<PackSummary, PackError> run_pack(const PackOptions& options);

// What `tfrig pack` prints when it finishes: where the records went, the
// rates, how images were checked and what was skipped (the first 20 files
// that failed, by name, escaped).
// Lines wider than `width` wrap (core/text_width.h).
std::string render_pack_text(const PackSummary& sum, const PackOptions& options,
                             size_t width = core::kDefaultTextWidth);

// The label map file: {"schema_version":1,"labels":[{"id":0,"name":"cat"},...]}.
std::string label_map_path(const std::string& out_dir, const std::string& prefix);
// Label names that are not valid UTF-8 (a class folder named in Latin-1)
// are written escaped (core::escape_bytes) in "name" with their exact bytes
// in "name_hex"; the shards' image/class/text keeps the exact bytes.
std::string serialize_label_map(const Dataset& ds);

// What a shard holds: the items (file name, label, size) in write order,
// the shard count and the compression. Two runs that would write different
// bytes into shard k have different fingerprints (FNV-1a 64, hex).
std::string plan_fingerprint(const Dataset& ds, const Plan& plan, const ShardPlan& shard, Compression compression,
                             Validate validate = Validate::kHeader);

}  // namespace tfrig::tfrecord
