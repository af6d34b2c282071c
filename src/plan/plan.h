// tfrig plan: a workload in, the memory estimate, the ranked GPUs, the
// balanced server and (with --here/--snapshot) the verdict on a machine out.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "inventory/inventory.h"
#include "plan/gpu_candidate.h"
#include "plan/memory.h"
#include "plan/model.h"
#include "plan/ranking.h"
#include "plan/server.h"

namespace tfrig::plan {

// One stave of the barrel on a real machine.
struct Stave {
  std::string name;    // "GPU memory", "CPU cores", "RAM", "PCIe", "GPU count", "storage"
  core::Message have;  // rendered by each output in its language
  core::Message need;
  std::string verdict;  // "ok", "short", "unknown"
  double ratio = 0;     // have / need; < 1 is short
};

struct MachineVerdict {
  core::Message source;         // "this machine" or "snapshot FILE"
  std::vector<GpuChoice> gpus;  // this machine's GPUs, each judged
  std::vector<Stave> staves;
  std::string shortest;  // the shortest stave's name; empty when none is short
  std::vector<core::Message> notes;
};

struct PlanResult {
  Workload workload;
  RankBy rank_by = RankBy::kPricePerformance;
  uint64_t batch_per_gpu = 1;        // ceil(batch / --gpus)
  MemoryBreakdown memory;            // one replica at batch_per_gpu
  std::vector<GpuChoice> gpus;       // ranked
  std::optional<ServerPlan> server;  // around the first GPU that fits
  std::optional<MachineVerdict> machine;
};

// model: measured rows and calibration (nullptr = the embedded knowledge's).
PlanResult make_plan(const Workload& w, std::span<const GpuCandidate> gpus, RankBy rank_by, const DataOptions& data,
                     const ThroughputModel* model = nullptr);

// Matches an inventory GPU to a catalog candidate (PCI device id, then
// name); a GPU not in the catalog becomes a candidate with its memory only.
GpuCandidate candidate_for(const inventory::Gpu& gpu, std::span<const GpuCandidate> catalog);

MachineVerdict judge_machine(const inventory::Inventory& inv, core::Message source, const Workload& w,
                             std::span<const GpuCandidate> catalog, const DataOptions& data,
                             const ThroughputModel* model = nullptr);

}  // namespace tfrig::plan
