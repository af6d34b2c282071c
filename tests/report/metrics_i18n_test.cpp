// `tfrig metrics` in Chinese: the table's words follow the language, the
// metric names, types and labels do not, and --markdown (docs/metrics.md,
// generated) is the same in every locale.
#include <gtest/gtest.h>

#include "core/display_width.h"
#include "core/text.h"
#include "test_support.h"

namespace tfrig {
namespace {

test::RunOptions locale(const std::string& lang) {
  test::RunOptions o;
  o.env = {"LANGUAGE=", "LC_ALL=", "LC_MESSAGES=", "LANG=" + lang};
  return o;
}

TEST(MetricsI18n, ChineseTableKeepsTheNamesAndLinesUp) {
  auto en = test::run_tfrig({"metrics"}, locale("C.UTF-8"));
  auto zh = test::run_tfrig({"metrics"}, locale("zh_CN.UTF-8"));
  ASSERT_EQ(zh.exit_code, 0) << zh.err;
  const auto en_lines = core::split_lines(en.out);
  const auto zh_lines = core::split_lines(zh.out);
  ASSERT_EQ(en_lines.size(), zh_lines.size());
  EXPECT_EQ(zh_lines.front().substr(0, 6), "指标");
  // The rows (names, types, labels) are the same text in both languages.
  for (size_t i = 1; i + 2 < zh_lines.size(); ++i) EXPECT_EQ(zh_lines[i], en_lines[i]);
  // The header's "type" column starts where the rows' types do.
  const size_t type_at = zh_lines[1].find("gauge") != std::string_view::npos ? zh_lines[1].find("gauge") : zh_lines[1].find("counter");
  ASSERT_NE(type_at, std::string_view::npos) << zh_lines[1];
  const size_t header_type = zh_lines[0].find("类型");
  ASSERT_NE(header_type, std::string_view::npos);
  EXPECT_EQ(core::display_width(zh_lines[0].substr(0, header_type)), type_at) << zh.out;
  EXPECT_NE(zh_lines.back().find("docs/metrics.md"), std::string_view::npos);
  EXPECT_NE(zh_lines.back().find("个指标"), std::string_view::npos) << zh_lines.back();
}

TEST(MetricsI18n, MarkdownIsTheSameInEveryLocale) {
  auto en = test::run_tfrig({"metrics", "--markdown"}, locale("C.UTF-8"));
  auto zh = test::run_tfrig({"metrics", "--markdown"}, locale("zh_CN.UTF-8"));
  ASSERT_EQ(en.exit_code, 0) << en.err;
  EXPECT_EQ(zh.out, en.out);
}

}  // namespace
}  // namespace tfrig
