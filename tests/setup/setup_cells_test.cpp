#include "setup_test_support.h"

#include <cstdlib>
#include <regex>

#include <gtest/gtest.h>

#include "gather/gather.h"
#include "golden.h"
#include "knowledge/knowledge.h"
#include "test_support.h"

namespace tfrig::setup::test {

namespace {

constexpr const char* kA100 = "data/golden/nvidia-smi-xml/telegraf_a100-sxm4-v12.xml.json";
constexpr const char* kT4 = "data/golden/nvidia-smi-xml/telegraf_tesla-t4.xml.json";
constexpr const char* k1070 = "data/golden/nvidia-smi-xml/telegraf_gtx-1070-ti.xml.json";
constexpr const char* k2070 = "data/golden/nvidia-smi-xml/telegraf_dual_2070-v13.xml.json";
constexpr const char* k3090 = "data/golden/nvidia-smi-xml/telegraf_rtx-3090-v12.xml.json";
constexpr const char* k3060 = "data/golden/nvidia-smi-xml/netdata_rtx-3060.xml.json";
constexpr const char* k4090 = "data/golden/nvidia-smi-xml/netdata_rtx-4090-driver-535.xml.json";
constexpr const char* kAda = "data/golden/nvidia-smi-xml/telegraf_rtx-4000-sff-ada-v13.xml.json";
constexpr const char* kTwoA100 = "data/snapshots/gpu_box_two_a100_old_driver.json";
constexpr const char* kCpuBox = "data/snapshots/cpu_box_cuda13.json";

std::vector<std::string> split_tf(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

}  // namespace

const std::vector<Cell>& cells() {
  using M = Method;
  static const std::vector<Cell> kCells = {
      // pip
      {"tf2.17_ubuntu-22.04_pip_a100", kA100, "2.17", "ubuntu-22.04", M::kPip, "auto", false, ""},
      {"tf2.17_ubuntu-24.04_pip_rtx4090", k4090, "2.17", "ubuntu-24.04", M::kPip, "auto", false, ""},
      {"tf2.15_ubuntu-22.04_pip_t4", kT4, "2.15", "ubuntu-22.04", M::kPip, "auto", false, ""},
      {"tf2.14_ubuntu-22.04_pip_rtx2070", k2070, "2.14", "ubuntu-22.04", M::kPip, "auto", false, ""},
      {"tf2.12_ubuntu-22.04_pip_rtx3090", k3090, "2.12", "ubuntu-22.04", M::kPip, "auto", false, ""},
      {"tf2.13_ubuntu-20.04_pip_gtx1070ti", k1070, "2.13", "ubuntu-20.04", M::kPip, "auto", false, ""},
      {"tf2.19_debian-12_pip_2xa100", kTwoA100, "2.19", "", M::kPip, "auto", false, ""},
      {"tf2.16_ubuntu-24.04_pip_rtx3060", k3060, "2.16", "ubuntu-24.04", M::kPip, "auto", false, ""},
      {"tf2.21_ubuntu-24.04_pip_rtx4000ada", kAda, "2.21", "ubuntu-24.04", M::kPip, "auto", false, ""},
      {"tfnewest_ubuntu-20.04_pip_t4", kT4, "", "ubuntu-20.04", M::kPip, "auto", false, ""},
      {"tfnewest_ubuntu-22.04_pip_nogpu", kCpuBox, "", "ubuntu-22.04", M::kPip, "auto", false, ""},
      // apt
      {"tf2.17_ubuntu-22.04_apt_a100", kA100, "2.17", "ubuntu-22.04", M::kApt, "auto", false, ""},
      {"tf2.15_ubuntu-22.04_apt_rtx3090", k3090, "2.15", "ubuntu-22.04", M::kApt, "auto", false, ""},
      {"tf2.12_ubuntu-20.04_apt_gtx1070ti", k1070, "2.12", "ubuntu-20.04", M::kApt, "auto", false, ""},
      {"tf2.18_ubuntu-24.04_apt_rtx4090", k4090, "2.18", "ubuntu-24.04", M::kApt, "auto", false, ""},
      {"tf2.17_debian-12_apt_t4", kT4, "2.17", "debian-12", M::kApt, "auto", false, ""},
      // container (official images)
      {"tf2.17_ubuntu-22.04_container_a100", kA100, "2.17", "ubuntu-22.04", M::kContainer, "auto", false, ""},
      {"tf2.15+2.17_ubuntu-22.04_container_rtx3090", k3090, "2.15,2.17", "ubuntu-22.04", M::kContainer, "auto", false, ""},
      {"tf2.11_ubuntu-24.04_container_rtx2070", k2070, "2.11", "ubuntu-24.04", M::kContainer, "auto", false, ""},
      {"tf2.21_debian-12_container_rtx4090", k4090, "2.21", "debian-12", M::kContainer, "auto", false, ""},
      {"tf2.16_ubuntu-20.04_container_gtx1070ti", k1070, "2.16", "ubuntu-20.04", M::kContainer, "auto", false, ""},
      {"tf2.17_debian-12_container_nogpu", kCpuBox, "2.17", "debian-12", M::kContainer, "auto", false, ""},
      // NGC
      {"tf2.17_ubuntu-22.04_ngc_a100", kA100, "2.17", "ubuntu-22.04", M::kNgc, "auto", false, ""},
      {"tf2.15_ubuntu-24.04_ngc_h100", "", "2.15", "ubuntu-24.04", M::kNgc, "H100 SXM5 80GB", false, ""},
      {"tf2.16+2.17_ubuntu-22.04_ngc_rtx4090", k4090, "2.16,2.17", "ubuntu-22.04", M::kNgc, "auto", false, ""},
      {"tf2.13_debian-12_ngc_t4", kT4, "2.13", "debian-12", M::kNgc, "auto", false, ""},
      // --mirror cn (mainland China): one cell per method
      {"tf2.17_ubuntu-22.04_pip_a100_mirror-cn", kA100, "2.17", "ubuntu-22.04", M::kPip, "auto", false, "cn"},
      {"tf2.17_debian-12_apt_t4_mirror-cn", kT4, "2.17", "debian-12", M::kApt, "auto", false, "cn"},
      {"tf2.17_ubuntu-24.04_container_rtx4090_mirror-cn", k4090, "2.17", "ubuntu-24.04", M::kContainer, "auto", false, "cn"},
      {"tf2.17_ubuntu-22.04_ngc_a100_mirror-cn", kA100, "2.17", "ubuntu-22.04", M::kNgc, "auto", false, "cn"},
      // every other preset (setup.json mirrors.presets), one cell per method as for cn
#define TFRIG_PRESET_CELLS(P)                                                                                         \
  {"tf2.17_ubuntu-22.04_pip_a100_mirror-" P, kA100, "2.17", "ubuntu-22.04", M::kPip, "auto", false, P},                 \
      {"tf2.17_debian-12_apt_t4_mirror-" P, kT4, "2.17", "debian-12", M::kApt, "auto", false, P},                      \
      {"tf2.17_ubuntu-24.04_container_rtx4090_mirror-" P, k4090, "2.17", "ubuntu-24.04", M::kContainer, "auto", false, \
       P},                                                                                                             \
      {"tf2.17_ubuntu-22.04_ngc_a100_mirror-" P, kA100, "2.17", "ubuntu-22.04", M::kNgc, "auto", false, P}
      TFRIG_PRESET_CELLS("ustc"),
      TFRIG_PRESET_CELLS("aliyun"),
      TFRIG_PRESET_CELLS("aliyun-intranet"),
      TFRIG_PRESET_CELLS("tencent"),
      TFRIG_PRESET_CELLS("tencent-intranet"),
      TFRIG_PRESET_CELLS("huaweicloud"),
      TFRIG_PRESET_CELLS("huaweicloud-intranet"),
#undef TFRIG_PRESET_CELLS
      // Docker Hub's image under a China preset without a registry mirror, for a release NGC never shipped
      {"refused_tf2.19_ubuntu-24.04_container_rtx4090_mirror-cn", k4090, "2.19", "ubuntu-24.04", M::kContainer, "auto", true,
       "cn"},
      // refused, with the nearest that work
      {"refused_tf2.10_ubuntu-24.04_pip_python", k3060, "2.10", "ubuntu-24.04", M::kPip, "auto", true, ""},
      {"refused_tf2.17_ubuntu-22.04_pip_k80", "", "2.17", "ubuntu-22.04", M::kPip, "Tesla K80", true, ""},
      {"refused_tf2.11_ubuntu-22.04_apt_cudarepo", kT4, "2.11", "ubuntu-22.04", M::kApt, "auto", true, ""},
      {"refused_tf2.19_ubuntu-22.04_ngc_norelease", kA100, "2.19", "ubuntu-22.04", M::kNgc, "auto", true, ""},
  };
  return kCells;
}

PlanOutcome run_cell(const Cell& c) {
  std::optional<report::Report> report;
  if (!c.snapshot.empty()) {
    gather::InventorySourceOptions source;
    source.snapshot = tfrig::test::data_dir() + "/../" + c.snapshot;
    auto r = gather::load_report(source);
    EXPECT_TRUE(r.has_value()) << c.snapshot << ": " << (r ? "" : r.error().to_string());
    if (r) report = std::move(*r);
  }
  SetupOptions o;
  if (!c.tf.empty()) o.tf = split_tf(c.tf);
  o.os = c.os;
  o.method = c.method;
  o.gpu = c.gpu;
  o.mirrors.preset = c.mirror;
  auto out = make_setup_plan(knowledge::builtin(), report ? &report->inventory : nullptr, o);
  EXPECT_TRUE(out.has_value()) << c.name << ": " << (out ? "" : out.error().to_string());
  return out ? *out : PlanOutcome{};
}

std::vector<OutputFile> render_cell(const Cell& c) {
  auto out = run_cell(c);
  if (!out.plan) return {};
  return render_all(*out.plan, knowledge::builtin());
}

std::vector<std::string> version_tokens(const std::string& text) {
  static const std::regex kVersion(R"([0-9]+(\.[0-9]+)+)");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kVersion); it != std::sregex_iterator(); ++it) {
    out.push_back(it->str());
  }
  return out;
}

const std::set<std::string>& knowledge_version_tokens() {
  static const std::set<std::string> kTokens = [] {
    std::set<std::string> s;
    for (const auto& name : tfrig::test::list_dir(tfrig::test::data_dir() + "/../../data/knowledge")) {
      if (name.size() < 5 || name.substr(name.size() - 5) != ".json") continue;
      for (auto& t : version_tokens(tfrig::test::read_file(tfrig::test::data_dir() + "/../../data/knowledge/" + name))) {
        s.insert(t);
      }
    }
    return s;
  }();
  return kTokens;
}

std::string golden_dir() { return tfrig::test::golden_path("setup"); }

bool update_golden() { return tfrig::test::updating_golden(); }

}  // namespace tfrig::setup::test

namespace tfrig::setup::test {
namespace {

// The grid the issue asks for: at least 24 working cells over TF versions,
// every OS target, every method and the GPU classes (no GPU, Pascal, Turing,
// Ampere, Ada, Hopper).
TEST(SetupGrid, CoversTfOsMethodGpu) {
  std::set<std::string> tf, os, methods, gpus;
  int working = 0;
  for (const auto& c : cells()) {
    if (c.refused) continue;
    ++working;
    auto out = run_cell(c);
    ASSERT_TRUE(out.plan) << c.name << " was refused: " << (out.refusal ? out.refusal->reason : "");
    for (const auto& t : out.plan->tfs) tf.insert(t.version);
    os.insert(out.plan->os->id);
    methods.insert(std::string(method_name(out.plan->method)));
    gpus.insert(out.plan->gpu.cc.value_or("none"));
  }
  EXPECT_GE(working, 24);
  EXPECT_GE(tf.size(), 8u);
  EXPECT_EQ(os.size(), knowledge::builtin().setup().os_targets.size());
  EXPECT_EQ(methods.size(), 4u);
  EXPECT_GE(gpus.size(), 6u);
}

}  // namespace
}  // namespace tfrig::setup::test
