// The GPU stave: how many samples/s the GPU(s) consume for a model,
// precision and batch, from plan's throughput model (published measured
// rates first, scaled estimates second), or given by the user.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "core/result.h"
#include "inventory/inventory.h"
#include "pipeline/barrel.h"
#include "plan/gpu_candidate.h"

namespace tfrig::pipeline {

struct DemandRequest {
  std::string model = "resnet50";       // --model (catalog id or alias)
  std::optional<double> samples_per_s;  // --samples-per-s: the user's own figure
  std::string gpu = "auto";             // "auto" = this machine's GPU; else a catalog name or id
  int gpus = 1;
  std::string precision = "fp32";
  uint64_t batch = 0;  // 0: 256 per GPU
};

struct Demand {
  Stage gpu;                                  // name "gpu"; its rate is the demand
  std::optional<double> mixed_samples_per_s;  // the same under mixed_float16 (for the what-if)
  bool mixed = false;                         // the request is already mixed precision
  std::string gpu_name;
  std::string model_name;
  // The GPU's PCIe link when it cannot be measured here.
  std::optional<double> link_bytes_per_s;
  core::Message link_detail;  // rendered by each output in its language
};

// Finds a catalog GPU by id, exact name, or the shortest name containing
// the text (case-insensitive): "RTX 4090", "NVIDIA GeForce RTX 4090", "a100-sxm4-80gb";
// else by the name nvidia-smi prints ("NVIDIA A100-SXM4-80GB") through
// plan::candidate_for, the matcher of live GPU names.
const plan::GpuCandidate* find_gpu(std::span<const plan::GpuCandidate> catalog, const std::string& text);

// The PCIe generation of a GPU architecture's boards (NVIDIA product pages:
// Pascal/Volta/Turing PCIe 3.0, Ampere/Ada PCIe 4.0, Hopper/Blackwell PCIe
// 5.0), x16. nullopt for unknown architectures.
std::optional<int> pcie_gen_of_architecture(const std::string& architecture);

// The demand's texts are messages and its errors carry theirs: nothing here
// depends on the process's language.
core::Result<Demand> resolve_demand(const DemandRequest& request, const inventory::Inventory& inventory,
                                    std::span<const plan::GpuCandidate> catalog);

}  // namespace tfrig::pipeline
