// The interface language (docs/i18n.md): --lang, else the environment; and
// the rule that machine outputs (JSON, Prometheus, CSV) stay English unless
// --lang asks otherwise.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "core/message.h"

namespace tfrig::cli {

// The value of --lang (or --lang=VALUE) before CLI11 parses: help texts are
// built in the chosen language. Stops at "--" (explain's command follows it).
std::optional<std::string> lang_flag(int argc, const char* const* argv);

// Chooses the language from the flag and the environment and switches to it.
void apply_language(const std::optional<std::string>& flag);

// True when the chosen command writes a machine format: --format json /
// prometheus / csv, --json, or a command whose only output is JSON.
bool writes_machine_output(const CLI::App& app);

// CLI11's help with its fixed words ("Usage", "Options", "Subcommands")
// translated, and its parse errors in the reader's language
// (parse_error_message). The command line is kept for parse_error_text.
void translate_help(CLI::App& app, int argc, const char* const* argv);

// One of CLI11's parse errors (unknown option, missing or wrong value, a
// required option or argument missing, extra arguments) as one message,
// naming the option and the value. Built from the error's type, the state
// CLI11 parsed into (the options given, the arguments left over, the
// required ones missing) and what tfrig's validators recorded
// (validate.h's RefusedValue), never from CLI11's English text; a form
// none of those explains is that text inside a translated frame.
core::Message parse_error_text(const CLI::App& app, const CLI::Error& e);

// What main prints for a parse error: in English exactly CLI11's own text
// ("--fail-on: x not in {error,warning,info,never}\nRun with --help for
// more information.\n"); in another language "tfrig: " + parse_error_text
// and where to read the command's help.
std::string parse_error_message(const CLI::App& app, const CLI::Error& e);

}  // namespace tfrig::cli
