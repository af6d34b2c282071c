// `tfrig pipeline`'s report in Chinese: a golden reviewed for meaning, built
// from fixed rates (a small-file ImageNet folder read by 8 threads feeding a
// ResNet-50 on an RTX 4090, as a run could measure them) so that the numbers
// never move; the measured stages themselves are covered by pipeline_e2e_test.
#include <gtest/gtest.h>

#include "core/display_width.h"
#include "core/i18n.h"
#include "core/text.h"
#include "core/units.h"
#include "golden.h"
#include "pipeline/report.h"
#include "pipeline/run_cost.h"
#include "test_support.h"

namespace tfrig::pipeline {
namespace {

struct InLanguage {
  explicit InLanguage(std::string_view lang) { core::i18n::set_language(lang); }
  ~InLanguage() { core::i18n::set_language("en"); }
};

// The report of the fixed run, built once: its texts are the messages
// measure.cpp and demand.cpp build, rendered later in either language.
Report fixed_report() {
  ReportInputs in;
  in.data_dir = "/data/imagenet/train";
  in.demand.gpu = Stage{kGpu, 1310, Origin::kEstimated,
                        core::Message(N_("{0} {1} on {2}: {3} ({4})"), "ResNet-50", "fp32", "NVIDIA GeForce RTX 4090",
                                      core::Message(N_("scaled estimate")), "see tfrig plan")};
  in.demand.model_name = "ResNet-50";
  in.demand.gpu_name = "NVIDIA GeForce RTX 4090";
  in.demand.mixed_samples_per_s = 2620;
  Measured& m = in.measured;
  m.threads = 8;
  m.files_total = 1281167;
  m.bytes_total = 140000000000ull;
  m.files_sampled = 4000;
  m.avg_sample_bytes = 110000;
  m.decode_per_core = 190;
  m.warm_storage_samples_per_s = 9000;
  m.tfrecord_samples_per_s = 3100;
  m.stages.push_back(Stage{kStorage, 850, Origin::kMeasured,
                           core::Message("{0}{1}",
                                         core::Message::plural(NP_("{0} files ({1}) read cold on {2} thread in {3}, {4}",
                                                                   "{0} files ({1}) read cold on {2} threads in {3}, {4}"),
                                                               8, 1700, "178 MiB", 8, core::seconds_message(2.0), "93.5 MB/s"),
                                         core::Message(N_("; warm (page cache) {0:.0f} files/s"), 9000.0))});
  m.stages.push_back(Stage{
      kDecode, 1450, Origin::kMeasured,
      core::Message::plural(
          NP_("{0} JPEG(s) decoded with TurboJPEG + random resized crop {1}x{2}, flip, normalise; {3} thread; {4:.0f}/s on one core",
              "{0} JPEG(s) decoded with TurboJPEG + random resized crop {1}x{2}, flip, normalise; {3} threads; {4:.0f}/s on one core"),
          8, 400, 224, 224, 8, 190.0)});
  m.stages.push_back(Stage{kHostMemory, 52000, Origin::kMeasured,
                           core::Message(N_("memory copy at {0:.1f} GB/s (tfrig bench memory) / {1} copies of a {2} float32 sample"),
                                         9.6, 3, "588 KiB")});
  m.stages.push_back(Stage{kHostToDevice, 38000, Origin::kEstimated,
                           core::Message(N_("{0}: {1} theoretical x {2:.0f}% (ASSUMED efficiency of pinned copies)"),
                                         core::Message(N_("this machine's GPU link, PCIe gen {0} x{1}"), 4, 16), "31.5 GB/s", 70.0)});
  m.notes.push_back(core::Message(N_("{0} file(s) are not decodable JPEGs and were left out of decode; first: {1}"), 1,
                                  "/data/imagenet/train/n01440764/broken.JPEG"));
  in.available_memory_bytes = 64ull << 30;
  return build_report(std::move(in));
}

// The time and cost of 20 epochs at a rent of 0.60 per GPU-hour, each what-if on the same scale.
std::string run_cost_text(const Report& r, std::string_view language) {
  plan::GpuCandidate gpu;
  gpu.id = "rtx-4090";
  gpu.name = "NVIDIA GeForce RTX 4090";
  gpu.tdp_watts = 450;
  plan::PriceBook prices;
  prices.billing = plan::Billing::kPerMinute;
  prices.source = core::Message("{}", "prices.yaml");
  prices.gpus["NVIDIA GeForce RTX 4090"].rent_per_gpu_hour = 0.60;
  plan::RunSpec run;
  run.epochs = 20;
  return render_run_cost_text(cost_what_ifs(r, gpu, 1, run, prices), language);
}

TEST(PipelineI18n, ChineseReportMatchesTheReviewedGolden) {
  const Report r = fixed_report();  // built in English: nothing in it depends on the language
  InLanguage zh("zh_CN");
  const std::string text = render_text(r, "zh_CN") + run_cost_text(r, "zh_CN");
  EXPECT_TRUE(test::matches_golden(test::golden_path("pipeline/imagenet_small_files_rtx4090.zh_CN.txt"), text));
}

TEST(PipelineI18n, TheBarrelColumnsAlignWithChineseStageNames) {
  InLanguage zh("zh_CN");
  const std::string text = render_text(fixed_report(), "zh_CN");
  // Each stave's line: the name padded to 15 columns, then the rate right-aligned in 10.
  size_t rows = 0;
  for (auto line : core::split_lines(text)) {
    if (line.rfind("  ", 0) != 0 || line.find("%  ") == std::string_view::npos) continue;
    if (line.find('#') == std::string_view::npos && line.find('|') == std::string_view::npos) continue;
    const size_t first_digit = line.find_first_of("0123456789");
    const size_t rate_end = line.find(' ', first_digit);
    ASSERT_NE(rate_end, std::string_view::npos) << line;
    EXPECT_EQ(core::display_width(line.substr(0, rate_end)), 2u + 15 + 1 + 10) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 5u) << text;
}

TEST(PipelineI18n, EnglishStaysTheDefault) {
  const std::string text = render_text(fixed_report(), "en");
  EXPECT_NE(text.find("The barrel (samples/s;"), std::string::npos) << text;
  EXPECT_NE(text.find("Shortest stave: storage"), std::string::npos) << text;
  EXPECT_NE(text.find("1 file(s) are not decodable JPEGs"), std::string::npos) << text;
}

// One built report renders as Chinese text and English JSON: no language
// switch between building and rendering (issue 31 part 5).
TEST(PipelineI18n, OneBuiltReportRendersInEitherLanguage) {
  InLanguage zh("zh_CN");  // the reader's language
  const Report r = fixed_report();
  const std::string json = render_json(r, "en").dump();
  for (unsigned char c : json) ASSERT_LT(c, 0x80) << json;
  EXPECT_NE(json.find("1 file(s) are not decodable JPEGs and were left out of decode"), std::string::npos) << json;
  EXPECT_NE(json.find("ResNet-50 fp32 on NVIDIA GeForce RTX 4090: scaled estimate (see tfrig plan)"), std::string::npos) << json;
  const std::string text = render_text(r, "zh_CN");
  EXPECT_NE(text.find("个文件不是可解码的 JPEG"), std::string::npos) << text;
  EXPECT_NE(text.find("换算的估计值"), std::string::npos) << text;
  EXPECT_NE(render_json(r, "zh_CN").dump(-1, ' ', false).find("个文件不是可解码的 JPEG"), std::string::npos);
  // The run's cost: English JSON, the prices' source in the output's language.
  plan::PriceBook prices;
  prices.source = core::Message(N_("command line"));
  prices.gpus["NVIDIA GeForce RTX 4090"].rent_per_gpu_hour = 0.60;
  plan::GpuCandidate gpu;
  gpu.id = "rtx-4090";
  gpu.name = "NVIDIA GeForce RTX 4090";
  plan::RunSpec run;
  run.epochs = 20;
  const RunCostTable t = cost_what_ifs(r, gpu, 1, run, prices);
  const auto costs = run_cost_json(t, "en");
  EXPECT_EQ(costs["prices_source"], "command line");
  EXPECT_EQ(costs["rows"][0]["change"], "as measured");
  EXPECT_EQ(run_cost_json(t, "zh_CN")["prices_source"], core::render(prices.source, "zh_CN"));
  EXPECT_NE(core::render(prices.source, "zh_CN"), "command line");
}

// A real run: JSON stays English under a Chinese locale, and --lang zh_CN
// translates its texts (a folder of files that are not JPEGs: storage is
// measured, decode is not).
TEST(PipelineI18n, JsonIsEnglishUnlessLangAsks) {
  test::TempDir dir;
  for (int i = 0; i < 5; ++i) test::write_file(dir.file("f" + std::to_string(i) + ".bin"), std::string(2000, static_cast<char>('a' + i)));
  const std::vector<std::string> args = {"pipeline", "--data", dir.path(), "--samples-per-s", "100", "--threads", "1", "--seconds", "0.1",
                                         "--format", "json"};
  test::RunOptions zh_locale;
  zh_locale.env = {"LANGUAGE=", "LC_ALL=", "LC_MESSAGES=", "LANG=zh_CN.UTF-8"};
  auto r = test::run_tfrig(args, zh_locale);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (unsigned char c : r.out) ASSERT_LT(c, 0x80) << r.out;  // English (the temp path is ASCII)
  std::vector<std::string> with_lang = {"--lang", "zh_CN"};
  with_lang.insert(with_lang.end(), args.begin(), args.end());
  auto zh = test::run_tfrig(with_lang, zh_locale);
  ASSERT_EQ(zh.exit_code, 0) << zh.err;
  EXPECT_NE(zh.out.find("没有能解码的 JPEG"), std::string::npos) << zh.out;
  EXPECT_NE(zh.out.find("\"bottleneck\": \"gpu\""), std::string::npos) << zh.out;  // contract words stay
}

}  // namespace
}  // namespace tfrig::pipeline
