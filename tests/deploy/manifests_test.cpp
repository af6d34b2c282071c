// deploy/: yamllint over every YAML file, and the structural check of the
// Kubernetes objects (tests/deploy/check_manifests.py, PyYAML), which must
// also reject a DaemonSet that breaks its rules.
#include <filesystem>

#include <gtest/gtest.h>

#include "report/command.h"
#include "test_support.h"

namespace tfrig {
namespace {

namespace fs = std::filesystem;

bool have_pyyaml(const std::string& python) {
  return test::run_command({python, "-c", "import yaml"}).exit_code == 0;
}

TEST(DeployManifests, YamllintPasses) {
  const std::string yamllint = test::find_program("yamllint");
  if (yamllint.empty()) GTEST_SKIP() << "yamllint not installed (Debian package yamllint, scripts/deps-monitoring.txt)";
  const std::string deploy = test::repo_root() + "/deploy";
  const auto r = test::run_command({yamllint, "-s", "-c", deploy + "/.yamllint", deploy});
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(DeployManifests, KubernetesObjectsAreWellFormed) {
  const std::string python = test::python3() == "python3" ? test::find_program("python3") : test::python3();
  if (python.empty() || !have_pyyaml(python)) GTEST_SKIP() << "python3 with PyYAML (python3-yaml) not installed";
  const std::string script = test::repo_root() + "/tests/deploy/check_manifests.py";
  const auto r = test::run_command({python, script, test::repo_root()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("4 kinds checked, 0 problems"), std::string::npos) << r.output;

  // A copy whose DaemonSet mounts the host writable, runs as root and packs
  // with the wrong shard count: each is reported.
  test::TempDir dir;
  fs::create_directories(fs::path(dir.path()) / "deploy");
  fs::copy(test::repo_root() + "/deploy", dir.file("deploy"), fs::copy_options::recursive);
  const std::string ds = dir.file("deploy/kubernetes/tfrig-daemonset.yaml");
  std::string text = test::read_file(ds);
  text = test::replace_all(text, "mountPath: /host/etc, readOnly: true", "mountPath: /host/etc");
  text = test::replace_all(text, "runAsUser: 65534\n            runAsGroup: 65534\n            runAsNonRoot: true",
                           "runAsUser: 0\n            runAsGroup: 0\n            runAsNonRoot: false");
  test::write_file(ds, text);
  const std::string job = dir.file("deploy/kubernetes/tfrig-pack-job.yaml");
  test::write_file(job, test::replace_all(test::read_file(job), "completions: 8", "completions: 4"));
  const auto bad = test::run_command({python, script, dir.path()});
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("/host/etc must be mounted readOnly"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("tfrig must run as a non-root user"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("--num-shards 8 differs from completions 4"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace tfrig
