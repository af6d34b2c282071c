// The interface language end to end: the Chinese doctor report (a golden,
// reviewed for meaning), help, machine outputs that stay English unless
// --lang asks, and the environment variables that choose the language.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/display_width.h"
#include "core/text.h"
#include "test_support.h"

namespace tfrig {
namespace {

// Every locale variable set, so the caller's own environment never decides.
test::RunOptions with_locale(const std::string& language, const std::string& lc_all, const std::string& lang) {
  test::RunOptions o;
  o.cwd = test::data_dir();
  o.env = {"LANGUAGE=" + language, "LC_ALL=" + lc_all, "LC_MESSAGES=", "LANG=" + lang};
  return o;
}

const char* kSnapshot = "snapshots/gpu_box_two_a100_old_driver.json";

void check_golden(const std::string& name, const std::string& have) {
  const std::string path = test::data_dir() + "/golden/doctor/" + name;
  if (const char* u = std::getenv("TFRIG_UPDATE_GOLDEN"); u && std::string(u) == "1") std::ofstream(path) << have;
  std::ifstream in(path);
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(have, want.str()) << path << " differs; review, then rerun with TFRIG_UPDATE_GOLDEN=1";
}

TEST(I18nCli, DoctorInChineseFromLangMatchesTheReviewedGolden) {
  auto r = test::run_tfrig({"doctor", "--color", "never", "--snapshot", kSnapshot}, with_locale("", "", "zh_CN.UTF-8"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  check_golden("gpu_box_two_a100_old_driver.zh_CN.txt", test::normalize_text_report(r.out, test::data_dir()));
  // The same words as --lang zh_CN.
  auto flag = test::run_tfrig({"--lang", "zh_CN", "doctor", "--color", "never", "--snapshot", kSnapshot}, with_locale("", "", "C"));
  EXPECT_EQ(flag.out, r.out);
}

TEST(I18nCli, DoctorFromABugReportInChineseMatchesTheReviewedGolden) {
  // A machine judged from its nvidia-bug-report: the probe summaries the
  // importer stored in English read in Chinese; quoted log lines stay.
  auto r = test::run_tfrig({"--lang", "zh_CN", "doctor", "--color", "never", "--from", "nvidia-bug-report/Randy-jun__myautoconfig.log.gz"},
                           with_locale("", "", "C"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  check_golden("from_bug_report_Randy-jun.zh_CN.txt", test::normalize_text_report(r.out, test::data_dir()));
  EXPECT_NE(r.out.find("RmInitAdapter failed! (0x30:0xffff:1086)"), std::string::npos);  // the kernel's words
}

TEST(I18nCli, ExplainRuleInChineseMatchesTheReviewedGolden) {
  // One rule that fires and one that is skipped: the skip reason is Chinese too.
  auto fires = test::run_tfrig({"--lang", "zh_CN", "doctor", "--explain", "os.nofile_low", "--snapshot", kSnapshot}, with_locale("", "", "C"));
  EXPECT_EQ(fires.exit_code, 0) << fires.err;
  auto skipped = test::run_tfrig({"--lang", "zh_CN", "doctor", "--explain", "gpu.persistence_off", "--snapshot", "snapshots/cpu_box_cuda13.json"},
                                 with_locale("", "", "C"));
  EXPECT_EQ(skipped.exit_code, 0) << skipped.err;
  check_golden("explain.zh_CN.txt", fires.out + "\n----\n\n" + skipped.out);
  auto unknown = test::run_tfrig({"--lang", "zh_CN", "doctor", "--explain", "no.such_rule", "--snapshot", kSnapshot}, with_locale("", "", "C"));
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.err.find("没有规则 'no.such_rule'"), std::string::npos) << unknown.err;
}

TEST(I18nCli, SkipReasonsInJsonAreEnglishUnlessLangIsGiven) {
  auto plain = nlohmann::json::parse(
      test::run_tfrig({"doctor", "--format", "json", "--snapshot", kSnapshot}, with_locale("", "", "zh_CN.UTF-8")).out);
  auto zh = nlohmann::json::parse(
      test::run_tfrig({"--lang", "zh_CN", "doctor", "--format", "json", "--snapshot", kSnapshot}, with_locale("", "", "C")).out);
  ASSERT_EQ(plain["skipped"].size(), zh["skipped"].size());
  ASSERT_FALSE(plain["skipped"].empty());
  bool some_chinese = false;
  for (size_t i = 0; i < plain["skipped"].size(); ++i) {
    EXPECT_EQ(plain["skipped"][i]["rule_id"], zh["skipped"][i]["rule_id"]);
    const auto english = plain["skipped"][i]["missing"].get<std::string>();
    for (unsigned char c : english) EXPECT_LT(c, 0x80) << english;  // no Chinese without --lang
    some_chinese = some_chinese || zh["skipped"][i]["missing"] != plain["skipped"][i]["missing"];
  }
  EXPECT_TRUE(some_chinese);
}

TEST(I18nCli, ChineseFindingsKeepIdsSeveritiesAndCommandsAndWrapWithinTheColumns) {
  auto r = test::run_tfrig({"--lang", "zh_CN", "doctor", "--color", "never", "--snapshot", kSnapshot}, with_locale("", "", "C"));
  EXPECT_NE(r.out.find("driver.too_old_for_cuda"), std::string::npos);  // rule ids stay
  EXPECT_NE(r.out.find("警告"), std::string::npos);
  EXPECT_NE(r.out.find("修复："), std::string::npos);
  for (auto line : core::split_lines(r.out)) {
    // Finding texts wrap at 100 columns (a long path or command may not).
    if (line.find("          ") == 0 && line.find('/') == std::string_view::npos && line.find('`') == std::string_view::npos) {
      EXPECT_LE(core::display_width(line), 100u) << line;
    }
  }
}

TEST(I18nCli, JsonIsByteIdenticalWhateverTheLocaleWithoutLang) {
  auto en = test::run_tfrig({"doctor", "--format", "json", "--snapshot", kSnapshot}, with_locale("", "", "C.UTF-8"));
  auto zh = test::run_tfrig({"doctor", "--format", "json", "--snapshot", kSnapshot}, with_locale("zh_CN", "zh_CN.UTF-8", "zh_CN.UTF-8"));
  ASSERT_FALSE(en.out.empty()) << en.err;
  EXPECT_EQ(test::normalize_json_report(zh.out, test::data_dir()), test::normalize_json_report(en.out, test::data_dir()));
  EXPECT_EQ(zh.exit_code, en.exit_code);
  auto prom_en = test::run_tfrig({"doctor", "--format", "prometheus", "--snapshot", kSnapshot}, with_locale("", "", "C"));
  auto prom_zh = test::run_tfrig({"doctor", "--format", "prometheus", "--snapshot", kSnapshot}, with_locale("", "", "zh_CN.UTF-8"));
  ASSERT_FALSE(prom_en.out.empty());
  // Only the timestamp and timings may differ between two runs.
  auto stable = [](const std::string& text) {
    std::string out;
    for (auto line : core::split_lines(text)) {
      if (line.find("seconds") != std::string_view::npos || line.find("timestamp") != std::string_view::npos) continue;
      out += std::string(line) + "\n";
    }
    return out;
  };
  EXPECT_EQ(stable(prom_zh.out), stable(prom_en.out));
}

TEST(I18nCli, JsonWithLangTranslatesOnlyTheTexts) {
  auto en = nlohmann::json::parse(
      test::run_tfrig({"doctor", "--format", "json", "--snapshot", kSnapshot}, with_locale("", "", "C")).out);
  auto zh = nlohmann::json::parse(
      test::run_tfrig({"--lang", "zh_CN", "doctor", "--format", "json", "--snapshot", kSnapshot}, with_locale("", "", "C")).out);
  ASSERT_EQ(en["findings"].size(), zh["findings"].size());
  EXPECT_EQ(en["summary"], zh["summary"]);
  EXPECT_EQ(en["skipped"].size(), zh["skipped"].size());
  EXPECT_EQ(en["examined"], zh["examined"]);  // coverage names are keys, not prose
  bool some_title_differs = false;
  bool some_source_differs = false;
  for (size_t i = 0; i < en["findings"].size(); ++i) {
    const auto& a = en["findings"][i];
    const auto& b = zh["findings"][i];
    for (const char* key : {"rule_id", "severity", "area", "entity", "references"}) EXPECT_EQ(a[key], b[key]) << key;
    ASSERT_EQ(a["evidence"].size(), b["evidence"].size());
    // A source in words is a message like the fact ("knowledge tf_builds.json" 知识库 ...); a path or a
    // command stays as it is.
    for (size_t e = 0; e < a["evidence"].size(); ++e) {
      const std::string en_source = a["evidence"][e]["source"];
      const std::string zh_source = b["evidence"][e]["source"];
      some_source_differs = some_source_differs || en_source != zh_source;
      if (en_source.rfind('/', 0) == 0) {
        EXPECT_EQ(en_source, zh_source);
      }
    }
    some_title_differs = some_title_differs || a["title"] != b["title"];
  }
  EXPECT_TRUE(some_title_differs);
  EXPECT_TRUE(some_source_differs);
}

TEST(I18nCli, HelpIsInChineseAndUnknownLanguagesFallBackToEnglishSilently) {
  auto zh = test::run_tfrig({"--help"}, with_locale("", "", "zh_CN.UTF-8"));
  EXPECT_EQ(zh.exit_code, 0);
  EXPECT_NE(zh.out.find("用法"), std::string::npos) << zh.out;
  EXPECT_NE(zh.out.find("子命令"), std::string::npos);
  EXPECT_NE(zh.out.find("探测本机"), std::string::npos);
  auto doctor_help = test::run_tfrig({"--lang=zh_CN", "doctor", "--help"}, with_locale("", "", "C"));
  EXPECT_NE(doctor_help.out.find("使退出码非零的最低严重级别"), std::string::npos) << doctor_help.out;
  for (const char* lang : {"fr_FR.UTF-8", "zh_TW.UTF-8", "zh_CN.GB18030"}) {
    auto r = test::run_tfrig({"--help"}, with_locale("", "", lang));
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << lang;
    EXPECT_TRUE(r.err.empty()) << lang << ": " << r.err;
  }
  auto flag = test::run_tfrig({"--lang", "xx", "--help"}, with_locale("", "", "zh_CN.UTF-8"));
  EXPECT_NE(flag.out.find("Usage"), std::string::npos);
}

TEST(I18nCli, TheLangValueIsNotTakenForACommand) {
  auto r = test::run_tfrig({"--lang", "zh_CN", "doctr"}, with_locale("", "", "C"));
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("未知命令 'doctr'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'doctor'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tfrig
