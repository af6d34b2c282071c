// tfrig bench: measure each stage of the input pipeline on this machine.
// Options only; the work is in src/bench/.
#include <unistd.h>

#include <cstdio>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "bench/benchmarks.h"
#include "bench/expectation.h"
#include "bench/history.h"
#include "bench/runner.h"
#include "bench/scratch.h"
#include "cli/command.h"
#include "cli/validate.h"
#include "cli/html_output.h"
#include "cli/inventory_source.h"
#include "core/i18n.h"
#include "core/i18n_scope.h"
#include "core/interrupt.h"
#include "core/json_text.h"
#include "core/log.h"
#include "core/output.h"
#include "core/text_width.h"
#include "core/units.h"
#include "knowledge/knowledge.h"
#include "probe/probe.h"

namespace tfrig::cli {

namespace {

struct BenchOptions {
  std::vector<std::string> ids;
  std::string format = "text";
  std::string output = "-";
  std::string data_dir;
  std::string dir = ".";
  int threads = 0;
  int repetitions = 5;
  int warmup = 1;
  double budget = 60;
  double sample_seconds = 0.5;
  std::string size;
  int files = 0;
  bool quick = false;
  std::string history;
  bool no_history = false;
  bool compare = false;
  bool list = false;
};

std::string list_text() {
  std::string out;
  for (const auto& b : bench::all_benchmarks()) {
    out += fmt::format("{}: {}\n", b->id(), _(b->description()));
    for (const auto& [metric, unit] : b->metrics()) out += fmt::format("  {} ({})\n", metric, unit);
  }
  return out;
}

// The benchmarks' settings from the options; nullopt when --size is not a
// size of 1 MiB or more.
std::optional<bench::Config> bench_config(const BenchOptions& o) {
  bench::Config config;
  config.scratch_parent = o.dir;
  config.data_dir = o.data_dir;
  config.threads = o.threads;
  config.repetitions = o.repetitions;
  config.warmup = o.warmup;
  config.budget_seconds = o.budget;
  config.sample_seconds = o.sample_seconds;
  config.small_files = o.files;
  config.quick = o.quick;
  if (!o.size.empty()) {
    auto bytes = core::parse_size(o.size);
    if (!bytes || *bytes < (1u << 20)) {
      return std::nullopt;
    }
    config.file_bytes = *bytes;
  }
  return config;
}

// The run kept in the history (with --compare, each metric's previous median
// read first); for --format html, every run of this machine as the page's
// chart data. A history that cannot be opened or written is a warning.
nlohmann::json keep_history(const BenchOptions& o, bench::BenchReport& report) {
  nlohmann::json history_json = nlohmann::json::array();
  std::string path = o.history.empty() ? bench::default_history_path() : o.history;
  auto history = bench::History::open(path);
  if (!history) {
    core::log(core::LogLevel::kWarn, "{}", trf("history not kept: {}", core::describe(history.error())));
  } else {
    if (o.compare) {
      for (auto& m : report.results) {
        auto prev = history->previous(report.context.machine_id, m.id, m.metric, std::numeric_limits<int64_t>::max());
        if (prev && *prev) {
          m.previous_median = (*prev)->median;
          m.previous_timestamp = (*prev)->timestamp;
        }
      }
    }
    auto id = history->record(report);
    if (!id) {
      core::log(core::LogLevel::kWarn, "{}", trf("history not kept: {}", core::describe(id.error())));
    } else {
      core::log(core::LogLevel::kInfo, "{}", trf("recorded as run {0} in {1}", *id, history->path()));
    }
    if (o.format == "html") {
      // The page charts every run of this machine, this one included.
      if (auto points = history->results_of_machine(report.context.machine_id)) {
        for (const auto& p : *points) {
          history_json.push_back({{"run_id", p.run_id},
                                  {"timestamp", p.timestamp},
                                  {"id", p.id},
                                  {"metric", p.metric},
                                  {"unit", p.unit},
                                  {"median", p.median}});
        }
      } else {
        core::log(core::LogLevel::kWarn, "{}", trf("history not shown: {}", core::describe(points.error())));
      }
    }
  }
  return history_json;
}

int run_bench(const BenchOptions& o, const GlobalOptions& global) {
  // First, before any thread exists: Ctrl-C and SIGTERM go to the watcher.
  core::InterruptGuard guard(5.0, bench::remove_all_scratch_dirs);

  if (o.list) {
    std::string out = list_text();
    (void)core::write_stdout(out);
    return kExitOk;
  }
  const auto config = bench_config(o);
  if (!config) return failure(kExitUsage, _("--size: expected a size of at least 1MiB such as 256MiB or 4G"));
  if (auto known = bench::check_benchmark_ids(o.ids); !known) return failure(known.error(), kExitUsage);

  // The inventory gives the context: governor, NUMA nodes, the scratch disk.
  core::SysRoot root(global.root);
  std::vector<std::string> paths = {o.dir};
  if (!o.data_dir.empty()) paths.push_back(o.data_dir);
  probe::Context pctx;
  pctx.root = root;
  pctx.data_paths = paths;
  pctx.deadline = std::chrono::milliseconds(3000);
  // The measurements' texts (reasons, notes, warnings, expectations) are
  // messages, rendered by the output in its language (English in JSON
  // unless --lang); the progress lines and warnings are the reader's.
  auto inv = probe::run_probes(pctx, probe::all_probes());

  bool tty = ::isatty(STDERR_FILENO) == 1 && !global.quiet;
  auto progress = [tty](const bench::Progress& p) {
    std::string line =
        p.sample == 0
            // TRANSLATORS: the progress line of tfrig bench: benchmark id, metric name, then where it is.
            ? trf("{0} {1}: warm-up ({2:.1f} s)", p.id, p.metric, p.elapsed)
            : trf("{0} {1}: sample {2}/{3} ({4:.1f} s)", p.id, p.metric, p.sample, p.samples, p.elapsed);
    if (tty) {
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
      std::fflush(stderr);
    } else {
      core::log(core::LogLevel::kInfo, "{}", line);
    }
  };
  auto report = bench::run_benchmarks(o.ids, *config, inv.inventory, guard.cancelled(), progress);
  if (tty) std::fprintf(stderr, "\r\033[K");
  if (!report) {
    return failure(report.error(),
                   report.error().code == core::ErrorCode::kInvalidArgument ? kExitUsage : kExitInternal);
  }

  nlohmann::json history_json = nlohmann::json::array();
  if (!o.no_history && guard.signal_number() == 0) history_json = keep_history(o, *report);
  // The HTML page always sets each metric against the catalog.
  if (o.compare || o.format == "html") bench::add_expectations(report->results, inv.inventory, knowledge::builtin());

  const std::string language = core::i18n::output_language();
  int written = kExitOk;
  if (o.format == "html") {
    nlohmann::json j = nlohmann::json::parse(core::json_text(bench::to_json(*report, language)));
    j["history"] = std::move(history_json);
    written = write_html_page(report::html::PageKind::kBench, std::move(j), "tfrig bench", o.output);
  } else {
    const std::string out =
        o.format == "json"
            ? core::json_text(bench::to_json(*report, language))
            : bench::render_text(*report, language, core::text_width(o.output == "-" ? STDOUT_FILENO : -1));
    written = write_output(out, o.output);
  }
  std::fflush(stdout);
  if (written != kExitOk) return written;

  if (int sig = guard.signal_number(); sig != 0) return 128 + sig;
  for (const auto& m : report->results) {
    if (m.status == bench::Status::kFailed) return kExitErrors;
  }
  return kExitOk;
}

}  // namespace

void add_bench_command(CLI::App& app, RunState& state) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* cmd =
      app.add_subcommand("bench", _("Measure storage, memory, JPEG decode, CRC32C, PCIe and GEMM on this machine"));
  cmd->add_option("ids", o->ids, _("Benchmarks to run (default: all): storage memory decode crc32c pcie gemm"))
      ->type_name("ID");
  cmd->add_option("--format", o->format, _("Output format"))
      ->check(one_of({"text", "json", "html"}))
      ->default_str("text");
  cmd->add_option("-o,--output", o->output, _("Write to FILE (atomically); '-' for stdout"))->type_name("FILE");
  cmd->add_option("--data", o->data_dir, _("Your dataset: small-file reads and JPEG decode use its files (read only)"))
      ->type_name("DIR");
  cmd->add_option("--dir", o->dir, _("Where storage makes its scratch directory (default: the current directory)"))
      ->type_name("DIR");
  cmd->add_option("--threads", o->threads, _("Threads for the all-core tests (default: every CPU)"))
      ->check(in_range(1, 4096));
  cmd->add_option("--repetitions", o->repetitions, _("Samples per metric"))->check(in_range(1, 1000))->default_str("5");
  cmd->add_option("--warmup", o->warmup, _("Discarded samples per metric"))->check(in_range(0, 100))->default_str("1");
  cmd->add_option("--budget", o->budget, _("Seconds each benchmark may take, warm-up included"))
      ->check(in_range(0.1, 86400.0))
      ->default_str("60");
  cmd->add_option("--sample-seconds", o->sample_seconds, _("Length of one time-based sample"))
      ->check(in_range(0.01, 600.0))
      ->default_str("0.5");
  cmd->add_option("--size", o->size, _("Storage test file size (default 1GiB)"))->type_name("SIZE");
  cmd->add_option("--files", o->files, _("Generated small files (default 2000)"))->check(in_range(1, 10000000));
  cmd->add_flag("--quick", o->quick, _("Small sizes: a first look in seconds"));
  cmd->add_option("--history", o->history, _("History database (default $XDG_DATA_HOME/tfrig/history.db)"))
      ->type_name("FILE");
  cmd->add_flag("--no-history", o->no_history, _("Do not record this run"));
  cmd->add_flag(
      "--compare", o->compare,
      _("Show the change against the previous run on this machine and the share of what the catalog expects of this hardware"));
  cmd->add_flag("--list", o->list, _("List the benchmarks and their metrics"));
  cmd->callback([o, &state] { state.exit_code = run_bench(*o, state.global); });
}

}  // namespace tfrig::cli
