// `nvidia-smi --query-gpu=FIELDS --format=csv` -> the GPU part of an
// inventory. It is what monitoring scripts, exporters (netdata,
// nvidia_gpu_exporter) and people asked for "your GPUs" paste most: a header
// of the field names as queried (aliases such as gpu_bus_id kept, "[MiB]"
// style units appended unless `nounits`), then one line per GPU, or per GPU
// and sample when run with -l. The fields read are those of `nvidia-smi
// --help-query-gpu` that the inventory has (docs/import.md lists them);
// every other column is ignored. Values are "N/A", "[Not Supported]" and the
// like when the driver cannot say: unknown, never zero.
#pragma once

#include <string_view>

#include "core/result.h"
#include "importer/nvidia_smi_text.h"

namespace tfrig::importer {

// The GPUs (source "nvidia-smi-csv") and the driver version. A GPU sampled
// several times (-l) is one GPU with its last sample's values; lines whose
// field count differs from the header's are skipped and named in
// `problems`. Fails when the header names no field that identifies a GPU or
// no line holds one.
struct NvidiaSmiCsv {
  NvidiaSmiText smi;  // gpus and driver_version filled; attached_gpus from "count"
  // The first kMaxBadLines lines whose field count differs from the header's
  // (a hostile file may hold millions), and how many there were in all.
  struct BadLine {
    size_t line = 0;
    size_t fields = 0;
  };
  static constexpr size_t kMaxBadLines = 20;
  std::vector<BadLine> bad_lines;
  size_t bad_line_count = 0;
  size_t header_fields = 0;
  std::vector<core::Message> problems;  // the same as messages: "line 7: 3 fields, the header has 15"
};
// One problem as a message: a bad line (index < bad_lines.size()), or, at
// index bad_lines.size(), how many more there were.
core::Message csv_problem(const NvidiaSmiCsv& csv, size_t index);
core::Result<NvidiaSmiCsv> parse_nvidia_smi_csv(std::string_view text);

// True when the first line is a --query-gpu CSV header (every field a query
// name, one of them naming a GPU) and the next line has as many fields.
bool looks_like_nvidia_smi_csv(std::string_view text);

}  // namespace tfrig::importer
