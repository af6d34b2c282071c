// Findings in the report: the text block doctor prints first: the verdict
// line, then the findings grouped by area, worst area first (their JSON is
// verdict/report_json.cpp).
#include <map>

#include <fmt/format.h>

#include "core/display_width.h"
#include "core/terminal_text.h"
#include "core/i18n.h"
#include "report/report.h"
#include "report/severity_paint.h"
#include "rules/rule.h"

namespace tfrig::report {

std::string paint_severity(bool color, rules::Severity s, const std::string& text) {
  if (!color) return text;
  switch (s) {
    case rules::Severity::kError: return "\033[31m" + text + "\033[0m";
    case rules::Severity::kWarning: return "\033[33m" + text + "\033[0m";
    case rules::Severity::kInfo: return "\033[36m" + text + "\033[0m";
  }
  return text;
}

// The severity as the reader's language says it (JSON keeps severity_name).
std::string severity_label(rules::Severity s) {
  switch (s) {
    case rules::Severity::kError: return _("error");
    case rules::Severity::kWarning: return _("warning");
    case rules::Severity::kInfo: return _("info");
  }
  return _("info");
}

std::string area_label(std::string_view area) {
  // TRANSLATORS: the rule areas (`doctor --only AREA` keeps the English ids).
  if (area == "gpu") return C_("area", "gpu");
  if (area == "driver") return C_("area", "driver");
  if (area == "cuda") return C_("area", "cuda");
  if (area == "tf") return C_("area", "tf");
  if (area == "cpu") return C_("area", "cpu");
  if (area == "memory") return C_("area", "memory");
  if (area == "storage") return C_("area", "storage");
  if (area == "hardware") return C_("area", "hardware");
  if (area == "os") return C_("area", "os");
  if (area == "container") return C_("area", "container");
  if (area == "tuning") return C_("area", "tuning");
  if (area == "logs" || area == "log") return C_("area", "logs");  // explain's rows say "log"
  return std::string(area);
}

namespace {

std::string paint(bool color, rules::Severity s, const std::string& text) { return paint_severity(color, s, text); }

size_t severity_column() {
  size_t w = 0;
  for (auto s : {rules::Severity::kError, rules::Severity::kWarning, rules::Severity::kInfo})
    w = std::max(w, core::display_width(severity_label(s)));
  return w;
}

}  // namespace

// Titles, messages and evidence quote inventory values (a GPU name, a path,
// a log line): each is one line through core::terminal_line, so a value with
// a newline cannot forge a finding; the text ends through core::terminal_text.
std::string render_findings_text(const Report& r, bool color, size_t width) {
  const auto line = [](const std::string& s) { return core::terminal_line(s); };
  // The findings' texts are messages kept in English: rendered here, in the reader's language.
  const std::string language(core::i18n::language());
  const auto text = [&language](const std::string& english, const std::optional<core::Message>& m) {
    return rules::in_language(english, m, language);
  };
  std::string out =
      "\n" +
      paint(color, r.summary.worst(), core::wrap_display(line(rules::in_language(r.verdict, language)), width, "")) +
      "\n";
  if (!r.skipped.empty()) {
    out += core::wrap_display(
               trnf("({} rule skipped for a missing fact: `--format json` lists it, `--explain RULE` explains one)",
                    "({} rules skipped for a missing fact: `--format json` lists them, `--explain RULE` explains one)",
                    r.skipped.size(), r.skipped.size()),
               width, "") +
           "\n";
  }
  if (r.findings.empty()) return core::terminal_text(out, color);
  // Areas ordered by their worst finding, then by the rule table's area order.
  std::vector<std::string> order;
  std::map<std::string, rules::Severity> worst;
  for (const auto& f : r.findings) {
    if (!worst.count(f.area)) order.push_back(f.area);
    if (!worst.count(f.area) || f.severity > worst[f.area]) worst[f.area] = f.severity;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](const std::string& a, const std::string& b) { return worst[a] > worst[b]; });
  for (const auto& area : order) {
    out += "\n" + std::string(color ? "\033[1m" : "") + area_label(area) + (color ? "\033[0m" : "") + "\n";
    for (const auto& f : r.findings) {
      if (f.area != area) continue;
      // The severity column is as wide as the reader's language's longest
      // word (7 for "warning", 4 for 警告), and the finding's text hangs
      // under the rule id in both languages.
      const std::string sev = severity_label(f.severity);
      const std::string prefix = "  " + paint(color, f.severity, core::pad_right(sev, severity_column())) + " ";
      const std::string indent(2 + severity_column() + 1, ' ');
      out +=
          core::wrap_hanging(
              prefix, fmt::format("{} [{}] {}", line(f.rule_id), line(f.entity), line(text(f.title, f.title_message))),
              width) +
          "\n";
      out += core::wrap_hanging(indent, line(text(f.message, f.message_message)), width) + "\n";
      for (const auto& e : f.evidence) {
        out += core::wrap_hanging(indent + "- ",
                                  // TRANSLATORS: one evidence line: {0} what, {1} its value, {2} where it was read.
                                  line(trf("{0}: {1}  ({2})", text(e.fact, e.fact_message),
                                           text(e.value, e.value_message), text(e.source, e.source_message))),
                                  width) +
               "\n";
      }
      const std::string fix_label = _("fix:");
      out += core::wrap_hanging(indent + fix_label + std::string(core::gap_after_label(fix_label)),
                                line(text(f.fix, f.fix_message)), width) +
             "\n";
    }
  }
  return core::terminal_text(out, color);
}

}  // namespace tfrig::report
