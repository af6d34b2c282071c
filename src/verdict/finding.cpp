// The severity names, the summary by severity and a text in a language
// (verdict/finding.h).
#include "verdict/finding.h"

namespace tfrig::rules {

std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "info";
}

std::optional<Severity> severity_from_name(std::string_view name) {
  if (name == "info") return Severity::kInfo;
  if (name == "warning" || name == "warn") return Severity::kWarning;
  if (name == "error") return Severity::kError;
  return std::nullopt;
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

std::string in_language(const std::string& english, const std::optional<core::Message>& message, std::string_view language) {
  return message ? core::render(*message, language) : english;
}

}  // namespace tfrig::rules
