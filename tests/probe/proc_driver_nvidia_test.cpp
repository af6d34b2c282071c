// /proc/driver/nvidia parsers and the nvidia_driver probe on every real
// capture in tests/data/proc-driver-nvidia (18 machines, drivers 384-580).
#include <gtest/gtest.h>

#include "gpu_test_support.h"
#include "probe/parse/proc_driver_nvidia.h"
#include "probe/probe.h"
#include "probe/probes.h"

namespace tfrig::probe {
namespace {

struct Machine {
  const char* name;
  const char* version;
  const char* flavor;
  size_t gpus;
  const char* first_model;
};

const Machine kMachines[] = {
    {"Andrewp2__laniusc", "580.173.02", "proprietary", 0, ""},
    {"Bekal-Ramnath-Rao__MasterThesis_HybridCommFramework_FL", "535.288.01", "proprietary", 2, "NVIDIA GeForce RTX 3080"},
    {"Randy-jun__myautoconfig", "550.40.07", "proprietary", 0, ""},
    {"Shaydu__mondrian-macos", "580.126.09", "open", 1, "NVIDIA GeForce RTX 3060"},
    {"Trourest186__Serverless-Computing-Final", "515.65.01", "proprietary", 1, "NVIDIA GeForce RTX 2080 Ti"},
    {"Young768__profiling", "460.56", "proprietary", 8, "Quadro RTX 5000"},
    {"blacksoil__BashCommands", "396.24", "proprietary", 1, "GeForce 840M"},
    {"cbtogu__nvidiabugreport", "430.40", "proprietary", 1, "GeForce GTX 1080 Ti"},
    {"duaneya__tool_man", "440.31", "proprietary", 4, "GeForce RTX 2080 Ti"},
    {"eler__git_examples", "384.59", "proprietary", 4, "GeForce GTX 1080 Ti"},
    {"jkup64__PDCED", "510.60.02", "proprietary", 1, "NVIDIA GeForce RTX 3060 Laptop GPU"},
    {"marwank270__nvidia-bug-report", "510.73.08", "proprietary", 1, "Quadro K2200"},
    {"mikhail99__PaperAntXGradio", "560.35.03", "proprietary", 2, "NVIDIA RTX 6000 Ada Generation"},
    {"paVVin__fileDrop", "515.65.01", "proprietary", 2, "NVIDIA GeForce GT 1030"},
    {"pavana27__Lambda-Bug-report", "535.113.01", "proprietary", 2, "NVIDIA RTX A6000"},
    {"pavana27__rtx-bug-report", "535.113.01", "proprietary", 3, "NVIDIA GeForce RTX 4090"},
    {"sreeragvn__Learning_CNN", "510.85.02", "proprietary", 1, "NVIDIA GeForce GTX 1650 Ti"},
    {"yeahbutstill__fuck-off-lets-back-to-basic", "525.125.06", "proprietary", 1, "NVIDIA GeForce GTX 1650"},
};

// gtest prints parameters with this (instead of their bytes).
void PrintTo(const Machine& v, std::ostream* os) { *os << v.name; }

class EveryMachine : public ::testing::TestWithParam<Machine> {};

TEST_P(EveryMachine, VersionFile) {
  const Machine& m = GetParam();
  auto v = parse::parse_nvidia_version(test::read_data(std::string("proc-driver-nvidia/") + m.name + "/proc/driver/nvidia/version"));
  ASSERT_TRUE(v) << v.error().to_string();
  EXPECT_EQ(v->version, m.version);
  EXPECT_EQ(v->flavor, m.flavor);
  EXPECT_EQ(v->arch, "x86_64");
}

TEST_P(EveryMachine, DriverProbeListsEveryGpuWithItsModel) {
  const Machine& m = GetParam();
  Context ctx{core::SysRoot(test::data_path(std::string("proc-driver-nvidia/") + m.name), {}), {}, std::chrono::milliseconds(5000), {}};
  inventory::Inventory inv;
  auto status = make_nvidia_driver_probe()->run(ctx, inv);
  EXPECT_TRUE(status.problems.empty()) << status.problems.front();
  EXPECT_EQ(inv.driver.loaded, true);  // /proc/driver/nvidia exists only while the module is loaded
  EXPECT_EQ(inv.driver.kernel_module_version, m.version);
  EXPECT_EQ(inv.driver.version, m.version);
  ASSERT_EQ(inv.gpus.size(), m.gpus);
  if (m.gpus > 0) {
    EXPECT_EQ(inv.gpus[0].name, m.first_model);
    EXPECT_EQ(inv.gpus[0].source, "proc");
    EXPECT_TRUE(inv.gpus[0].uuid);
    EXPECT_TRUE(core::SysRoot(ctx.root).exists("proc/driver/nvidia/gpus/" + *inv.gpus[0].pci_bus_id));
  }
  for (size_t i = 0; i < inv.gpus.size(); ++i) EXPECT_EQ(inv.gpus[i].index, static_cast<int>(i));
}

INSTANTIATE_TEST_SUITE_P(ProcDriverNvidia, EveryMachine, ::testing::ValuesIn(kMachines), [](const auto& param_info) {
  std::string n = param_info.param.name;
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
});

TEST(ProcDriverNvidia, GpuInformationFields) {
  auto info = parse::parse_nvidia_gpu_information(
      test::read_data("proc-driver-nvidia/Shaydu__mondrian-macos/proc/driver/nvidia/gpus/0000:01:00.0/information"));
  ASSERT_TRUE(info);
  EXPECT_EQ(info->model, "NVIDIA GeForce RTX 3060");
  EXPECT_EQ(info->uuid, "GPU-e2dde417-2994-4677-bf7d-6b2a943e4928");
  EXPECT_EQ(info->bus_location, "0000:01:00.0");
  EXPECT_EQ(info->device_minor, 0);
  EXPECT_EQ(info->video_bios, "94.06.25.00.63");
  EXPECT_EQ(info->firmware, "580.126.09");
  EXPECT_EQ(info->excluded, false);
  // Drivers before 460 said "Blacklisted:" instead of "GPU Excluded:".
  auto old = parse::parse_nvidia_gpu_information("Model: \t\t GeForce GTX 1080 Ti\nBlacklisted:\t Yes\n");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->excluded, true);
  EXPECT_FALSE(parse::parse_nvidia_gpu_information("garbage\n\n"));
}

TEST(ProcDriverNvidia, VersionErrors) {
  EXPECT_FALSE(parse::parse_nvidia_version(""));
  EXPECT_FALSE(parse::parse_nvidia_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module\n"));
  auto arm = parse::parse_nvidia_version("NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  550.54.14  Release Build\n");
  ASSERT_TRUE(arm);
  EXPECT_EQ(arm->version, "550.54.14");
  EXPECT_EQ(arm->flavor, "open");
  EXPECT_EQ(arm->arch, "aarch64");
}

TEST(ProcDriverNvidia, Modules) {
  auto mods = parse::parse_proc_modules(
      "nvidia_uvm 1523712 0 - Live 0x0000000000000000 (POE)\nnvidia 56827904 13 nvidia_uvm, Live 0x0 (POE)\n\n");
  EXPECT_EQ(mods.size(), 2u);
  EXPECT_EQ(mods.count("nvidia_uvm"), 1u);
  EXPECT_EQ(mods.count("nvidia_drm"), 0u);
}

}  // namespace
}  // namespace tfrig::probe
