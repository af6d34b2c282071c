// The measurement driver of tfrig pipeline: each input stage's rate in
// samples/s on the user's own dataset, with tfrig bench's code (bench/):
// storage reads of the actual files (cold after dropping them from the page
// cache, and warm), JPEG decode + the standard ImageNet augmentation on N
// threads and on one, host memory copies, host-to-device copies when a GPU
// is present (else an estimate from the PCIe link, labelled), and the
// TFRecord what-if (a sample packed with tfrig pack, streamed cold).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/message.h"
#include "core/result.h"
#include "inventory/inventory.h"
#include "pipeline/barrel.h"

namespace tfrig::pipeline {

struct MeasureOptions {
  std::string data_dir;
  std::string scratch_parent = ".";  // where the TFRecord what-if packs its sample
  int threads = 0;                   // 0: every online CPU
  double stage_seconds = 2.0;        // time given to each timed measurement
  size_t max_files = 2000;           // files of the dataset read and decoded (a sample)
  uint64_t max_decode_bytes = 256ull << 20;
  bool pack_what_if = true;
  bool measure_memory = true;  // run bench's memory copy test
  bool measure_pcie = true;    // run bench's pcie test when a GPU is present
  // The GPU's PCIe link when no GPU is present to measure (from the catalog).
  std::optional<double> estimated_link_bytes_per_s;
  core::Message estimated_link_detail;
};

struct Measured {
  std::vector<Stage> stages;  // storage, decode, host_memory, host_to_device
  std::optional<double> warm_storage_samples_per_s;
  std::optional<double> tfrecord_samples_per_s;
  double decode_per_core = 0;
  int threads = 0;
  bool input_is_tfrecord = false;
  uint64_t files_total = 0;  // in the whole directory
  uint64_t bytes_total = 0;
  uint64_t files_sampled = 0;
  double avg_sample_bytes = 0;
  uint64_t decode_failures = 0;  // sampled images that failed a full decode (skipped, not measured)
  // What the user should know (cache not dropped, files rejected, ...): messages,
  // rendered by each output in its language like the stages' details.
  std::vector<core::Message> notes;
};

// Bytes of one augmented sample handed to the GPU: 224 x 224 x 3 float32
// (the standard augmentation's output, codec/jpeg.h kCropSize).
double sample_tensor_bytes();

// Reports progress ("storage: cold read") on stderr through the caller, in
// the reader's language.
using StepFn = std::function<void(const std::string&)>;

core::Result<Measured> measure_stages(const MeasureOptions& options, const inventory::Inventory& inventory,
                                      const std::atomic<bool>& cancelled, const StepFn& step = {});

}  // namespace tfrig::pipeline
