// The comparison: many nodes in, the fleet's view out. Pure: no file is read
// here (fleet/load.h reads them), so every case is tested on built nodes.
//
//   drift         each fact whose value is not the same on every node that
//                 knows it: the fleet's value (the majority's, or the
//                 baseline's) and each node that differs, with its value;
//   findings      each rule id with the nodes it fires on;
//   odd nodes     the nodes that differ from the rest, ranked by how much,
//                 each with what differs and the fix.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/node.h"
#include "verdict/finding.h"

namespace tfrig::fleet {

// Values are English (compared and written to JSON as they are) with their
// message when they have words (Fact::value_message): each output renders
// them in its language (fact_value_in).
using ValueMessage = std::shared_ptr<const core::Message>;

struct NodeValue {
  std::string node;
  std::string value;
  ValueMessage value_message = nullptr;
};

struct Drift {
  std::string fact;                         // "gpu.pcie_link[gpu1]"
  std::string kind;                         // "gpu.pcie_link"
  std::string scope;                        // "gpu1"
  std::string title;                        // English (title_in renders it)
  std::string expected;                     // the majority's value, or the baseline's
  size_t expected_nodes = 0;                // nodes that have it
  size_t known_nodes = 0;                   // nodes whose snapshot states this fact
  std::vector<NodeValue> differing;         // sorted by node name
  ValueMessage expected_message = nullptr;  // expected's words
};

struct NodeEntity {
  std::string node;
  std::string entities;  // "gpu0, gpu1"
};

struct FindingAcross {
  std::string rule_id;
  rules::Severity severity = rules::Severity::kInfo;  // the worst on any node
  std::string title;                                  // English (title_in renders it)
  std::vector<NodeEntity> nodes;                      // sorted by node name
  bool on_baseline = false;
};

struct Difference {
  std::string fact;
  std::string value;
  std::string expected;
  ValueMessage value_message = nullptr;
  ValueMessage expected_message = nullptr;
};

// A fix as the renderers say it: a drifted fact's (its kind's fix with the
// scope and the expected value) or a finding's (its message, else its text).
struct Fix {
  const FactKind* kind = nullptr;
  std::string scope;
  std::string expected;
  rules::Text text;                         // a finding's fix, when kind is null
  ValueMessage expected_message = nullptr;  // expected's words
};
// The fix in a language ("en" is the English the JSON keeps).
std::string fix_in(const Fix& fix, std::string_view language);
// A title the report keeps in English (a fact kind's or a rule's, the
// catalog's key; an id when there is none) in a language.
std::string title_in(const std::string& english, std::string_view language);

struct OddNode {
  std::string node;
  int score = 0;
  std::vector<Difference> differences;
  std::vector<std::string> findings;  // rule ids that fire here and not on most nodes (or not on the baseline)
  std::vector<std::string> fixes;     // one per difference and finding, in that order, without repeats; English
  std::vector<Fix> fix_texts;         // the same fixes, for a renderer of another language
};

// A node's fixes in a language.
std::vector<std::string> fixes_in(const OddNode& n, std::string_view language);

struct FleetReport {
  std::vector<Node> nodes;  // sorted by name (facts and findings kept for the JSON)
  std::vector<Unreadable> unreadable;
  std::optional<std::string> baseline;  // its name, with --baseline
  std::vector<Drift> drift;             // in fact_kinds() order, then by fact
  std::vector<FindingAcross> findings;  // worst first, then fewest nodes first, then rule id
  std::vector<OddNode> odd_nodes;       // highest score first
  rules::Severity worst = rules::Severity::kInfo;
  bool any_problem = false;  // a finding, a drift or an unreadable node
};

// How much one difference weighs when nodes are ranked: a drifted fact as
// much as a warning; findings by severity (an error outweighs three warnings).
int severity_weight(rules::Severity s);

// Compares the nodes; with a baseline, the baseline's values are the
// expected ones and its findings are not counted against the other nodes.
FleetReport compare(std::vector<Node> nodes, std::vector<Unreadable> unreadable,
                    const std::optional<Node>& baseline = std::nullopt);

}  // namespace tfrig::fleet
