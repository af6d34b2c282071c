// The GPUs a plan chooses from. src/plan/ never reads a catalog itself: every
// planning function takes std::span<const GpuCandidate>, and the one place
// that builds the list from the catalog is plan_gpus_from_catalog()
// (catalog_adapter.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tfrig::plan {

// How much TensorFlow keeps away from its allocator has changed over its
// releases (MinSystemMemory in tensorflow/core/common_runtime/gpu/gpu_device.cc):
// TensorFlow 1.x kept max(300 MiB, 5% of the free memory); TensorFlow 2
// before 2.5 kept 6% ("the current 6% policy" that tensorflow/tensorflow pull
// request 44810 replaced in November 2020); from 2.5 a fixed amount by compute
// capability. Plans are made for today's TensorFlow; a published run is
// replayed under the rule of the release it ran.
enum class TfReserveRule {
  kByComputeCapability,  // TensorFlow 2.5 and later: the default
  kFivePercent,          // TensorFlow 1.x
  kSixPercent,           // TensorFlow 2.0 - 2.4
  kLargerOfBoth,         // a release that may have either: the larger reserve
};
// gpus.json `segment`: consumer (GeForce), workstation (RTX A/Ada), datacenter.
enum class Segment { kConsumer, kWorkstation, kDatacenter };
std::string_view segment_name(Segment s);

// The three tiers of the configuration guide (docs/guide.md): entry
// (T4, RTX 3060, 4060 Ti), mainstream (RTX 4090, A5000), enterprise (A100,
// H800 with NVLink).
enum class Tier { kEntry, kMainstream, kEnterprise };
std::string_view tier_name(Tier t);

struct GpuCandidate {
  std::string id;                    // gpus.json id: "a100-sxm4-80gb"
  std::string name;                  // "NVIDIA A100 80GB SXM4"
  std::vector<std::string> aliases;  // the names NVML prints for it: "NVIDIA A100-SXM4-80GB"
  std::string architecture;
  uint64_t memory_bytes = 0;  // nominal capacity, binary GiB as marketed
  std::optional<double> memory_bandwidth_gbs;
  // Dense peak TFLOPS; fp16/bf16/tf32 are tensor-core figures with FP32
  // accumulate (the mode mixed precision uses), fp32 is the CUDA-core figure.
  std::optional<double> fp32_tflops;
  std::optional<double> tf32_tflops;
  std::optional<double> fp16_tflops;
  std::optional<double> bf16_tflops;
  std::optional<double> nvlink_gbs;  // total bidirectional per GPU; none = no NVLink
  std::optional<bool> ecc;
  std::optional<double> tdp_watts;
  Segment segment = Segment::kDatacenter;
  std::optional<double> launch_price_usd;  // US MSRP at launch; none for datacenter parts
  std::vector<uint32_t> pci_device_ids;
  std::string confidence;  // gpus.json confidence: high, medium, low
  // The TensorFlow release the plan is for: today's, unless a machine judged
  // has another installed (plan.cpp judge_machine).
  TfReserveRule tf_reserve = TfReserveRule::kByComputeCapability;
};

Tier tier_of(const GpuCandidate& gpu);

}  // namespace tfrig::plan
