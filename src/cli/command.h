// The CLI: one file per command in src/cli/, each wiring its options to the
// library and nothing more. main.cpp calls every add_*_command in turn.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace tfrig::cli {

// Exit codes (docs/cli.md). 0-2 are verdicts; 64+ are sysexits-style failures.
constexpr int kExitOk = 0;
constexpr int kExitWarnings = 1;
constexpr int kExitErrors = 2;
constexpr int kExitUsage = 64;     // EX_USAGE
constexpr int kExitDataErr = 65;   // EX_DATAERR: an input file is malformed
constexpr int kExitNoInput = 66;   // EX_NOINPUT: an input file is missing
constexpr int kExitCantCreate = 73;  // EX_CANTCREAT: an output could not be written
constexpr int kExitInternal = 70;  // EX_SOFTWARE

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

}  // namespace tfrig::cli
