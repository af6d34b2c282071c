// Judging a whole report (rules/judge.h): what doctor, explain and fleet
// store in it, on a real snapshot (tests/data/snapshots/README.md).
#include "rules/judge.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace tfrig::rules {
namespace {

report::Report snapshot(const std::string& name) {
  auto r = report::report_from_json(
      nlohmann::json::parse(test::read_file(test::data_dir() + "/snapshots/" + name)));
  EXPECT_TRUE(r.has_value()) << name;
  return r ? *r : report::Report{};
}

TEST(Judge, AttachFindingsStoresTheEvaluationInTheReport) {
  auto r = snapshot("gpu_box_two_a100_old_driver.json");
  const auto ev = attach_findings(r, knowledge::builtin(), FindingsOptions{});
  EXPECT_TRUE(r.evaluated);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings.size(), ev.findings.size());
  EXPECT_EQ(r.summary.total(), ev.summary.total());
  EXPECT_EQ(r.verdict.rfind(r.target, 0), 0u) << r.verdict;  // the verdict starts with the target
  for (const auto& [id, why] : r.skipped) EXPECT_FALSE(why.empty()) << id;
}

TEST(Judge, OnlyOneAreaSaysSo) {
  auto r = snapshot("gpu_box_two_a100_old_driver.json");
  attach_findings(r, knowledge::builtin(), FindingsOptions{std::nullopt, "driver"});
  ASSERT_FALSE(r.findings.empty());
  for (const auto& f : r.findings) EXPECT_EQ(f.area, "driver") << f.rule_id;
  EXPECT_NE(r.verdict.find("(only the driver rules ran)"), std::string::npos) << r.verdict;
}

TEST(Judge, OneRuleAndItsTarget) {
  auto r = snapshot("cpu_box_cuda13.json");  // no TensorFlow installed: --tf decides
  const Rule* rule = find_rule("driver.too_old_for_cuda");
  ASSERT_NE(rule, nullptr);
  const auto one = attach_one_rule(r, knowledge::builtin(), *rule, std::string("2.15"));
  EXPECT_NE(one.target.find("2.15"), std::string::npos) << one.target;
  EXPECT_EQ(r.verdict, "driver.too_old_for_cuda: " + std::string(outcome_name(one.result.outcome)));
  EXPECT_EQ(r.findings.size(), one.result.findings.size());
  EXPECT_EQ(r.summary.total(), static_cast<int>(one.result.findings.size()));
}

}  // namespace
}  // namespace tfrig::rules
