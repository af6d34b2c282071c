// The severity names, the summary by severity and a text in a language
// (verdict/finding.h).
#include "verdict/finding.h"

#include "core/name_table.h"

namespace tfrig::rules {

namespace {

constexpr core::NameTable<Severity, 3> kSeverityNames{{{
    {Severity::kInfo, "info"},
    {Severity::kWarning, "warning"},
    {Severity::kError, "error"},
}}};
static_assert(kSeverityNames.unique());

}  // namespace

std::string_view severity_name(Severity s) { return kSeverityNames.name(s, "info"); }

std::optional<Severity> severity_from_name(std::string_view name) {
  if (name == "warn") return Severity::kWarning;  // read as "warning" too, as it always was
  return kSeverityNames.value(name);
}

Summary summarize(const std::vector<Finding>& findings) {
  Summary s;
  for (const auto& f : findings) {
    switch (f.severity) {
      case Severity::kError: ++s.errors; break;
      case Severity::kWarning: ++s.warnings; break;
      case Severity::kInfo: ++s.infos; break;
    }
  }
  return s;
}

std::string in_language(const std::string& english, const std::optional<core::Message>& message,
                        std::string_view language) {
  return message ? core::render(*message, language) : english;
}

}  // namespace tfrig::rules
