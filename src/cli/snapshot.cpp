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
    const std::string text = report::to_json(*report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (opts->output == "-") {
      std::fwrite(text.data(), 1, text.size(), stdout);
      state.exit_code = kExitOk;
      return;
    }
    if (auto written = core::write_file_atomic(opts->output, text); !written) {
      core::log(core::LogLevel::kError, "{}", written.error().to_string());
      state.exit_code = kExitCantCreate;
      return;
    }
    core::log(core::LogLevel::kInfo, "wrote snapshot {} ({} bytes)", opts->output, text.size());
    state.exit_code = kExitOk;
  });
}

}  // namespace tfrig::cli
