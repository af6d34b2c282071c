// tfrig import: turn other tools' output into a tfrig snapshot.
//   tfrig import FILE... [-o OUT]
// reads an nvidia-bug-report log (.gz or not), `nvidia-smi -q` text or XML,
// `lspci -vvv` output and `nvidia-smi topo -m` matrices from another machine,
// detects each file's kind from its content, and writes one snapshot for
// `tfrig doctor --snapshot OUT` (docs/import.md).
//   tfrig import nvidia-smi-xml FILE [-o OUT]
// is the older spelling for one XML file, kept working.
#include <cstdio>

#include "cli/command.h"
#include "cli/inventory_source.h"
#include "core/i18n.h"
#include "core/log.h"
#include "importer/importer.h"
#include "verdict/report.h"

namespace tfrig::cli {

namespace {

// `warnings`: the problems as the user reads them (translated); without it
// the report's own (English) problems are shown.
int write_imported(core::Result<report::Report> report, const std::string& output,
                   const std::vector<std::string>* warnings = nullptr) {
  if (!report) return failure(report.error());
  for (const auto& s : report->probes) {
    // The detail is the snapshot's (English) data; only the frame is translated.
    core::log(core::LogLevel::kInfo, "{}", trf("import {}: {}", s.id, s.detail));
    if (warnings == nullptr) {
      for (const auto& p : s.problems) core::log(core::LogLevel::kWarn, "{}", p);
    }
  }
  if (warnings != nullptr) {
    for (const auto& w : *warnings) core::log(core::LogLevel::kWarn, "{}", w);
  }
  return write_report_json(*report, output);
}

}  // namespace

void add_import_command(CLI::App& app, RunState& state) {
  struct Options {
    std::vector<std::string> inputs;
    std::string xml_input;
    std::string output = "-";
    capture::Limits capture_limits;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "import",
      _("Turn an nvidia-bug-report log, nvidia-smi -q (text or XML), lspci -vvv or topo -m output into a snapshot"));
  cmd->add_option("FILE", opts->inputs,
                  _("Files from one machine, each detected by content (gzip too): merged into one snapshot"))
      ->type_name("FILE");
  cmd->add_option("-o,--output", opts->output, _("Snapshot to write ('-' for stdout, the default)"))->type_name("FILE");
  add_capture_limit_options(*cmd, opts->capture_limits);
  CLI::App* xml = cmd->add_subcommand("nvidia-smi-xml", _("The GPUs and driver from 'nvidia-smi -q -x' output"));
  xml->add_option("FILE", opts->xml_input, _("The XML file ('nvidia-smi -q -x > FILE' on the other machine)"))
      ->required()
      ->type_name("FILE");
  xml->add_option("-o,--output", opts->output, _("Snapshot to write ('-' for stdout, the default)"))->type_name("FILE");
  xml->callback([opts, &state] {
    state.exit_code = write_imported(gather::report_from_nvidia_smi_xml(opts->xml_input), opts->output);
  });
  cmd->callback([opts, &state, cmd] {
    if (cmd->got_subcommand("nvidia-smi-xml")) return;
    if (opts->inputs.empty()) {
      return failure(state, kExitUsage, "import: " + _("give at least one FILE (see 'tfrig import --help')"));
    }
    // load_report: a tfrig capture (tfrig capture -o FILE) is replayed, anything else imported.
    gather::InventorySourceOptions source;
    source.from = opts->inputs;
    source.capture_limits = opts->capture_limits;
    std::vector<std::string> warnings;
    source.import_warnings = &warnings;
    auto report = gather::load_report(source);
    // A replayed capture has no import warnings: its probes' problems are shown.
    const bool imported = report && report->source.rfind("import:", 0) == 0;
    state.exit_code = write_imported(std::move(report), opts->output, imported ? &warnings : nullptr);
  });
}

}  // namespace tfrig::cli
