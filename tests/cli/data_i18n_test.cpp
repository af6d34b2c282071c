// pack, verify, inspect and import in Chinese: goldens reviewed for meaning
// (a good and a damaged TFRecord file, a cut capture), the feature table
// aligned by display width, and JSON that stays English unless --lang asks.
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/display_width.h"
#include "core/text.h"
#include "golden.h"
#include "test_support.h"
#include "tfrecord/tfrecord_test_util.h"

namespace tfrig {
namespace {

namespace fs = std::filesystem;

// Every locale variable set, so the caller's own environment never decides.
test::RunOptions with_locale(const std::string& lang, const std::string& cwd) {
  test::RunOptions o;
  o.cwd = cwd;
  o.env = {"LANGUAGE=", "LC_ALL=", "LC_MESSAGES=", "LANG=" + lang};
  return o;
}

std::string data(const std::string& rel) { return test::data_dir() + "/" + rel; }

// A folder of TFRecord files made from a real one (tests/data/tfrecord): the
// file as it is, one with a flipped data byte, one cut short, a gzip file
// cut short, and a shard set that lacks a shard. Names are relative to it.
struct DamagedFiles {
  test::TempDir dir;
  DamagedFiles() {
    const std::string good = test::read_file(data("tfrecord/magenta__tfrecord_iterator_test.tfrecord"));
    test::write_file(dir.path() + "/good.tfrecord", good);
    std::string flipped = good;
    flipped[27 + 12 + 2] ^= 0x01;  // record 1's data ("12345"); record 0 is 12 + 11 + 4 bytes
    test::write_file(dir.path() + "/flipped.tfrecord", flipped);
    test::write_file(dir.path() + "/cut.tfrecord", good.substr(0, good.size() - 5));
    const std::string gz = test::read_file(data("tfrecord/tfx__penguin_eval_data_tfrecord-00000-of-00001.gz"));
    test::write_file(dir.path() + "/penguin-cut.tfrecord.gz", gz.substr(0, gz.size() / 2));
    fs::create_directories(dir.path() + "/shards");
    test::write_file(dir.path() + "/shards/train-00000-of-00002.tfrecord", good);
  }
  std::string path() const { return dir.path(); }
};

const std::vector<std::string> kVerify = {"verify", "good.tfrecord", "flipped.tfrecord", "cut.tfrecord",
                                          "penguin-cut.tfrecord.gz", "shards"};

TEST(DataI18n, VerifyOfGoodAndDamagedFilesInChineseMatchesTheReviewedGolden) {
  DamagedFiles files;
  auto zh = test::run_tfrig(kVerify, with_locale("zh_CN.UTF-8", files.path()));
  EXPECT_EQ(zh.exit_code, 1) << zh.err;
  EXPECT_TRUE(test::matches_golden(test::golden_path("tfrecord/verify_good_and_damaged.zh_CN.txt"), zh.out));
  // The problem ids, offsets and file names are the English run's.
  auto en = test::run_tfrig(kVerify, with_locale("C", files.path()));
  EXPECT_NE(en.out.find("FAIL flipped.tfrecord: data_crc in record 1 at byte offset 27"), std::string::npos) << en.out;
  EXPECT_NE(zh.out.find("失败 flipped.tfrecord：第 1 条记录（字节偏移 27）出现 data_crc"), std::string::npos) << zh.out;
  // 正常 / 失败 take the 5 columns of "OK   " / "FAIL ": the file names line up.
  for (auto line : core::split_lines(zh.out)) {
    if (!core::starts_with(line, "正常 ") && !core::starts_with(line, "失败 ")) continue;
    EXPECT_EQ(core::display_width(line.substr(0, line.find(' ') + 1)), 5u) << line;
  }
}

TEST(DataI18n, VerifyAndInspectJsonAreByteIdenticalAcrossLocalesWithoutLang) {
  DamagedFiles files;
  std::vector<std::string> json = kVerify;
  json.push_back("--json");
  auto en = test::run_tfrig(json, with_locale("C", files.path()));
  auto zh = test::run_tfrig(json, with_locale("zh_CN.UTF-8", files.path()));
  EXPECT_EQ(en.exit_code, 1);
  EXPECT_EQ(en.out, zh.out);
  // With --lang the messages are Chinese; kinds, offsets and keys are not.
  std::vector<std::string> lang = {"--lang", "zh_CN"};
  lang.insert(lang.end(), json.begin(), json.end());
  auto translated = test::run_tfrig(lang, with_locale("C", files.path()));
  auto a = nlohmann::json::parse(en.out);
  auto b = nlohmann::json::parse(translated.out);
  ASSERT_EQ(a["results"].size(), b["results"].size());
  for (size_t i = 0; i < a["results"].size(); ++i) {
    auto& pa = a["results"][i]["problem"];
    auto& pb = b["results"][i]["problem"];
    if (pa.is_null()) continue;
    EXPECT_EQ(pa["kind"], pb["kind"]);
    EXPECT_EQ(pa["offset"], pb["offset"]);
    EXPECT_NE(pa["message"], pb["message"]);
  }
  EXPECT_NE(b["results"][1]["problem"]["message"].get<std::string>().find("数据 CRC 不匹配"), std::string::npos);

  const std::vector<std::string> inspect = {"inspect", "flipped.tfrecord", "--json"};
  auto ien = test::run_tfrig(inspect, with_locale("C", files.path()));
  auto izh = test::run_tfrig(inspect, with_locale("zh_CN.UTF-8", files.path()));
  EXPECT_EQ(ien.exit_code, 65);
  EXPECT_EQ(ien.out, izh.out);
}

TEST(DataI18n, InspectInChineseMatchesTheReviewedGoldenAndItsTableAligns) {
  const std::vector<std::string> args = {"inspect", "tfrecord/tfx__penguin_eval_data_tfrecord-00000-of-00001.gz", "-n", "1"};
  auto r = test::run_tfrig(args, with_locale("zh_CN.UTF-8", test::data_dir()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(test::matches_golden(test::golden_path("tfrecord/inspect_penguin.zh_CN.txt"), r.out));
  // The feature table: every row as wide as its header, in display columns.
  std::vector<std::string> rows;
  bool in = false;
  for (auto line : core::split_lines(r.out)) {
    if (!in) {
      in = line == "特征：";
      continue;
    }
    if (line.empty()) break;
    rows.emplace_back(line);
  }
  ASSERT_GT(rows.size(), 3u) << r.out;
  for (const auto& row : rows) EXPECT_EQ(core::display_width(row), core::display_width(rows[0])) << row;

  // A damaged file: the records before the damage, then the error on stderr
  // naming the file, the record, the offset and what was expected.
  DamagedFiles files;
  auto bad = test::run_tfrig({"inspect", "cut.tfrecord"}, with_locale("zh_CN.UTF-8", files.path()));
  EXPECT_EQ(bad.exit_code, 65);
  EXPECT_TRUE(test::matches_golden(test::golden_path("tfrecord/inspect_cut.zh_CN.txt"),
                                   bad.out + "--- stderr ---\n" + bad.err));
}

TEST(DataI18n, PackSummaryInChineseMatchesTheReviewedGolden) {
  test::TempDir dir;
  const std::string src = dir.path() + "/photos";
  for (int i = 0; i < 6; ++i) {
    const char* cls = i % 2 == 0 ? "cat" : "dog";
    testing::write_file(src + "/" + cls + "/" + std::to_string(i) + ".jpg",
                     testing::tiny_jpeg(static_cast<uint16_t>(64 + i), 48, 3, 500, static_cast<uint32_t>(i)));
  }
  test::write_file(src + "/dog/notes.txt", "not an image\n");
  auto r = test::run_tfrig({"pack", "photos", "-o", "shards", "--shard-size", "2KB", "--no-progress", "-j", "1"},
                           with_locale("zh_CN.UTF-8", dir.path()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The line with the time and the rates differs from run to run.
  const std::string stable = std::regex_replace(r.out, std::regex("\n  用时 [^\n]*"), "\n  用时 <TIME> ...");
  EXPECT_TRUE(test::matches_golden(test::golden_path("tfrecord/pack_summary.zh_CN.txt"), stable));
  // The skipped file's warning on stderr is Chinese too.
  EXPECT_NE(r.err.find("photos/dog/notes.txt: 无法读出尺寸的图像"), std::string::npos) << r.err;
}

TEST(DataI18n, ImportOfACutCaptureWarnsInChineseAndTheSnapshotStaysEnglish) {
  test::TempDir dir;
  const std::string whole = test::read_file(data("nvidia-bug-report/Young768__profiling.log.gz"));
  test::write_file(dir.path() + "/report-cut.log.gz", whole.substr(0, whole.size() * 2 / 3));
  const std::vector<std::string> args = {"import", "report-cut.log.gz"};
  auto zh = test::run_tfrig(args, with_locale("zh_CN.UTF-8", dir.path()));
  auto en = test::run_tfrig(args, with_locale("C", dir.path()));
  ASSERT_EQ(zh.exit_code, 0) << zh.err;
  EXPECT_TRUE(test::matches_golden(test::golden_path("import/cut_capture.zh_CN.txt"), zh.err));
  EXPECT_NE(en.err.find("cut short: the end of report-cut.log.gz"), std::string::npos) << en.err;
  // The snapshot is data: English whatever the locale (its time stamps aside).
  auto a = nlohmann::json::parse(en.out);
  auto b = nlohmann::json::parse(zh.out);
  for (auto* j : {&a, &b}) {
    (*j)["generated_at"] = "";
    for (auto& p : (*j)["probes"]) p["seconds"] = 0;
  }
  EXPECT_EQ(a.dump(1), b.dump(1));
  EXPECT_NE(zh.out.find("cut short: the end of report-cut.log.gz"), std::string::npos);

  // A file of no known kind: the error names it and says what was expected.
  test::write_file(dir.path() + "/notes.txt", "hello\n");
  auto unknown = test::run_tfrig({"import", "notes.txt"}, with_locale("zh_CN.UTF-8", dir.path()));
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.err.find("notes.txt: 无法识别的文件类型：应为 nvidia-bug-report 日志"), std::string::npos) << unknown.err;
}

}  // namespace
}  // namespace tfrig
