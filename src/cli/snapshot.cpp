// tfrig snapshot: save everything probed as one versioned JSON file.
#include <cstdio>

#include "cli/command.h"
#include "cli/inventory_source.h"
#include "core/atomic_file.h"
#include "core/log.h"
#include "report/report.h"

namespace tfrig::cli {

void add_snapshot_command(CLI::App& app, RunState& state) {
  struct Options {
    std::string output;
    std::vector<std::string> data_paths;
    double deadline_seconds = 5.0;
    std::vector<std::string> python_prefixes;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("snapshot", "Save the whole inventory as one JSON file (for 'doctor --snapshot')");
  cmd->add_option("-o,--output", opts->output, "File to write ('-' for stdout)")->required()->type_name("FILE");
  cmd->add_option("--data", opts->data_paths, "Where the training data lives")->type_name("DIR");
  cmd->add_option("--python", opts->python_prefixes, "Also look for TensorFlow in this Python prefix")->type_name("PREFIX");
  cmd->add_option("--deadline", opts->deadline_seconds, "Seconds each probe may take")->default_str("5");
  cmd->callback([opts, &state] {
    InventorySourceOptions source;
    source.root = state.global.root;
    source.data_paths = opts->data_paths;
    source.deadline_seconds = opts->deadline_seconds;
    source.python_prefixes = opts->python_prefixes;
    auto report = load_report(source);
    if (!report) {
      core::log(core::LogLevel::kError, "{}", report.error().to_string());
      state.exit_code = exit_code_for(report.error());
      return;
    }
    state.exit_code = write_report_json(*report, opts->output);
  });
}

}  // namespace tfrig::cli
