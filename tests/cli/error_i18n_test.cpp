// Errors that go straight to the user are in the reader's language and still
// name the file, the offset or the option; in English they are unchanged.
// Parse errors a probe stores (a snapshot keeps English) are translated only
// when the report is printed: tests/report/probe_detail_test.cpp.
#include <regex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/exit_code.h"
#include "core/i18n.h"
#include "core/result.h"
#include "core/sysroot.h"
#include "golden.h"
#include "test_support.h"

namespace tfrig {
namespace {

TEST(ErrorI18n, ABrokenNvidiaSmiXmlNamesTheFileAndOffsetInChinese) {
  test::TempDir dir;
  const std::string file = dir.file("q.xml");
  test::write_file(file, "<nvidia_smi_log><gpu>\n");
  const std::vector<std::string> args = {"doctor", "--nvidia-smi-xml", file};
  auto en = test::run_tfrig(args, test::in_locale("C.UTF-8"));
  EXPECT_NE(en.exit_code, 0);
  EXPECT_NE(en.err.find(file + ": offset "), std::string::npos) << en.err;
  EXPECT_NE(en.err.find(": not well-formed XML: "), std::string::npos) << en.err;
  auto zh = test::run_tfrig(args, test::in_locale("zh_CN.UTF-8"));
  EXPECT_EQ(zh.exit_code, en.exit_code);
  // The file's name stays; the offset and the message are words (the error is a message).
  EXPECT_NE(zh.err.find(file + "：偏移 "), std::string::npos) << zh.err;
  EXPECT_NE(zh.err.find("XML 格式不正确："), std::string::npos) << zh.err;
  EXPECT_EQ(zh.err.find("not well-formed"), std::string::npos) << zh.err;
}

TEST(ErrorI18n, AnOutOfRangeDeadlineIsExplainedInChinese) {
  const std::vector<std::string> args = {"doctor", "--root", test::root_dir("debian12-vm"), "--deadline", "0"};
  auto en = test::run_tfrig(args, test::in_locale("C.UTF-8"));
  EXPECT_EQ(en.exit_code, core::kExitUsage) << en.err;
  EXPECT_NE(en.err.find("--deadline: value '0' is not a number from 0.01 to 3600"), std::string::npos) << en.err;
  auto zh = test::run_tfrig(args, test::in_locale("zh_CN.UTF-8"));
  EXPECT_EQ(zh.exit_code, core::kExitUsage) << zh.err;
  EXPECT_NE(zh.err.find("选项 --deadline：值“0”不是 0.01 到 3600 之间的数"), std::string::npos) << zh.err;
}

TEST(ErrorI18n, SetupRefusesANonEmptyFolderInChineseNamingIt) {
  test::TempDir dir;
  test::write_file(dir.file("mine.txt"), "keep me\n");
  const std::vector<std::string> args = {"setup", "--tf", "2.17", "-o", dir.path()};
  auto en = test::run_tfrig(args, test::in_locale("C.UTF-8"));
  EXPECT_NE(en.exit_code, 0);
  EXPECT_NE(en.err.find(dir.path() + ": is not empty; choose a new directory or pass --force"), std::string::npos) << en.err;
  auto zh = test::run_tfrig(args, test::in_locale("zh_CN.UTF-8"));
  EXPECT_EQ(zh.exit_code, en.exit_code);
  EXPECT_NE(zh.err.find(dir.path()), std::string::npos) << zh.err;
  EXPECT_NE(zh.err.find("不是空目录；请换一个新目录，或加 --force"), std::string::npos) << zh.err;
  EXPECT_EQ(test::read_file(dir.file("mine.txt")), "keep me\n");
}

// A probe builds its errors as messages (core::Error::text): nothing is
// translated where it is built, so any thread stores the same English.
TEST(ErrorI18n, AnErrorKeepsItsMessageAndRendersInTheReadersLanguage) {
  core::i18n::set_language("zh_CN");
  std::optional<core::Error> on_other_thread;
  std::thread t([&] { on_other_thread = core::SysRoot(test::root_dir("broken")).read_text("/").error(); });
  t.join();
  const std::string shown = core::describe(*on_other_thread);
  core::i18n::set_language("en");
  EXPECT_EQ(on_other_thread->message, "is a directory, expected a file");
  EXPECT_EQ(on_other_thread->to_string(), on_other_thread->where + ": is a directory, expected a file");
  EXPECT_EQ(shown, on_other_thread->where + ": 是一个目录，应为文件");
}

// The broken fixture root: every kind of problem a probe stores (unreadable,
// binary, malformed files; symlink loops). JSON keeps them English in every
// language; the Chinese text report shows them in Chinese with their paths.
TEST(ErrorI18n, ProbeProblemsAreStoredEnglishAndPrintedChinese) {
  const std::string root = test::root_dir("broken");
  const std::vector<std::string> json_args = {"--root", root, "doctor", "--fail-on", "never", "--format", "json", "--deadline", "60"};
  auto en = test::run_tfrig(json_args, test::in_locale("C.UTF-8"));
  std::vector<std::string> zh_args = json_args;
  zh_args.insert(zh_args.end(), {"--lang", "zh_CN"});
  auto zh = test::run_tfrig(zh_args, test::in_locale("zh_CN.UTF-8"));
  ASSERT_EQ(en.exit_code, 0) << en.err;
  ASSERT_EQ(zh.exit_code, 0) << zh.err;
  auto a = nlohmann::json::parse(en.out);
  auto b = nlohmann::json::parse(zh.out);
  EXPECT_EQ(a["inventory"], b["inventory"]);
  ASSERT_EQ(a["probes"].size(), b["probes"].size());
  for (size_t i = 0; i < a["probes"].size(); ++i) {
    EXPECT_EQ(a["probes"][i]["problems"], b["probes"][i]["problems"]) << a["probes"][i]["id"];
    EXPECT_EQ(a["probes"][i]["detail"], b["probes"][i]["detail"]) << a["probes"][i]["id"];
  }

  // The problems are cut to the width, so the root's path needs one length.
  const test::FixedLengthRoot fixed(root);
  auto text = test::run_tfrig({"--root", fixed.path(), "doctor", "--fail-on", "never", "--color", "never", "--deadline", "60"},
                              test::in_locale("zh_CN.UTF-8"));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  // The probes' problems: "  ID: PATH: ..." under the Probes table.
  std::string problems;
  std::istringstream in(test::normalize_text_report(text.out, fixed.path()));
  static const std::regex problem_line("  [a-z_]+: .*");
  for (std::string line; std::getline(in, line);) {
    if (std::regex_match(line, problem_line)) problems += line + "\n";
  }
  EXPECT_TRUE(test::matches_golden(test::golden_path("roots/broken.problems.zh_CN.txt"), problems));
}

}  // namespace
}  // namespace tfrig
