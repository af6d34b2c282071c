// The interface language (docs/i18n.md): --lang, else the environment; and
// the rule that machine outputs (JSON, Prometheus, CSV) stay English unless
// --lang asks otherwise.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace tfrig::cli {

// The value of --lang (or --lang=VALUE) before CLI11 parses: help texts are
// built in the chosen language. Stops at "--" (explain's command follows it).
std::optional<std::string> lang_flag(int argc, const char* const* argv);

// Chooses the language from the flag and the environment and switches to it.
void apply_language(const std::optional<std::string>& flag);

// True when the chosen command writes a machine format: --format json /
// prometheus / csv, --json, or a command whose only output is JSON.
bool writes_machine_output(const CLI::App& app);

// CLI11's help with its fixed words ("Usage", "Options", "Subcommands") translated.
void translate_help(CLI::App& app);

}  // namespace tfrig::cli
