// The GPU-stack sections survive a snapshot: probe a fixture root, write the
// report as JSON, read it back, and get the same document (the contract
// fields of docs/cli.md included, null for unknown).
#include <gtest/gtest.h>

#include "gpu_test_support.h"
#include "probe/probe.h"
#include "probe/probes.h"
#include "verdict/report.h"

namespace tfrig {
namespace {

TEST(StackSnapshot, RoundTripAndContractKeys) {
  probe::Context ctx{core::SysRoot(test::data_path("roots/stack-cuda12"),
                                   {{"HOME", "/home/ml"}, {"VIRTUAL_ENV", "/home/ml/venvs/tf216"}}),
                     {}, std::chrono::milliseconds(5000), {}};
  auto run = probe::run_probes(ctx, {probe::make_nvidia_driver_probe(), probe::make_nvml_probe(),
                                     probe::make_cuda_libs_probe(), probe::make_python_probe(),
                                     probe::make_container_probe()});
  report::Report r;
  r.tool_version = "test";
  r.source = "live";
  r.root = ctx.root.root();
  r.inventory = std::move(run.inventory);
  r.probes = std::move(run.statuses);
  const nlohmann::json j = report::to_json(r);
  auto back = report::report_from_json(j);
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(report::to_json(*back), j);

  const auto& inv = j["inventory"];
  const auto& gpu = inv["gpus"][0];
  for (const char* key : {"index", "name", "uuid", "pci_bus_id", "memory_total_bytes", "compute_capability",
                          "pcie_link_gen_current", "pcie_link_gen_max", "pcie_link_width_current",
                          "pcie_link_width_max", "persistence_mode", "ecc_mode_current"}) {
    EXPECT_TRUE(gpu.contains(key)) << key;
  }
  EXPECT_TRUE(gpu["compute_capability"].is_null());  // no NVML on a captured root: unknown
  for (const char* key : {"version", "cuda_version", "loaded"}) EXPECT_TRUE(inv["driver"].contains(key)) << key;
  EXPECT_EQ(inv["driver"]["version"], "535.113.01");
  const auto& lib = inv["cuda"]["libraries"][0];
  for (const char* key : {"family", "soname", "path", "version", "found_via"}) EXPECT_TRUE(lib.contains(key)) << key;
  bool tf_seen = false;
  for (const auto& e : inv["python"]["environments"]) {
    for (const char* key : {"prefix", "python_version", "tensorflow"}) EXPECT_TRUE(e.contains(key)) << key;
    if (!e["tensorflow"].is_null()) {
      tf_seen = true;
      for (const char* key : {"distribution", "version", "built_cuda", "built_cudnn"}) {
        EXPECT_TRUE(e["tensorflow"].contains(key)) << key;
      }
    }
  }
  EXPECT_TRUE(tf_seen);
}

}  // namespace
}  // namespace tfrig
