// Errors that go straight to the user are in the reader's language and still
// name the file, the offset or the option; in English they are unchanged.
// Parse errors a probe stores (a snapshot keeps English) are translated only
// when the report is printed: tests/report/probe_detail_test.cpp.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/exit_code.h"
#include "test_support.h"

namespace tfrig {
namespace {

test::RunOptions with_locale(const std::string& lang) {
  test::RunOptions o;
  o.env = {"LANGUAGE=", "LC_ALL=", "LC_MESSAGES=", "LANG=" + lang};
  return o;
}

TEST(ErrorI18n, ABrokenNvidiaSmiXmlNamesTheFileAndOffsetInChinese) {
  test::TempDir dir;
  const std::string file = dir.file("q.xml");
  test::write_file(file, "<nvidia_smi_log><gpu>\n");
  const std::vector<std::string> args = {"doctor", "--nvidia-smi-xml", file};
  auto en = test::run_tfrig(args, with_locale("C.UTF-8"));
  EXPECT_NE(en.exit_code, 0);
  EXPECT_NE(en.err.find(file + ": offset "), std::string::npos) << en.err;
  EXPECT_NE(en.err.find(": not well-formed XML: "), std::string::npos) << en.err;
  auto zh = test::run_tfrig(args, with_locale("zh_CN.UTF-8"));
  EXPECT_EQ(zh.exit_code, en.exit_code);
  EXPECT_NE(zh.err.find(file + ": offset "), std::string::npos) << zh.err;
  EXPECT_NE(zh.err.find("XML 格式不正确："), std::string::npos) << zh.err;
  EXPECT_EQ(zh.err.find("not well-formed"), std::string::npos) << zh.err;
}

TEST(ErrorI18n, AnOutOfRangeDeadlineIsExplainedInChinese) {
  const std::vector<std::string> args = {"doctor", "--root", test::root_dir("debian12-vm"), "--deadline", "0"};
  auto en = test::run_tfrig(args, with_locale("C.UTF-8"));
  EXPECT_EQ(en.exit_code, core::kExitUsage) << en.err;
  EXPECT_NE(en.err.find("--deadline: expected seconds between 0.001 and 3600"), std::string::npos) << en.err;
  auto zh = test::run_tfrig(args, with_locale("zh_CN.UTF-8"));
  EXPECT_EQ(zh.exit_code, core::kExitUsage) << zh.err;
  EXPECT_NE(zh.err.find("--deadline: 应为 0.001 到 3600 之间的秒数"), std::string::npos) << zh.err;
}

TEST(ErrorI18n, SetupRefusesANonEmptyFolderInChineseNamingIt) {
  test::TempDir dir;
  test::write_file(dir.file("mine.txt"), "keep me\n");
  const std::vector<std::string> args = {"setup", "--tf", "2.17", "-o", dir.path()};
  auto en = test::run_tfrig(args, with_locale("C.UTF-8"));
  EXPECT_NE(en.exit_code, 0);
  EXPECT_NE(en.err.find(dir.path() + ": is not empty; choose a new directory or pass --force"), std::string::npos) << en.err;
  auto zh = test::run_tfrig(args, with_locale("zh_CN.UTF-8"));
  EXPECT_EQ(zh.exit_code, en.exit_code);
  EXPECT_NE(zh.err.find(dir.path()), std::string::npos) << zh.err;
  EXPECT_NE(zh.err.find("不是空目录；请换一个新目录，或加 --force"), std::string::npos) << zh.err;
  EXPECT_EQ(test::read_file(dir.file("mine.txt")), "keep me\n");
}

}  // namespace
}  // namespace tfrig
