// The one adapter point between the GPU catalog and the planner.
#pragma once

#include <vector>

#include "knowledge/knowledge.h"
#include "plan/gpu_candidate.h"

namespace tfrig::plan {

// Every GPU of the knowledge base's catalog as a planning candidate.
std::vector<GpuCandidate> plan_gpus_from_catalog(const knowledge::Knowledge& knowledge);
// The same from the embedded knowledge base (empty if it cannot load).
std::vector<GpuCandidate> plan_gpus_from_catalog();

}  // namespace tfrig::plan
