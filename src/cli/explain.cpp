// tfrig explain [FILE|-] / tfrig explain -- CMD ARGS: read a log (or a
// command's output as it runs), recognise the signatures of
// data/knowledge/log_signatures.json, and report them as doctor-style
// findings, judged against a machine when one is at hand (docs/explain.md).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/validate.h"
#include "cli/compat_query.h"
#include "cli/explain_log.h"
#include "cli/inventory_source.h"
#include "cli/verdict.h"
#include "core/text_width.h"
#include "core/try.h"
#include "core/atomic_file.h"
#include "core/i18n.h"
#include "core/i18n_scope.h"
#include "core/input_file.h"
#include "core/log.h"
#include "core/output.h"
#include "core/terminal_text.h"
#include "explain/command_runner.h"
#include "explain/corpus.h"
#include "explain/explain.h"
#include "explain/log_reader.h"
#include "report/report.h"
#include "rules/judge.h"
#include "codec/gzip.h"
#include "importer/importer.h"
#include "knowledge/compat.h"

namespace tfrig::cli {

namespace {

struct ExplainOptions {
  std::vector<std::string> args;  // FILE, or the command after --
  bool list = false;
  bool markdown = false;
  std::string corpus;
  std::string format = "text";
  std::string color = "auto";
  std::string snapshot;
  std::vector<std::string> from;
  capture::Limits capture_limits;
  bool machine = false;
  bool no_machine = false;
  std::string fail_on = "warning";
  std::string output = "-";
};

// The words after `explain --` on the command line, if any.
std::optional<std::vector<std::string>> command_after_dashes(const std::vector<std::string>& argv) {
  auto sub = std::find(argv.begin(), argv.end(), "explain");
  if (sub == argv.end()) return std::nullopt;
  auto dashes = std::find(sub, argv.end(), "--");
  if (dashes == argv.end()) return std::nullopt;
  return std::vector<std::string>(dashes + 1, argv.end());
}

}  // namespace

std::vector<explain::Explained> judged_log_findings(const explain::LogAnalysis& a, const report::Report* machine,
                                                    const knowledge::Knowledge& k, const std::string& log_name) {
  auto findings = explain::findings_from(a, log_name);
  auto q = explain::compat_query_from_log(a);
  std::optional<knowledge::CompatAnswer> compat;
  if (machine) fill_compat_from_machine(q, machine->inventory);
  // Without a TensorFlow version (from the log or the machine) compat would
  // judge the newest release, which says nothing about this log.
  if (q.tf) compat = knowledge::check_compat(k, q);
  explain::judge_against_machine(findings, a, machine, k, compat);
  return findings;
}

core::Result<FromFiles> split_from_files(const std::vector<std::string>& paths, const std::string& knowledge_dir) {
  FromFiles out;
  for (const auto& p : paths) {
    // Only a regular file is looked into here: stdin, pipes, devices and
    // directories go to the importer, which reads them with its caps or
    // refuses them with their own error (opening a FIFO here would block).
    std::error_code ec;
    if (p == "-" || !std::filesystem::is_regular_file(p, ec)) {
      out.captures.push_back(p);
      continue;
    }
    std::ifstream in(p, std::ios::binary);
    std::string head(4096, '\0');
    if (in) {
      in.read(head.data(), static_cast<std::streamsize>(head.size()));
      head.resize(static_cast<size_t>(in.gcount()));
    }
    // Unreadable, gzip, or a kind the importer knows: the importer's (and its errors).
    if (!in && head.empty()) {
      out.captures.push_back(p);
      continue;
    }
    if (codec::is_gzip(head) || importer::detect_kind(head) != importer::FileKind::kUnknown) {
      out.captures.push_back(p);
      continue;
    }
    if (!out.table) {
      auto t = TFRIG_TRY(explain::load_signature_table(knowledge_dir));
      out.table = std::make_shared<const explain::SignatureTable>(std::move(t));
    }
    auto a = TFRIG_TRY(explain::analyze_file(p, *out.table));
    bool recognised = false;
    for (const auto& h : a.hits) recognised |= !h.signature->harmless();
    if (recognised) {
      out.logs.emplace_back(p, std::move(a));
    } else {
      out.captures.push_back(p);  // the importer names it as of no known kind
    }
  }
  return out;
}

void add_log_findings(report::Report& r, const FromFiles& files, const knowledge::Knowledge& k) {
  for (const auto& [name, a] : files.logs) {
    auto findings = judged_log_findings(a, &r, k, name);
    rules::Summary added;
    for (auto& e : findings) r.findings.push_back(std::move(e.finding));
    added = rules::summarize(r.findings);
    const auto own = rules::summarize(
        std::vector<rules::Finding>(r.findings.end() - static_cast<long>(findings.size()), r.findings.end()));
    r.summary = added;
    r.verdict = core::Message(
        // TRANSLATORS: appended to doctor's verdict; {0} is the log file, {1} what its findings add ("1 error, 2 warnings").
        N_("{0}{1}"), rules::as_message_arg(r.verdict),
        core::Message(N_("; the log {0} adds {1} (tfrig explain)"), name,
                      own.total() == 0 ? core::MessageArg(core::Message(N_("nothing"))) : rules::summary_counts(own)));
  }
  std::stable_sort(r.findings.begin(), r.findings.end(),
                   [](const rules::Finding& x, const rules::Finding& y) { return x.severity > y.severity; });
}

namespace {

// --list and --markdown: the signature table itself (with --corpus, measured).
void explain_signatures(const ExplainOptions& o, const explain::SignatureTable& table, RunState& state) {
  std::string tail;
  if (!o.corpus.empty()) {
    auto figures = explain::measure_corpus(table, o.corpus);
    if (!figures) return failure(state, figures.error());
    tail = explain::corpus_markdown(*figures);
  }
  const std::string out = o.markdown ? explain::signatures_markdown(table, tail)
                                     : explain::signatures_list_text(table, core::text_width(STDOUT_FILENO));
  static_cast<void>(core::write_stdout(out));  // a failed write: main exits 73 with its errno
  state.exit_code = kExitOk;
}

// The log read: a command's output (explain -- CMD) or a file (or stdin).
struct LogRead {
  explain::LogAnalysis analysis;
  std::string source;  // the file's name, "stdin", or empty for a command
  int command_status = 0;
};

std::optional<LogRead> read_log(const ExplainOptions& o, const explain::SignatureTable& table,
                                const std::optional<std::vector<std::string>>& command, RunState& state) {
  if (command) {
    auto ran = explain::analyze_command(*command, table);
    if (!ran) {
      failure(state, ran.error(), ran.error().code == core::ErrorCode::kNotFound ? 127 : kExitInternal);
      return std::nullopt;
    }
    return LogRead{std::move(ran->analysis), "", ran->exit_code};
  }
  const std::string path = o.args.empty() ? "-" : o.args.front();
  auto read = explain::analyze_file(path, table);
  if (!read) {
    failure(state, read.error());
    return std::nullopt;
  }
  return LogRead{std::move(*read), path == "-" ? "stdin" : path, 0};
}

// The machine to judge the log against (--snapshot, --from, --machine, or this
// one when running a command); false after a failure was logged.
bool machine_to_judge(const ExplainOptions& o, bool running, RunState& state, std::optional<report::Report>& machine) {
  const bool explicit_machine = !o.snapshot.empty() || !o.from.empty() || o.machine;
  if (!explicit_machine && (!running || o.no_machine)) return true;
  gather::InventorySourceOptions src;
  src.root = state.global.root;
  src.snapshot = o.snapshot;
  src.from = o.from;
  src.capture_limits = o.capture_limits;
  auto r = gather::load_report(src);
  if (r) {
    machine = std::move(*r);
  } else if (explicit_machine) {
    failure(state, r.error());
    return false;
  } else {
    core::log(core::LogLevel::kWarn, "{}",
              trf("could not read this machine ({}); judging the log alone", core::describe(r.error())));
  }
  return true;
}

// The judged log as --format says, for fd (-1: a file).
std::string render_explained(const ExplainOptions& o, const report::Report& report, const LogRead& log,
                             const rules::Text& source_text, bool command, int fd) {
  if (o.format == "json") {
    auto j = report::findings_to_json(report);
    j["source"] = rules::in_language(source_text, core::i18n::output_language());
    j["log"] = explain::analysis_json(log.analysis);
    if (command) j["command_exit_code"] = log.command_status;
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  const bool color = fd >= 0 && use_color(o.color, fd);
  const size_t width = core::text_width(fd);
  std::string out =
      report::render_findings_text(report, color, width) + explain::unrecognised_text(log.analysis, width);
  if (log.analysis.truncated_lines) {
    out += trnf("({} line longer than 64 KiB was cut)", "({} lines longer than 64 KiB were cut)",
                log.analysis.truncated_lines, log.analysis.truncated_lines) +
           "\n";
  }
  return core::terminal_text(out, color);  // the unknown lines are the log's own bytes
}

void run_explain(const ExplainOptions& o, RunState& state) {
  auto table = explain::load_signature_table(state.global.knowledge_dir);
  if (!table) return failure(state, table.error());
  if (o.list || o.markdown) return explain_signatures(o, *table, state);
  const auto command = command_after_dashes(state.argv);
  if (command && command->empty()) return failure(state, kExitUsage, _("explain: expected a command after --"));
  if (!command && o.args.size() > 1) {
    return failure(
        state, kExitUsage,
        trf("explain: one log file expected, got {} (to run a command: tfrig explain -- CMD ARGS)", o.args.size()));
  }
  auto log = read_log(o, *table, command, state);
  if (!log) return;
  auto k = knowledge::load(state.global.knowledge_dir);
  if (!k) return failure(state, k.error());
  std::optional<report::Report> machine;
  if (!machine_to_judge(o, command.has_value(), state, machine)) return;
  // The findings (their compat evidence and fix too) are messages, rendered below.
  const std::vector<explain::Explained> findings =
      judged_log_findings(log->analysis, machine ? &*machine : nullptr, *k);
  const rules::Text source_text =
      // TRANSLATORS: {} is a command ("python"); the report's first line names it as the log's source.
      command ? rules::Text(core::Message(N_("the output of {}"), command->front())) : rules::Text(log->source);
  auto report = explain::explain_report(findings, log->analysis, source_text, machine ? &*machine : nullptr);
  // Render; a command's own stdout is passed through, so the report goes to stderr then.
  const int fd = o.output != "-" ? -1 : command ? STDERR_FILENO : STDOUT_FILENO;
  const std::string out = render_explained(o, report, *log, source_text, command.has_value(), fd);
  if (fd < 0) {
    if (auto w = core::write_file_atomic(o.output, out); !w) return failure(state, w.error(), kExitCantCreate);
  } else if (fd == STDERR_FILENO) {
    std::fwrite(out.data(), 1, out.size(), stderr);
  } else {
    static_cast<void>(core::write_stdout(out));  // a failed write: main exits 73 with its errno
  }
  const int verdict = exit_code_for_findings(report.summary, o.fail_on);
  state.exit_code = command && log->command_status != 0 ? log->command_status : verdict;
}

}  // namespace

void add_explain_command(CLI::App& app, RunState& state) {
  auto o = std::make_shared<ExplainOptions>();
  CLI::App* cmd = app.add_subcommand(
      "explain", _("Read an error log (TensorFlow, nvidia-smi, Docker, NCCL, apt) and say what it means and the fix"));
  cmd->add_option("args", o->args, _("The log file ('-' or nothing: stdin); after --: a command to run and read"))
      ->type_name("FILE | -- CMD ARGS");
  cmd->add_flag("--list", o->list, _("List the signatures explain recognises"));
  cmd->add_flag("--markdown", o->markdown, _("Print docs/explain.md (generated from the signature table)"));
  cmd->add_option("--corpus", o->corpus,
                  _("With --markdown: measure the signatures on this corpus of labelled logs (labels.json)"))
      ->type_name("DIR")
      ->needs("--markdown");
  cmd->add_option("--format", o->format, _("Output format"))->check(one_of({"text", "json"}));
  cmd->add_option("--color", o->color, _("Colour on the terminal"))->check(one_of({"auto", "always", "never"}));
  cmd->add_option("--snapshot", o->snapshot, _("Judge the findings against this snapshot's machine"))
      ->type_name("FILE");
  cmd->add_option("--from", o->from, _("Judge the findings against the machine of these captures (as doctor --from)"))
      ->type_name("FILE")
      ->excludes("--snapshot");
  add_capture_limit_options(*cmd, o->capture_limits);
  cmd->add_flag("--machine", o->machine,
                _("Judge the findings against this machine (the default when running a command)"));
  cmd->add_flag("--no-machine", o->no_machine, _("Judge the log alone, even when running a command"))
      ->excludes("--machine")
      ->excludes("--snapshot")
      ->excludes("--from");
  cmd->add_option("--fail-on", o->fail_on, _("Lowest severity that makes the exit code non-zero"))
      ->check(one_of({"error", "warning", "info", "never"}));
  cmd->add_option("-o,--output", o->output, _("Write the report to FILE ('-': stdout; stderr when running a command)"))
      ->type_name("FILE");
  cmd->callback([o, &state] { run_explain(*o, state); });
}

}  // namespace tfrig::cli
