// `tfrig verify PATH...`: options only; the work is in tfrecord/verify.cpp.
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "cli/command.h"
#include "cli/validate.h"
#include "core/escape.h"
#include "core/i18n.h"
#include "core/i18n_scope.h"
#include "core/input_file.h"
#include "core/output.h"
#include "core/text_width.h"
#include "core/log.h"
#include "tfrecord/progress.h"
#include "tfrecord/verify.h"

namespace tfrig::cli {

namespace {

struct VerifyArgs {
  std::vector<std::string> paths;
  tfrecord::VerifyOptions options;
  std::string compression = "auto";
  bool json = false;
  bool progress = false;
};

int run(VerifyArgs& a) {
  if (a.compression != "auto") {
    auto c = tfrecord::parse_compression(a.compression);
    if (!c) return failure(c.error(), kExitUsage);
    a.options.compression = *c;
  }
  a.options.progress = a.progress;
  // A path that is missing or not a file (a device never ends) is a usage
  // problem, named before anything is verified; folders are expanded.
  for (const auto& p : a.paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) continue;
    if (auto ok = core::check_input_file(p); !ok) {
      return failure(kExitNoInput, "verify: " + core::describe(ok.error()));
    }
  }
  tfrecord::VerifyReport report;
  std::string out;
  // Each file's problems are messages, rendered in the output's language
  // (English in JSON unless --lang).
  report.files = tfrecord::verify_paths(a.paths, a.options);
  report.set_problems = tfrecord::check_shard_sets(a.paths);
  const std::string language = core::i18n::output_language();
  out = a.json ? tfrecord::render_verify_json(report, language)
               : tfrecord::render_verify_text(report, language, core::text_width(STDOUT_FILENO));
  (void)core::write_stdout(out);
  if (report.files.empty()) return kExitNoInput;
  return report.bad_files() == 0 && report.set_problems.empty() ? kExitOk : kExitWarnings;
}

}  // namespace

void add_verify_command(CLI::App& app, RunState& state) {
  auto args = std::make_shared<VerifyArgs>();
  auto* cmd = app.add_subcommand("verify", _("Check every record's framing and CRCs (and index) in TFRecord files"));
  cmd->add_option("PATH", args->paths, _("TFRecord files or directories of shards"))->required();
  cmd->add_option("--compression", args->compression, _("auto (sniff), none, gzip or zlib"))->capture_default_str();
  cmd->add_flag("--examples", args->options.examples, _("Also decode every record as a tf.train.Example"));
  cmd->add_flag("!--no-index", args->options.check_index, _("Ignore <shard>.index.json files"));
  cmd->add_option("-j,--jobs", args->options.jobs, _("Files verified in parallel (0 = all cores)"))
      ->capture_default_str()
      ->check(whole_in(0, 4096));
  cmd->add_flag("--json", args->json, _("JSON on stdout"));
  cmd->add_flag("--progress", args->progress, _("Progress on stderr"));
  cmd->footer(_("Exit status: 0 every file is good, 1 at least one is not, 66 no files."));
  cmd->callback([args, &state] { state.exit_code = run(*args); });
}

}  // namespace tfrig::cli
