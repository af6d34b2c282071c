// plan_gpus_from_catalog(): the planner's only view of the GPU catalog.
//
// Maps the knowledge base's GPU catalog (knowledge::GpuSpec, built from
// data/reference/gpus.yaml with each row's sources) to planning
// candidates. gpus.yaml conventions apply: tensor TFLOPS dense with FP32
// accumulate, bandwidth in decimal GB/s, launch price US MSRP or none.
#include "plan/catalog_adapter.h"

#include <optional>
#include <string_view>

#include "core/text.h"
#include "core/units.h"
#include "knowledge/knowledge.h"

namespace tfrig::plan {

std::string_view segment_name(Segment s) {
  switch (s) {
    case Segment::kConsumer: return "consumer";
    case Segment::kWorkstation: return "workstation";
    case Segment::kDatacenter: return "datacenter";
  }
  return "datacenter";
}

std::string_view tier_name(Tier t) {
  switch (t) {
    case Tier::kEntry: return "entry";
    case Tier::kMainstream: return "mainstream";
    case Tier::kEnterprise: return "enterprise";
  }
  return "entry";
}

Tier tier_of(const GpuCandidate& gpu) {
  // The configuration guide's examples fix the boundaries: its entry cards have 12-16 GB
  // (T4, RTX 3060, 4060 Ti), mainstream 24 GB (RTX 4090, A5000), enterprise
  // 40 GB and more (A100 40/80 GB, H800).
  const uint64_t gib = gpu.memory_bytes / core::kGiB;
  if (gib >= 40) return Tier::kEnterprise;
  if (gib >= 20) return Tier::kMainstream;
  return Tier::kEntry;
}

std::vector<GpuCandidate> plan_gpus_from_catalog(const knowledge::Knowledge& knowledge) {
  std::vector<GpuCandidate> out;
  for (const knowledge::GpuSpec& spec : knowledge.gpus()) {
    if (!spec.vram_gib) continue;  // a catalog row without capacity cannot be planned
    GpuCandidate g;
    g.id = spec.id;
    g.name = spec.name;
    g.architecture = spec.architecture;
    g.memory_bytes = static_cast<uint64_t>(*spec.vram_gib * static_cast<double>(core::kGiB));
    g.memory_bandwidth_gbs = spec.memory_bandwidth_gbs;
    g.fp32_tflops = spec.fp32_tflops;
    g.tf32_tflops = spec.tf32_tensor_tflops_dense;
    g.fp16_tflops = spec.fp16_tensor_tflops_dense;
    g.bf16_tflops = spec.bf16_tensor_tflops_dense;
    // gpus.json: nvlink.total_gbs is null where the part has no NVLink.
    if (spec.nvlink_supported.value_or(false)) g.nvlink_gbs = spec.nvlink_total_gbs;
    g.ecc = spec.ecc;
    g.tdp_watts = spec.tdp_w;
    g.segment = spec.segment == "consumer"      ? Segment::kConsumer
                : spec.segment == "workstation" ? Segment::kWorkstation
                                                : Segment::kDatacenter;
    g.launch_price_usd = spec.launch_price_usd;
    g.pci_device_ids = spec.pci_device_ids;
    g.aliases = spec.aliases;
    g.confidence = spec.confidence;
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<GpuCandidate> plan_gpus_from_catalog() {
  auto knowledge = knowledge::load("");
  if (!knowledge) return {};
  return plan_gpus_from_catalog(*knowledge);
}

}  // namespace tfrig::plan
