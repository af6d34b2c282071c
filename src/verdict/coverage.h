// What a report's inputs covered: the parts of a machine the rules judge
// ("GPUs", "driver", "CUDA libraries", "TensorFlow", "CPU", "memory") that were
// read, and those no input said anything about, so the verdict can tell
// "checked and clean" from "not checked". Derived from the probe statuses: a
// live run covers everything its probes could read; an import covers what its
// files held; a report that lists no probes (a hand-made snapshot) counts as
// covering everything; one whose probes all found nothing (an empty --root)
// covers nothing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "verdict/report.h"

namespace tfrig::report {

// A probe problem that starts with this names a part a cut capture left out
// ("cut short: 7 of 8 GPUs not in the file (1 of 8 GPUs in FILE, ...)"): the text up to " ("
// is listed as not examined.
inline constexpr std::string_view kCutShort = "cut short: ";

struct Coverage {
  std::vector<std::string> examined;
  std::vector<std::string> not_examined;
};

Coverage coverage_of(const Report& r);

}  // namespace tfrig::report
