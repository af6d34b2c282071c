// `tfrig bench`'s table in Chinese: a golden reviewed for meaning, built from
// fixed results (an A100 box: memory and storage measured, a skipped and a
// failed metric, the previous run and the catalog's expectation) so the
// numbers never move; the benchmarks themselves are covered by their own tests.
// Also: the columns line up by display width, and JSON is the same in every
// locale unless --lang asks.
#include <algorithm>

#include <gtest/gtest.h>

#include "bench/expectation.h"
#include "bench/runner.h"
#include "core/display_width.h"
#include "core/i18n.h"
#include "core/text.h"
#include "golden.h"
#include "probe/parse/nvidia_smi_xml.h"
#include "test_support.h"

namespace tfrig::bench {
namespace {

struct InLanguage {
  explicit InLanguage(std::string_view lang) { core::i18n::set_language(lang); }
  ~InLanguage() { core::i18n::set_language("en"); }
};

inventory::Inventory a100_inventory() {
  const std::string file = tfrig::test::data_dir() + "/nvidia-smi-xml/telegraf/a100-sxm4-v12.xml";
  auto xml = probe::parse::parse_nvidia_smi_xml(tfrig::test::read_file(file));
  EXPECT_TRUE(xml);
  inventory::Inventory inv;
  if (xml) probe::parse::apply_nvidia_smi_xml(*xml, file, inv);
  return inv;
}

Measurement ok(std::string id, std::string metric, std::string unit, std::vector<double> samples, nlohmann::json params = nlohmann::json::object()) {
  Measurement m;
  m.id = std::move(id);
  m.metric = std::move(metric);
  m.unit = std::move(unit);
  m.params = std::move(params);
  m.samples = std::move(samples);
  const Statistics s = summarize(m.samples);
  m.median = s.median;
  m.min = s.min;
  m.max = s.max;
  m.cv = s.cv;
  return m;
}

// The fixed run, its texts the messages the benchmarks and the runner use:
// built once, in no language, and rendered in each.
BenchReport fixed_report() {
  const inventory::Inventory inv = a100_inventory();
  BenchReport r;
  BenchContext& c = r.context;
  c.hostname = "gpu-node-07";
  c.cpu_model = "AMD EPYC 7742 64-Core Processor";
  c.online_cpus = 128;
  c.threads = 128;
  c.build_type = "release";
  c.warnings.emplace_back(
      N_("cpu governor is {}: clocks ramp up under load, short samples vary; 'performance' gives steadier numbers"), "schedutil");
  Measurement copy = ok("memory", "copy_all_threads", "GB/s", {171.2, 172.8, 170.9, 173.4, 172.1});
  copy.previous_median = 160.4;
  r.results.push_back(copy);
  Measurement triad = ok("memory", "triad_1_thread", "GB/s", {12.1, 15.9, 10.2, 14.8, 11.0});
  triad.notes.emplace_back(N_("samples vary by {:.0f}% (CV): other load or clock changes"), triad.cv * 100);
  r.results.push_back(triad);
  Measurement seq = ok("storage", "seq_read_direct", "MB/s", {3120, 3150, 3098});
  seq.notes.push_back(core::Message::plural(NP_("time budget reached after {0} of {1} sample", "time budget reached after {0} of {1} samples"), 5, 3, 5));
  seq.previous_median = 3301;
  r.results.push_back(seq);
  Measurement small;
  small.id = "storage";
  small.metric = "small_files";
  small.unit = "files/s";
  small.status = Status::kFailed;
  small.reason = core::Message(N_("{}: no regular files to read"), "/data/imagenet/train");
  r.results.push_back(small);
  r.results.push_back(ok("gemm", "bf16", "TFLOPS", {241.3, 243.0, 242.2}, {{"gpu", *inv.gpus[0].name}}));
  r.results.push_back(ok("pcie", "h2d_pinned", "GB/s", {24.6, 24.7, 24.6}, {{"pci_bus_id", "0000:01:00.0"}}));
  Measurement isal;
  isal.id = "crc32c";
  isal.metric = "crc32c_isal";
  isal.unit = "GB/s";
  isal.status = Status::kSkipped;
  isal.reason = core::Message(N_("built without ISA-L (libisal-dev)"));
  r.results.push_back(isal);
  add_expectations(r.results, inv, knowledge::builtin());
  return r;
}

TEST(BenchI18n, ChineseTableMatchesTheReviewedGolden) {
  InLanguage zh("zh_CN");
  const std::string text = render_text(fixed_report(), "zh_CN");
  EXPECT_TRUE(test::matches_golden(test::golden_path("bench/a100_fixed_results.zh_CN.txt"), text));
}

TEST(BenchI18n, ChineseColumnsLineUpByDisplayWidth) {
  InLanguage zh("zh_CN");
  const std::string text = render_text(fixed_report(), "zh_CN");
  // The table: from the header (it names the benchmark column) to the first blank line.
  std::vector<std::string_view> rows;
  bool in_table = false;
  for (auto line : core::split_lines(text)) {
    if (line.find("基准测试") != std::string_view::npos) in_table = true;
    if (in_table && core::trim(line).empty()) break;
    if (in_table) rows.push_back(line);
  }
  ASSERT_GE(rows.size(), 8u) << text;
  // Every row as wide as the header (right-aligned last columns end together).
  for (auto row : rows) EXPECT_EQ(core::display_width(row), core::display_width(rows.front())) << row;
  EXPECT_NE(text.find("成功"), std::string::npos);
  EXPECT_NE(text.find("跳过："), std::string::npos);
  EXPECT_NE(text.find("copy_all_threads"), std::string::npos);  // metric names stay
}

TEST(BenchI18n, EnglishTableKeepsItsWords) {
  const std::string text = render_text(fixed_report(), "en", 300);  // wide enough that no header folds
  EXPECT_NE(text.find("benchmark  metric"), std::string::npos) << text;
  EXPECT_NE(text.find("skipped: built without ISA-L"), std::string::npos) << text;
  EXPECT_NE(text.find("of expected"), std::string::npos) << text;
}

// One report, built once (the benchmarks' messages, no language switched
// while building), rendered in Chinese and in English: nothing is built again.
TEST(BenchI18n, OneBuiltReportRendersInEitherLanguage) {
  const BenchReport report = fixed_report();
  std::string zh_text;
  {
    InLanguage zh("zh_CN");
    zh_text = render_text(report, "zh_CN");
  }
  const std::string en_text = render_text(report, "en", 300);
  EXPECT_NE(zh_text.find("跳过："), std::string::npos) << zh_text;
  EXPECT_NE(zh_text.find(core::render(report.results[3].reason, "zh_CN")), std::string::npos) << zh_text;
  EXPECT_EQ(zh_text.find("no regular files to read"), std::string::npos) << zh_text;
  EXPECT_NE(en_text.find("/data/imagenet/train: no regular files to read"), std::string::npos) << en_text;
  EXPECT_NE(en_text.find("warning: cpu governor is schedutil"), std::string::npos) << en_text;
  // The JSON of the same report: English texts for "en", Chinese for "zh_CN"; the rest the same.
  nlohmann::json en = to_json(report, "en");
  nlohmann::json zh = to_json(report, "zh_CN");
  EXPECT_EQ(en["results"][3]["reason"], "/data/imagenet/train: no regular files to read");
  EXPECT_EQ(zh["results"][3]["reason"], core::render(report.results[3].reason, "zh_CN"));
  EXPECT_NE(zh["results"][3]["reason"], en["results"][3]["reason"]);
  EXPECT_EQ(en["results"][4]["expected"]["basis"].get<std::string>().find("catalog peak, dense bf16"), 0u) << en;
  EXPECT_EQ(zh["results"][4]["expected"]["value"], en["results"][4]["expected"]["value"]);
  for (auto* j : {&en, &zh}) {
    (*j)["context"].erase("warnings");
    for (auto& m : (*j)["results"]) {
      m.erase("reason");
      m.erase("notes");
      m.erase("expected");
    }
  }
  EXPECT_EQ(en.dump(1), zh.dump(1));
}

TEST(BenchI18n, JsonIsByteIdenticalWhateverTheLocaleWithoutLang) {
  test::RunOptions en;
  en.env = {"LANGUAGE=", "LC_ALL=", "LC_MESSAGES=", "LANG=C.UTF-8"};
  test::RunOptions zh;
  zh.env = {"LANGUAGE=zh_CN", "LC_ALL=zh_CN.UTF-8", "LC_MESSAGES=", "LANG=zh_CN.UTF-8"};
  // decode on a folder without a JPEG fails at once, with a reason text in the JSON.
  const std::vector<std::string> args = {"bench", "decode", "--data", test::data_dir() + "/watch", "--format", "json", "--no-history", "--budget", "1"};
  auto a = test::run_tfrig(args, en);
  auto b = test::run_tfrig(args, zh);
  ASSERT_EQ(a.exit_code, b.exit_code) << a.err << b.err;
  auto ja = nlohmann::json::parse(a.out, nullptr, false);
  auto jb = nlohmann::json::parse(b.out, nullptr, false);
  ASSERT_FALSE(ja.is_discarded()) << a.out;
  ASSERT_FALSE(jb.is_discarded()) << b.out;
  // Timestamps, load and timings differ between two runs; the texts may not.
  auto ascii = [](const std::string& t) { return std::all_of(t.begin(), t.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }); };
  for (const auto& w : jb["context"]["warnings"]) EXPECT_TRUE(ascii(w.get<std::string>())) << w;
  for (auto* j : {&ja, &jb}) {
    (*j)["context"].erase("timestamp");
    (*j)["context"].erase("load_average");
    (*j)["context"].erase("warnings");
    for (auto& m : (*j)["results"]) m.erase("seconds");
  }
  ASSERT_FALSE(jb["results"].empty());
  EXPECT_TRUE(jb["results"][0]["reason"].is_string()) << b.out;
  EXPECT_EQ(ja.dump(1), jb.dump(1));
  // --lang zh_CN asks for Chinese texts; the ids and numbers stay.
  std::vector<std::string> with_lang = {"--lang", "zh_CN"};
  with_lang.insert(with_lang.end(), args.begin(), args.end());
  auto c = test::run_tfrig(with_lang, en);
  auto jc = nlohmann::json::parse(c.out, nullptr, false);
  ASSERT_FALSE(jc.is_discarded()) << c.out;
  ASSERT_EQ(jc["results"].size(), ja["results"].size());
  EXPECT_EQ(jc["results"][0]["status"], ja["results"][0]["status"]);
  EXPECT_FALSE(ascii(jc["results"][0]["reason"].get<std::string>())) << jc["results"][0]["reason"];
}

}  // namespace
}  // namespace tfrig::bench
