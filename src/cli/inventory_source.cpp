#include "cli/inventory_source.h"

#include <cmath>

#include "cli/command.h"
#include "core/log.h"
#include "core/units.h"
#include "probe/probe.h"

namespace tfrig::cli {

core::Result<report::Report> load_report(const InventorySourceOptions& options) {
  if (!options.snapshot.empty()) return report::load_snapshot(options.snapshot);

  core::SysRoot root(options.root);
  if (!root.is_dir("")) {
    return core::fail(core::ErrorCode::kNotFound, root.root(), "--root must be an existing directory");
  }
  if (!(options.deadline_seconds >= 0.001) || options.deadline_seconds > 3600) {
    return core::fail(core::ErrorCode::kInvalidArgument, "--deadline", "expected seconds between 0.001 and 3600");
  }
  probe::Context ctx{root, options.data_paths,
                     std::chrono::milliseconds(static_cast<long>(std::lround(options.deadline_seconds * 1000)))};
  auto run = probe::run_probes(ctx, probe::all_probes());
  for (const auto& s : run.statuses) {
    core::log(core::LogLevel::kInfo, "probe {}: {} in {} ({})", s.id, probe::state_name(s.state),
              core::format_seconds(s.seconds), s.detail);
    for (const auto& p : s.problems) core::log(core::LogLevel::kDebug, "probe {}: {}", s.id, p);
  }
  core::log(core::LogLevel::kInfo, "probes took {} in total", core::format_seconds(run.seconds));

  report::Report r;
  r.tool_version = TFRIG_VERSION;
  r.generated_at = core::utc_timestamp();
  r.root = root.root();
  r.source = "live";
  r.inventory = std::move(run.inventory);
  r.probes = std::move(run.statuses);
  return r;
}

int exit_code_for(const core::Error& error) {
  switch (error.code) {
    case core::ErrorCode::kNotFound: return kExitNoInput;
    case core::ErrorCode::kParse:
    case core::ErrorCode::kUnsupported: return kExitDataErr;
    case core::ErrorCode::kInvalidArgument: return kExitUsage;
    case core::ErrorCode::kPermissionDenied:
    case core::ErrorCode::kIo: return kExitNoInput;
    default: return kExitInternal;
  }
}

}  // namespace tfrig::cli
