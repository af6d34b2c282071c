// tfrig fleet SNAPSHOT... | DIR: compare many machines (docs/fleet.md).
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>

#include "cli/command.h"
#include "cli/validate.h"
#include "cli/html_output.h"
#include "cli/inventory_source.h"
#include "core/clock.h"
#include "core/i18n.h"
#include "core/i18n_scope.h"
#include "core/log.h"
#include "core/output.h"
#include "core/text_width.h"
#include "core/units.h"
#include "fleet/compare.h"
#include "fleet/load.h"
#include "fleet/render.h"

namespace tfrig::cli {

namespace {

struct FleetOptions {
  std::vector<std::string> inputs;
  std::string format = "text";
  std::string output = "-";
  std::string baseline;
  std::string fail_on = "warning";
  std::string tf;
  std::string color = "auto";
  unsigned jobs = 0;
};

// doctor's rule: the worst thing found against --fail-on.
int exit_code_for_fleet(const fleet::FleetReport& r, const std::string& fail_on) {
  if (!r.any_problem || fail_on == "never") return kExitOk;
  if (r.worst == rules::Severity::kError) return kExitErrors;
  if (fail_on == "error") return kExitOk;
  if (r.worst == rules::Severity::kWarning) return kExitWarnings;
  return fail_on == "info" ? kExitWarnings : kExitOk;
}

int run(const FleetOptions& o, const GlobalOptions& global) {
  core::Stopwatch watch;
  auto knowledge = knowledge::load(global.knowledge_dir);
  if (!knowledge) return failure(knowledge.error());
  auto files = fleet::list_inputs(o.inputs);
  if (!files) return failure(files.error());
  if (files->empty()) {
    return failure(
        kExitNoInput,
        trf("no snapshots found in {} (a directory's *.json, *.log.gz, *.xml, ... files are read)", o.inputs.front()));
  }
  fleet::LoadOptions load;
  if (!o.tf.empty()) load.tf = o.tf;
  load.jobs = o.jobs;
  // The nodes' fact values, notes and read errors are English with their
  // messages: each output renders them in its language (the JSON in the
  // output's, English unless --lang; the log in the reader's).
  std::optional<fleet::Node> baseline;
  if (!o.baseline.empty()) {
    auto b = fleet::load_node(o.baseline, *knowledge, load);
    if (!b) {
      core::log(core::LogLevel::kError, "{}", trf("--baseline: {}", core::describe(b.error())));
      return exit_code_for(b.error());
    }
    baseline = std::move(*b);
  }
  auto loaded = fleet::load_nodes(*files, *knowledge, load);
  core::log(core::LogLevel::kInfo, "{}",
            trnf("read {0} node ({1} unreadable) in {2}", "read {0} nodes ({1} unreadable) in {2}", loaded.nodes.size(),
                 loaded.nodes.size(), loaded.unreadable.size(), core::format_seconds(watch.seconds())));
  for (const auto& u : loaded.unreadable)
    core::log(core::LogLevel::kWarn, "{}", core::render(u.message, core::i18n::language()));
  const bool none_read = loaded.nodes.empty();
  // The comparison keeps its titles and fixes in English with what renders
  // them: the JSON says them in the output language, the text in the reader's.
  auto report = fleet::compare(std::move(loaded.nodes), std::move(loaded.unreadable), baseline);
  const std::string language = core::i18n::output_language();
  int written = kExitOk;
  if (o.format == "html") {
    written = write_html_page(report::html::PageKind::kFleet,
                              nlohmann::json::parse(fleet::render_json(report, language)), "tfrig fleet", o.output);
  } else {
    fleet::RenderOptions ro;
    ro.color = o.output == "-" && use_color(o.color, STDOUT_FILENO);
    ro.width = core::text_width(o.output == "-" ? STDOUT_FILENO : -1);
    const std::string out = o.format == "json" ? fleet::render_json(report, language) : fleet::render_text(report, ro);
    written = write_output(out, o.output);
  }
  std::fflush(stdout);
  if (written != kExitOk) return written;
  core::log(core::LogLevel::kInfo, "{}", trf("fleet took {} in total", core::format_seconds(watch.seconds())));
  if (none_read) return kExitNoInput;
  return exit_code_for_fleet(report, o.fail_on);
}

}  // namespace

void add_fleet_command(CLI::App& app, RunState& state) {
  auto opts = std::make_shared<FleetOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fleet", _("Compare many machines' snapshots: drift, findings across nodes, the odd node out"));
  cmd->add_option("INPUT", opts->inputs,
                  _("Snapshots (tfrig snapshot / doctor --format json / import), bug reports or nvidia-smi files, "
                    "or directories of them; one file (or a subdirectory of files) per node"))
      ->required()
      ->type_name("FILE|DIR");
  cmd->add_option("--format", opts->format, _("Output format"))
      ->check(one_of({"text", "json", "html"}))
      ->default_str("text");
  cmd->add_option("-o,--output", opts->output, _("Write to FILE (atomically); '-' for stdout"))->type_name("FILE");
  cmd->add_option("--baseline", opts->baseline, _("A known-good node's snapshot: its values are the expected ones"))
      ->type_name("FILE");
  cmd->add_option("--fail-on", opts->fail_on, _("Lowest severity that makes the exit code non-zero"))
      ->check(one_of({"error", "warning", "info", "never"}))
      ->default_str("warning");
  cmd->add_option("--tf", opts->tf, _("TensorFlow version the rules judge nodes without one against"))
      ->type_name("VERSION");
  cmd->add_option("--color", opts->color, _("Colour on the terminal"))->check(one_of({"auto", "always", "never"}));
  cmd->add_option("-j,--jobs", opts->jobs, _("Snapshots read in parallel (0 = all cores)"))
      ->capture_default_str()
      ->check(whole_in(0, 256));
  cmd->callback([opts, &state] { state.exit_code = run(*opts, state.global); });
}

}  // namespace tfrig::cli
