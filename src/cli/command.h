// The CLI: one file per command in src/cli/, each wiring its options to the
// library and nothing more. main.cpp calls every add_*_command in turn.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/exit_code.h"
#include "core/result.h"

namespace tfrig::cli {

// Exit codes (docs/cli.md) and the code for an input error: core/exit_code.h.
using core::exit_code_for;
using core::kExitCantCreate;
using core::kExitDataErr;
using core::kExitErrors;
using core::kExitInternal;
using core::kExitNoInput;
using core::kExitOk;
using core::kExitUsage;
using core::kExitWarnings;

// Options every command takes.
struct GlobalOptions {
  std::string root = "/";
  int verbosity = 0;  // -v, -vv
  bool quiet = false;
  std::string knowledge_dir;  // --knowledge DIR: newer knowledge files
};

// What a subcommand's callback sets; main returns it.
struct RunState {
  GlobalOptions global;
  int exit_code = kExitOk;
  std::vector<std::string> argv;  // as given (explain finds its `-- CMD ARGS` here)
};

// A step of a command that failed: the error logged (core::describe, in the
// reader's language) and the exit code set, in one call, so a callback ends
// with `if (!r) return failure(state, r.error());`. The code is the error's
// (core::exit_code_for) unless given; a text is logged as it is (translated
// by the caller). The int forms return the code, for steps that return one.
void failure(RunState& state, const core::Error& error);
void failure(RunState& state, const core::Error& error, int code);
void failure(RunState& state, int code, std::string_view text);
int failure(const core::Error& error);
int failure(const core::Error& error, int code);
int failure(int code, std::string_view text);

// The one colour decision of every command's --color MODE: "always", "never",
// or "auto": colour when fd is a terminal and NO_COLOR is unset or empty
// (https://no-color.org).
bool use_color(std::string_view mode, int fd);

void add_doctor_command(CLI::App& app, RunState& state);
void add_snapshot_command(CLI::App& app, RunState& state);
void add_import_command(CLI::App& app, RunState& state);
void add_knowledge_command(CLI::App& app, RunState& state);
void add_rules_command(CLI::App& app, RunState& state);
void add_compat_command(CLI::App& app, RunState& state);
void add_pack_command(CLI::App& app, RunState& state);
void add_verify_command(CLI::App& app, RunState& state);
void add_inspect_command(CLI::App& app, RunState& state);
void add_bench_command(CLI::App& app, RunState& state);
void add_plan_command(CLI::App& app, RunState& state);
void add_pipeline_command(CLI::App& app, RunState& state);
void add_watch_command(CLI::App& app, RunState& state);
void add_setup_command(CLI::App& app, RunState& state);
void add_metrics_command(CLI::App& app, RunState& state);
void add_fleet_command(CLI::App& app, RunState& state);
void add_capture_command(CLI::App& app, RunState& state);
void add_explain_command(CLI::App& app, RunState& state);
void add_report_command(CLI::App& app, RunState& state);
// `tfrig completion bash|zsh|fish` and the hidden `tfrig man -o DIR` (cli_docs.h).
void add_completion_command(CLI::App& app, RunState& state);

}  // namespace tfrig::cli
