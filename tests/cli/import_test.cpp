// End to end: the tfrig binary importing nvidia-smi XML and reporting it.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "gpu_test_support.h"

namespace tfrig {
namespace {

struct Ran {
  int exit_code = -1;
  std::string out;
};

// Runs the binary with stdout captured (stderr discarded); the arguments
// are test data paths without shell metacharacters.
Ran run_tfrig(const std::string& args, const std::string& cwd = "") {
  Ran r;
  const std::string cmd =
      (cwd.empty() ? std::string() : "cd " + cwd + " && ") + std::string(TFRIG_BINARY) + " " + args + " 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(ImportNvidiaSmiXml, WritesASnapshotThatDoctorReads) {
  const std::string xml = test::data_path("nvidia-smi-xml/telegraf/dual_2080-v13.xml");
  auto imported = run_tfrig("import nvidia-smi-xml " + xml);
  ASSERT_EQ(imported.exit_code, 0);
  auto j = nlohmann::json::parse(imported.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["source"], "nvidia-smi-xml:" + xml);
  const auto& inv = j["inventory"];
  ASSERT_EQ(inv["gpus"].size(), 2u);
  EXPECT_EQ(inv["gpus"][1]["name"], "NVIDIA GeForce RTX 2080");
  EXPECT_EQ(inv["gpus"][0]["pcie_link_gen_max"], 3);
  EXPECT_TRUE(inv["gpus"][0]["compute_capability"].is_null());
  EXPECT_EQ(inv["driver"]["version"], "590.44.01");
  EXPECT_EQ(inv["driver"]["cuda_version"], "13.1");

  const std::string snap = ::testing::TempDir() + "/tfrig-import-test.json";
  ASSERT_EQ(run_tfrig("import nvidia-smi-xml " + xml + " -o " + snap).exit_code, 0);
  auto doctor = run_tfrig("doctor --fail-on never --color never --snapshot " + snap);
  EXPECT_EQ(doctor.exit_code, 0);
  EXPECT_NE(doctor.out.find("GPUs and driver"), std::string::npos);
  EXPECT_NE(doctor.out.find("NVIDIA GeForce RTX 2080"), std::string::npos);
  std::remove(snap.c_str());
}

TEST(ImportNvidiaSmiXml, DoctorReadsTheXmlDirectly) {
  auto doctor = run_tfrig("doctor --fail-on never --color never --nvidia-smi-xml " + test::data_path("nvidia-smi-xml/netdata/a100-sxm4-mig.xml"));
  EXPECT_EQ(doctor.exit_code, 0);
  EXPECT_NE(doctor.out.find("NVIDIA A100-SXM4-40GB"), std::string::npos);
  EXPECT_NE(doctor.out.find("510.47.03"), std::string::npos);
  EXPECT_NE(doctor.out.find("up to 11.6"), std::string::npos);
  auto json = run_tfrig("doctor --fail-on never --format json --nvidia-smi-xml " + test::data_path("nvidia-smi-xml/netdata/a100-sxm4-mig.xml"));
  auto j = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["inventory"]["gpus"][0]["mig_mode_current"], true);
}

TEST(ImportNvidiaSmiXml, RelativePathIsRelativeToTheCurrentDirectory) {
  auto imported = run_tfrig("import nvidia-smi-xml nvidia-smi-xml/telegraf/gt-1030.xml", test::data_path(""));
  ASSERT_EQ(imported.exit_code, 0);
  auto j = nlohmann::json::parse(imported.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["inventory"]["gpus"][0]["name"], "NVIDIA GeForce GT 1030");
}

TEST(ImportNvidiaSmiXml, BadInputsHaveDocumentedExitCodes) {
  EXPECT_EQ(run_tfrig("import nvidia-smi-xml " + test::data_path("no-such.xml")).exit_code, 66);  // EX_NOINPUT
  EXPECT_EQ(run_tfrig("import nvidia-smi-xml " + test::data_path("fake-nvml/a100-sxm4-v12.json")).exit_code, 65);  // EX_DATAERR
  EXPECT_EQ(run_tfrig("import").exit_code, 64);  // EX_USAGE
}

TEST(DoctorOnStackRoots, GpuAndSoftwareSections) {
  auto doctor = run_tfrig("--root " + test::data_path("roots/stack-nodriver") + " doctor --color never");
  EXPECT_NE(doctor.out.find("GPUs and driver"), std::string::npos);
  EXPECT_NE(doctor.out.find("not loaded"), std::string::npos);
  EXPECT_NE(doctor.out.find("bound to nouveau"), std::string::npos);
  EXPECT_NE(doctor.out.find("libcuda          not found"), std::string::npos);
  EXPECT_NE(doctor.out.find("libcudnn.so.9"), std::string::npos);
  EXPECT_NE(doctor.out.find("9.19.0.56"), std::string::npos);
}

}  // namespace
}  // namespace tfrig
