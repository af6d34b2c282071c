#include "cli/verdict.h"

#include <unistd.h>

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "cli/command.h"
#include "core/text_width.h"
#include "core/display_width.h"
#include "core/i18n.h"
#include "core/log.h"
#include "core/output.h"
#include "report/report.h"
#include "report/severity_paint.h"
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
  if (!rule) return failure(kExitUsage, trf("--explain: no rule '{}' (list them with 'tfrig rules')", id));
  const auto one = rules::attach_one_rule(r, k, *rule, tf.empty() ? std::nullopt : std::optional<std::string>(tf));
  const size_t width = core::text_width(STDOUT_FILENO);
  std::string out =
      trf("{0} ({1}, {2})", rule->id, report::area_label(rule->area), report::severity_label(rule->severity)) + "\n" +
      core::wrap_hanging("  ", _(rule->title), width) + "\n\n";
  // Labels padded to the widest, by display width (Chinese labels take two columns a character).
  const std::string checks = _("Checks:"), why = _("Why:"), fix = _("Fix:"), see = _("See:");
  size_t w = 0;
  for (const auto* label : {&checks, &why, &fix, &see}) w = std::max(w, core::display_width(*label));
  auto line = [w, width](const std::string& label, std::string_view text) {
    return core::wrap_hanging("  " + core::pad_right(label, w) + std::string(core::gap_after_label(label)), text,
                              width) +
           "\n";
  };
  out += line(checks, _(rule->checks)) + line(why, _(rule->why)) + line(fix, _(rule->fix));
  for (auto ref : rule->references) out += line(see, ref);
  const std::string language(core::i18n::language());
  const std::string missing =
      one.result.skip_reason.empty()
          ? ""
          : trf(" (missing: {})", rules::in_language(one.result.skip_reason, one.result.skip_message, language));
  const std::string target = rules::in_language(one.target, language);
  // Two sentences: "this machine" is a word, a snapshot's or capture's name is a path.
  out += r.source == "live"
             ? trf("\nOn this machine for {0}: {1}{2}\n", target, rules::outcome_label(one.result.outcome), missing)
             : trf("\nOn {0} for {1}: {2}{3}\n", r.source, target, rules::outcome_label(one.result.outcome), missing);
  if (!one.result.findings.empty()) out += report::render_findings_text(r, false, width);
  (void)core::write_stdout(out);
  return kExitOk;
}

}  // namespace tfrig::cli
