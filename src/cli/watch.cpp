// tfrig watch: sample GPU, CPU and disk while training runs (from outside
// the process) and say what the GPU waits on. The work is in src/watch/.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/validate.h"
#include "cli/html_output.h"
#include "cli/inventory_source.h"
#include "core/i18n.h"
#include "core/i18n_scope.h"
#include "core/input_file.h"
#include "core/interrupt.h"
#include "core/json_text.h"
#include "core/log.h"
#include "core/output.h"
#include "core/text.h"
#include "core/text_width.h"
#include "core/units.h"
#include "watch/classify.h"
#include "watch/monitor.h"
#include "watch/recording.h"
#include "watch/render.h"

namespace tfrig::cli {
namespace {

struct WatchCliOptions {
  int64_t pid = 0;
  std::vector<std::string> command;
  std::string interval = "1s";
  std::string duration;
  std::string format = "text";
  std::string output = "-";
  std::string record;
  std::string replay;
  std::string disk_limit;
  bool no_gpu = false;
};

// "1s", "500ms", "2m", "1h" or plain seconds.
std::optional<double> parse_duration(std::string_view text) {
  std::string_view t = core::trim(text);
  double scale = 1;
  if (core::ends_with(t, "ms")) {
    scale = 0.001;
    t.remove_suffix(2);
  } else if (core::ends_with(t, "s")) {
    t.remove_suffix(1);
  } else if (core::ends_with(t, "m")) {
    scale = 60;
    t.remove_suffix(1);
  } else if (core::ends_with(t, "h")) {
    scale = 3600;
    t.remove_suffix(1);
  }
  auto v = core::parse_double(t);
  if (!v || !std::isfinite(*v) || *v <= 0 || *v * scale > 1e7) return std::nullopt;
  return *v * scale;
}

int emit(const watch::Recording& rec, const std::string& format, const std::string& output) {
  std::string out;
  {
    // The analysis holds messages: rendered in the output's language
    // (English in JSON unless --lang; CSV has no texts).
    const watch::Analysis a = watch::analyse(rec);
    const std::string language = core::i18n::output_language();
    if (format == "html") {
      nlohmann::json j = nlohmann::json::parse(core::json_text(watch::render_json(rec, a, language)));
      j["series"] = report::html::watch_series_json(rec);
      return write_html_page(report::html::PageKind::kWatch, std::move(j), trf("tfrig watch, {}", rec.info.source),
                             output);
    }
    if (format == "json") {
      out = core::json_text(watch::render_json(rec, a, language));
    } else if (format == "csv") {
      out = watch::render_csv(rec, a);
    } else {
      out = watch::render_text(rec, a, language, {}, core::text_width(output == "-" ? STDOUT_FILENO : -1));
    }
  }
  const int written = write_output(out, output);
  std::fflush(stdout);
  return written;
}

int run_watch_cli(const WatchCliOptions& o, const GlobalOptions& global) {
  if (!o.replay.empty()) {
    if (o.pid != 0 || !o.command.empty() || !o.record.empty()) {
      return failure(kExitUsage, _("--replay re-analyses a recording: it takes no --pid, COMMAND or --record"));
    }
    // A day sampled every second is ~50 MB of JSON Lines; 512 MiB is ten days.
    auto text = core::read_input_file(o.replay, 512u << 20);
    if (!text) return failure(text.error());
    auto rec = watch::parse_recording(*text, o.replay);
    if (!rec) return failure(rec.error(), kExitDataErr);
    return emit(*rec, o.format, o.output);
  }
  if (o.pid != 0 && !o.command.empty()) return failure(kExitUsage, _("give either --pid PID or -- COMMAND, not both"));
  watch::WatchOptions w;
  auto interval = parse_duration(o.interval);
  if (!interval || *interval < 0.05) {
    return failure(kExitUsage, _("--interval: expected a duration of at least 50ms such as 1s or 500ms"));
  }
  w.interval_s = *interval;
  if (!o.duration.empty()) {
    auto d = parse_duration(o.duration);
    if (!d) return failure(kExitUsage, _("--duration: expected a duration such as 60s, 5m or 2h"));
    w.duration_s = *d;
  }
  if (!o.disk_limit.empty()) {
    std::string_view t = core::trim(o.disk_limit);
    if (core::ends_with(t, "/s")) t.remove_suffix(2);
    auto bytes = core::parse_size(t);
    if (!bytes || *bytes == 0) return failure(kExitUsage, _("--disk-limit: expected a rate such as 550MB/s or 3GB/s"));
    w.disk_limit_bytes_per_s = static_cast<double>(*bytes);
  }
  if (!o.record.empty()) {
    // Refused before the command runs, not after it ended.
    std::error_code ec;
    if (std::filesystem::is_directory(o.record, ec)) {
      return failure(kExitNoInput, trf("{}: is a directory; --record expects a file name", o.record));
    }
  }
  if (o.pid != 0) w.pid = o.pid;
  w.command = o.command;
  w.record_path = o.record;
  w.gpu = !o.no_gpu;
  core::SysRoot root(global.root);
  if (auto lib = root.env("TFRIG_NVML_LIBRARY")) w.nvml_library = *lib;
  if (!root.is_live() && !w.nvml_library) w.gpu = false;  // NVML talks to this kernel, not a captured root

  // Grace: the loop stops within 50 ms, then waits up to 2 s for the command.
  core::InterruptGuard guard(5.0);
  const bool tty = ::isatty(STDERR_FILENO) == 1 && !global.quiet;
  auto on_sample = [tty](const watch::Sample& s) {
    if (tty) {
      std::fprintf(stderr, "\r\033[K%s", watch::status_line(s).c_str());
      std::fflush(stderr);
    }
  };
  w.stop_signal = [&guard] { return guard.signal_number(); };
  auto result = watch::run_watch(root, w, guard.cancelled(), on_sample);
  if (tty) std::fprintf(stderr, "\r\033[K");
  if (!result) {
    const core::Error& e = result.error();
    core::log(core::LogLevel::kError, "{}", core::describe(e));
    // Like a shell: 127 for a command not found, 126 for one that cannot run.
    if (!o.command.empty() && e.where == o.command.front()) return e.code == core::ErrorCode::kNotFound ? 127 : 126;
    if (!o.record.empty() && core::starts_with(e.where, o.record)) return kExitCantCreate;
    return exit_code_for(e);
  }
  for (const auto& p : result->problems) core::log(core::LogLevel::kWarn, "{}", p);
  if (!o.record.empty())
    core::log(core::LogLevel::kInfo, "{}",
              trnf("recorded {0} sample in {1}", "recorded {0} samples in {1}", result->recording.samples.size(),
                   result->recording.samples.size(), o.record));
  if (const int written = emit(result->recording, o.format, o.output); written != kExitOk) return written;
  if (int sig = guard.signal_number(); sig != 0) return 128 + sig;
  if (result->command_exit_status && *result->command_exit_status != 0) {
    core::log(core::LogLevel::kWarn, "{}", trf("the command exited with status {}", *result->command_exit_status));
    return kExitErrors;
  }
  return kExitOk;
}

}  // namespace

void add_watch_command(CLI::App& app, RunState& state) {
  auto o = std::make_shared<WatchCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "watch", _("Sample GPU, CPU and disk while training runs and say whether it is input-, compute- or I/O-bound"));
  cmd->add_option("--pid", o->pid, _("Watch this process and its descendants"))->check(in_range(1, 4194304));
  cmd->add_option("command", o->command, _("-- COMMAND ARGS...: run it and watch it until it exits"))
      ->type_name("COMMAND");
  cmd->add_option("--interval", o->interval, _("Time between samples (1s, 500ms)"))->default_str("1s");
  cmd->add_option("--duration", o->duration,
                  _("Stop after this long (default: when COMMAND or PID exits; 60s system-wide)"));
  cmd->add_option("--format", o->format, _("Output format"))
      ->check(one_of({"text", "json", "csv", "html"}))
      ->default_str("text");
  cmd->add_option("-o,--output", o->output, _("Write the report to FILE (atomically); '-' for stdout"))
      ->type_name("FILE");
  cmd->add_option("--record", o->record, _("Save the samples (JSON Lines) to FILE"))->type_name("FILE");
  cmd->add_option("--replay", o->replay, _("Re-analyse a recording instead of watching"))->type_name("FILE");
  cmd->add_option("--disk-limit", o->disk_limit,
                  _("The data disk's measured read rate (tfrig bench storage), e.g. 550MB/s"));
  cmd->add_flag("--no-gpu", o->no_gpu, _("Do not open NVML"));
  cmd->callback([o, &state] { state.exit_code = run_watch_cli(*o, state.global); });
}

}  // namespace tfrig::cli
