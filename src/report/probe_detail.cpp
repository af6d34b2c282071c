#include "report/probe_detail.h"

#include "core/i18n.h"
#include "inventory/inventory.h"

namespace tfrig::report {

std::string stored_text(const std::string& english, const std::optional<core::Message>& message) {
  if (message) return core::render(*message, core::i18n::language());
  return english;
}

std::string nvml_state(const std::string& state) {
  return core::render(inventory::nvml_state_message(state), core::i18n::language());
}

std::string status_detail(const probe::ProbeStatus& s) { return stored_text(s.detail, s.detail_message); }

std::string status_problem(const probe::ProbeStatus& s, size_t i) {
  if (i >= s.problems.size()) return std::string();
  return stored_text(s.problems[i], i < s.problem_messages.size() ? s.problem_messages[i] : std::nullopt);
}

}  // namespace tfrig::report
