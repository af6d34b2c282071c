// What a shell and `man` know about tfrig, generated from the command
// definitions themselves (the CLI11 tree main.cpp builds), so that completion
// and manual pages never drift from the options the binary takes.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace tfrig::cli {

struct OptionDoc {
  std::vector<std::string> names;  // "-o", "--output"
  bool takes_value = false;
  std::string type;                  // "FILE", "TEXT" (without the choices)
  std::vector<std::string> choices;  // {text,json} of a CLI::IsMember check
  std::string help;
};

struct CommandDoc {
  std::string name;  // "tfrig", "doctor", "storage"
  std::string help;
  std::vector<OptionDoc> options;      // visible options; positionals are in `arguments`
  std::vector<std::string> arguments;  // "FILE", "DIR..."
  std::vector<CommandDoc> subcommands;
};

// The visible commands and options of an app (hidden ones, with no group, are left out).
CommandDoc describe_cli(const CLI::App& app);

// Completion scripts: `tfrig completion bash|zsh|fish`.
std::string bash_completion(const CommandDoc& root);
std::string zsh_completion(const CommandDoc& root);
std::string fish_completion(const CommandDoc& root);

// Manual pages (roff, section 1): tfrig.1 for the root, tfrig-CMD.1 for each
// command (its subcommands as sections). `date` is "Month YYYY" of the page.
struct ManPage {
  std::string file;  // "tfrig-doctor.1"
  std::string text;
};
std::vector<ManPage> man_pages(const CommandDoc& root, const std::string& version, const std::string& date);

}  // namespace tfrig::cli
