// tfrig: plan, check, measure and set up a TensorFlow GPU server.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "build_info.h"  // generated: the commit and build type
#include "cli/command.h"
#include "cli/lang.h"
#include "cli/validate.h"
#include "core/i18n.h"
#include "core/i18n_scope.h"
#include "core/log.h"
#include "core/output.h"
#include "core/terminal_text.h"
#include "knowledge/knowledge.h"
#include "probe/probe.h"

namespace {

#if defined(__clang__)
constexpr const char* kCompiler = "clang " __clang_version__;
#else
constexpr const char* kCompiler = "GCC " __VERSION__;
#endif

// `tfrig --version`: what a bug report needs to say which tfrig it was.
std::string version_text() {
  using namespace tfrig;
  std::string data = "?";
  if (auto k = knowledge::load("")) {
    data.clear();
    for (const auto& f : k->files()) {
      // The newest dated file (YYYY-MM or YYYY-MM-DD sort as text); a release number ("13.2.2") is no date.
      const auto& v = f.data_version;
      if (v.size() >= 7 && v[4] == '-') data = std::max(data, v);
    }
  }
  // Not translated: it is pasted into bug reports.
  return fmt::format("tfrig {0}\ncommit {1}\nknowledge data {2}\nbuild {3}, {4}", TFRIG_VERSION, TFRIG_GIT_COMMIT, data,
                     TFRIG_BUILD_TYPE, kCompiler);
}

// The options of every command. `lang_value` receives --lang, which
// cli::lang_flag has read before parsing: declared so CLI11 accepts it.
void add_global_options(CLI::App& app, tfrig::cli::RunState& state, std::string& lang_value) {
  using namespace tfrig;
  app.add_option("--root", state.global.root, _("Read the machine under DIR instead of / (a captured tree)"))
      ->type_name("DIR");
  app.add_flag("-v,--verbose", state.global.verbosity, _("More log on stderr (-v info with timings, -vv debug)"));
  app.add_option("--knowledge", state.global.knowledge_dir, _("Read newer knowledge files (*.json) from DIR"))
      ->type_name("DIR");
  app.add_flag("-q,--quiet", state.global.quiet, _("Only errors on stderr"));
  app.add_option("--lang", lang_value,
                 _("Language of the output: zh_CN or en (default: from LANGUAGE, LC_ALL, LC_MESSAGES, LANG)"))
      ->type_name("LANG");
}

// Once the command line is parsed, before the command runs: the output
// language of machine formats and the log level.
void apply_global_options(const CLI::App& app, const tfrig::cli::RunState& state,
                          const std::optional<std::string>& lang) {
  using namespace tfrig;
  // JSON, Prometheus and CSV are read by programs: their texts are English
  // unless --lang says otherwise. The process keeps the reader's language
  // (stderr, the log): each command renders its machine output's messages
  // in the output language (docs/i18n.md).
  if (!lang && cli::writes_machine_output(app)) core::i18n::set_output_language("en");
  if (state.global.quiet) {
    core::set_log_level(core::LogLevel::kError);
  } else if (state.global.verbosity >= 2) {
    core::set_log_level(core::LogLevel::kDebug);
  } else if (state.global.verbosity == 1) {
    core::set_log_level(core::LogLevel::kInfo);
  }
}

void add_commands(CLI::App& app, tfrig::cli::RunState& state) {
  using namespace tfrig;
  cli::add_doctor_command(app, state);
  cli::add_snapshot_command(app, state);
  cli::add_import_command(app, state);
  cli::add_knowledge_command(app, state);
  cli::add_rules_command(app, state);
  cli::add_compat_command(app, state);
  cli::add_pack_command(app, state);
  cli::add_verify_command(app, state);
  cli::add_inspect_command(app, state);
  cli::add_bench_command(app, state);
  cli::add_plan_command(app, state);
  cli::add_pipeline_command(app, state);
  cli::add_watch_command(app, state);
  cli::add_setup_command(app, state);
  cli::add_metrics_command(app, state);
  cli::add_fleet_command(app, state);
  cli::add_capture_command(app, state);
  cli::add_explain_command(app, state);
  cli::add_report_command(app, state);
  cli::add_completion_command(app, state);
}

// Parses the command line and runs the command it names. Returns an exit
// code when parsing failed or the command threw (main returns it at once),
// nothing when the command ran: its code is state.exit_code.
std::optional<int> parse_and_run(CLI::App& app, tfrig::cli::RunState& state, int argc, char** argv,
                                 const std::optional<std::string>& lang) {
  using namespace tfrig;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    state.exit_code = app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    state.exit_code = app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    state.exit_code = app.exit(e);
  } catch (const CLI::ParseError& e) {
    // The reader's language, also where a JSON command had switched to English.
    cli::apply_language(lang);
    app.exit(e);  // prints cli::parse_error_message
    return cli::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tfrig: %s\n", core::terminal_text(trf("internal error: {}", e.what()), false).c_str());
    return cli::kExitInternal;
  }
  return std::nullopt;
}

// Whatever the command printed: a write that failed (a full disk, /dev/full)
// is exit 73, never an exit 0 with a cut or empty result.
int finish_output(int code) {
  using namespace tfrig;
  if (auto written = core::finish_stdout(); !written) {
    std::fprintf(
        stderr, "tfrig: %s\n",
        core::terminal_text(trf("cannot write the output to {}", core::describe(written.error())), false).c_str());
    if (code < cli::kExitUsage) code = cli::kExitCantCreate;
  }
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tfrig;
  // The language first: every help text below is built in it.
  const auto lang = cli::lang_flag(argc, argv);
  cli::apply_language(lang);
  CLI::App app{_("tfrig: plan, check, measure and set up a TensorFlow GPU server"), "tfrig"};
  cli::translate_help(app, argc, argv);
  app.set_version_flag("--version", version_text, _("Display program version information and exit"));
  app.require_subcommand(1);
  app.fallthrough();

  cli::RunState state;
  state.argv.assign(argv, argv + argc);
  std::string lang_value;
  add_global_options(app, state, lang_value);
  app.parse_complete_callback([&state, &app, &lang] { apply_global_options(app, state, lang); });
  add_commands(app, state);

  // A refused option value is told from what tfrig's validators recorded (cli/validate.h).
  cli::record_refusals(app);
  if (auto unknown = cli::unknown_command_message(app, argc, argv)) {
    std::fprintf(stderr, "tfrig: %s\n", core::terminal_text(*unknown, false).c_str());
    return cli::kExitUsage;
  }
  if (auto code = parse_and_run(app, state, argc, argv, lang)) return *code;
  const int code = finish_output(state.exit_code);
  // A probe left past its deadline may still run on its detached thread:
  // returning would run static destructors and exit handlers under it, and
  // std::_Exit runs neither (stdout is flushed above, stderr unbuffered).
  if (probe::probe_threads_running() > 0) std::_Exit(code);
  return code;
}
