// A rule is one row of a table: a stable id ("gpu.no_gpu"), its area, its
// default severity, a title, what it checks and why (with the source), the
// fix, references, and a check over (Inventory, Knowledge, Target).
//
// Every check ends pass, warn, fail or skip. Skip names the missing fact
// ("GPU compute capability unknown"): a missing input never passes and never
// raises a false alarm.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/version.h"
#include "inventory/inventory.h"
#include "knowledge/knowledge.h"
#include "verdict/finding.h"

namespace tfrig::rules {

enum class Outcome { kPass, kWarn, kFail, kSkip };
std::string_view outcome_name(Outcome o);

// The TensorFlow release the rules judge against: the installed one, else
// --tf, else the newest known.
struct Target {
  core::Version tf;
  std::string origin;                                 // "installed", "--tf", "newest known"
  const knowledge::TfBuild* build = nullptr;          // its tested-build row, if known
  const inventory::PythonEnvironment* env = nullptr;  // where it is installed
  std::string label() const;  // "TensorFlow 2.17.0 (installed in /usr)", in the process's language
  core::Message label_message() const;
};

Target resolve_target(const inventory::Inventory& inv, const knowledge::Knowledge& k,
                      const std::optional<std::string>& tf_flag);

struct Context {
  const inventory::Inventory& inv;
  const knowledge::Knowledge& k;
  Target target;
  // Probe ids that ran (ok or absent); nullopt counts every section as probed
  // (rule tests build inventories by hand).
  std::optional<std::set<std::string>> probes_run;
  bool probed(std::string_view probe_id) const;
};

// One thing a check found wrong; the rule fills in id, area and title.
// Its texts are messages (core::Message: N_("... {0} ...") with arguments)
// or literals; Text keeps the English and the message for rendering.
struct Hit {
  std::string entity = "host";
  Text message;
  std::vector<Evidence> evidence;
  Text fix;                          // empty: the rule's fix
  std::optional<Severity> severity;  // empty: the rule's default
};

struct Check {
  Outcome outcome = Outcome::kPass;  // set by the evaluator from hits unless skip
  std::vector<Hit> hits;
  Text skip_reason;

  static Check pass() { return Check{}; }
  static Check skip(Text missing_fact) { return Check{Outcome::kSkip, {}, std::move(missing_fact)}; }
  Check& add(Hit h) {
    hits.push_back(std::move(h));
    return *this;
  }
};

using CheckFn = Check (*)(const Context&);

struct Rule {
  std::string_view id;
  std::string_view area;
  Severity severity;
  std::string_view title;
  std::string_view checks;  // what it checks (docs/rules.md)
  std::string_view why;     // why it matters, with the source
  std::string_view fix;     // the default fix
  std::vector<std::string_view> references;
  CheckFn check;
};

// The explicit table of every rule, grouped by area (registry.cpp).
const std::vector<Rule>& all_rules();
const Rule* find_rule(std::string_view id);
// Areas in report order.
const std::vector<std::string_view>& areas();

struct RuleResult {
  const Rule* rule = nullptr;
  Outcome outcome = Outcome::kPass;
  std::string skip_reason;                                   // English
  std::optional<core::Message> skip_message = std::nullopt;  // skip_reason == core::english(*skip_message)
  std::vector<Finding> findings;
};

struct Evaluation {
  std::vector<RuleResult> results;  // in table order
  std::vector<Finding> findings;    // worst first, then by area, then table order
  Summary summary;
};

// Runs the rules (all, or of one area when only_area is set).
Evaluation evaluate(const Context& ctx, const std::string& only_area = "");
RuleResult run_rule(const Rule& rule, const Context& ctx);

// docs/rules.md, generated from the table.
std::string rules_markdown();

}  // namespace tfrig::rules
