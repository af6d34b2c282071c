// tfrig explain: recognise the signatures of the table in a log, line by
// line, in bounded memory; group repeated lines; turn the groups into findings
// rendered like doctor's; and judge them against a machine's inventory
// (doctor's rule of the same id, and the compat check with the log's versions).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "explain/signatures.h"
#include "knowledge/compat.h"
#include "knowledge/knowledge.h"
#include "verdict/report.h"
#include "verdict/finding.h"

namespace tfrig::explain {

// Where lines of one kind were seen: the first few line numbers (1-based) and how many in all.
struct LineGroup {
  static constexpr size_t kLinesKept = 8;
  std::vector<uint64_t> lines;
  uint64_t count = 0;
  std::string sample;                                       // the first line, cleaned for printing
  std::vector<std::pair<std::string, std::string>> values;  // extracted from the first line
  void add(uint64_t line_number);
  void remove(uint64_t line_number);  // a line another reading explained
  // "line 12", "lines 12, 40, 41", "lines 12, 40, ... (x1,204)".
  std::string describe() const;  // in the reader's language
  core::Message describe_message() const;
};

struct SignatureHit {
  const Signature* signature = nullptr;
  LineGroup group;
};

struct LogFact {
  std::string value;
  uint64_t line = 0;
};

struct LogAnalysis {
  uint64_t lines = 0;
  uint64_t bytes = 0;
  uint64_t truncated_lines = 0;
  std::vector<SignatureHit> hits;        // in order of first appearance
  std::vector<LineGroup> unrecognised;   // error-looking lines no row matched, grouped by text
  uint64_t unrecognised_not_kept = 0;    // lines of texts beyond the cap (counted, not kept)
  std::map<std::string, LogFact> facts;  // the first value of each fact
};

// A log line's message without its prefixes (message_of below) and its
// glog/absl severity letter (glog_level), parsed in one pass.
struct LineHead {
  std::string_view message;
  char level = 0;
};
LineHead head_of(std::string_view line);

// Feeds lines one at a time; memory stays bounded by the caps below whatever the log's size.
class LogAnalyzer {
 public:
  static constexpr size_t kMaxGroups = 200;       // distinct (signature, values) groups kept
  static constexpr size_t kMaxUnrecognised = 50;  // distinct unrecognised texts kept
  explicit LogAnalyzer(const SignatureTable& table) : table_(table), contexts_seen_(table.contexts.size(), false) {}
  void add_line(std::string_view line);
  void add_bytes(uint64_t n) { result_.bytes += n; }
  LogAnalysis finish(uint64_t truncated_lines = 0);

 private:
  // A terminal wraps a long line; the pieces are matched joined again. The
  // previous line must be at least this wide to be a wrapped piece, and the
  // join keeps this much of it.
  static constexpr size_t kMinWrappedColumns = 60;
  static constexpr size_t kJoinTailBytes = 1024;
  const SignatureTable& table_;
  LogAnalysis result_;
  std::vector<bool> contexts_seen_;
  LineMatches matches_, join_matches_;  // reused: no allocation per line
  // The current run of wrapped pieces: its text (tail) and the rows its
  // pieces matched alone (run_pieces_ below: their lines).
  std::string run_;
  std::vector<size_t> run_rows_;
  size_t matched_row_ = 0;  // the row the last classified line matched, or kNoRow
  static constexpr size_t kNoRow = static_cast<size_t>(-1);
  // Inside a Python traceback: its frames are indented; the exception is the first line that is not.
  bool in_traceback_ = false;
  bool exception_line_ = false;
  void record_hit(const Signature& sig, std::string_view line, uint64_t n);
  void take_line(std::string_view line, uint64_t n);
  std::map<std::string, size_t> hit_index_;
  std::map<std::string, size_t> unrecognised_index_;
  // Per signature, the last message (without its timestamp prefix) and what
  // its regex extracted: repeated lines skip the regex.
  std::map<const Signature*, std::pair<std::string, std::vector<std::string>>> last_extract_;
  // Messages already classified (without their timestamp prefix): a repeated
  // line skips the scan. Bounded: short messages only, cleared when full.
  static constexpr size_t kMaxCachedMessages = 8192;
  static constexpr size_t kMaxCachedMessageBytes = 512;
  struct Seen {
    int kind = 0;  // 0 nothing, 1 a hit, 2 unrecognised, 3 unrecognised beyond the cap
    size_t index = 0;
    bool pattern_literal = false;  // in the message cache: the line holds a literal some pattern needs
  };
  std::unordered_map<std::string, Seen> seen_;
  // The cache's hit rate is looked at every kCacheWindow lookups; under one in
  // eight, the next kCacheRestLines lines are classified without it.
  static constexpr uint64_t kCacheWindow = 4096;
  static constexpr uint64_t kCacheRestLines = 65536;
  uint64_t cache_looked_ = 0, cache_found_ = 0, cache_rest_ = 0;
  LineHead head_;  // the line being classified, its prefixes parsed once
  // The line just taken / some piece of the current run holds a literal a
  // pattern of the table needs (LineMatches::pattern_literal): a join must
  // then run the patterns over the whole run, not only the text around the cut.
  bool line_atom_ = false, run_atom_ = false;
  uint64_t counted_ = 0;  // lines that joined a group
  Seen last_seen_;        // the existing group the last counted line joined
  Seen line_seen_;        // where the line just taken was counted
  // The pieces of the current run and where each was counted (bounded).
  struct RunPiece {
    uint64_t line = 0;
    Seen how;
  };
  static constexpr size_t kMaxRunPieces = 64;
  std::vector<RunPiece> run_pieces_;
  void classify(std::string_view line, uint64_t n);
  Seen classify_counted(std::string_view line, uint64_t n);
  void record_joined(const Signature& sig, const std::string& joined);
};

// A whole text at once (tests, fuzzing).
LogAnalysis analyze_text(const SignatureTable& table, std::string_view text);

// True for an unmatched line that should be shown: a glog line of level E or
// F, or one containing an error marker of the table.
bool looks_like_error(std::string_view line, const std::vector<std::string>& markers);
// The text of a log line without its prefixes: journalctl's ("Dec 06 10:00:01
// host kernel: "), dmesg's ("[ 12.345678] "), an RFC 3339 timestamp (docker
// logs -t, kubectl --timestamps), and glog/absl's ("E0000 00:00:1700000000.1
// 123 file.cc:42] ", "2024-01-01 10:00:00.1: E file.cc:42] ").
std::string_view message_of(std::string_view line);
// The severity letter of the glog/absl/TensorFlow prefix (I, W, E, F), or 0.
char glog_level(std::string_view line);
// Log bytes as UTF-8: UTF-16 (with a BOM, or detectably without one, as
// PowerShell's `>` writes) converted; anything else as it is.
std::string decode_log_bytes(std::string_view bytes);
// True when the first bytes of a file say UTF-16 (the whole file must then go through decode_log_bytes).
bool looks_utf16(std::string_view head);

// A finding and the row it came from.
struct Explained {
  rules::Finding finding;
  const Signature* signature = nullptr;
};

// One finding per group, worst first, in doctor's shape. The evidence names
// its line as "log line 12", or "NAME: line 12" when the log's name is given
// (its findings join a report of other files: doctor --from).
std::vector<Explained> findings_from(const LogAnalysis& a, const std::string& log_name = "");

// The compat question the log answers: its versions (TF, CUDA runtime asked
// for, cuDNN, compute capability, driver); the caller fills the rest from the machine.
knowledge::CompatQuery compat_query_from_log(const LogAnalysis& a);

// Adds to each finding what the machine says: doctor's rule of the same id
// (and the row's machine_rules) run on its inventory, with that finding's fix
// for this machine; and, for CUDA/driver/GPU findings, the compat answer.
// machine may be null: then only the compat answer (from the log's versions alone) is added.
void judge_against_machine(std::vector<Explained>& findings, const LogAnalysis& a, const report::Report* machine,
                           const knowledge::Knowledge& k, const std::optional<knowledge::CompatAnswer>& compat);

// The report explain renders: findings, summary, verdict (and the target when judged on a machine).
// The source is the log's name, or "the output of CMD" as a message.
report::Report explain_report(const std::vector<Explained>& findings, const LogAnalysis& a, const rules::Text& source,
                              const report::Report* machine);

// "1 error, 2 warnings" in the language of the interface ("" when all are zero).
std::string summary_counts(const rules::Summary& s);

// The block after the findings: lines that look like errors but are not recognised.
std::string unrecognised_text(const LogAnalysis& a, size_t width);
nlohmann::json analysis_json(const LogAnalysis& a);

// Reads FILE ("-": stdin) through the analyzer, 1 MiB at a time: a directory,
// device or socket refused, a FIFO without a writer read as empty, a UTF-16
// log (PowerShell's `>`) converted whole up to 256 MiB.
core::Result<LogAnalysis> analyze_file(const std::string& path, const SignatureTable& table);

// explain -- CMD: the command's output analysed as it runs, and its exit status.
struct CommandLog {
  LogAnalysis analysis;
  int exit_code = 0;
};
core::Result<CommandLog> analyze_command(const std::vector<std::string>& command, const SignatureTable& table);

}  // namespace tfrig::explain
