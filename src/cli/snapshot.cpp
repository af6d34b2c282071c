// tfrig snapshot: save everything probed as one versioned JSON file.
#include <cstdio>

#include "cli/command.h"
#include "cli/inventory_source.h"
#include "core/atomic_file.h"
#include "core/i18n.h"
#include "core/log.h"
#include "verdict/report.h"

namespace tfrig::cli {

void add_snapshot_command(CLI::App& app, RunState& state) {
  struct Options {
    std::string output;
    gather::InventorySourceOptions source;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("snapshot", _("Save the whole inventory as one JSON file (for 'doctor --snapshot')"));
  cmd->add_option("-o,--output", opts->output, _("File to write ('-' for stdout)"))->required()->type_name("FILE");
  add_probe_options(*cmd, opts->source);
  cmd->callback([opts, &state] {
    gather::InventorySourceOptions source = opts->source;
    source.root = state.global.root;
    auto report = gather::load_report(source);
    if (!report) return failure(state, report.error());
    state.exit_code = write_report_json(*report, opts->output);
  });
}

}  // namespace tfrig::cli
