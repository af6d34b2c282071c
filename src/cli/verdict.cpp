#include "cli/verdict.h"

#include <optional>

#include <fmt/format.h>

#include "cli/command.h"
#include "core/log.h"
#include "core/output.h"
#include "rules/judge.h"

namespace tfrig::cli {

int exit_code_for_findings(const rules::Summary& s, const std::string& fail_on) {
  if (fail_on == "never") return kExitOk;
  if (s.errors) return kExitErrors;
  if (fail_on == "error") return kExitOk;
  if (s.warnings) return kExitWarnings;
  if (fail_on == "info" && s.infos) return kExitWarnings;
  return kExitOk;
}

// --explain RULE: the rule's row, then what it says here.
int explain_rule(report::Report& r, const knowledge::Knowledge& k, const std::string& id, const std::string& tf) {
  const rules::Rule* rule = rules::find_rule(id);
  if (!rule) {
    core::log(core::LogLevel::kError, "--explain: no rule '{}' (list them with 'tfrig rules')", id);
    return kExitUsage;
  }
  const auto one = rules::attach_one_rule(r, k, *rule, tf.empty() ? std::nullopt : std::optional<std::string>(tf));
  std::string out = fmt::format("{} ({}, {})\n  {}\n\n  Checks: {}\n  Why:    {}\n  Fix:    {}\n", rule->id, rule->area,
                                rules::severity_name(rule->severity), rule->title, rule->checks, rule->why, rule->fix);
  for (auto ref : rule->references) out += fmt::format("  See:    {}\n", ref);
  out += fmt::format("\nOn {} for {}: {}{}\n", r.source == "live" ? "this machine" : r.source, one.target,
                     rules::outcome_name(one.result.outcome),
                     one.result.skip_reason.empty() ? "" : " (missing: " + one.result.skip_reason + ")");
  if (!one.result.findings.empty()) out += report::render_findings_text(r, false);
  (void)core::write_stdout(out);
  return kExitOk;
}

}  // namespace tfrig::cli
