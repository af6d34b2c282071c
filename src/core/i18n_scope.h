// The language of a machine output's texts. JSON, Prometheus and CSV are
// read by programs: their texts (a finding's message, a note) are English
// unless --lang was given, while stderr (errors, warnings, the log) stays in
// the reader's language. main sets the output language; a command switches
// to it only around the part that builds and renders those texts.
#pragma once

#include <string>
#include <string_view>

#include "core/i18n.h"

namespace tfrig::core::i18n {

// Set once by main after parsing; until then (or after "" unsets it) the
// output language is the interface language (language()).
void set_output_language(std::string_view language);
std::string output_language();

// Switches the process to a language for its lifetime and back after.
// Only on main's thread (set_language's rule).
class ScopedLanguage {
 public:
  explicit ScopedLanguage(std::string_view language);
  ~ScopedLanguage();
  ScopedLanguage(const ScopedLanguage&) = delete;
  ScopedLanguage& operator=(const ScopedLanguage&) = delete;

 private:
  std::string previous_;
};

// The output language for a scope: `OutputLanguage texts;` before building
// what goes into a JSON / Prometheus / CSV output.
class OutputLanguage : public ScopedLanguage {
 public:
  OutputLanguage() : ScopedLanguage(output_language()) {}
};

// For a builder that reads the input and builds the output's texts in one
// go (a parser that also writes notes): its value is built in the output
// language; when it fails nothing is output, so it runs again in the
// reader's language for an error the reader can read. Only for builders
// that are pure and cheap to repeat (parse a file, check options).
template <class Build>
auto in_output_language(Build&& build) -> decltype(build()) {
  const bool same_language = output_language() == language();
  {
    OutputLanguage texts;
    auto built = build();
    if (built || same_language) return built;
  }
  return build();
}

}  // namespace tfrig::core::i18n
