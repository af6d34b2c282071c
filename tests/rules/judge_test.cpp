// Judging a whole report (rules/judge.h): what doctor, explain and fleet
// store in it, on a real snapshot (tests/data/snapshots/README.md).
#include "rules/judge.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/i18n_scope.h"
#include "report/report.h"
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
  EXPECT_EQ(r.verdict.english.rfind(r.target.english, 0), 0u) << r.verdict.english;  // the verdict starts with the target
  for (const auto& [id, why] : r.skipped) EXPECT_FALSE(why.empty()) << id;
}

TEST(Judge, OnlyOneAreaSaysSo) {
  auto r = snapshot("gpu_box_two_a100_old_driver.json");
  attach_findings(r, knowledge::builtin(), FindingsOptions{std::nullopt, "driver"});
  ASSERT_FALSE(r.findings.empty());
  for (const auto& f : r.findings) EXPECT_EQ(f.area, "driver") << f.rule_id;
  EXPECT_NE(r.verdict.english.find("(only the driver rules ran)"), std::string::npos) << r.verdict.english;
}

TEST(Judge, OneRuleAndItsTarget) {
  auto r = snapshot("cpu_box_cuda13.json");  // no TensorFlow installed: --tf decides
  const Rule* rule = find_rule("driver.too_old_for_cuda");
  ASSERT_NE(rule, nullptr);
  const auto one = attach_one_rule(r, knowledge::builtin(), *rule, std::string("2.15"));
  EXPECT_NE(one.target.english.find("2.15"), std::string::npos) << one.target.english;
  EXPECT_EQ(r.verdict.english, "driver.too_old_for_cuda: " + std::string(outcome_name(one.result.outcome)));
  EXPECT_EQ(r.findings.size(), one.result.findings.size());
  EXPECT_EQ(r.summary.total(), static_cast<int>(one.result.findings.size()));
}

// The verdict, the target and the skip reasons are built once as messages,
// whatever language the process speaks: English in the report (the JSON's),
// each renderer saying them in its own language (issue 31 part 5).
TEST(Judge, VerdictTargetAndSkipReasonsAreMessagesBuiltInEnglish) {
  auto r = snapshot("gpu_box_two_a100_old_driver.json");
  {
    core::i18n::ScopedLanguage chinese("zh_CN");
    attach_findings(r, knowledge::builtin(), FindingsOptions{std::nullopt, "driver"});
  }
  ASSERT_TRUE(r.verdict.message.has_value());
  ASSERT_TRUE(r.target.message.has_value());
  EXPECT_EQ(core::english(*r.verdict.message), r.verdict.english);
  EXPECT_NE(r.verdict.english.find(" will "), std::string::npos) << r.verdict.english;
  EXPECT_NE(r.verdict.english.find("(only the driver rules ran)"), std::string::npos) << r.verdict.english;
  const std::string zh = core::render(*r.verdict.message, "zh_CN");
  EXPECT_EQ(zh.rfind(core::render(*r.target.message, "zh_CN"), 0), 0u) << zh;
  EXPECT_EQ(zh.find(" will "), std::string::npos) << zh;
  EXPECT_EQ(zh.find("only the"), std::string::npos) << zh;
  for (const auto& [id, why] : r.skipped) {
    EXPECT_EQ(why.message ? core::english(*why.message) : why.english, why.english) << id;
  }
  // The JSON says them in the output's language, the text report in the reader's.
  core::i18n::set_output_language("en");
  core::i18n::ScopedLanguage chinese("zh_CN");
  const auto j = report::findings_to_json(r);
  EXPECT_EQ(j["verdict"], r.verdict.english);
  EXPECT_EQ(j["target"], r.target.english);
  const std::string text = report::render_findings_text(r, false, 200);
  EXPECT_NE(text.find(zh), std::string::npos) << text;
  core::i18n::set_output_language("");
}

}  // namespace
}  // namespace tfrig::rules
