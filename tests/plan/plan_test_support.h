// Fixtures for the planner's tests: a small GPU table built from
// data/reference/gpus.yaml (the values of the ids named, with that
// file's sources), so the tests do not depend on the catalog adapter.
#pragma once

#include <string>
#include <vector>

#include "core/units.h"
#include "plan/gpu_candidate.h"
#include "plan/model_catalog.h"

namespace tfrig::plan::test {

inline GpuCandidate gpu(const char* id, const char* name, double gib, double bw, double fp32, double tf32, double fp16, double bf16, double tdp,
                        Segment seg, double price, double nvlink = 0) {
  GpuCandidate g;
  g.id = id;
  g.name = name;
  g.memory_bytes = static_cast<uint64_t>(gib * static_cast<double>(core::kGiB));
  g.memory_bandwidth_gbs = bw;
  g.fp32_tflops = fp32;
  if (tf32 > 0) g.tf32_tflops = tf32;
  if (fp16 > 0) g.fp16_tflops = fp16;
  if (bf16 > 0) g.bf16_tflops = bf16;
  g.tdp_watts = tdp;
  g.segment = seg;
  if (price > 0) g.launch_price_usd = price;
  if (nvlink > 0) g.nvlink_gbs = nvlink;
  g.ecc = seg != Segment::kConsumer;
  return g;
}

// gpus.json ids tesla-t4, rtx-3060-12gb, rtx-4090, rtx-a5000, tesla-v100-sxm2-16gb,
// a100-sxm4-40gb, a100-sxm4-80gb, h100-sxm5 (memory GiB, bandwidth GB/s, dense TFLOPS fp32, tf32,
// fp16, bf16, TDP W, segment, launch price USD, NVLink GB/s).
inline std::vector<GpuCandidate> fixture_gpus() {
  std::vector<GpuCandidate> gpus{
      gpu("tesla-t4", "NVIDIA Tesla T4", 16, 320, 8.1, 0, 65, 0, 70, Segment::kDatacenter, 0),
      gpu("rtx-3060-12gb", "NVIDIA GeForce RTX 3060 12GB", 12, 360, 12.74, 12.7, 25.5, 25.5, 170, Segment::kConsumer, 329),
      gpu("rtx-4090", "NVIDIA GeForce RTX 4090", 24, 1008, 82.6, 82.6, 165.2, 165.2, 450, Segment::kConsumer, 1599),
      gpu("rtx-a5000", "NVIDIA RTX A5000", 24, 768, 27.8, 56, 111, 111, 230, Segment::kWorkstation, 0, 112.5),
      gpu("tesla-v100-sxm2-16gb", "NVIDIA Tesla V100 SXM2 16GB", 16, 900, 15.7, 0, 125, 0, 300, Segment::kDatacenter, 0, 300),
      gpu("a100-sxm4-40gb", "NVIDIA A100 40GB SXM4", 40, 1555, 19.5, 156, 312, 312, 400, Segment::kDatacenter, 0, 600),
      gpu("a100-sxm4-80gb", "NVIDIA A100 80GB SXM4", 80, 2039, 19.5, 156, 312, 312, 400, Segment::kDatacenter, 0, 600),
      gpu("h100-sxm5", "NVIDIA H100 SXM5 80GB", 80, 3350, 67, 494.7, 989.4, 989.4, 700, Segment::kDatacenter, 0, 900),
  };
  gpus[2].pci_device_ids = {0x2684};  // gpus.json rtx-4090 pci_device_ids
  return gpus;
}

inline const GpuCandidate& fixture(const std::vector<GpuCandidate>& gpus, const std::string& id) {
  for (const GpuCandidate& g : gpus) {
    if (g.id == id) return g;
  }
  return gpus.front();
}

inline Workload model_workload(const std::string& id, Precision p, uint64_t batch, Optimizer o = Optimizer::kAdam) {
  const CatalogModel* m = find_model(id);
  Workload w = *catalog_workload(*m, 0, 0);
  w.precision = p;
  w.batch = batch;
  w.optimizer = o;
  return w;
}

}  // namespace tfrig::plan::test
