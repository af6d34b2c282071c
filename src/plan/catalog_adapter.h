// The one adapter point between the GPU catalog and the planner.
#pragma once

#include <vector>

#include "plan/gpu_candidate.h"

namespace tfrig::plan {

// Every GPU of the catalog as a planning candidate.
// TODO(merge): to be replaced by a mapping of knowledge::Knowledge::gpus()
// (src/knowledge/, branch `rules`) once that branch is merged; until then it
// reads a compact table derived from ../shared/reference/gpus.yaml.
std::vector<GpuCandidate> plan_gpus_from_catalog();

}  // namespace tfrig::plan
