// What-ifs: the barrel again with one stave changed, each from a measured
// number (or a labelled estimate), and the cheapest change that brings the
// predicted GPU utilisation above the target.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/message.h"
#include "pipeline/barrel.h"

namespace tfrig::pipeline {

// What the what-ifs are computed from, besides the barrel itself.
struct WhatIfInputs {
  std::optional<double> tfrecord_samples_per_s;      // a sample packed with tfrig pack and streamed cold (measured)
  std::optional<double> warm_storage_samples_per_s;  // the same files re-read from the page cache (measured)
  bool input_is_tfrecord = false;
  std::optional<bool> fits_in_ram;  // dataset bytes vs available memory
  double dataset_bytes = 0;
  double avg_sample_bytes = 0;             // bytes read from storage per sample
  double decode_per_core = 0;              // samples/s of one core (measured)
  int cores = 0;                           // the threads the decode measurement used
  std::optional<double> gpu_demand_mixed;  // the GPU's demand under mixed precision
  bool already_mixed = false;
  double target_utilization = 0.90;
};

// Typical NVMe small-file read rate: plan's catalog figure (src/plan/server.h,
// kNvmeSmallReadBytesPerS).
double nvme_bytes_per_s();

// Network storage goodput at `gbit` GbE: TCP/IP over Ethernet carries about
// 94% of the line rate as payload (1500-byte MTU: 1448 payload bytes per
// 1538 on the wire). ASSUMED: the remote storage itself keeps up.
double network_bytes_per_s(double gbit);

struct WhatIf {
  std::string id;        // "tfrecord", "cache", "more_cores", "nvme", "mixed_precision", "network_10gbe", ...
  core::Message change;  // what is changed, in words (rendered by each output in its language)
  double predicted_utilization = 0;   // of the GPU's demand after the change
  double gpu_demand = 0;              // samples/s after the change (mixed precision raises it)
  double training_rate = 0;           // samples/s the run trains at after the change
  std::string bottleneck;             // the shortest stave after the change
  Origin origin = Origin::kMeasured;  // of the number that changed
  core::Message detail;
  int cost_rank = 0;  // 0 = a code change; higher = hardware (ASSUMED order)
  bool applicable = true;
};

std::vector<WhatIf> what_ifs(const Barrel& base, const WhatIfInputs& in);

// The first change in cost order (single changes, then pairs) whose predicted
// utilisation reaches the target; nullopt when none does.
std::optional<WhatIf> cheapest_fix(const Barrel& base, const WhatIfInputs& in);

}  // namespace tfrig::pipeline
