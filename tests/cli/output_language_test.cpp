// The language of stdout's machine output and of stderr, separately: JSON,
// Prometheus and CSV stay English unless --lang is given (programs read
// them), while errors, warnings and the log follow the reader's locale.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/i18n.h"
#include "core/i18n_scope.h"
#include "core/text.h"
#include "test_support.h"

namespace tfrig {
namespace {

// Every locale variable set, so the caller's own environment never decides.
test::RunOptions with_lang(const std::string& lang) {
  test::RunOptions o;
  o.cwd = test::data_dir();
  o.env = {"LANGUAGE=", "LC_ALL=", "LC_MESSAGES=", "LANG=" + lang};
  return o;
}

std::string joined(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) out += (out.empty() ? "" : " ") + a;
  return out;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A Prometheus text without the two samples that are times of the run.
std::string without_run_times(const std::string& text) {
  std::string out;
  for (auto line : core::split(text, '\n')) {
    if (line.find("tfrig_last_run_timestamp_seconds ") == 0 || line.find("tfrig_run_duration_seconds ") == 0) continue;
    out += std::string(line) + "\n";
  }
  return out;
}

TEST(OutputLanguage, ScopedLanguageSwitchesAndRestores) {
  core::i18n::set_language("zh_CN");
  {
    core::i18n::ScopedLanguage english("en");
    EXPECT_EQ(core::i18n::language(), "en");
    EXPECT_EQ(_("No such file or directory"), "No such file or directory");
    {
      core::i18n::ScopedLanguage chinese("zh_CN");
      EXPECT_EQ(core::i18n::language(), "zh_CN");
    }
    EXPECT_EQ(core::i18n::language(), "en");
  }
  EXPECT_EQ(core::i18n::language(), "zh_CN");
  EXPECT_NE(_("No such file or directory"), "No such file or directory");
  core::i18n::set_language("en");
}

TEST(OutputLanguage, InputErrorsOfMachineOutputCommandsFollowTheLocale) {
  const std::vector<std::vector<std::string>> commands = {
      {"doctor", "--format", "json", "--snapshot", "no-such-snapshot.json"},
      {"doctor", "--format", "prometheus", "--snapshot", "no-such-snapshot.json"},
      {"doctor", "--format", "json", "--from", "no-such-bug-report.log"},
      {"import", "no-such-bug-report.log"},
      {"import", "nvidia-smi-xml", "no-such-file.xml"},
  };
  for (const auto& args : commands) {
    const std::string shown = joined(args);
    auto zh = test::run_tfrig(args, with_lang("zh_CN.UTF-8"));
    EXPECT_EQ(zh.exit_code, 66) << shown << "\n" << zh.err;
    EXPECT_TRUE(zh.out.empty()) << shown;
    EXPECT_TRUE(has(zh.err, "tfrig: 错误：")) << shown << "\n" << zh.err;
    EXPECT_TRUE(has(zh.err, "没有该文件或目录")) << shown << "\n" << zh.err;
    // --lang en: English everywhere, whatever the locale.
    std::vector<std::string> english = {"--lang", "en"};
    english.insert(english.end(), args.begin(), args.end());
    auto en = test::run_tfrig(english, with_lang("zh_CN.UTF-8"));
    EXPECT_EQ(en.exit_code, 66) << shown;
    EXPECT_TRUE(has(en.err, "tfrig: error: ")) << shown << "\n" << en.err;
    EXPECT_TRUE(has(en.err, "No such file or directory")) << shown << "\n" << en.err;
  }
  // A write that fails after the output was built: the reader's language.
  auto write = test::run_tfrig({"snapshot", "--root", "roots/broken", "-o", "no-such-dir/out.json"}, with_lang("zh_CN.UTF-8"));
  EXPECT_EQ(write.exit_code, 73) << write.err;
  EXPECT_TRUE(has(write.err, "无法写入")) << write.err;
}

TEST(OutputLanguage, ProbedJsonIsEnglishWhileTheLogFollowsTheLocale) {
  // Live probes (under --root) put their problems into the JSON; the log on stderr is the reader's.
  for (std::vector<std::string> args : {std::vector<std::string>{"--root", "roots/broken", "doctor", "--format", "json"},
                                        std::vector<std::string>{"--root", "roots/broken", "snapshot", "-o", "-"},
                                        std::vector<std::string>{"--root", "roots/stack-cuda12", "doctor", "--format", "json"}}) {
    const std::string shown = joined(args);
    auto c = test::run_tfrig(args, with_lang("C"));
    args.insert(args.begin(), "-v");
    auto zh = test::run_tfrig(args, with_lang("zh_CN.UTF-8"));
    ASSERT_FALSE(c.out.empty()) << shown << "\n" << c.err;
    const std::string root = test::data_dir();
    EXPECT_EQ(test::normalize_json_report(zh.out, root), test::normalize_json_report(c.out, root)) << shown;
    EXPECT_TRUE(has(zh.err, "tfrig: 提示：探测 ")) << shown << "\n" << zh.err;
    EXPECT_FALSE(has(zh.err, "tfrig: info:")) << shown << "\n" << zh.err;
  }
}

TEST(OutputLanguage, ImportedAndJudgedOutputsAreByteIdenticalAcrossLocales) {
  const std::string report = "nvidia-bug-report/Randy-jun__myautoconfig.log.gz";
  const std::string log = "logs/tf-8526-driver-insufficient.log";
  const std::vector<std::vector<std::string>> commands = {
      {"import", report},
      {"doctor", "--format", "json", "--from", report, "--from", log},
      {"doctor", "--format", "json", "--snapshot", "snapshots/eight_quadro_rtx5000.json"},
      {"doctor", "--format", "prometheus", "--snapshot", "snapshots/cpu_box_cuda13.json"},
  };
  const std::string root = test::data_dir();
  for (const auto& args : commands) {
    const std::string shown = joined(args);
    auto c = test::run_tfrig(args, with_lang("C"));
    auto zh = test::run_tfrig(args, with_lang("zh_CN.UTF-8"));
    ASSERT_FALSE(c.out.empty()) << shown << "\n" << c.err;
    if (args[0] == "import" || args[2] == "json") {
      EXPECT_EQ(test::normalize_json_report(zh.out, root), test::normalize_json_report(c.out, root)) << shown;
    } else {
      EXPECT_EQ(without_run_times(zh.out), without_run_times(c.out)) << shown;
    }
    EXPECT_EQ(zh.exit_code, c.exit_code) << shown;
  }
}

}  // namespace
}  // namespace tfrig
