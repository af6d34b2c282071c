// --root /host in a container: the fixture root stack-cuda12 laid out the
// way the DaemonSet (deploy/kubernetes/tfrig-daemonset.yaml) mounts the host
// (read-only /proc, /sys, /dev, /etc, /lib, /usr, /opt under /host), read
// by `tfrig --root <tmp>/host doctor --format prometheus`. A root whose
// boot_id is this kernel's is the running host, so NVML (here the fake NVML
// replaying an A100 capture) is asked; a captured tree with another boot_id
// is not.
#include "probe/host_mount.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "test_paths.h"
#include "test_support.h"

namespace tfrig {
namespace {

namespace fs = std::filesystem;

std::string live_boot_id() {
  auto id = core::SysRoot("/").read_line("proc/sys/kernel/random/boot_id");
  return id ? *id : "";
}

// What the DaemonSet mounts under /host (the structural check of the
// manifests, tests/deploy/check_manifests.py, holds it to this list).
const std::vector<std::string> kHostMounts = {"proc", "sys", "dev", "etc", "lib", "usr", "opt"};

// <dir>/host laid out as the DaemonSet mounts the host, from a fixture root.
std::string host_mount_of(const test::TempDir& dir, const std::string& fixture, const std::string& boot_id) {
  const fs::path host = fs::path(dir.path()) / "host";
  fs::create_directories(host);
  for (const auto& m : kHostMounts) {
    const fs::path from = fs::path(test::root_dir(fixture)) / m;
    if (fs::exists(from)) fs::copy(from, host / m, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
  fs::create_directories(host / "proc/sys/kernel/random");
  test::write_file((host / "proc/sys/kernel/random/boot_id").string(), boot_id + "\n");
  return host.string();
}

TEST(HostMount, BootIdTellsTheRunningHostFromACapturedTree) {
  const std::string id = live_boot_id();
  if (id.empty()) GTEST_SKIP() << "this kernel has no /proc/sys/kernel/random/boot_id";
  EXPECT_TRUE(probe::root_is_running_kernel(core::SysRoot("/")));
  test::TempDir same, other, none;
  EXPECT_TRUE(probe::root_is_running_kernel(core::SysRoot(host_mount_of(same, "stack-cuda12", id))));
  EXPECT_FALSE(probe::root_is_running_kernel(
      core::SysRoot(host_mount_of(other, "stack-cuda12", "0b6f5c2e-5d0c-4a36-9a1f-3c1d2b7f0e11"))));
  EXPECT_FALSE(probe::root_is_running_kernel(core::SysRoot(test::root_dir("stack-cuda12"))));  // no boot_id at all
}

TEST(HostMount, DoctorUnderRootHostWritesTheHostsMetrics) {
  const std::string id = live_boot_id();
  if (id.empty()) GTEST_SKIP() << "this kernel has no /proc/sys/kernel/random/boot_id";
  test::TempDir dir;
  const std::string host = host_mount_of(dir, "stack-cuda12", id);
  const std::string prom = dir.file("tfrig.prom");
  test::RunOptions env;
  env.env = {std::string("TFRIG_NVML_LIBRARY=") + TFRIG_FAKE_NVML,
             "TFRIG_FAKE_NVML_CAPTURE=" + test::data_dir() + "/fake-nvml/a100-sxm4-v12.json"};
  auto r = test::run_tfrig({"--root", host, "doctor", "--format", "prometheus", "--fail-on", "never", "-o", prom}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = test::read_file(prom);
  // NVML was asked (the host runs this kernel) and answered with the capture's A100.
  EXPECT_NE(text.find("tfrig_probe_success{probe=\"nvml\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("name=\"NVIDIA A100-SXM4-80GB\""), std::string::npos) << text;
  // The files came from the mounted host, not from this container: its
  // driver (the fixture's kernel module) and its CUDA 12 runtime.
  EXPECT_NE(text.find("tfrig_driver_info{"), std::string::npos) << text;
  EXPECT_NE(text.find("kernel_module_version=\"535.113.01\""), std::string::npos) << text;
  EXPECT_NE(text.find("cuda=\"12."), std::string::npos) << text;

  // The same tree as a capture from another machine: NVML is not asked (it
  // would describe this machine), the files still are read.
  test::TempDir captured;
  const std::string other = host_mount_of(captured, "stack-cuda12", "0b6f5c2e-5d0c-4a36-9a1f-3c1d2b7f0e11");
  auto c = test::run_tfrig({"--root", other, "doctor", "--format", "prometheus", "--fail-on", "never"}, env);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.out.find("probe=\"nvml\""), std::string::npos) << c.out;
  EXPECT_EQ(c.out.find("A100"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("kernel_module_version=\"535.113.01\""), std::string::npos) << c.out;
}

}  // namespace
}  // namespace tfrig
