// nvidia-smi -q -x import: every real capture in tests/data/nvidia-smi-xml
// (driver 384 to 595, DTD v9 to v13), values checked against the files
// (expected values read from each XML independently of this parser).
#include <gtest/gtest.h>

#include "core/pci_address.h"
#include "core/units.h"
#include "gpu_test_support.h"
#include "probe/parse/nvidia_smi_xml.h"

namespace tfrig::probe::parse {
namespace {

enum Tri { kUnknown, kYes, kNo };

struct Expected {
  const char* file;
  size_t gpus;
  const char* driver;
  const char* cuda;
  const char* name;
  const char* bus_id;  // as the file writes it
  int memory_mib;      // -1 = absent
  int gen_current, gen_max, width_current, width_max;
  Tri persistence;
  Tri ecc;
};

const Expected kFiles[] = {
  {"netdata/a100-sxm4-mig.xml", 1, "510.47.03", "11.6", "NVIDIA A100-SXM4-40GB", "00000000:00:04.0", 40960, 4, 4, 16, 16, kNo, kYes},
  {"netdata/rtx-2080-win.xml", 1, "516.59", "11.7", "NVIDIA GeForce RTX 2080", "00000000:0A:00.0", 8192, 3, 3, 8, 16, kUnknown, kUnknown},
  {"netdata/rtx-3060.xml", 1, "515.65.01", "11.7", "NVIDIA GeForce RTX 3060 Laptop GPU", "00000000:01:00.0", 6144, 1, 4, 8, 16, kNo, kUnknown},
  {"netdata/rtx-4090-driver-535.xml", 1, "535.86.05", "12.2", "NVIDIA GeForce RTX 4090", "00000000:84:00.0", 24564, 1, 3, 16, 16, kYes, kNo},
  {"openpai/nvidia_smi_sample.xml", 2, "384.66", nullptr, "GeForce GTX 1070", "00000000:01:00.0", 8112, 3, 3, 1, 16, kNo, kUnknown},
  {"openpai/nvidia_smi_sample_ecc_unsupported.xml", 2, "410.73", "10.0", "GeForce RTX 2080 Ti", "00000000:02:00.0", 10989, 1, 3, 16, 16, kNo, kUnknown},
  {"telegraf/3090-v13.xml", 1, "590.44.01", "13.1", "NVIDIA GeForce RTX 3090", "00000000:09:00.0", 24576, 1, 4, 16, 16, kYes, kUnknown},
  {"telegraf/a100-sxm4-v12.xml", 1, "535.54.03", "12.2", "NVIDIA A100-SXM4-80GB", "00000000:01:00.0", 81920, 4, 4, 16, 16, kNo, kYes},
  {"telegraf/a10g.xml", 1, "515.105.01", "11.7", "NVIDIA A10G", "00000000:00:1E.0", 23028, 1, 4, 8, 16, kNo, kYes},
  {"telegraf/dual_2070-v13.xml", 2, "590.44.01", "13.1", "NVIDIA GeForce RTX 2070", "00000000:01:00.0", 8192, 1, 3, 8, 16, kYes, kUnknown},
  {"telegraf/dual_2080-v13.xml", 2, "590.44.01", "13.1", "NVIDIA GeForce RTX 2080", "00000000:01:00.0", 8192, 1, 3, 8, 16, kYes, kUnknown},
  {"telegraf/gt-1030.xml", 1, "470.74", "11.4", "NVIDIA GeForce GT 1030", "00000000:2D:00.0", 1998, 3, 3, 4, 4, kNo, kUnknown},
  {"telegraf/gtx-1070-ti.xml", 1, nullptr, nullptr, "GeForce GTX 1070 Ti", "00000000:01:00.0", 4096, 1, -1, 16, -1, kUnknown, kUnknown},
  {"telegraf/quadro-p400.xml", 1, "418.43", "10.1", "Quadro P400", "00000000:43:00.0", 1998, 1, 3, 16, 16, kNo, kUnknown},
  {"telegraf/rtx-3060-v12.xml", 1, "570.124.04", "12.8", "NVIDIA GeForce RTX 3060", "00000000:2D:00.0", 12288, 1, 4, 16, 16, kYes, kUnknown},
  {"telegraf/rtx-3080-v12.xml", 1, "536.40", "12.2", "NVIDIA GeForce RTX 3080", "00000000:04:00.0", 10240, 4, 4, 16, 16, kUnknown, kUnknown},
  {"telegraf/rtx-3080-v13.xml", 1, "595.58.03", "13.2", "NVIDIA GeForce RTX 3080", "00000000:0C:00.0", 10240, 4, 4, 16, 16, kNo, kUnknown},
  {"telegraf/rtx-3090-v12.xml", 1, "525.147.05", "12.0", "NVIDIA GeForce RTX 3090", "00000000:00:10.0", 24576, 1, 4, 16, 16, kYes, kUnknown},
  {"telegraf/rtx-4000-sff-ada-v13.xml", 1, "595.84", "13.2", "NVIDIA RTX 4000 SFF Ada Generation", "00000000:06:00.0", 20475, 1, 4, 16, 16, kYes, kNo},
  {"telegraf/tesla-t4.xml", 1, "515.105.01", "11.7", "Tesla T4", "00000000:00:1E.0", 15360, 3, 3, 8, 16, kNo, kYes},
  {"telegraf/tesla_t4-win-512.78.xml", 1, "512.78", "11.6", "Tesla T4", "00000000:01:00.0", 15360, 3, 3, 16, 16, kUnknown, kYes},
};

std::optional<bool> tri(Tri t) {
  if (t == kUnknown) return std::nullopt;
  return t == kYes;
}

std::optional<int> opt(int v) {
  if (v < 0) return std::nullopt;
  return v;
}

// gtest prints parameters with this (instead of their bytes).
void PrintTo(const Expected& v, std::ostream* os) { *os << v.file; }

class EveryCapture : public ::testing::TestWithParam<Expected> {};

TEST_P(EveryCapture, MatchesTheFile) {
  const Expected& e = GetParam();
  auto parsed = parse_nvidia_smi_xml(test::read_data(std::string("nvidia-smi-xml/") + e.file));
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  ASSERT_EQ(parsed->gpus.size(), e.gpus);
  EXPECT_EQ(parsed->driver_version, e.driver ? std::optional<std::string>(e.driver) : std::nullopt);
  EXPECT_EQ(parsed->cuda_version, e.cuda ? std::optional<std::string>(e.cuda) : std::nullopt);
  const auto& g = parsed->gpus[0];
  EXPECT_EQ(g.index, 0);
  EXPECT_EQ(g.source, "nvidia-smi-xml");
  EXPECT_EQ(g.name, std::optional<std::string>(e.name));
  EXPECT_EQ(g.pci_bus_id, core::normalize_pci_bus_id(e.bus_id));
  if (e.memory_mib >= 0) {
    EXPECT_EQ(g.memory_total_bytes, static_cast<uint64_t>(e.memory_mib) * core::kMiB);
  } else {
    EXPECT_FALSE(g.memory_total_bytes);
  }
  EXPECT_EQ(g.pcie_link_gen_current, opt(e.gen_current));
  EXPECT_EQ(g.pcie_link_gen_max, opt(e.gen_max));
  EXPECT_EQ(g.pcie_link_width_current, opt(e.width_current));
  EXPECT_EQ(g.pcie_link_width_max, opt(e.width_max));
  EXPECT_EQ(g.persistence_mode, tri(e.persistence));
  EXPECT_EQ(g.ecc_mode_current, tri(e.ecc));
  // nvidia-smi's XML never carries the compute capability: null, not guessed.
  EXPECT_FALSE(g.compute_capability);
  for (size_t i = 0; i < parsed->gpus.size(); ++i) EXPECT_EQ(parsed->gpus[i].index, static_cast<int>(i));
}

INSTANTIATE_TEST_SUITE_P(NvidiaSmiXml, EveryCapture, ::testing::ValuesIn(kFiles), [](const auto& param_info) {
  std::string n = param_info.param.file;
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
});

TEST(NvidiaSmiXml, A100MigV11Details) {
  auto x = parse_nvidia_smi_xml(test::read_data("nvidia-smi-xml/netdata/a100-sxm4-mig.xml"));
  ASSERT_TRUE(x);
  const auto& g = x->gpus[0];
  EXPECT_EQ(x->dtd, "nvsmi_device_v11.dtd");
  EXPECT_EQ(g.architecture, "Ampere");
  EXPECT_EQ(g.mig_mode_current, true);
  EXPECT_EQ(g.serial, "1324321002473");
  EXPECT_EQ(g.power_limit_watts, 400.0);  // <power_readings><power_limit> (DTD <= v11)
  EXPECT_EQ(g.pci_bus_id, "0000:00:04.0");
  EXPECT_EQ(g.pci_device_id, 0x20b0u);
  EXPECT_EQ(g.process_count, 0);
}

TEST(NvidiaSmiXml, V12PowerRemappedRowsAndEcc) {
  auto x = parse_nvidia_smi_xml(test::read_data("nvidia-smi-xml/netdata/rtx-4090-driver-535.xml"));
  ASSERT_TRUE(x);
  const auto& g = x->gpus[0];
  EXPECT_EQ(g.architecture, "Ada Lovelace");
  EXPECT_EQ(g.remapped_rows_correctable, 0u);
  EXPECT_EQ(g.remapped_rows_uncorrectable, 0u);
  EXPECT_EQ(g.remapped_rows_pending, false);
  EXPECT_EQ(g.remapped_rows_failure, false);
  EXPECT_TRUE(g.power_limit_watts);
  auto a100 = parse_nvidia_smi_xml(test::read_data("nvidia-smi-xml/telegraf/a100-sxm4-v12.xml"));
  ASSERT_TRUE(a100);
  EXPECT_EQ(a100->gpus[0].power_limit_watts, 500.0);  // <gpu_power_readings><current_power_limit>
  EXPECT_EQ(a100->gpus[0].ecc_errors_uncorrected_volatile, 0u);
  EXPECT_EQ(a100->gpus[0].ecc_errors_uncorrected_aggregate, 0u);
  EXPECT_FALSE(a100->gpus[0].remapped_rows_correctable);  // <remapped_rows>N/A</remapped_rows>
  EXPECT_EQ(a100->attached_gpus, 4);  // trimmed upstream: one <gpu> kept
}

TEST(NvidiaSmiXml, OldestDtdProcessesAndMissingCuda) {
  auto x = parse_nvidia_smi_xml(test::read_data("nvidia-smi-xml/openpai/nvidia_smi_sample.xml"));
  ASSERT_TRUE(x);
  EXPECT_EQ(x->dtd, "nvsmi_device_v9.dtd");
  EXPECT_FALSE(x->cuda_version);  // driver 384 did not print it
  EXPECT_EQ(x->attached_gpus, 6);
  EXPECT_EQ(x->gpus[0].process_count, 3);
  EXPECT_FALSE(x->gpus[0].architecture);  // no <product_architecture> before DTD v11
  EXPECT_FALSE(x->gpus[0].ecc_errors_corrected_volatile);  // all N/A
}

TEST(NvidiaSmiXml, ApplyToInventory) {
  auto x = parse_nvidia_smi_xml(test::read_data("nvidia-smi-xml/telegraf/dual_2080-v13.xml"));
  ASSERT_TRUE(x);
  inventory::Inventory inv;
  apply_nvidia_smi_xml(*x, "dual.xml", inv);
  EXPECT_EQ(inv.gpus.size(), 2u);
  EXPECT_EQ(inv.driver.version, "590.44.01");
  EXPECT_EQ(inv.driver.cuda_version, "13.1");
  EXPECT_EQ(inv.driver.loaded, true);
  EXPECT_EQ(inv.driver.nvml.state, "ok");
}

TEST(NvidiaSmiXml, RejectsWhatIsNotNvidiaSmi) {
  EXPECT_FALSE(parse_nvidia_smi_xml(""));
  EXPECT_FALSE(parse_nvidia_smi_xml("<nvidia_smi_log><gpu>"));
  EXPECT_FALSE(parse_nvidia_smi_xml("<?xml version=\"1.0\"?><other/>"));
  auto empty = parse_nvidia_smi_xml("<nvidia_smi_log><driver_version>550.54.14</driver_version></nvidia_smi_log>");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->gpus.empty());
  EXPECT_EQ(empty->driver_version, "550.54.14");
}

TEST(NvidiaSmiXml, PlaceholdersAreNull) {
  auto x = parse_nvidia_smi_xml(
      "<nvidia_smi_log><gpu id=\"00000000:3B:00.0\"><product_name>[N/A]</product_name><serial>N/A</serial>"
      "<fb_memory_usage><total>Not Supported</total></fb_memory_usage><temperature><gpu_temp>abc C</gpu_temp>"
      "</temperature></gpu></nvidia_smi_log>");
  ASSERT_TRUE(x);
  ASSERT_EQ(x->gpus.size(), 1u);
  const auto& g = x->gpus[0];
  EXPECT_FALSE(g.name);
  EXPECT_FALSE(g.serial);
  EXPECT_FALSE(g.memory_total_bytes);
  EXPECT_FALSE(g.temperature_celsius);
  EXPECT_EQ(g.pci_bus_id, "0000:3b:00.0");  // from the id attribute
  EXPECT_FALSE(g.process_count);            // no <processes>: unknown, not 0
}

}  // namespace
}  // namespace tfrig::probe::parse
