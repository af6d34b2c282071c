// Which probes ran on the machine of a report: rules whose facts come from
// a probe that did not run are skipped, not fired (doctor and fleet alike).
#pragma once

#include <optional>
#include <set>
#include <string>

#include "verdict/report.h"

namespace tfrig::report {

// Probe ids that ran (ok or absent); nullopt when the report lists no probes
// (imported or hand-made), which counts every section as probed.
std::optional<std::set<std::string>> probes_run(const Report& r);

}  // namespace tfrig::report
