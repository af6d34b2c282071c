// The language of a machine output's texts. JSON, Prometheus and CSV are
// read by programs: their texts (a finding's message, a note) are English
// unless --lang was given, while stderr (errors, warnings, the log) stays in
// the reader's language. main sets the output language; each command renders
// its output's messages in it (core::render), switching nothing.
#pragma once

#include <string>
#include <string_view>

#include "core/i18n.h"

namespace tfrig::core::i18n {

// Set once by main after parsing; until then (or after "" unsets it) the
// output language is the interface language (language()).
void set_output_language(std::string_view language);
std::string output_language();

// Switches the process to a language for its lifetime and back after (tests
// that render the interface's own words in another language). Only on
// main's thread (set_language's rule).
class ScopedLanguage {
 public:
  explicit ScopedLanguage(std::string_view language);
  ~ScopedLanguage();
  ScopedLanguage(const ScopedLanguage&) = delete;
  ScopedLanguage& operator=(const ScopedLanguage&) = delete;

 private:
  std::string previous_;
};

}  // namespace tfrig::core::i18n
