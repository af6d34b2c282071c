// The catalog's expectation for bench results, on GPUs taken from real
// nvidia-smi -q -x captures (tests/data/nvidia-smi-xml, provenance there).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "bench/expectation.h"
#include "bench/runner.h"
#include "knowledge/pcie.h"
#include "probe/parse/nvidia_smi_xml.h"
#include "test_support.h"

namespace tfrig::bench {
namespace {

inventory::Inventory inventory_from(const std::string& capture) {
  const std::string file = tfrig::test::data_dir() + "/nvidia-smi-xml/" + capture;
  auto xml = probe::parse::parse_nvidia_smi_xml(tfrig::test::read_file(file));
  EXPECT_TRUE(xml) << capture;
  inventory::Inventory inv;
  if (xml) probe::parse::apply_nvidia_smi_xml(*xml, file, inv);
  return inv;
}

Measurement ok(std::string id, std::string metric, double median, nlohmann::json params) {
  Measurement m;
  m.id = std::move(id);
  m.metric = std::move(metric);
  m.median = median;
  m.params = std::move(params);
  return m;
}

TEST(PcieLinkRate, EncodingsPerGeneration) {
  // Gen 1: 2.5 GT/s x 8/10 / 8 = 250 MB/s per lane; Gen 3: 8 GT/s x 128/130 / 8.
  EXPECT_DOUBLE_EQ(*knowledge::pcie_link_bytes_per_second(1, 1), 250e6);
  EXPECT_NEAR(*knowledge::pcie_link_bytes_per_second(3, 16) / 1e9, 15.754, 0.001);
  EXPECT_NEAR(*knowledge::pcie_link_bytes_per_second(4, 16) / 1e9, 31.508, 0.001);
  EXPECT_NEAR(*knowledge::pcie_link_bytes_per_second(5, 16) / 1e9, 63.015, 0.001);
  EXPECT_FALSE(knowledge::pcie_link_bytes_per_second(0, 16));
  EXPECT_FALSE(knowledge::pcie_link_bytes_per_second(7, 16));
  EXPECT_FALSE(knowledge::pcie_link_bytes_per_second(4, 0));
  EXPECT_FALSE(knowledge::pcie_link_bytes_per_second(4, 64));
}

TEST(BenchExpectation, GemmAgainstTheCatalogPeak) {
  const inventory::Inventory inv = inventory_from("telegraf/a100-sxm4-v12.xml");
  ASSERT_EQ(inv.gpus.size(), 1u);
  const auto& k = knowledge::builtin();
  const auto spec = k.find_gpu(*inv.gpus[0].name);
  ASSERT_TRUE(spec && spec->spec);
  ASSERT_TRUE(spec->spec->bf16_tensor_tflops_dense);
  const Measurement bf16 = ok("gemm", "bf16", 250, {{"gpu", *inv.gpus[0].name}});
  const auto e = expectation_for(bf16, inv, k);
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->value, *spec->spec->bf16_tensor_tflops_dense);
  EXPECT_NE(core::english(e->basis).find("bf16"), std::string::npos) << core::english(e->basis);
  EXPECT_FALSE(core::english(e->source).empty());
  // A GPU the catalog does not know gives no expectation, not a guess.
  EXPECT_FALSE(expectation_for(ok("gemm", "bf16", 1, {{"gpu", "NVIDIA Imaginary 9000"}}), inv, k));
}

TEST(BenchExpectation, PcieFromTheInventoryLink) {
  const inventory::Inventory inv = inventory_from("telegraf/a100-sxm4-v12.xml");
  ASSERT_EQ(inv.gpus.size(), 1u);
  ASSERT_EQ(inv.gpus[0].pcie_link_gen_max, 4);
  ASSERT_EQ(inv.gpus[0].pcie_link_width_current, 16);
  // CUDA writes the bus id with a 4-digit domain in upper case; NVML with 8.
  const auto e = expectation_for(ok("pcie", "h2d_pinned", 24.5, {{"pci_bus_id", "0000:01:00.0"}}), inv,
                                 knowledge::builtin());
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->value, 31.508, 0.001);
  EXPECT_NE(core::english(e->basis).find("Gen 4 x16"), std::string::npos) << core::english(e->basis);
}

TEST(BenchExpectation, NoneForMemoryStorageOrSkipped) {
  const inventory::Inventory inv = inventory_from("telegraf/a100-sxm4-v12.xml");
  const auto& k = knowledge::builtin();
  EXPECT_FALSE(expectation_for(ok("memory", "triad_1_thread", 12, nlohmann::json::object()), inv, k));
  EXPECT_FALSE(expectation_for(ok("storage", "rand4k_qd1", 3000, nlohmann::json::object()), inv, k));
  Measurement skipped = ok("gemm", "bf16", 0, {{"gpu", *inv.gpus[0].name}});
  skipped.status = Status::kSkipped;
  EXPECT_FALSE(expectation_for(skipped, inv, k));
}

TEST(BenchExpectation, JsonAndTableShowTheShare) {
  const inventory::Inventory inv = inventory_from("telegraf/a100-sxm4-v12.xml");
  BenchReport report;
  report.results.push_back(ok("gemm", "bf16", 156, {{"gpu", *inv.gpus[0].name}}));
  report.results.push_back(ok("memory", "triad_1_thread", 12, nlohmann::json::object()));
  add_expectations(report.results, inv, knowledge::builtin());
  const nlohmann::json j = to_json(report, "en");
  ASSERT_TRUE(j["results"][0].contains("expected"));
  EXPECT_NEAR(j["results"][0]["expected"]["ratio"].get<double>(), 156 / report.results[0].expected->value, 1e-9);
  EXPECT_FALSE(j["results"][1].contains("expected"));
  const std::string text = render_text(report, "en");
  EXPECT_NE(text.find("of expected"), std::string::npos) << text;
  EXPECT_NE(text.find(fmt::format("{:.0f}%", 156 / report.results[0].expected->value * 100)), std::string::npos) << text;
}

}  // namespace
}  // namespace tfrig::bench
