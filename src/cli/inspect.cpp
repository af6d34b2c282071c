// `tfrig inspect PATH`: options only; the work is in tfrecord/inspect.cpp.
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "cli/validate.h"
#include "core/escape.h"
#include "core/i18n.h"
#include "core/i18n_scope.h"
#include "core/json_text.h"
#include "core/output.h"
#include "core/text_width.h"
#include "core/log.h"
#include "tfrecord/inspect.h"

namespace tfrig::cli {

namespace {

struct InspectArgs {
  std::string path;
  tfrecord::InspectOptions options;
  std::string compression = "auto";
  bool json = false;
};

int run(InspectArgs& a) {
  if (a.compression != "auto") {
    auto c = tfrecord::parse_compression(a.compression);
    if (!c) return failure(c.error(), kExitUsage);
    a.options.compression = *c;
  }
  // The report holds messages: rendered in the output's language (English in
  // JSON unless --lang); an error on stderr in the reader's.
  auto r = tfrecord::inspect_file(a.path, a.options);
  if (!r) {
    return failure(exit_code_for(r.error()), "inspect: " + core::describe(r.error()));
  }
  const std::string language = core::i18n::output_language();
  if (a.json) {
    (void)core::write_stdout(core::json_text(tfrecord::report_to_json(*r, language)));
  } else {
    std::fputs(tfrecord::report_to_text(*r, language, core::text_width(STDOUT_FILENO)).c_str(), stdout);
  }
  if (r->error) {
    return failure(kExitDataErr,
                   "inspect: " + trf("{}: not a valid TFRecord file from record {} (byte offset {}): {}",
                                     core::escape_bytes(a.path), r->error->record_index, r->error->offset,
                                     core::escape_bytes(core::render(r->error->text, core::i18n::language()))));
  }
  return kExitOk;
}

}  // namespace

void add_inspect_command(CLI::App& app, RunState& state) {
  auto args = std::make_shared<InspectArgs>();
  auto* cmd =
      app.add_subcommand("inspect", _("Record count, feature schema and the first Examples of a TFRecord file"));
  cmd->add_option("PATH", args->path, _("TFRecord file"))->required();
  cmd->add_option("-n,--show", args->options.show, _("How many Examples to print as JSON"))
      ->capture_default_str()
      ->check(whole_number());
  cmd->add_flag("--show-bytes", args->options.show_bytes,
                _("Print bytes values (text, or hex) instead of size + CRC-32C"));
  cmd->add_option("--compression", args->compression, _("auto (sniff), none, gzip or zlib"))->capture_default_str();
  cmd->add_flag("--json", args->json, _("JSON on stdout"));
  cmd->callback([args, &state] { state.exit_code = run(*args); });
}

}  // namespace tfrig::cli
