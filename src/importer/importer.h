// tfrig import: other tools' output -> one machine's report, for doctor.
//
// Each input's kind is detected from its content (gzip is unwrapped first):
// an nvidia-bug-report log, `nvidia-smi -q` text (or one of its error
// outputs), `nvidia-smi -q -x` XML, `nvidia-smi --query-gpu` CSV, `lspci`
// text, `nvidia-smi topo -m`.
// Each section or file goes to the same parser the live probes use (or, for
// formats only an import reads, the parser next to this file), and the
// facts of every input are merged into one Inventory: several files describe
// one machine (e.g. a bug report plus a topo matrix). What no input says
// stays unknown. docs/import.md describes the mapping.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "verdict/report.h"

namespace tfrig::importer {

enum class FileKind {
  kBugReport,
  kNvidiaSmiText,
  kNvidiaSmiXml,
  kNvidiaSmiCsv,  // nvidia-smi --query-gpu=... --format=csv
  kLspci,
  kTopo,
  kNvlink,              // nvidia-smi nvlink --status / --remotelinkinfo
  kProcNvidiaVersion,   // a copy of /proc/driver/nvidia/version
  kProcGpuInformation,  // a copy of /proc/driver/nvidia/gpus/<bus>/information
  kUnknown
};
std::string_view kind_name(FileKind kind);
FileKind detect_kind(std::string_view text);

struct Input {
  std::string name;   // shown in sources and errors
  std::string bytes;  // the file's content, gzip or not
};

// The biggest decompressed input accepted (the largest real bug report in
// the fixtures is 17.6 MB of text).
constexpr size_t kMaxTextBytes = size_t{256} << 20;

// Merges every input into one report (source "import:<names>"). Fails
// naming the input when one cannot be read or its kind is unknown.
// `warnings`, when given, gets every problem an input had as the user reads
// it (in the interface language; the report keeps them in English).
core::Result<report::Report> import_inputs(const std::vector<Input>& inputs,
                                           std::vector<std::string>* warnings = nullptr);

// Reads the files (relative paths against the current directory) and imports them.
core::Result<report::Report> import_files(const std::vector<std::string>& paths,
                                          std::vector<std::string>* warnings = nullptr);

}  // namespace tfrig::importer
