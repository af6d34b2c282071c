// tfrig capture: pack the files the probes read on this machine into one
// .tar.gz that `tfrig doctor --from FILE` (or `tfrig import FILE`) judges on
// any other machine, the way a user sends a whole machine for advice.
#include "capture/capture.h"
#include "cli/command.h"
#include "cli/inventory_source.h"
#include "core/atomic_file.h"
#include "core/clock.h"
#include "core/i18n.h"
#include "core/log.h"
#include "core/units.h"

namespace tfrig::cli {

void add_capture_command(CLI::App& app, RunState& state) {
  struct Options {
    std::string output;
    gather::InventorySourceOptions source;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "capture", _("Pack the files the probes read into a .tar.gz for 'doctor --from FILE' on another machine"));
  cmd->add_option("-o,--output", opts->output, _("The .tar.gz to write"))->required()->type_name("FILE");
  add_probe_options(*cmd, opts->source);
  cmd->callback([opts, &state] {
    core::SysRoot root(state.global.root);
    if (!root.is_dir("")) {
      return failure(state, kExitNoInput, trf("{}: --root must be an existing directory", root.root()));
    }
    auto log = std::make_shared<core::AccessLog>();
    core::SysRoot recording = root;
    recording.record_to(log);
    auto report = gather::probe_report(recording, opts->source);
    if (!report) return failure(state, report.error());
    for (const auto& p : opts->source.data_paths) log->looked_up(p);  // storage resolves them by path
    const auto seen = log->snapshot();
    capture::Manifest manifest;
    manifest.tool_version = TFRIG_VERSION;
    manifest.captured_at = core::utc_timestamp();
    for (const auto& [name, value] : seen.env) {
      // Facts only (TFRIG_NVML_LIBRARY is this tfrig's setting, not the machine's):
      // the reader would drop the rest anyway (capture::is_fact_variable).
      if (value && capture::is_fact_variable(name)) manifest.env[name] = *value;
    }
    manifest.data_paths = opts->source.data_paths;
    manifest.python_prefixes = opts->source.python_prefixes;
    const auto entries = capture::capture_entries(root, seen, manifest);
    auto gz = capture::gzip(capture::write_tar(entries));
    if (!gz) return failure(state, gz.error(), kExitInternal);
    if (auto written = core::write_file_atomic(opts->output, *gz); !written) {
      return failure(state, written.error(), kExitCantCreate);
    }
    core::log(core::LogLevel::kInfo, "{}",
              trf("wrote {}: {} entries ({} files read by the probes), {}", opts->output, entries.size(),
                  seen.reads.size(), core::format_bytes_binary(gz->size())));
    state.exit_code = kExitOk;
  });
}

}  // namespace tfrig::cli
