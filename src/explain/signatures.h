// The log signatures `tfrig explain` recognises: one table
// (data/knowledge/log_signatures.json, embedded like the other knowledge
// files), read here into plain values. No signature lives in code: a new one
// is a row in the file.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/text_width.h"
#include "verdict/finding.h"

namespace re2 {
class RE2;
}

namespace tfrig::explain {

class Matcher;

// Every pattern is RE2 syntax (https://github.com/google/re2/wiki/Syntax):
// RE2 runs in time linear in the line whatever the pattern, so a user's
// --knowledge file cannot make explain hang (no backtracking), and a pattern
// whose compiled program is too big is refused at load.
constexpr size_t kMaxPatternBytes = 4096;

// Values pulled out of a matched line: a pattern and a name per group.
struct Extractor {
  std::string pattern;
  std::vector<std::string> fields;
  std::shared_ptr<const re2::RE2> re;  // compiled once at load
};

struct Signature {
  std::string id;       // "cudnn-version-mismatch"
  std::string rule_id;  // "cuda.cudnn_version_conflict" (doctor's) or "log.oom"
  std::string area;
  rules::Severity severity = rules::Severity::kError;
  std::vector<std::string> match;  // any of these substrings (case-sensitive)
  std::vector<std::string> regex;  // or any of these patterns (RE2)
  std::optional<Extractor> extract;
  // Lines quoted from the source (or the logs) that this row must recognise; checked by the tests.
  std::vector<std::string> examples;
  // The machine fact that confirms or refutes the cause ("nvidia-smi lists
  // the GPU"): shown when the log is judged against a machine.
  std::string confirm;
  // A context of the log (SignatureTable::contexts) that turns this row's
  // hits into the row `instead` (TensorRT absent is noise unless TF-TRT is in use).
  std::string when_context;
  std::string instead;
  // "kernel_log": the line is read by import's kernel-log parser
  // (importer/kernel_log.h) and an Xid is explained from its catalogue (knowledge/xid_catalog.h).
  std::string reader;
  // Cause ids of the corpus (tests/data/logs/corpus/labels.json) this row's
  // cause text names besides its own id: what the recall measurement accepts.
  std::vector<std::string> causes;
  std::vector<std::string> facts;          // names of log facts to show as evidence
  std::vector<std::string> machine_rules;  // doctor rules run on the machine besides rule_id
  std::string what, cause, fix, source;
  bool harmless() const { return rule_id == "log.harmless_noise"; }
};

// A value read from any line of the log (a version, the allocator's summary).
struct FactPattern {
  std::string name;
  std::string needle;  // a cheap substring test before the regex runs
  Extractor extract;
};

// A property of the whole log, set by any line containing one of `match`.
struct LogContext {
  std::string name;
  std::vector<std::string> match;
};

struct SignatureTable {
  std::string data_version;
  std::vector<Signature> signatures;
  std::vector<FactPattern> facts;
  std::vector<LogContext> contexts;
  std::vector<std::string> error_markers;  // an unmatched line with one of these is listed as not recognised
  // Every match text, pattern, fact needle, context and marker in one RE2::Set: one pass per line.
  std::shared_ptr<const Matcher> matcher;
  const Signature* find(const std::string& id) const;
};

// What one pass of the set found in a line: indices into the table's vectors, ascending.
struct LineMatches {
  std::vector<size_t> signatures, facts, contexts;
  bool marker = false;
  bool pattern_literal = false;  // the patterns ran: a literal one of them needs is in the line (or one needs none)
};

class Matcher {
 public:
  // Errors name `where` and the row (signatures[ID].match) of the pattern that failed.
  static core::Result<std::shared_ptr<const Matcher>> build(const SignatureTable& t, const std::string& where);
  ~Matcher();
  void match(std::string_view line, LineMatches& out) const;
  // The longest literal text: a literal found across a cut lies within this many bytes of it.
  size_t longest_literal() const;

 private:
  Matcher();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The groups of `e` found in `text` ("" for a group that did not take part); empty when it does not match.
std::vector<std::string> extract(const Extractor& e, std::string_view text);

// Parses the table; errors name `where` and the row or field.
core::Result<SignatureTable> parse_signature_table(const std::string& text, const std::string& where);
// The embedded table, or `dir`/log_signatures.json when that file exists (--knowledge DIR).
core::Result<SignatureTable> load_signature_table(const std::string& knowledge_dir = "");

// docs/explain.md, generated from the table (`tfrig explain --markdown`);
// `tail` (the corpus figures, explain/corpus.h) is appended.
std::string signatures_markdown(const SignatureTable& table, const std::string& tail = "");
// The log.* rules section appended to docs/rules.md (`tfrig rules --markdown`).
std::string log_rules_markdown(const SignatureTable& table);
// `tfrig explain --list`.
std::string signatures_list_text(const SignatureTable& table, size_t width = core::kDefaultTextWidth);

}  // namespace tfrig::explain
