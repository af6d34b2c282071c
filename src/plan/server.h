// The rest of the server, balanced around the chosen GPUs (the configuration guide's
// barrel: CPU, PCIe, RAM, storage, network and power must keep them fed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan/model.h"
#include "plan/ranking.h"

namespace tfrig::plan {

// ASSUMED: one NVMe drive sustains 3 GB/s of ~100 kB random reads (PCIe 4.0
// x4 drives list ~7 GB/s sequential; small reads reach about half). Shared
// with tfrig pipeline's "on NVMe" what-if.
inline constexpr double kNvmeSmallReadBytesPerS = 3e9;

struct DataOptions {
  std::optional<uint64_t> dataset_samples;     // --dataset-size
  std::optional<uint64_t> sample_bytes;        // --sample-bytes
  std::optional<double> decode_rate_per_core;  // samples/s one core decodes and augments
  std::string decode_rate_source;              // "tfrig bench decode", "--decode-rate-per-core"
  bool storage_separate = false;               // data on another machine (the configuration guide's case study)
  std::optional<double> price_per_gpu_hour;    // --price-per-hour, per GPU
  std::string price_currency = "USD";          // of price_per_gpu_hour: the output's (--currency)
};

// Rendered by each output in its language.
struct ServerLine {
  core::Message component;  // "CPU", "RAM", ...
  core::Message value;
  core::Message reason;  // the formula with its inputs
};

struct ServerPlan {
  std::string gpu_name;
  int gpus = 0;
  double samples_per_s = 0;
  bool image_input = false;
  double per_core_rate = 0;
  std::string per_core_basis;         // measured | assumed
  core::Message per_core_basis_text;  // the same as a message (JSON keeps per_core_basis)
  int cpu_cores_needed = 0;           // for decode + augment + framework
  int cpu_cores = 0;                  // recommended (guide minimum 16)
  std::string cpu_class;
  int pcie_lanes = 0;
  uint64_t ram_min_bytes = 0;
  uint64_t ram_bytes = 0;
  core::Message dimm_layout;  // "16 x 32 GB DDR5 (8 channels, 2 per channel)"
  uint64_t dataset_samples = 0;
  uint64_t sample_bytes = 0;
  bool dataset_assumed = false;
  uint64_t nvme_bytes = 0;
  int nvme_drives = 0;
  double read_bytes_per_s = 0;
  std::optional<double> network_gbits;
  std::string nic;
  int psu_watts = 0;
  core::Message psu;
  double epoch_seconds = 0;
  std::optional<double> cost_per_epoch;
  std::string cost_currency;  // ISO 4217 code of cost_per_epoch (--currency; USD by default)
  std::vector<ServerLine> lines;
};

// Data defaults for a workload: ImageNet-1k for image models, 1M sequences of
// 4-byte token ids for text (docs/plan.md).
uint64_t default_dataset_samples(const Workload& w);
uint64_t default_sample_bytes(const Workload& w);
bool image_input(const Workload& w);

ServerPlan balance_server(const Workload& w, const GpuChoice& choice, const DataOptions& data);

// The smallest DIMM population of a CPU class that holds at least need bytes.
struct DimmLayout {
  int channels = 0;
  int dimms = 0;
  uint64_t dimm_bytes = 0;
  uint64_t total_bytes = 0;
};
std::optional<DimmLayout> dimm_layout_for(uint64_t need_bytes, int channels, int max_dimms_per_channel);

}  // namespace tfrig::plan
