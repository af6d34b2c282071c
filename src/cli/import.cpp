// tfrig import: turn another tool's output into a tfrig snapshot.
//   tfrig import nvidia-smi-xml FILE [-o OUT]
// reads `nvidia-smi -q -x` from a colleague's machine and writes a snapshot
// holding its GPUs and driver, for `tfrig doctor --snapshot OUT`.
#include <cstdio>

#include "cli/command.h"
#include "cli/inventory_source.h"
#include "core/atomic_file.h"
#include "core/log.h"
#include "report/report.h"

namespace tfrig::cli {

void add_import_command(CLI::App& app, RunState& state) {
  struct Options {
    std::string input;
    std::string output = "-";
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("import", "Turn another tool's output into a tfrig snapshot");
  cmd->require_subcommand(1);
  CLI::App* xml = cmd->add_subcommand("nvidia-smi-xml", "The GPUs and driver from 'nvidia-smi -q -x' output");
  xml->add_option("FILE", opts->input, "The XML file ('nvidia-smi -q -x > FILE' on the other machine)")
      ->required()
      ->type_name("FILE");
  xml->add_option("-o,--output", opts->output, "Snapshot to write ('-' for stdout, the default)")->type_name("FILE");
  xml->callback([opts, &state] {
    auto report = report_from_nvidia_smi_xml(opts->input);
    if (!report) {
      core::log(core::LogLevel::kError, "{}", report.error().to_string());
      state.exit_code = exit_code_for(report.error());
      return;
    }
    for (const auto& s : report->probes) {
      for (const auto& p : s.problems) core::log(core::LogLevel::kWarn, "{}", p);
    }
    state.exit_code = write_report_json(*report, opts->output);
  });
}

}  // namespace tfrig::cli
