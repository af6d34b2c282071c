// `nvidia-smi --query-gpu=... --format=csv` read by doctor --from: the real
// outputs in tests/data/nvidia-smi-csv (provenance/nvidia-smi-csv.md).
#include "importer/nvidia_smi_csv.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/units.h"
#include "importer/importer.h"
#include "test_support.h"

namespace tfrig::importer {
namespace {

std::string csv_file(const std::string& name) { return test::read_file(test::data_dir() + "/nvidia-smi-csv/" + name); }

const char* kH100Mig = "nvidia_gpu_exporter__linux-x86_64__nvidia-h100-mig__590.48.01.query-gpu.load.csv";
const char* kRtx2080 = "nvidia_gpu_exporter__linux-x86_64__nvidia-geforce-rtx-2080-super__610.57.04.query-gpu.load.csv";
const char* kP100 = "netdata__tesla-p100.csv";
const char* kAzure = "azhpc-diagnostics__nvidia-smi-query-gpu.csv";

TEST(NvidiaSmiCsv, EveryRealOutputIsRecognised) {
  for (const char* f : {kH100Mig, kRtx2080, kP100, kAzure,
                        "nvidia_gpu_exporter__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.query-gpu.idle.csv"}) {
    const std::string text = csv_file(f);
    EXPECT_EQ(detect_kind(text), FileKind::kNvidiaSmiCsv) << f;
    auto parsed = parse_nvidia_smi_csv(text);
    ASSERT_TRUE(parsed) << f << ": " << parsed.error().to_string();
    EXPECT_TRUE(parsed->problems.empty()) << f;
  }
}

TEST(NvidiaSmiCsv, AllFieldsOfA590H100WithMig) {
  auto parsed = parse_nvidia_smi_csv(csv_file(kH100Mig));
  ASSERT_TRUE(parsed);
  const auto& smi = parsed->smi;
  EXPECT_EQ(smi.driver_version, "590.48.01");
  EXPECT_EQ(smi.attached_gpus, 1);
  ASSERT_EQ(smi.gpus.size(), 1u);
  const auto& g = smi.gpus[0];
  EXPECT_EQ(g.source, "nvidia-smi-csv");
  EXPECT_EQ(g.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(g.pci_bus_id, "0000:00:09.0");
  EXPECT_EQ(g.pci_device_id, 0x2330u);
  EXPECT_EQ(g.compute_capability, "9.0");
  EXPECT_EQ(g.memory_total_bytes, uint64_t{81559} * core::kMiB);  // "81559 MiB" under "memory.total [MiB]"
  EXPECT_EQ(g.memory_used_bytes, uint64_t{11125} * core::kMiB);
  EXPECT_EQ(g.power_limit_watts, 700.0);
  EXPECT_EQ(g.temperature_celsius, 53);
  EXPECT_EQ(g.clock_sm_mhz, 1980);
  EXPECT_EQ(g.clock_memory_mhz, 2619);
  EXPECT_EQ(g.persistence_mode, true);
  EXPECT_EQ(g.ecc_mode_current, true);
  EXPECT_EQ(g.ecc_errors_uncorrected_volatile, 0u);
  EXPECT_EQ(g.mig_mode_current, true);
  EXPECT_EQ(g.pcie_link_gen_current, 5);
  EXPECT_EQ(g.pcie_link_width_max, 16);
  EXPECT_EQ(g.compute_mode, "default");
  // "[N/A]" is unknown, never 0 or false.
  EXPECT_FALSE(g.retired_pages_count);
  EXPECT_FALSE(g.remapped_rows_failure);
}

TEST(NvidiaSmiCsv, AGeForceWithoutEccHasEveryEccFieldUnknown) {
  auto parsed = parse_nvidia_smi_csv(csv_file(kRtx2080));
  ASSERT_TRUE(parsed);
  const auto& g = parsed->smi.gpus.at(0);
  EXPECT_EQ(g.compute_capability, "7.5");
  EXPECT_EQ(g.persistence_mode, false);
  EXPECT_FALSE(g.ecc_mode_current);
  EXPECT_FALSE(g.ecc_errors_corrected_volatile);
  EXPECT_EQ(g.pcie_link_gen_max, 3);  // pcie.link.gen.max (GPU and slot), not hostmax 4
  EXPECT_EQ(g.clock_sm_max_mhz, 2145);
}

TEST(NvidiaSmiCsv, FewFieldsAndAliasesAsQueried) {
  // netdata's P100: no driver_version, no memory.total column.
  auto p100 = parse_nvidia_smi_csv(csv_file(kP100));
  ASSERT_TRUE(p100);
  EXPECT_FALSE(p100->smi.driver_version);
  const auto& g = p100->smi.gpus.at(0);
  EXPECT_EQ(g.name, "Tesla P100-PCIE-16GB");
  EXPECT_EQ(g.uuid, "GPU-ef1b2c9b-38d8-2090-2bd1-f567a3eb42a6");
  EXPECT_FALSE(g.memory_total_bytes);
  EXPECT_EQ(g.memory_used_bytes, 0u);
  EXPECT_EQ(g.clock_sm_mhz, 405);  // "405" under "clocks.current.sm [MHz]" (the unit in the header only)
  // Azure's mock: four GPUs, the bus id under its alias gpu_bus_id, Hyper-V domains.
  auto azure = parse_nvidia_smi_csv(csv_file(kAzure));
  ASSERT_TRUE(azure);
  ASSERT_EQ(azure->smi.gpus.size(), 4u);
  EXPECT_EQ(azure->smi.gpus[2].pci_bus_id, "000a:00:00.0");
  EXPECT_EQ(azure->smi.gpus[3].index, 3);
  EXPECT_EQ(azure->smi.gpus[0].retired_pages_count, 0u);
  EXPECT_EQ(azure->smi.gpus[0].serial, "0000000000001");
}

TEST(NvidiaSmiCsv, SamplesOfOneGpuAreOneGpuAndBadLinesAreNamed) {
  // The P100 output as `-l 1` prints it: the same GPU again (a later sample,
  // its temperature changed here), and a line cut short.
  std::string text = csv_file(kP100);
  if (text.back() != '\n') text += '\n';
  const std::string first_line = text.substr(text.find('\n') + 1);
  std::string later = first_line;
  later.replace(later.find(", 37, "), 6, ", 41, ");
  text += later + "Tesla P100-PCIE-16GB, GPU-ef1b\n";
  auto parsed = parse_nvidia_smi_csv(text);
  ASSERT_TRUE(parsed);
  ASSERT_EQ(parsed->smi.gpus.size(), 1u);
  EXPECT_EQ(parsed->smi.gpus[0].temperature_celsius, 41);
  ASSERT_EQ(parsed->problems.size(), 1u);
  EXPECT_EQ(core::english(parsed->problems[0]), "line 4: 2 fields, the header has 15");
}

TEST(NvidiaSmiCsv, ManyBadLinesAreCountedNotListed) {
  // The P100 output followed by 30 lines cut short: 20 named, the rest counted.
  std::string text = csv_file(kP100);
  if (text.back() != '\n') text += '\n';
  for (int i = 0; i < 30; ++i) text += "Tesla P100-PCIE-16GB, GPU-ef1b\n";
  auto parsed = parse_nvidia_smi_csv(text);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->bad_line_count, 30u);
  ASSERT_EQ(parsed->problems.size(), NvidiaSmiCsv::kMaxBadLines + 1);
  EXPECT_EQ(core::english(parsed->problems.front()), "line 3: 2 fields, the header has 15");
  EXPECT_EQ(core::english(parsed->problems.back()), "10 more lines with another number of fields than the header");
  EXPECT_EQ(parsed->smi.gpus.size(), 1u);
}

TEST(NvidiaSmiCsv, OtherCsvIsNotAGpuList) {
  EXPECT_FALSE(looks_like_nvidia_smi_csv("a,b\n1,2\n"));
  // --query-compute-apps names GPUs, but each line is a process.
  EXPECT_FALSE(looks_like_nvidia_smi_csv("pid, process_name, gpu_uuid, used_gpu_memory [MiB]\n"
                                         "4242, python, GPU-ef1b2c9b-38d8-2090-2bd1-f567a3eb42a6, 1024 MiB\n"));
  // A header whose values do not follow.
  const std::string header = csv_file(kP100).substr(0, csv_file(kP100).find('\n') + 1);
  EXPECT_FALSE(looks_like_nvidia_smi_csv(header));
  auto alone = parse_nvidia_smi_csv(header);
  ASSERT_FALSE(alone);
  EXPECT_NE(alone.error().to_string().find("no GPU line after the header"), std::string::npos);
  EXPECT_FALSE(parse_nvidia_smi_csv("timestamp, fan.speed [%]\n2026/01/01, 30 %\n"));
}

TEST(NvidiaSmiCsv, DoctorFromJudgesTheGpusItNames) {
  test::RunOptions in_data;
  in_data.cwd = test::data_dir();
  auto r = test::run_tfrig({"doctor", "--from", std::string("nvidia-smi-csv/") + kH100Mig, "--format", "json", "--fail-on", "never"}, in_data);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inventory"]["driver"]["version"], "590.48.01");
  ASSERT_EQ(j["inventory"]["gpus"].size(), 1u);
  EXPECT_EQ(j["inventory"]["gpus"][0]["source"], "nvidia-smi-csv");
  EXPECT_EQ(j["inventory"]["gpus"][0]["mig_mode_current"], true);
  // A -q text of the same machine first: the CSV adds nothing it already has.
  auto both = test::run_tfrig({"doctor", "--from", "nvidia-smi-text/linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt",
                               std::string("nvidia-smi-csv/") + kH100Mig, "--format", "json", "--fail-on", "never"},
                              in_data);
  ASSERT_EQ(both.exit_code, 0) << both.err;
  auto jb = nlohmann::json::parse(both.out);
  ASSERT_EQ(jb["inventory"]["gpus"].size(), 1u);
  EXPECT_EQ(jb["inventory"]["gpus"][0]["source"], "nvidia-smi-q");
}

}  // namespace
}  // namespace tfrig::importer
