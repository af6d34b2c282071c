// The NVML probe through the real dlopen path, against the fake NVML
// (tests/fake_nvml) replaying captures converted from real nvidia-smi XML,
// and every failure mode: library absent, symbol absent, init errors.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "gpu_test_support.h"
#include "gpulib/nvml.h"
#include "probe/probe.h"
#include "probe/probes.h"
#include "test_support.h"

namespace tfrig::probe {
namespace {

class NvmlProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("TFRIG_FAKE_NVML_INIT_RC");
    ::unsetenv("TFRIG_FAKE_NVML_INIT_MS");
    capture("a100-sxm4-v12.json");
  }
  void TearDown() override {
    ::unsetenv("TFRIG_FAKE_NVML_INIT_RC");
    ::unsetenv("TFRIG_FAKE_NVML_INIT_MS");
    ::unsetenv("TFRIG_FAKE_NVML_CAPTURE");
  }
  static void capture(const std::string& name) {
    ::setenv("TFRIG_FAKE_NVML_CAPTURE", test::data_path("fake-nvml/" + name).c_str(), 1);
  }
  // A captured root (so nothing of this machine leaks in) with the library override.
  static Context context(const std::string& library) {
    return Context{core::SysRoot(test::data_path("roots/stack-nodriver"), {{"TFRIG_NVML_LIBRARY", library}}), {},
                   std::chrono::milliseconds(5000), {}};
  }
  static ProbeStatus run(const std::string& library, inventory::Inventory& inv) {
    return make_nvml_probe()->run(context(library), inv);
  }
};

TEST_F(NvmlProbeTest, A100EveryField) {
  inventory::Inventory inv;
  auto status = run(TFRIG_FAKE_NVML, inv);
  ASSERT_EQ(status.state, State::kOk) << status.detail;
  EXPECT_TRUE(status.problems.empty()) << status.problems.front();
  const auto& d = inv.driver;
  EXPECT_EQ(d.nvml.state, "ok");
  EXPECT_EQ(d.nvml.library_path, TFRIG_FAKE_NVML);
  ASSERT_TRUE(d.nvml.init_seconds);
  EXPECT_EQ(d.version, "535.54.03");
  EXPECT_EQ(d.cuda_version, "12.2");
  EXPECT_EQ(d.nvml_version, "12.535.54.03");
  EXPECT_EQ(d.loaded, true);
  ASSERT_EQ(inv.gpus.size(), 1u);
  const auto& g = inv.gpus[0];
  // Values of telegraf/a100-sxm4-v12.xml, through the C ABI and back.
  EXPECT_EQ(g.source, "nvml");
  EXPECT_EQ(g.name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(g.serial, "1650522003820");
  EXPECT_EQ(g.pci_bus_id, "0000:01:00.0");
  EXPECT_EQ(g.pci_device_id, 0x20b2u);
  EXPECT_EQ(g.architecture, "Ampere");
  EXPECT_EQ(g.compute_capability, "8.0");
  EXPECT_EQ(g.memory_total_bytes, 81920ull << 20);
  EXPECT_EQ(g.power_limit_watts, 500.0);
  EXPECT_EQ(g.persistence_mode, false);
  EXPECT_EQ(g.ecc_mode_current, true);
  EXPECT_EQ(g.ecc_mode_pending, true);
  EXPECT_EQ(g.ecc_errors_uncorrected_aggregate, 0u);
  EXPECT_FALSE(g.remapped_rows_correctable);  // N/A in the capture: NOT_SUPPORTED, unknown
  EXPECT_EQ(g.mig_mode_current, true);  // <current_mig>Enabled</current_mig>
  EXPECT_EQ(g.pcie_link_gen_current, 4);
  EXPECT_EQ(g.pcie_link_gen_max, 4);
  EXPECT_EQ(g.pcie_link_width_current, 16);
  EXPECT_EQ(g.numa_node, 0);
  EXPECT_EQ(g.cpu_affinity.size(), 32u);
  EXPECT_EQ(g.compute_mode, "default");
  EXPECT_EQ(g.process_count, 0);
  ASSERT_EQ(g.nvlinks.size(), 12u);
  EXPECT_EQ(g.nvlinks[11].active, true);
  EXPECT_EQ(g.nvlinks[11].remote_kind, "switch");
  EXPECT_EQ(g.nvlinks[11].version, 3);
  EXPECT_EQ(g.nvlinks[0].remote_pci_bus_id, "0000:c6:00.0");
  EXPECT_TRUE(inv.gpu_topology.empty());
}

TEST_F(NvmlProbeTest, TwoGpusTopologyAndProcesses) {
  capture("dual-2070-v13.json");
  inventory::Inventory inv;
  auto status = run(TFRIG_FAKE_NVML, inv);
  ASSERT_EQ(status.state, State::kOk) << status.detail;
  ASSERT_EQ(inv.gpus.size(), 2u);
  EXPECT_EQ(inv.gpus[1].index, 1);
  EXPECT_EQ(inv.gpus[1].pci_bus_id, "0000:02:00.0");
  EXPECT_EQ(inv.gpus[0].compute_capability, "7.5");
  EXPECT_EQ(inv.gpus[0].pcie_link_gen_current, 1);
  EXPECT_EQ(inv.gpus[0].pcie_link_gen_max, 3);
  EXPECT_TRUE(inv.gpus[0].nvlinks.empty());
  ASSERT_EQ(inv.gpu_topology.size(), 1u);
  EXPECT_EQ(inv.gpu_topology[0].level, "host_bridge");
  EXPECT_EQ(inv.gpu_topology[0].p2p_read, false);
  EXPECT_FALSE(inv.gpu_topology[0].nvlink);  // no NVLink state at all: unknown
  EXPECT_EQ(inv.driver.cuda_version, "13.1");
}

TEST_F(NvmlProbeTest, LegacyEntryPointsStillWork) {
  inventory::Inventory inv;
  auto status = run(TFRIG_FAKE_NVML_LEGACY, inv);
  ASSERT_EQ(status.state, State::kOk) << status.detail;
  ASSERT_EQ(inv.gpus.size(), 1u);
  // nvmlInit, nvmlDeviceGetCount, nvmlDeviceGetHandleByIndex, nvmlDeviceGetPciInfo (v1)...
  EXPECT_EQ(inv.gpus[0].pci_bus_id, "0000:01:00.0");
  EXPECT_EQ(inv.gpus[0].memory_total_bytes, 81920ull << 20);  // nvmlDeviceGetMemoryInfo (v1)
  EXPECT_EQ(inv.driver.cuda_version, "12.2");                 // nvmlSystemGetCudaDriverVersion (v1)
  // ...and what old drivers lack stays unknown.
  EXPECT_FALSE(inv.gpus[0].architecture);
  EXPECT_FALSE(inv.gpus[0].compute_capability);
  EXPECT_FALSE(inv.gpus[0].numa_node);
}

TEST_F(NvmlProbeTest, RequiredSymbolMissing) {
  inventory::Inventory inv;
  auto status = run(TFRIG_FAKE_NVML_NOCOUNT, inv);
  EXPECT_EQ(status.state, State::kError);
  EXPECT_EQ(inv.driver.nvml.state, "symbol_missing");
  EXPECT_NE(inv.driver.nvml.detail.find("nvmlDeviceGetCount"), std::string::npos) << inv.driver.nvml.detail;
  EXPECT_TRUE(inv.gpus.empty());
}

TEST_F(NvmlProbeTest, LibraryMissing) {
  inventory::Inventory inv;
  auto status = run(test::data_path("no-such-libnvidia-ml.so.1"), inv);
  EXPECT_EQ(status.state, State::kAbsent);
  EXPECT_EQ(inv.driver.nvml.state, "library_missing");
  EXPECT_NE(inv.driver.nvml.detail.find("no-such-libnvidia-ml.so.1"), std::string::npos);
  // A file that is not a shared object is "missing" too, with dlopen's reason.
  inventory::Inventory inv2;
  run(test::data_path("fake-nvml/README.md"), inv2);
  EXPECT_EQ(inv2.driver.nvml.state, "library_missing");
}

struct InitCase {
  int rc;
  const char* state;
  State probe_state;
};

class NvmlInitErrors : public NvmlProbeTest, public ::testing::WithParamInterface<InitCase> {};

TEST_P(NvmlInitErrors, EachInitErrorIsNamed) {
  const InitCase& c = GetParam();
  ::setenv("TFRIG_FAKE_NVML_INIT_RC", std::to_string(c.rc).c_str(), 1);
  inventory::Inventory inv;
  auto status = run(TFRIG_FAKE_NVML, inv);
  EXPECT_EQ(status.state, c.probe_state);
  EXPECT_EQ(inv.driver.nvml.state, c.state);
  EXPECT_NE(inv.driver.nvml.detail.find(gpulib::return_code_name(c.rc)), std::string::npos) << inv.driver.nvml.detail;
  EXPECT_TRUE(inv.gpus.empty());
}

INSTANTIATE_TEST_SUITE_P(Nvml, NvmlInitErrors,
                         ::testing::Values(InitCase{18, "driver_mismatch", State::kError},
                                           InitCase{4, "no_permission", State::kError},
                                           InitCase{9, "driver_not_loaded", State::kError},
                                           InitCase{28, "no_device", State::kError},
                                           InitCase{999, "error", State::kError},
                                           InitCase{15, "error", State::kError}));

TEST_F(NvmlProbeTest, SlowInitIsTimed) {
  ::setenv("TFRIG_FAKE_NVML_INIT_MS", "150", 1);
  inventory::Inventory inv;
  auto status = run(TFRIG_FAKE_NVML, inv);
  ASSERT_EQ(status.state, State::kOk);
  ASSERT_TRUE(inv.driver.nvml.init_seconds);
  EXPECT_GE(*inv.driver.nvml.init_seconds, 0.15);  // a lower bound, not a speed check
}

TEST_F(NvmlProbeTest, UnreadableCaptureIsAnError) {
  capture("../nvidia-smi-xml/README.md");  // not JSON: the fake's init fails with UNKNOWN
  inventory::Inventory inv;
  run(TFRIG_FAKE_NVML, inv);
  EXPECT_EQ(inv.driver.nvml.state, "error");
}

TEST_F(NvmlProbeTest, InitWorksButNoGpu) {
  const std::string path = ::testing::TempDir() + "/tfrig-fake-nvml-no-gpu.json";
  {
    std::ofstream f(path);
    f << R"({"inventory": {"gpus": [], "driver": {"version": "550.54.14", "cuda_version": "12.4"}}})";
  }
  ::setenv("TFRIG_FAKE_NVML_CAPTURE", path.c_str(), 1);
  inventory::Inventory inv;
  auto status = run(TFRIG_FAKE_NVML, inv);
  EXPECT_EQ(status.state, State::kAbsent);
  EXPECT_EQ(inv.driver.nvml.state, "no_device");
  EXPECT_EQ(inv.driver.version, "550.54.14");
  EXPECT_EQ(inv.driver.cuda_version, "12.4");
  std::remove(path.c_str());
}

TEST_F(NvmlProbeTest, MergeJoinsNvmlGpusOntoTheBusList) {
  // nvidia_driver found two GPUs on the bus; NVML lists one of them.
  capture("a100-sxm4-v12.json");
  auto ctx = context(TFRIG_FAKE_NVML);
  inventory::Inventory driver_part;
  make_nvidia_driver_probe()->run(ctx, driver_part);
  ASSERT_EQ(driver_part.gpus.size(), 2u);
  driver_part.gpus[0].pci_bus_id = "0000:01:00.0";  // the A100's address in the capture
  inventory::Inventory nvml_part;
  auto probe = make_nvml_probe();
  probe->run(ctx, nvml_part);
  inventory::Inventory merged;
  make_nvidia_driver_probe()->merge(merged, std::move(driver_part));
  probe->merge(merged, std::move(nvml_part));
  ASSERT_EQ(merged.gpus.size(), 2u);
  EXPECT_EQ(merged.gpus[0].source, "nvml");
  EXPECT_EQ(merged.gpus[0].index, 0);
  EXPECT_EQ(merged.gpus[1].source, "pci");
  EXPECT_EQ(merged.gpus[1].index, 1);
  ASSERT_TRUE(merged.gpus[1].driver_problem);
  EXPECT_NE(merged.gpus[1].driver_problem->find("nouveau"), std::string::npos);
  EXPECT_EQ(merged.driver.version, "535.54.03");
}

TEST_F(NvmlProbeTest, FailedNvmlAnnotatesTheBusGpus) {
  ::setenv("TFRIG_FAKE_NVML_INIT_RC", "18", 1);
  auto ctx = Context{core::SysRoot(test::data_path("roots/stack-cuda12"), {{"TFRIG_NVML_LIBRARY", TFRIG_FAKE_NVML}}), {},
                     std::chrono::milliseconds(5000), {}};
  auto run_result = run_probes(ctx, {make_nvidia_driver_probe(), make_nvml_probe()});
  const auto& inv = run_result.inventory;
  EXPECT_EQ(inv.driver.nvml.state, "driver_mismatch");
  EXPECT_EQ(inv.driver.version, "535.113.01");  // from the kernel module
  ASSERT_EQ(inv.gpus.size(), 2u);
  ASSERT_TRUE(inv.gpus[0].driver_problem);
  EXPECT_NE(inv.gpus[0].driver_problem->find("driver_mismatch"), std::string::npos);
}

TEST(NvmlNames, FailureStates) {
  EXPECT_EQ(gpulib::failure_state_name(gpulib::NvmlFailure::kLibraryMissing), "library_missing");
  EXPECT_EQ(gpulib::return_code_name(18), "NVML_ERROR_LIB_RM_VERSION_MISMATCH");
  EXPECT_EQ(gpulib::return_code_name(12345), "NVML error 12345");
}

// The library itself, below the probe: open and device_count answer a
// Result whose error keeps the kind of failure.
TEST_F(NvmlProbeTest, OpenAndDeviceCountReturnResults) {
  auto opened = gpulib::Nvml::open(std::string(TFRIG_FAKE_NVML));
  ASSERT_TRUE(opened) << opened.error().detail;
  ASSERT_NE(*opened, nullptr);
  auto count = (*opened)->device_count();
  ASSERT_TRUE(count) << count.error().detail;
  EXPECT_EQ(*count, 1u);  // a100-sxm4-v12.json has one GPU

  auto missing = gpulib::Nvml::open(test::data_path("no-such-libnvidia-ml.so.1"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().failure, gpulib::NvmlFailure::kLibraryMissing);
  EXPECT_NE(missing.error().detail.find("no-such-libnvidia-ml.so.1"), std::string::npos) << missing.error().detail;

  auto no_count = gpulib::Nvml::open(std::string(TFRIG_FAKE_NVML_NOCOUNT));
  ASSERT_FALSE(no_count);
  EXPECT_EQ(no_count.error().failure, gpulib::NvmlFailure::kSymbolMissing);
  EXPECT_NE(no_count.error().detail.find("nvmlDeviceGetCount"), std::string::npos) << no_count.error().detail;

  ::setenv("TFRIG_FAKE_NVML_INIT_RC", "18", 1);
  auto mismatch = gpulib::Nvml::open(std::string(TFRIG_FAKE_NVML));
  ASSERT_FALSE(mismatch);
  EXPECT_EQ(mismatch.error().failure, gpulib::NvmlFailure::kDriverMismatch);
}

TEST_F(NvmlProbeTest, DeviceCountErrorNamesTheCall) {
  // The fake keeps one state for every handle and does not count nvmlInit
  // calls: closing a second handle shuts NVML down under the first, whose
  // count then fails with NVML_ERROR_UNINITIALIZED.
  auto first = gpulib::Nvml::open(std::string(TFRIG_FAKE_NVML));
  ASSERT_TRUE(first) << first.error().detail;
  {
    auto second = gpulib::Nvml::open(std::string(TFRIG_FAKE_NVML));
    ASSERT_TRUE(second) << second.error().detail;
  }
  auto count = (*first)->device_count();
  ASSERT_FALSE(count);
  EXPECT_EQ(count.error().failure, gpulib::NvmlFailure::kError);
  // The name of the export that was called (the fake has the _v2 one).
  EXPECT_NE(count.error().detail.find("nvmlDeviceGetCount_v2 returned " + gpulib::return_code_name(gpulib::nvml::kErrorUninitialized)),
            std::string::npos)
      << count.error().detail;
}

// A probe past its deadline does not hold the process: doctor prints its
// whole report and exits with its own code while NVML's init still sleeps
// (the process then ends with _Exit, under the sleeping thread).
TEST(NvmlProbeLate, DoctorFinishesWithoutWaitingForALateProbe) {
  test::RunOptions env;
  env.env = {std::string("TFRIG_NVML_LIBRARY=") + TFRIG_FAKE_NVML,
             "TFRIG_FAKE_NVML_CAPTURE=" + test::data_path("fake-nvml/a100-sxm4-v12.json"), "TFRIG_FAKE_NVML_INIT_MS=20000"};
  const auto start = std::chrono::steady_clock::now();
  auto r = test::run_tfrig({"doctor", "--format", "json", "--fail-on", "never", "--deadline", "1"}, env);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(seconds, 15.0) << "waited for the sleeping NVML init";  // the sleep is 20 s: not a speed check
  auto doc = nlohmann::json::parse(r.out);
  bool late = false;
  for (const auto& p : doc["probes"]) {
    if (p["id"] == "nvml") late = p["state"] == "error" && p["detail"].get<std::string>().find("deadline") != std::string::npos;
  }
  EXPECT_TRUE(late) << r.out;
}

}  // namespace
}  // namespace tfrig::probe
