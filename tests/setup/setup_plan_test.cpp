// The plan: versions from the matrix, the driver branch rule, the precision
// rule, refusals with the nearest combinations that work.
#include <gtest/gtest.h>

#include "core/version.h"
#include "knowledge/knowledge.h"
#include "setup/plan.h"

namespace tfrig::setup {
namespace {

const knowledge::Knowledge& kb() { return knowledge::builtin(); }

PlanOutcome plan(std::vector<std::string> tf, std::string os, Method m, std::string gpu) {
  SetupOptions o;
  o.tf = std::move(tf);
  o.os = std::move(os);
  o.method = m;
  o.gpu = std::move(gpu);
  auto r = make_setup_plan(kb(), nullptr, o);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().to_string());
  return r ? *r : PlanOutcome{};
}

TEST(SetupPlan, PipVersionsComeFromTheTestedBuildRow) {
  auto out = plan({"2.17"}, "ubuntu-22.04", Method::kPip, "A100 SXM4 80GB");
  ASSERT_TRUE(out.plan);
  const auto& p = *out.plan;
  const auto* row = kb().find_tf_build(*core::Version::parse("2.17"));
  ASSERT_NE(row, nullptr);
  ASSERT_EQ(p.tfs.size(), 1u);
  EXPECT_EQ(p.tfs[0].version, row->tf);
  EXPECT_EQ(p.tfs[0].image_cuda, row->cuda);
  EXPECT_TRUE(p.tfs[0].and_cuda);
  EXPECT_EQ(p.tfs[0].pip_requirement, "tensorflow[and-cuda]==" + row->tf);
  EXPECT_EQ(p.python, kb().setup().find_os("ubuntu-22.04")->python);
  EXPECT_TRUE(row->supports_python(*core::Version::parse(p.python)));
  EXPECT_FALSE(p.cuda.needed) << "[and-cuda] brings CUDA; no system toolkit";
  EXPECT_EQ(p.mixed_precision, "mixed_bfloat16");
}

TEST(SetupPlan, DriverBranchShipsTheCudaAndMeetsTheMinimum) {
  auto out = plan({"2.17"}, "ubuntu-22.04", Method::kPip, "A100 SXM4 80GB");
  ASSERT_TRUE(out.plan);
  const auto& d = out.plan->driver;
  const auto need = *core::Version::parse(out.plan->tfs[0].image_cuda);
  const auto ships = *core::Version::parse(d.branch_cuda);
  EXPECT_GE(ships, core::Version::parse(need.truncated(2)).value());
  // The branch's own driver versions are at least the minimum for that CUDA.
  EXPECT_GE(std::stoi(d.branch), std::stoi(d.min_driver.substr(0, d.min_driver.find('.'))));
  auto minimum = kb().min_driver_for_cuda(need);
  ASSERT_TRUE(minimum && minimum->min_linux);
  EXPECT_GE(*core::Version::parse(d.min_driver), *core::Version::parse(*minimum->min_linux));
  EXPECT_EQ(d.installer, "ubuntu-drivers");
  EXPECT_NE(d.install_id.find(d.branch), std::string::npos);
  EXPECT_TRUE(d.open) << "Ampere on a branch past the open-module default";
}

TEST(SetupPlan, PascalGetsProprietaryModulesAndNoMixedPrecision) {
  auto out = plan({"2.13"}, "ubuntu-20.04", Method::kPip, "cc:6.1");
  ASSERT_TRUE(out.plan);
  EXPECT_FALSE(out.plan->driver.open);
  EXPECT_EQ(out.plan->mixed_precision, "");
  EXPECT_NE(out.plan->mixed_precision_why.find("no Tensor Cores"), std::string::npos);
}

TEST(SetupPlan, TuringGetsFloat16) {
  auto out = plan({"2.15"}, "ubuntu-22.04", Method::kPip, "Tesla T4");
  ASSERT_TRUE(out.plan);
  EXPECT_EQ(out.plan->mixed_precision, "mixed_float16");
}

TEST(SetupPlan, OlderTfGetsCudaAndCudnnFromTheRepository) {
  auto out = plan({"2.12"}, "ubuntu-22.04", Method::kPip, "GeForce RTX 3090");
  ASSERT_TRUE(out.plan);
  const auto& c = out.plan->cuda;
  const auto* row = kb().find_tf_build(*core::Version::parse("2.12"));
  EXPECT_TRUE(c.needed);
  EXPECT_EQ(c.cuda, row->cuda);
  EXPECT_EQ(c.cudnn, row->cudnn);
  EXPECT_EQ(c.cudnn_prefix, row->cudnn + ".");
  EXPECT_EQ(out.plan->tfs[0].pip_requirement, "tensorflow==" + row->tf);
}

TEST(SetupPlan, DefaultIsTheNewestThatRuns) {
  // Ubuntu 20.04 ships Python 3.8: the newest release supporting it.
  auto out = plan({}, "ubuntu-20.04", Method::kPip, "Tesla T4");
  ASSERT_TRUE(out.plan);
  const auto py = *core::Version::parse(kb().setup().find_os("ubuntu-20.04")->python);
  for (const auto& b : kb().tf_builds()) {
    if (b.supports_python(py)) {
      EXPECT_EQ(out.plan->tfs[0].version, b.tf);
      break;
    }
  }
}

TEST(SetupPlan, RefusesPythonTheReleaseDoesNotSupportWithWorkingNearest) {
  auto out = plan({"2.10"}, "ubuntu-24.04", Method::kPip, "GeForce RTX 3060");
  ASSERT_TRUE(out.refusal);
  EXPECT_NE(out.refusal->reason.find("Python"), std::string::npos) << out.refusal->reason;
  ASSERT_FALSE(out.refusal->nearest.empty());
  // Each suggestion plans, and keeps the user's --os and --gpu.
  for (const auto& n : out.refusal->nearest) {
    const auto tf = n.substr(5, n.find(' ', 5) - 5);
    const size_t m = n.find("--method ") + 9;
    const auto method = parse_method(n.substr(m, n.find(' ', m) - m));
    EXPECT_NE(n.find("--os ubuntu-24.04"), std::string::npos) << n;
    EXPECT_NE(n.find("--gpu 'GeForce RTX 3060'"), std::string::npos) << n;
    ASSERT_TRUE(method) << n;
    auto again = plan({tf}, "ubuntu-24.04", *method, "GeForce RTX 3060");
    EXPECT_TRUE(again.plan) << n;
  }
}

TEST(SetupPlan, RefusesAGpuTheReleaseHasNoKernelsFor) {
  auto out = plan({"2.17"}, "ubuntu-22.04", Method::kPip, "Tesla K80");
  ASSERT_TRUE(out.refusal);
  EXPECT_NE(out.refusal->reason.find("compute capability"), std::string::npos) << out.refusal->reason;
}

TEST(SetupPlan, RefusesNgcWithoutARelease) {
  auto out = plan({"2.19"}, "ubuntu-22.04", Method::kNgc, "auto");
  ASSERT_TRUE(out.refusal);
  EXPECT_NE(out.refusal->reason.find("NGC"), std::string::npos);
}

TEST(SetupPlan, SeveralVersionsOnlyForContainers) {
  SetupOptions o;
  o.tf = {"2.15", "2.17"};
  o.os = "ubuntu-22.04";
  o.method = Method::kPip;
  EXPECT_FALSE(make_setup_plan(kb(), nullptr, o).has_value());
  o.method = Method::kContainer;
  auto r = make_setup_plan(kb(), nullptr, o);
  ASSERT_TRUE(r && r->plan);
  ASSERT_EQ(r->plan->tfs.size(), 2u);
  EXPECT_NE(r->plan->tfs[0].service, r->plan->tfs[1].service);
  // The driver covers the newer image's CUDA.
  EXPECT_EQ(r->plan->driver.min_driver_cuda, r->plan->tfs[1].image_cuda);
}

TEST(SetupPlan, UnknownPartsAreErrors) {
  SetupOptions o;
  o.os = "windows-11";
  EXPECT_FALSE(make_setup_plan(kb(), nullptr, o).has_value());
  o.os = "ubuntu-22.04";
  o.tf = {"9.99"};
  EXPECT_FALSE(make_setup_plan(kb(), nullptr, o).has_value());
  o.tf = {"2.17"};
  o.gpu = "no such gpu 123";
  EXPECT_FALSE(make_setup_plan(kb(), nullptr, o).has_value());
  // No OS given and none known from the machine.
  o.os.clear();
  o.gpu = "auto";
  EXPECT_FALSE(make_setup_plan(kb(), nullptr, o).has_value());
}

TEST(SetupPlan, StepsHaveWhyAndUndo) {
  for (Method m : {Method::kPip, Method::kApt, Method::kContainer, Method::kNgc}) {
    auto out = plan({"2.17"}, "ubuntu-22.04", m, "A100 SXM4 80GB");
    ASSERT_TRUE(out.plan) << method_name(m);
    for (const auto& s : out.plan->steps) {
      EXPECT_FALSE(s.why.empty()) << s.id;
      EXPECT_FALSE(s.undo.empty()) << s.id;
      EXPECT_FALSE(s.source.empty()) << s.id;
    }
  }
}

}  // namespace
}  // namespace tfrig::setup
