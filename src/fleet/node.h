// One node of a fleet, reduced to what the comparison needs: its facts and
// the findings of the rules on it. The whole report (tens of kB of JSON) is
// dropped as soon as this is made, so a fleet of 10,000 nodes holds 10,000
// of these and never 10,000 documents (bench/RESULTS.md, fleet).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fleet/facts.h"
#include "knowledge/knowledge.h"
#include "verdict/report.h"
#include "verdict/finding.h"

namespace tfrig::fleet {

// What a rule said about one node: the parts the fleet report shows.
struct NodeFinding {
  std::string rule_id;
  rules::Severity severity = rules::Severity::kWarning;
  std::string entity;
  std::string fix;  // empty: the rule's own fix (rules::find_rule); English
  // fix's message, rendered in the report's language; a pointer, as most
  // findings have none (the rule's own fix) and a fleet holds many.
  std::shared_ptr<const core::Message> fix_message = nullptr;
};

struct Node {
  std::string name;  // from the file name: "node07" for node07.json
  std::string file;
  std::string hostname;  // as the snapshot says, when it does
  int schema_version = 0;
  std::string tool_version;
  std::string source;                // "snapshot", "import"
  std::vector<core::Message> notes;  // how it was read ("schema 2 is newer than ..."), rendered by each output
  std::vector<Fact> facts;           // sorted by id
  std::vector<NodeFinding> findings;
  rules::Summary summary;
};

// A file that could not be read as a node: reported, never fatal.
struct Unreadable {
  std::string name;
  std::string file;
  std::string error;      // in English (JSON without --lang)
  core::Message message;  // the same, rendered by each output in its language
};

// Runs the rules on the report (judged by this tfrig's rules and knowledge,
// whatever tfrig wrote it) and keeps the facts and findings.
Node summarize_node(const report::Report& report, const knowledge::Knowledge& k, const std::optional<std::string>& tf);

}  // namespace tfrig::fleet
