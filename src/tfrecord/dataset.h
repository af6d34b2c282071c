// What `tfrig pack` packs: a list of source files with labels and extra
// features, from a directory of class folders or a CSV/JSONL manifest.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "tfrecord/example.h"

namespace tfrig::tfrecord {

// A feature value that owns its data (manifest columns).
struct OwnedFeature {
  FeatureKind kind = FeatureKind::kNone;
  std::vector<std::string> bytes;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  FeatureValue view() const;
};

struct SourceItem {
  std::string path;      // to open
  std::string filename;  // image/filename: relative to SRC (dir) or as the manifest wrote it
  std::optional<int64_t> label;
  std::string label_text;
  uint64_t size_bytes = 0;                                   // at listing time; only for shard planning and progress
  std::vector<std::pair<std::string, OwnedFeature>> extras;  // sorted by key
};

struct Dataset {
  std::vector<SourceItem> items;  // sorted by filename: the listing order is part of determinism
  // label id -> class name, in id order (ids are label_offset + index for
  // named classes; manifests with integer labels keep their own ids).
  std::vector<std::pair<int64_t, std::string>> label_map;
  std::vector<std::string> extra_keys;
  std::string kind;  // "directory", "csv", "jsonl"
  // Entries of a source folder that are FIFOs, devices or sockets (also
  // behind a symlink): skipped, never opened (a FIFO would block the run for
  // ever), and counted for the summary.
  uint64_t skipped_not_regular = 0;
};

struct DatasetOptions {
  // A folder left out of a directory listing: pack's output folder when it
  // lies inside SRC (else it would become a class and shift every label).
  std::string exclude_dir;
  int64_t label_offset =
      0;  // 0: Keras image_dataset_from_directory; 1: the Inception/ImageNet scripts (0 = background)
};

// SRC is a directory (one sub-folder per class, files inside at any depth;
// hidden entries skipped) or a manifest file: *.jsonl / *.ndjson = JSON
// Lines, anything else = CSV with a header row. Manifest paths are relative
// to the manifest's folder unless absolute. Errors name the file and line.
core::Result<Dataset> load_dataset(const std::string& src, const DatasetOptions& options = {});

// The keys every packed Example carries (TF object-detection / Inception
// conventions, e.g. tensorflow/models research/slim/datasets/build_imagenet_data.py).
inline constexpr std::string_view kReservedKeys[] = {"image/encoded",    "image/format",   "image/class/label",
                                                     "image/class/text", "image/filename", "image/height",
                                                     "image/width",      "image/channels"};

// CSV (RFC 4180): one record per call; quoted fields may hold commas,
// doubled quotes and newlines. Exposed for tests.
struct CsvRow {
  std::vector<std::string> fields;
  size_t line = 0;  // 1-based line where the row starts
};
core::Result<std::vector<CsvRow>> parse_csv(std::string_view text, const std::string& where);

}  // namespace tfrig::tfrecord
