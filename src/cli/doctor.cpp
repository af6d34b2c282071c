// tfrig doctor: probe this machine (or load a snapshot) and report.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>

#include "cli/command.h"
#include "cli/explain_log.h"
#include "cli/validate.h"
#include "cli/html_output.h"
#include "cli/inventory_source.h"
#include "cli/verdict.h"
#include "core/clock.h"
#include "core/text_width.h"
#include "core/i18n.h"
#include "core/i18n_scope.h"
#include "core/log.h"
#include "core/output.h"
#include "core/units.h"
#include "report/prometheus.h"
#include "report/report.h"
#include "rules/judge.h"
#include "rules/rule.h"

namespace tfrig::cli {

namespace {

struct DoctorOptions {
  std::string format = "text";
  std::string snapshot;
  std::vector<std::string> data_paths;
  double deadline_seconds = 5.0;
  std::string color = "auto";
  std::vector<std::string> python_prefixes;
  std::string nvidia_smi_xml;
  std::vector<std::string> from;
  capture::Limits capture_limits;
  std::string tf;
  std::string only;
  std::string explain;
  std::string fail_on = "warning";
  std::string output = "-";
};

// The report doctor judges: the machine under --root, a snapshot, a capture
// or imported files (gather/), with the logs among --from set aside in
// from_files; nullopt after a failure was logged and the exit code set.
std::optional<report::Report> doctor_report(const DoctorOptions& o, RunState& state, FromFiles& from_files) {
  gather::InventorySourceOptions source;
  source.root = state.global.root;
  source.snapshot = o.snapshot;
  source.data_paths = o.data_paths;
  source.deadline_seconds = o.deadline_seconds;
  source.python_prefixes = o.python_prefixes;
  source.nvidia_smi_xml = o.nvidia_smi_xml;
  // Logs among --from (TensorFlow's, nvidia-smi's, NCCL's...) go to explain;
  // the rest to the importer. Only logs: the machine is unknown, not this one.
  if (!o.from.empty()) {
    auto split = split_from_files(o.from, state.global.knowledge_dir);
    if (!split) {
      failure(state, split.error());
      return std::nullopt;
    }
    from_files = std::move(*split);
  }
  if (!o.from.empty() && from_files.captures.empty()) {
    failure(state, kExitUsage,
            trf("--from: {0} is a log, not a capture of the machine: 'tfrig explain {0}' reads it "
                "(doctor --from judges a log next to a bug report or nvidia-smi output of the same machine)",
                from_files.logs.front().first));
    return std::nullopt;
  }
  source.from = from_files.captures;
  source.capture_limits = o.capture_limits;
  auto report = gather::load_report(source);
  if (!report) {
    failure(state, report.error());
    return std::nullopt;
  }
  return std::move(*report);
}

// The judged report in --format's form.
std::string render_doctor(const DoctorOptions& o, const report::Report& report, double seconds) {
  if (o.format == "json") return gather::report_json_text(report);
  if (o.format == "prometheus") {
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    return report::render_prometheus(report, now, seconds);
  }
  if (o.format == "html") {
    return report::html::render_documents({{report::html::PageKind::kDoctor, report::to_json(report), report.source}});
  }
  const bool to_stdout = o.output == "-";
  return report::render_text(report, report::TextOptions{to_stdout && use_color(o.color, STDOUT_FILENO), true,
                                                         core::text_width(to_stdout ? STDOUT_FILENO : -1)});
}

void run_doctor(const DoctorOptions& o, RunState& state) {
  core::Stopwatch watch;
  FromFiles from_files;
  auto report = doctor_report(o, state, from_files);
  if (!report) return;
  auto knowledge = knowledge::load(state.global.knowledge_dir);
  if (!knowledge) return failure(state, knowledge.error());
  if (!o.tf.empty()) {
    if (auto ok = known_tf_version(*knowledge, "--tf", o.tf); !ok) return failure(state, ok.error(), kExitUsage);
  }
  if (!o.explain.empty()) {
    state.exit_code = explain_rule(*report, *knowledge, o.explain, o.tf);
    return;
  }
  // The findings, the verdict, the target and the skip reasons are
  // messages: each output renders them in its language (the JSON in the
  // output's: English unless --lang, docs/i18n.md), the logs' findings
  // (--from) and their compat evidence too.
  rules::FindingsOptions findings{o.tf.empty() ? std::nullopt : std::optional<std::string>(o.tf), o.only};
  rules::attach_findings(*report, *knowledge, findings);
  if (!from_files.logs.empty()) add_log_findings(*report, from_files, *knowledge);
  if (const int written = write_output(render_doctor(o, *report, watch.seconds()), o.output); written != kExitOk) {
    state.exit_code = written;
    return;
  }
  std::fflush(stdout);
  core::log(core::LogLevel::kInfo, "{}", trf("doctor took {} in total", core::format_seconds(watch.seconds())));
  state.exit_code = exit_code_for_findings(report->summary, o.fail_on);
}

}  // namespace

void add_doctor_command(CLI::App& app, RunState& state) {
  auto opts = std::make_shared<DoctorOptions>();
  CLI::App* cmd = app.add_subcommand("doctor", _("Probe this machine (or a snapshot) and report what it found"));
  cmd->add_option("--format", opts->format, _("Output format"))
      ->check(one_of({"text", "json", "prometheus", "html"}))
      ->default_str("text");
  cmd->add_option("-o,--output", opts->output,
                  _("Write the report to FILE (to a temporary name, then renamed: node_exporter's textfile collector "
                    "never reads half a file); '-' for stdout"))
      ->type_name("FILE");
  cmd->add_option("--snapshot", opts->snapshot,
                  _("Analyse a snapshot saved by 'tfrig snapshot' instead of this machine"))
      ->type_name("FILE");
  cmd->add_option("--data", opts->data_paths, _("Where the training data lives (which disk and filesystem)"))
      ->type_name("DIR");
  cmd->add_option("--deadline", opts->deadline_seconds, _("Seconds each probe may take"))
      ->default_str("5")
      ->check(finite_in(0.01, 3600));
  cmd->add_option("--python", opts->python_prefixes,
                  _("Also look for TensorFlow in this Python prefix (venv, conda env)"))
      ->type_name("PREFIX");
  cmd->add_option("--nvidia-smi-xml", opts->nvidia_smi_xml,
                  _("Report the GPUs and driver of another machine from its 'nvidia-smi -q -x' output"))
      ->type_name("FILE")
      ->excludes("--snapshot");
  cmd->add_option(
         "--from", opts->from,
         _("Judge another machine from its files: nvidia-bug-report log, nvidia-smi -q text/XML or --query-gpu CSV, lspci, topo -m, "
           "and error logs (TensorFlow, NCCL, Docker: as tfrig explain)"))
      ->type_name("FILE")
      ->excludes("--snapshot")
      ->excludes("--nvidia-smi-xml");
  add_capture_limit_options(*cmd, opts->capture_limits);
  cmd->add_option("--color", opts->color, _("Colour on the terminal"))->check(one_of({"auto", "always", "never"}));
  cmd->add_option("--tf", opts->tf, _("TensorFlow version to check for when none is installed"))->type_name("VERSION");
  cmd->add_option("--only", opts->only, _("Run the rules of one area only"))
      ->check(one_of(std::vector<std::string>(rules::areas().begin(), rules::areas().end())))
      ->type_name("AREA");
  cmd->add_option("--explain", opts->explain, _("Explain one rule and what it says about this machine"))
      ->type_name("RULE");
  cmd->add_option("--fail-on", opts->fail_on, _("Lowest severity that makes the exit code non-zero"))
      ->check(one_of({"error", "warning", "info", "never"}))
      ->default_str("warning");
  cmd->callback([opts, &state] { run_doctor(*opts, state); });
}

}  // namespace tfrig::cli
