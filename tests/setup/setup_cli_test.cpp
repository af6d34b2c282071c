// `tfrig setup` end to end: the plan printed, the files written with their
// modes, a non-empty DIR refused without --force, refusals exit 2 with the
// nearest combinations, and a machine probed under --root.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "test_support.h"

namespace tfrig::test {
namespace {

const std::string kA100 = data_dir() + "/golden/nvidia-smi-xml/telegraf_a100-sxm4-v12.xml.json";

TEST(SetupCli, WritesTheFilesAndRefusesANonEmptyDir) {
  TempDir tmp;
  const std::string out = tmp.file("out");
  auto r = run_tfrig({"setup", "--from-snapshot", kA100, "--os", "ubuntu-22.04", "--tf", "2.17", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("TensorFlow 2.17.0"), std::string::npos) << r.out;
  for (const char* f : {"README.md", "install.sh", "tfrig.env", "tuning.py", "sysctl.d/90-tfrig.conf",
                        "security/limits.d/90-tfrig.conf"}) {
    EXPECT_TRUE(path_exists(out + "/" + f)) << f;
  }
  struct stat st {};
  ASSERT_EQ(::stat((out + "/install.sh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
  const std::string before = read_file(out + "/install.sh");
  auto again = run_tfrig({"setup", "--from-snapshot", kA100, "--os", "ubuntu-22.04", "--tf", "2.17", "-o", out});
  EXPECT_EQ(again.exit_code, 73) << again.err;
  EXPECT_NE(again.err.find("--force"), std::string::npos) << again.err;
  auto forced = run_tfrig({"setup", "--from-snapshot", kA100, "--os", "ubuntu-22.04", "--tf", "2.17", "--method",
                           "container", "-o", out, "--force"});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_TRUE(path_exists(out + "/compose.yaml"));
  EXPECT_NE(read_file(out + "/install.sh"), before);
}

TEST(SetupCli, RefusalExitsTwoWithTheNearest) {
  auto r = run_tfrig({"setup", "--os", "ubuntu-24.04", "--tf", "2.10", "--gpu", "Tesla T4"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("refused"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("tfrig setup --tf"), std::string::npos) << r.err;
}

TEST(SetupCli, UsageErrors) {
  EXPECT_EQ(run_tfrig({"setup", "--os", "plan9", "--tf", "2.17"}).exit_code, 64);
  EXPECT_EQ(run_tfrig({"setup", "--os", "ubuntu-22.04", "--tf", "2.15,2.17"}).exit_code, 64);
  EXPECT_EQ(run_tfrig({"setup", "--method", "conda"}).exit_code, 64);
}

TEST(SetupCli, MirrorCnWritesThePipConfigAndBadUrlsAreUsageErrors) {
  TempDir tmp;
  const std::string out = tmp.file("out");
  auto r = run_tfrig({"setup", "--from-snapshot", kA100, "--os", "ubuntu-22.04", "--tf", "2.17", "--mirror", "cn", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Sources (--mirror cn): https://mirrors.tuna.tsinghua.edu.cn/ubuntu/"), std::string::npos) << r.out;
  EXPECT_NE(read_file(out + "/pip.conf").find("index-url = https://pypi.tuna.tsinghua.edu.cn/simple"), std::string::npos);
  EXPECT_NE(read_file(out + "/install.sh").find("step_apt_mirror"), std::string::npos);
  auto bad = run_tfrig({"setup", "--os", "ubuntu-22.04", "--tf", "2.17", "--gpu", "cc:8.0", "--pip-index", "https://x/simple;reboot"});
  EXPECT_EQ(bad.exit_code, 64) << bad.err;
  EXPECT_NE(bad.err.find("--pip-index"), std::string::npos) << bad.err;
  EXPECT_EQ(run_tfrig({"setup", "--os", "ubuntu-22.04", "--mirror", "mars"}).exit_code, 64);
}

TEST(SetupCli, MirrorAutoOnAProbedRootSaysWhatItChoseAndWhy) {
  // doctor's region fixture: an Ubuntu whose sources.list names Alibaba Cloud's public mirror.
  auto r = run_tfrig({"--root", data_dir() + "/region/china-vm", "setup", "--os", "ubuntu-22.04", "--tf", "2.17", "--gpu",
                      "cc:8.0", "--method", "container", "--mirror", "auto"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Sources (--mirror aliyun): https://mirrors.aliyun.com/ubuntu/"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--mirror auto chose aliyun: /etc/apt/sources.list names mirrors.aliyun.com"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("nvcr.io/nvidia/tensorflow:"), std::string::npos) << "NGC, not Docker Hub: " << r.out;
  EXPECT_EQ(r.out.find("registry-1.docker.io"), std::string::npos) << r.out;
  // The CLI accepts every preset and refuses what is none.
  EXPECT_EQ(run_tfrig({"setup", "--os", "ubuntu-22.04", "--gpu", "cc:8.0", "--mirror", "huaweicloud-intranet"}).exit_code, 0);
  EXPECT_EQ(run_tfrig({"setup", "--os", "ubuntu-22.04", "--gpu", "cc:8.0", "--mirror", "163"}).exit_code, 64);
}

TEST(SetupCli, PlansForAProbedRoot) {
  // A captured Debian 12 machine without a GPU: its OS, the newest TF it runs.
  TempDir tmp;
  auto r = run_tfrig({"--root", root_dir("debian12-vm"), "setup", "-o", tmp.file("out")});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("debian-12"), std::string::npos) << r.out;
  EXPECT_TRUE(path_exists(tmp.file("out/install.sh")));
}

}  // namespace
}  // namespace tfrig::test
