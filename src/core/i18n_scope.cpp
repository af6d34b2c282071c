#include "core/i18n_scope.h"

#include <optional>

#include "core/i18n.h"

namespace tfrig::core::i18n {

namespace {

std::optional<std::string>& chosen_output_language() {
  static std::optional<std::string> chosen;
  return chosen;
}

}  // namespace

void set_output_language(std::string_view language) {
  if (language.empty()) {
    chosen_output_language().reset();
  } else {
    chosen_output_language() = std::string(language);
  }
}

std::string output_language() { return chosen_output_language().value_or(std::string(language())); }

ScopedLanguage::ScopedLanguage(std::string_view language) : previous_(i18n::language()) { set_language(language); }

ScopedLanguage::~ScopedLanguage() { set_language(previous_); }

}  // namespace tfrig::core::i18n
