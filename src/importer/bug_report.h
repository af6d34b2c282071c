// nvidia-bug-report.log -> its sections. nvidia-bug-report.sh (every version
// from 2017 to 2026 in tests/data/nvidia-bug-report/) writes each section
// after a line of 44 '_' and a blank line; the section's first line is either
//   "*** /path" (a file; then "*** ls: <mode> <mtime> /path"), or
//   "*** /path does not exist", or
//   the command it ran ("/usr/bin/lspci -nnDvvvxxxx", "dmesg:",
//   "Scanning kernel log files for NVIDIA kernel messages:", ...).
// The first section holds the script version, the date and `uname -a`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace tfrig::importer {

struct BugReportSection {
  std::string header;               // the first line, as written
  std::optional<std::string> path;  // "/proc/cpuinfo" for "*** /proc/cpuinfo" ("/./" folded)
  bool missing = false;             // "*** /path does not exist"
  std::string_view body;            // the text after the header (and the "*** ls:" line)
  int line = 0;                     // 1-based line of the header
};

struct BugReport {
  std::optional<std::string> script_version;  // "nvidia-bug-report.sh Version: 32875599"
  std::optional<std::string> date;            // "Date:" as written (the machine's locale)
  std::optional<std::string> uname;           // "Linux host 5.15.0-46-generic #49-Ubuntu SMP ... x86_64 GNU/Linux"
  std::vector<BugReportSection> sections;     // views into the text given to split_bug_report
};

// True when the text starts like a bug report.
bool looks_like_bug_report(std::string_view text);

// Fails when the text has no "Start of NVIDIA bug report log file" preamble.
core::Result<BugReport> split_bug_report(std::string_view text);

// The sections whose header is the file `path` (exact, after folding "/./"),
// or whose command header starts with `command`.
std::vector<const BugReportSection*> sections_for_path(const BugReport& r, std::string_view path);
std::vector<const BugReportSection*> sections_for_command(const BugReport& r, std::string_view command_prefix);

}  // namespace tfrig::importer
