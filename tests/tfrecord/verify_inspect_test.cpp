// `tfrig verify` and `tfrig inspect` on TensorFlow-written files and on
// damaged shards, through the binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tfrecord/record.h"
#include "tfrecord/tfrecord_test_util.h"
#include "tfrecord/verify.h"

namespace tfrig::tfrecord {
namespace {

using namespace tfrig::testing;

TEST(Verify, EveryTensorFlowFixtureVerifies) {
  std::string args = "verify --json";
  for (const char* f : {"magenta__tfrecord_iterator_test.tfrecord", "tfx__tfjs_next_page_data.tfrecord.gz",
                        "tfx__tfrecord_sequence_eval.gz", "tfx__penguin_eval_data_tfrecord-00000-of-00001.gz",
                        "baskerville__mm10_train-7.tfr", "baskerville__mm10_test-3.tfr",
                        "trax__c4-train.tfrecord-00000-of-00001", "ranking__train_elwc.tfrecord",
                        "lingvo__wmt14_ende_wpm_32k_test.tfrecord", "tfx__cifar10_test.tfrecord"}) {
    args += " " + shell_quote(data_path(std::string("tfrecord/") + f));
  }
  auto r = run_tfrig(args);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["files"], 10);
  EXPECT_EQ(j["files_bad"], 0);
  // 3 + 100 + 4500 + 100 + 0 + 1 + 10 + 10 + 100 + 128 (fixture README).
  EXPECT_EQ(j["records"], 4952);
}

// verify's output is a pure function of what it found: the text and the
// JSON from one report, a file name that is not UTF-8 escaped in both.
TEST(Verify, ReportRendersToTextAndJson) {
  VerifyReport report;
  report.files.push_back(verify_file(data_path("tfrecord/trax__c4-train.tfrecord-00000-of-00001"), {}));
  ASSERT_TRUE(report.files[0].ok);
  FileVerdict bad;
  bad.path = "shards/bad-\xff.tfrecord";
  bad.ok = false;
  bad.records = 3;
  bad.file_bytes = 999;
  bad.index = "none";
  bad.problem = "data_crc";
  bad.record_index = 3;
  bad.offset = 420;
  bad.text = core::Message("{}", "masked CRC-32C of the data does not match");
  bad.message = core::english(bad.text);
  report.files.push_back(bad);
  report.set_problems.push_back(core::Message("{}", "shards: train-*-of-00004.tfrecord lacks shard 2"));
  EXPECT_EQ(report.bad_files(), 1u);
  EXPECT_EQ(report.good_records(), 13u);  // 10 in the TFDS shard, 3 before the bad record

  EXPECT_EQ(render_verify_text(report, "en", 1000),  // one line a file: the wrapping has its own tests
            report.files[0].to_string("en") + "\n" +
                "FAIL shards/bad-\\xff.tfrecord: data_crc in record 3 at byte offset 420: masked CRC-32C of the data does not match\n"
                "INCOMPLETE shards: train-*-of-00004.tfrecord lacks shard 2\n"
                "2 file(s), 1 bad, 13 good records; 1 incomplete shard set(s)\n");

  const std::string text = render_verify_json(report, "en");
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["files"], 2);
  EXPECT_EQ(j["files_bad"], 1);
  EXPECT_EQ(j["records"], 13);
  ASSERT_EQ(j["results"].size(), 2u);
  EXPECT_TRUE(j["results"][0]["problem"].is_null());
  EXPECT_EQ(j["results"][1]["path"], "shards/bad-\\xff.tfrecord");
  EXPECT_EQ(j["results"][1]["problem"]["kind"], "data_crc");
  EXPECT_EQ(j["results"][1]["problem"]["record"], 3);
  EXPECT_EQ(j["results"][1]["problem"]["offset"], 420);
  EXPECT_EQ(j["set_problems"][0], "shards: train-*-of-00004.tfrecord lacks shard 2");

  // The same report in Chinese, with no switch of the process's language.
  const std::string zh = render_verify_text(report, "zh_CN", 1000);
  EXPECT_NE(zh.find("shards/bad-\\xff.tfrecord"), std::string::npos) << zh;
  EXPECT_EQ(zh.find("good records"), std::string::npos) << zh;

  // Nothing found: the totals line alone.
  EXPECT_EQ(render_verify_text(VerifyReport{}, "en"), "0 file(s), 0 bad, 0 good records\n");
}

TEST(Verify, TfdsShardMatchesItsDatasetInfo) {
  // dataset_info.json: numBytes 10603, shardLengths ["10"].
  auto info = nlohmann::json::parse(read_file(data_path("tfrecord/trax__c4_en_2.3.0_dataset_info.json")));
  auto v = verify_file(data_path("tfrecord/trax__c4-train.tfrecord-00000-of-00001"), {});
  EXPECT_TRUE(v.ok);
  const auto& split = info["splits"][0];
  EXPECT_EQ(std::to_string(v.records), split["shardLengths"][0].get<std::string>());
  EXPECT_EQ(std::to_string(v.file_bytes), split["numBytes"].get<std::string>());
}

TEST(Verify, ReportsFirstBadRecordWithOffset) {
  ScratchDir dir;
  std::string s;
  append_record(s, "aaaa");
  append_record(s, "bbbbbbbb");
  append_record(s, "cc");
  std::string bad = s;
  bad[20 + 12 + 3] ^= 0x20;  // a data byte of record 1 (record 0 is 20 bytes)
  write_file(dir / "bad.tfrecord", bad);
  write_file(dir / "good.tfrecord", s);
  write_file(dir / "cut.tfrecord", s.substr(0, s.size() - 3));
  write_file(dir / "junk.tfrecord", s + "xyz");
  write_file(dir / "empty.tfrecord", "");
  auto r = run_tfrig("verify " + shell_quote(dir / "bad.tfrecord") + " " + shell_quote(dir / "good.tfrecord") + " " +
                     shell_quote(dir / "cut.tfrecord") + " " + shell_quote(dir / "junk.tfrecord") + " " +
                     shell_quote(dir / "empty.tfrecord"));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("FAIL " + dir / "bad.tfrecord" + ": data_crc in record 1 at byte offset 20"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("OK   " + dir / "good.tfrecord" + ": 3 records"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAIL " + dir / "cut.tfrecord" + ": truncated_record in record 2 at byte offset 44"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("FAIL " + dir / "junk.tfrecord" + ": truncated_header in record 3 at byte offset 62"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("OK   " + dir / "empty.tfrecord" + ": 0 records"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("5 file(s), 3 bad"), std::string::npos) << r.out;
  // A missing file is named before anything is verified (exit 66, docs/cli.md).
  auto missing = run_tfrig("verify " + shell_quote(dir / "good.tfrecord") + " " + shell_quote(dir / "missing.tfrecord"));
  EXPECT_EQ(missing.exit_code, 66) << missing.out;
  EXPECT_NE(missing.out.find(dir / "missing.tfrecord"), std::string::npos) << missing.out;
}

TEST(Verify, IndexMismatchAndExamples) {
  ScratchDir dir;
  std::string s;
  append_record(s, "aaaa");
  append_record(s, "bb");
  write_file(dir / "x.tfrecord", s);
  write_file(dir / "x.tfrecord.index.json",
             "{\"schema_version\":1,\"shard\":\"x.tfrecord\",\"compression\":\"none\",\"records\":2,\"file_bytes\":38,"
             "\"stream_bytes\":38,\"offsets\":[0,21]}");
  auto v = verify_file(dir / "x.tfrecord", {});
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.problem, "index_mismatch");
  EXPECT_NE(v.message.find("offset of record 1 is 21; the record starts at 20"), std::string::npos) << v.message;
  EXPECT_EQ(v.message, core::english(v.text));
  VerifyOptions no_index;
  no_index.check_index = false;
  EXPECT_TRUE(verify_file(dir / "x.tfrecord", no_index).ok);
  // Raw strings are valid records but not Examples.
  VerifyOptions ex;
  ex.examples = true;
  auto m = verify_file(data_path("tfrecord/magenta__tfrecord_iterator_test.tfrecord"), ex);
  EXPECT_FALSE(m.ok);
  EXPECT_EQ(m.problem, "bad_example");
  EXPECT_EQ(m.record_index, 0u);
  EXPECT_TRUE(verify_file(data_path("tfrecord/tfx__penguin_eval_data_tfrecord-00000-of-00001.gz"), ex).ok);
}

TEST(Inspect, SchemaAndFirstExamples) {
  auto r = run_tfrig("inspect --json -n 2 " +
                     shell_quote(data_path("tfrecord/tfx__penguin_eval_data_tfrecord-00000-of-00001.gz")));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["records"], 100);
  EXPECT_EQ(j["compression"], "gzip");
  ASSERT_EQ(j["schema"].size(), 5u);  // fixture README: 4 float_list + species int64_list
  EXPECT_EQ(j["schema"][4]["key"], "species");
  EXPECT_EQ(j["schema"][4]["kind"], "int64_list");
  EXPECT_EQ(j["schema"][4]["records"], 100);
  EXPECT_EQ(j["examples"].size(), 2u);

  auto c = run_tfrig("inspect --json -n 1 " + shell_quote(data_path("tfrecord/tfx__cifar10_test.tfrecord")));
  ASSERT_EQ(c.exit_code, 0) << c.out;
  auto cj = nlohmann::json::parse(c.out);
  EXPECT_EQ(cj["records"], 128);
  EXPECT_TRUE(cj["examples"][0]["image"]["bytes_list"][0].contains("crc32c"));
  EXPECT_TRUE(cj["examples"][0]["image"]["bytes_list"][0].contains("size"));

  auto t = run_tfrig("inspect --show-bytes -n 1 " +
                     shell_quote(data_path("tfrecord/tfx__tfjs_next_page_data.tfrecord.gz")));
  ASSERT_EQ(t.exit_code, 0) << t.out;
  EXPECT_NE(t.out.find("100 records"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("cur_page"), std::string::npos) << t.out;

  auto raw = run_tfrig("inspect " + shell_quote(data_path("tfrecord/magenta__tfrecord_iterator_test.tfrecord")));
  EXPECT_EQ(raw.exit_code, 0) << raw.out;
  EXPECT_NE(raw.out.find("3 record(s) are not tf.train.Examples"), std::string::npos) << raw.out;
}

}  // namespace
}  // namespace tfrig::tfrecord
