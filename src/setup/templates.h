// tfrig setup, the templates: the files under src/setup/templates/, embedded
// at build time (cmake/TfrigTemplates.cmake), split into named sections the
// renderers (render.cpp) put together and fill.
//
// Format: a line "#@section NAME" starts a section; the text before the first
// one is the section "head". Lines starting "#@#" are notes for the template's
// reader and never reach an output. Every format the templates write (bash,
// Python, YAML, Dockerfile, KEY=VALUE, conf) reads "#" as a comment, so a
// template is a valid file of its kind as it stands: shellcheck checks
// install.sh.in itself (tests/setup/check_templates.sh).
//
// Text for people (comments, echoed messages) is written "@{English}@": a
// message of the catalog (scripts/i18n.sh extracts these into po/tfrig.pot),
// replaced by its translation when a file is rendered (fill() in render.h does
// it first, so a message may hold @KEY@ fields, filled after). A message may
// span lines. A "#@# TRANSLATORS: ..." note right above goes to translators.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tfrig::setup {

struct Template {
  std::string name;
  std::map<std::string, std::string, std::less<>> sections;
  // The section's text; a name the template lacks is a programming error the
  // template tests catch (SetupTemplates.*), and gives "".
  const std::string& section(std::string_view section_name) const;
};

// Parses a template's text (pure; the tests use it on the files).
Template parse_template(std::string name, std::string_view text);

// Replaces each "@{message}@" with the message's translation (English: the
// message itself); text without markers is returned as it is.
std::string localize(std::string_view text);
// The messages marked in a template's text, in order (tests, extraction).
std::vector<std::string> marked_messages(std::string_view text);

// The embedded template "install.sh.in", "Dockerfile.in", ...; an empty one
// for a name not embedded.
const Template& setup_template(std::string_view file);

}  // namespace tfrig::setup
