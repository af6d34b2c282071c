#include "gather/gather.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>

#include "capture/capture.h"
#include "core/clock.h"
#include "core/try.h"
#include "core/escape.h"
#include "core/i18n.h"
#include "core/json_text.h"
#include "core/log.h"
#include "core/units.h"
#include "importer/importer.h"
#include "probe/parse/nvidia_smi_xml.h"
#include "probe/probe.h"
#include "report/probe_detail.h"

namespace tfrig::gather {

namespace {

// `doctor --from FILE` / `import FILE` with one file that is a tfrig capture:
// read it into memory (never onto the disk: a capture is a stranger's file)
// and run the probes on it, with the environment facts and options recorded
// at capture time.
std::optional<core::Result<report::Report>> report_from_capture(const std::vector<std::string>& from,
                                                                const InventorySourceOptions& options) {
  if (from.size() != 1) return std::nullopt;
  const capture::Limits& limits = options.capture_limits;
  // Compressed bytes never exceed the inflated ones by more than gzip's
  // framing, so the limit on the inflated archive bounds the file too.
  core::SysRoot here("/");
  std::error_code ec;
  const std::string path = std::filesystem::absolute(from[0], ec).string();
  auto bytes = here.read_text(ec ? from[0] : path,
                              static_cast<size_t>(std::min<uint64_t>(limits.max_bytes, SIZE_MAX - 4096) + 4096));
  if (!bytes || !capture::is_capture(*bytes)) return std::nullopt;
  auto loaded = capture::load_capture(*bytes, limits);
  if (!loaded) {
    return core::fail(loaded.error().code, from[0] + ": " + loaded.error().where, loaded.error().message);
  }
  if (!loaded->dropped_env.empty()) {
    std::string names;
    for (const auto& n : loaded->dropped_env) names += (names.empty() ? "" : ", ") + core::escape_bytes(n);
    core::log(core::LogLevel::kWarn, "{}",
              trf("{}: ignored the environment variables {}: a capture's environment is read as facts about its "
                  "machine, never as configuration of this tfrig",
                  from[0], names));
  }
  InventorySourceOptions replay = options;
  replay.data_paths = loaded->manifest.data_paths;
  replay.python_prefixes = loaded->manifest.python_prefixes;
  core::SysRoot::EnvMap env(loaded->manifest.env.begin(), loaded->manifest.env.end());
  auto report = probe_report(core::SysRoot(loaded->tree, from[0] + ":", std::move(env)), replay);
  if (report) {
    report->root = "";
    report->source = "capture:" + from[0];
  }
  return report;
}

}  // namespace

core::Result<report::Report> load_report(const InventorySourceOptions& options) {
  if (!options.snapshot.empty()) return report::load_snapshot(options.snapshot);
  if (!options.nvidia_smi_xml.empty()) return report_from_nvidia_smi_xml(options.nvidia_smi_xml);
  if (!options.from.empty()) {
    if (auto captured = report_from_capture(options.from, options)) return std::move(*captured);
    return importer::import_files(options.from, options.import_warnings);
  }
  core::SysRoot root(options.root);
  if (!root.is_dir("")) {
    return core::fail(core::ErrorCode::kNotFound, root.root(), _("--root must be an existing directory"));
  }
  return probe_report(root, options);
}

core::Result<report::Report> probe_report(const core::SysRoot& root, const InventorySourceOptions& options) {
  if (!(options.deadline_seconds >= 0.01) || options.deadline_seconds > 3600) {  // as doctor's --deadline
    return core::fail(core::ErrorCode::kInvalidArgument, "--deadline", _("expected seconds between 0.01 and 3600"));
  }
  // On this machine a relative --data is relative to the working directory
  // (SysRoot would read it from "/"); under a captured --root it stays
  // relative to that root.
  std::vector<std::string> data_paths = options.data_paths;
  if (root.is_live()) {
    for (auto& p : data_paths) {
      std::error_code ec;
      if (!p.empty() && p.front() != '/') p = std::filesystem::absolute(p, ec).lexically_normal().string();
    }
  }
  probe::Context ctx{root, data_paths,
                     std::chrono::milliseconds(static_cast<long>(std::lround(options.deadline_seconds * 1000))),
                     options.python_prefixes};
  // The probes store English texts with their messages (probe.h): no
  // language switch here; the log below is the reader's.
  auto run = probe::run_probes(ctx, probe::all_probes());
  for (const auto& s : run.statuses) {
    core::log(core::LogLevel::kInfo, "{}",
              trf("probe {0}: {1} in {2} ({3})", s.id, probe::state_name(s.state), core::format_seconds(s.seconds),
                  report::status_detail(s)));
    for (const auto& p : s.problems) core::log(core::LogLevel::kDebug, "probe {}: {}", s.id, p);
  }
  core::log(core::LogLevel::kInfo, "{}", trf("probes took {} in total", core::format_seconds(run.seconds)));

  report::Report r;
  r.tool_version = TFRIG_VERSION;
  r.generated_at = core::utc_timestamp();
  r.root = root.root();
  r.source = "live";
  r.inventory = std::move(run.inventory);
  r.probes = std::move(run.statuses);
  return r;
}

core::Result<report::Report> report_from_nvidia_smi_xml(const std::string& file) {
  // The file comes from another machine: read it as a plain file (not under
  // --root) and build only the GPU part of an inventory from it.
  core::Stopwatch watch;
  core::SysRoot here("/");
  // A relative FILE is relative to the current directory, not to "/".
  std::error_code ec;
  const std::string path = std::filesystem::absolute(file, ec).string();
  auto text = TFRIG_TRY(here.read_text(ec ? file : path, 64u << 20));
  auto xml = probe::parse::parse_nvidia_smi_xml(text);
  // The parser's error after the file's name; the terminal renders it in the reader's language.
  if (!xml) {
    core::Error e = xml.error();
    e.place =
        core::Message(N_("{0}: {1}"), file, e.place.empty() ? core::MessageArg(e.where) : core::MessageArg(e.place));
    e.where = core::english(e.place);
    return tl::unexpected(std::move(e));
  }
  report::Report r;
  r.tool_version = TFRIG_VERSION;
  r.generated_at = core::utc_timestamp();
  r.root = "";
  r.source = "nvidia-smi-xml:" + file;
  probe::parse::apply_nvidia_smi_xml(*xml, file, r.inventory);
  probe::ProbeStatus status;
  status.id = "nvidia_smi_xml";
  status.state = xml->gpus.empty() ? probe::State::kAbsent : probe::State::kOk;
  const core::MessageArg unknown = core::Message(N_("unknown"));
  core::Message detail(N_("{0} GPU(s), driver {1}, CUDA {2}"), xml->gpus.size(),
                       xml->driver_version ? core::MessageArg(*xml->driver_version) : unknown,
                       xml->cuda_version ? core::MessageArg(*xml->cuda_version) : unknown);
  // TRANSLATORS: a summary and the nvidia-smi XML's DTD name ("nvsmi_device_v12.dtd").
  if (xml->dtd) detail = core::Message(N_("{0}, {1}"), std::move(detail), *xml->dtd);
  status.set_detail(std::move(detail));
  status.seconds = watch.seconds();
  if (xml->attached_gpus && *xml->attached_gpus > static_cast<int>(xml->gpus.size())) {
    // Named as not examined in the verdict (report/coverage.h).
    status.add_problem(core::Message(
        // TRANSLATORS: "cut short: " starts the text in the snapshot (doctor reads it there in English).
        N_("cut short: {0} of {1} GPUs not in the file ({2}: <attached_gpus> says {1} but {3} <gpu> elements are present)"),
        *xml->attached_gpus - static_cast<int>(xml->gpus.size()), *xml->attached_gpus, file, xml->gpus.size()));
  } else if (xml->attached_gpus && *xml->attached_gpus != static_cast<int>(xml->gpus.size())) {
    status.add_problem(
        core::Message(N_("{0}: <attached_gpus> says {1} but {2} <gpu> elements are present (trimmed file?)"), file,
                      *xml->attached_gpus, xml->gpus.size()));
  }
  r.probes.push_back(std::move(status));
  return r;
}

// The inventory and the probes' texts are English; the findings' texts are
// messages the writer renders in the output's language (report/findings_report.cpp).
std::string report_json_text(const report::Report& report) { return core::json_text(report::to_json(report)); }

}  // namespace tfrig::gather
