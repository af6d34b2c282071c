// `tfrig plan` in Chinese: a golden reviewed for meaning, tables that align
// by display width, and JSON that stays English unless --lang asks.
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/display_width.h"
#include "core/text.h"
#include "golden.h"
#include "test_support.h"

namespace tfrig {
namespace {

// Every locale variable set, so the caller's own environment never decides.
// A machine with findings, so the barrel table (木桶效应) is printed too.
const std::vector<std::string> kPlan = {"plan", "--model", "resnet50", "--batch", "256", "--precision", "mixed_float16", "--top", "5",
                                        "--snapshot", "snapshots/gpu_box_two_a100_old_driver.json"};

TEST(PlanI18n, ChinesePlanMatchesTheReviewedGolden) {
  auto r = test::run_tfrig(test::with_zh_lang(kPlan), test::in_locale("C", test::data_dir()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(test::matches_golden(test::golden_path("plan/resnet50_mixed_float16_batch256.zh_CN.txt"), r.out));
  // LANG chooses Chinese as --lang does.
  EXPECT_EQ(test::run_tfrig(kPlan, test::in_locale("zh_CN.UTF-8", test::data_dir())).out, r.out);
}

// The lines of the table that follows the heading line `heading`, up to the next blank line.
std::vector<std::string> table_after(const std::string& text, const std::string& heading) {
  std::vector<std::string> rows;
  bool in = false;
  for (auto line : core::split_lines(text)) {
    if (!in) {
      in = line == heading;
      continue;
    }
    if (line.empty()) break;
    rows.emplace_back(line);
  }
  return rows;
}

TEST(PlanI18n, ChineseTablesAlignByDisplayWidth) {
  // Wide enough that no table folds: one line a row, its columns measured.
  test::RunOptions wide = test::in_locale("C", test::data_dir());
  wide.env.push_back("COLUMNS=1000");
  auto r = test::run_tfrig(test::with_zh_lang(kPlan), wide);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The memory table: its size column is right-aligned, so every row ends that
  // column at the same terminal column, Chinese term names or not.
  const auto mem = table_after(r.out, "单个副本的显存占用（每块 GPU 批大小 256）");
  ASSERT_GE(mem.size(), 10u) << r.out;
  const std::string size_header = "容量";
  ASSERT_NE(mem[0].find(size_header), std::string::npos) << mem[0];
  const size_t header_end = core::display_width(mem[0].substr(0, mem[0].find(size_header) + size_header.size()));
  const std::regex size(R"(\d+(\.\d+)? (B|KiB|MiB|GiB))");
  for (size_t i = 1; i < mem.size(); ++i) {
    std::smatch m;
    ASSERT_TRUE(std::regex_search(mem[i], m, size)) << mem[i];
    EXPECT_EQ(core::display_width(mem[i].substr(0, static_cast<size_t>(m.position(0) + m.length(0)))), header_end) << mem[i];
  }
  // The barrel table: the 现有 column starts at one terminal column in every row.
  const auto barrel = table_after(r.out, "木桶效应：快照 snapshots/gpu_box_two_a100_old_driver.json");
  ASSERT_GE(barrel.size(), 3u) << r.out;
  ASSERT_NE(barrel[0].find("现有"), std::string::npos) << barrel[0];
  const size_t have_col = core::display_width(barrel[0].substr(0, barrel[0].find("现有")));
  size_t checked = 0;
  for (size_t i = 1; i < barrel.size(); ++i) {
    const std::string& row = barrel[i];
    // Table rows end with their verdict; the summary lines below the table do not.
    if (!core::ends_with(row, "  够用") && !core::ends_with(row, "  短板") && !core::ends_with(row, "  未知")) continue;
    // The stave name is followed by at least two spaces, then the value.
    const size_t gap = row.find("  ", 2);
    ASSERT_NE(gap, std::string::npos) << row;
    const size_t value = row.find_first_not_of(' ', gap);
    EXPECT_EQ(core::display_width(row.substr(0, value)), have_col) << row;
    ++checked;
  }
  EXPECT_GE(checked, 4u) << r.out;
}

TEST(PlanI18n, JsonIsEnglishWithoutLangAndKeepsItsNumbersWithIt) {
  std::vector<std::string> json_args = kPlan;
  json_args.insert(json_args.end(), {"--format", "json"});
  auto en = test::run_tfrig(json_args, test::in_locale("C.UTF-8", test::data_dir()));
  auto zh_env = test::run_tfrig(json_args, test::in_locale("zh_CN.UTF-8", test::data_dir()));
  ASSERT_EQ(en.exit_code, 0) << en.err;
  EXPECT_EQ(zh_env.out, en.out);  // LANG alone never changes a machine output
  auto zh = test::run_tfrig(test::with_zh_lang(json_args), test::in_locale("C", test::data_dir()));
  ASSERT_EQ(zh.exit_code, 0) << zh.err;
  const auto a = nlohmann::json::parse(en.out);
  const auto b = nlohmann::json::parse(zh.out);
  EXPECT_EQ(a["memory"], b["memory"]);
  ASSERT_EQ(a["gpus"].size(), b["gpus"].size());
  for (size_t i = 0; i < a["gpus"].size(); ++i) {
    for (const char* key : {"id", "fits", "basis", "tier", "segment", "est_samples_per_s"}) EXPECT_EQ(a["gpus"][i][key], b["gpus"][i][key]) << key;
  }
  // Stave names and verdicts are contract words; what a stave has and needs is prose.
  ASSERT_EQ(a["machine"]["staves"].size(), b["machine"]["staves"].size());
  for (size_t i = 0; i < a["machine"]["staves"].size(); ++i) {
    EXPECT_EQ(a["machine"]["staves"][i]["name"], b["machine"]["staves"][i]["name"]);
    EXPECT_EQ(a["machine"]["staves"][i]["verdict"], b["machine"]["staves"][i]["verdict"]);
  }
}

// The calibration's texts (text, warning, what of the file was read) are
// messages: English in JSON under a Chinese locale, Chinese with --lang
// zh_CN and in the text output. A public Keras fit log (test data README).
TEST(PlanI18n, CalibrationTextsRenderInTheOutputsLanguage) {
  const std::vector<std::string> args = {"plan", "--params", "40000000", "--family", "transformer", "--seq-len", "64",
                                         "--batch", "64", "--calibrate", "keras_fit/keras-io-perceiver-v100-epochs-1-10.log",
                                         "--calibrate-gpu", "tesla-v100-sxm2-16gb"};
  std::vector<std::string> json_args = args;
  json_args.insert(json_args.end(), {"--format", "json"});
  auto en = test::run_tfrig(json_args, test::in_locale("zh_CN.UTF-8", test::data_dir()));
  ASSERT_EQ(en.exit_code, 0) << en.err;
  const auto a = nlohmann::json::parse(en.out);
  EXPECT_EQ(a["calibration"]["step"]["where"], "lines 4-20");
  EXPECT_EQ(a["calibration"]["text"].get<std::string>().rfind("calibrated on your run: ", 0), 0u) << a["calibration"];
  EXPECT_EQ(a["model"]["name"], "transformer of 40000000 parameters (9 layers, hidden 640, 10 heads)");
  auto zh = test::run_tfrig(test::with_zh_lang(json_args), test::in_locale("C", test::data_dir()));
  ASSERT_EQ(zh.exit_code, 0) << zh.err;
  const auto b = nlohmann::json::parse(zh.out);
  EXPECT_EQ(b["calibration"]["factor"], a["calibration"]["factor"]);
  EXPECT_NE(b["calibration"]["text"], a["calibration"]["text"]);
  EXPECT_NE(b["calibration"]["step"]["where"], a["calibration"]["step"]["where"]);
  EXPECT_NE(b["model"]["name"], a["model"]["name"]);
  auto text = test::run_tfrig(args, test::in_locale("zh_CN.UTF-8", test::data_dir()));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out.find("calibrated on your run"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(b["calibration"]["step"]["where"].get<std::string>()), std::string::npos) << text.out;
}

}  // namespace
}  // namespace tfrig
