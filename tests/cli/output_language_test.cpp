// The language of stdout's machine output and of stderr, separately: JSON,
// Prometheus and CSV stay English unless --lang is given (programs read
// them), while errors, warnings and the log follow the reader's locale.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/i18n.h"
#include "core/i18n_scope.h"
#include "core/result.h"
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
      {"explain", "--format", "json", "no-such.log"},
      {"fleet", "--format", "json", "no-such-dir"},
      {"fleet", "--format", "json", "--baseline", "no-such-snapshot.json", "snapshots"},
      {"verify", "--json", "no-such.tfrecord"},
      {"inspect", "--json", "no-such.tfrecord"},
      {"plan", "--keras-summary", "no-such-summary.txt", "--format", "json"},
      {"plan", "--model", "resnet50", "--format", "json", "--epochs", "1", "--prices", "no-such-prices.csv"},
      {"pipeline", "--data", "tfrecord", "--samples-per-s", "500", "--format", "json", "--epochs", "1", "--prices",
       "no-such-prices.csv"},
      {"watch", "--replay", "no-such.jsonl", "--format", "json"},
      {"watch", "--replay", "no-such.jsonl", "--format", "csv"},
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
    EXPECT_TRUE(has(en.err, "o such file or directory")) << shown << "\n" << en.err;
  }
  // A benchmark id that does not exist, refused before anything is measured.
  auto bench = test::run_tfrig({"bench", "--format", "json", "no-such-benchmark"}, with_lang("zh_CN.UTF-8"));
  EXPECT_EQ(bench.exit_code, 64) << bench.err;
  EXPECT_TRUE(has(bench.err, "tfrig: 错误：no-such-benchmark: 未知的基准测试")) << bench.err;
  // An option checked against the knowledge base.
  auto tf = test::run_tfrig({"compat", "--tf", "9.9", "--only-given", "--format", "json"}, with_lang("zh_CN.UTF-8"));
  EXPECT_EQ(tf.exit_code, 64) << tf.err;
  EXPECT_TRUE(has(tf.err, "tfrig: 错误：--tf: ")) << tf.err;
  EXPECT_TRUE(has(tf.err, "知识库")) << tf.err;
  // A write that fails after the output was built: the reader's language.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"snapshot", "--root", "roots/broken", "-o", "no-such-dir/out.json"},
        std::vector<std::string>{"fleet", "--format", "json", "-o", "no-such-dir/out.json", "snapshots"},
        std::vector<std::string>{"doctor", "--format", "json", "--snapshot", "snapshots/cpu_box_cuda13.json", "-o",
                                 "no-such-dir/out.json"}}) {
    auto write = test::run_tfrig(args, with_lang("zh_CN.UTF-8"));
    EXPECT_EQ(write.exit_code, 73) << joined(args) << "\n" << write.err;
    EXPECT_TRUE(has(write.err, "无法写入")) << joined(args) << "\n" << write.err;
  }
}

TEST(OutputLanguage, ProbedJsonIsEnglishWhileTheLogFollowsTheLocale) {
  // Live probes (under --root) put their problems into the JSON; the log on stderr is the reader's.
  for (std::vector<std::string> args :
       {std::vector<std::string>{"--root", "roots/broken", "doctor", "--format", "json"},
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

TEST(OutputLanguage, OtherJsonOutputsAreByteIdenticalAcrossLocalesAndTranslatedWithLang) {
  const std::vector<std::vector<std::string>> commands = {
      {"compat", "--tf", "2.15", "--driver", "470", "--gpu", "A100", "--only-given", "--format", "json"},
      {"explain", "--format", "json", "--snapshot", "snapshots/gpu_box_two_a100_old_driver.json",
       "logs/tf-47058-no-binary-a100.log"},
      {"fleet", "--format", "json", "snapshots"},
      {"verify", "--json", "tfrecord/tfx__cifar10_test.tfrecord"},
      {"inspect", "--json", "tfrecord/tfx__cifar10_test.tfrecord"},
      {"knowledge", "--format", "json"},
      {"plan", "--model", "resnet50", "--format", "json", "--epochs", "2", "--rent", "a100-sxm4-80gb=2.5"},
      {"plan", "--keras-summary", "keras_summary/keras3_box_functional.txt", "--format", "json"},
      {"plan", "--model", "bert-base", "--snapshot", "snapshots/gpu_box_two_a100_old_driver.json", "--format", "json"},
      {"watch", "--replay", "watch/io-heavy.jsonl", "--format", "json"},
      {"watch", "--replay", "watch/io-heavy.jsonl", "--format", "csv"},
  };
  for (const auto& args : commands) {
    const std::string shown = joined(args);
    auto c = test::run_tfrig(args, with_lang("C"));
    auto zh = test::run_tfrig(args, with_lang("zh_CN.UTF-8"));
    ASSERT_FALSE(c.out.empty()) << shown << "\n" << c.err;
    EXPECT_EQ(zh.out, c.out) << shown;
    EXPECT_EQ(zh.exit_code, c.exit_code) << shown;
  }
  // --lang zh_CN: the texts inside are Chinese (a compat answer's reasons, explain's findings).
  for (std::vector<std::string> args : {commands[0], commands[1]}) {
    const std::string shown = joined(args);
    args.insert(args.begin(), {"--lang", "zh_CN"});
    auto zh = test::run_tfrig(args, with_lang("C"));
    EXPECT_TRUE(has(zh.out, "驱动")) << shown << "\n" << zh.out;
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
