// The log signatures `tfrig explain` recognises: one table
// (data/knowledge/log_signatures.json, embedded like the other knowledge
// files), read here into plain values. No signature lives in code: a new one
// is a row in the file.
#pragma once

#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "core/result.h"
#include "rules/finding.h"

namespace tfrig::explain {

// Values pulled out of a matched line: an ECMAScript regex and a name per group.
struct Extractor {
  std::string pattern;
  std::vector<std::string> fields;
  std::shared_ptr<const std::regex> re;  // compiled once at load
};

struct Signature {
  std::string id;       // "cudnn-version-mismatch"
  std::string rule_id;  // "cuda.cudnn_version_conflict" (doctor's) or "log.oom"
  std::string area;
  rules::Severity severity = rules::Severity::kError;
  std::vector<std::string> match;  // any of these substrings (case-sensitive)
  std::optional<Extractor> extract;
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

struct SignatureTable {
  std::string data_version;
  std::vector<Signature> signatures;
  std::vector<FactPattern> facts;
  std::vector<std::string> error_markers;  // an unmatched line with one of these is listed as not recognised
};

// Parses the table; errors name `where` and the row or field.
core::Result<SignatureTable> parse_signature_table(const std::string& text, const std::string& where);
// The embedded table, or `dir`/log_signatures.json when that file exists (--knowledge DIR).
core::Result<SignatureTable> load_signature_table(const std::string& knowledge_dir = "");

// docs/explain.md, generated from the table (`tfrig explain --markdown`).
std::string signatures_markdown(const SignatureTable& table);
// The log.* rules section appended to docs/rules.md (`tfrig rules --markdown`).
std::string log_rules_markdown(const SignatureTable& table);
// `tfrig explain --list`.
std::string signatures_list_text(const SignatureTable& table);

}  // namespace tfrig::explain
