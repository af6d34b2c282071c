// `tfrig watch` in Chinese: goldens reviewed for meaning of a replayed
// recording (the CLI, end to end) and of a two-phase run with a GPU (an H100
// busy, then an RTX 4080 SUPER starved by preprocessing: real nvidia-smi rows
// on a recorded host side); the phase column lined up by display width; JSON
// and CSV the same in every locale unless --lang asks.
#include <algorithm>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/display_width.h"
#include "core/i18n.h"
#include "core/text.h"
#include "golden.h"
#include "watch/classify.h"
#include "watch/render.h"
#include "watch_test_util.h"

namespace tfrig::watch {
namespace {

using test_util::data;
using test_util::load_recording;
using test_util::with_gpu;
using test_util::k4080Load;
using test_util::kH100Load;


struct InLanguage {
  explicit InLanguage(std::string_view lang) { core::i18n::set_language(lang); }
  ~InLanguage() { core::i18n::set_language("en"); }
};

// The H100 busy for the recorded CPU-heavy stream, then the RTX 4080 SUPER
// nearly idle for the same stream again: compute-bound, then input-bound.
Recording two_phase_run() {
  Recording rec = with_gpu(load_recording("cpu-heavy.jsonl"), kH100Load);
  const Recording starved = with_gpu(load_recording("cpu-heavy.jsonl"), k4080Load);
  double t = rec.samples.back().t;
  for (const auto& s : starved.samples) {
    Sample c = s;
    c.t = (t += 0.5);
    rec.samples.push_back(c);
  }
  return rec;
}

bool ascii(const std::string& t) {
  return std::all_of(t.begin(), t.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

TEST(WatchI18n, ChineseReplayMatchesTheReviewedGolden) {
  auto r = tfrig::test::run_tfrig({"watch", "--replay", data("cpu-heavy.jsonl")}, tfrig::test::in_locale("zh_CN.UTF-8"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(tfrig::test::matches_golden(tfrig::test::golden_path("watch/cpu_heavy_replay.zh_CN.txt"), r.out));
  // --lang zh_CN says the same.
  auto flag = tfrig::test::run_tfrig({"--lang", "zh_CN", "watch", "--replay", data("cpu-heavy.jsonl")}, tfrig::test::in_locale("C"));
  EXPECT_EQ(flag.out, r.out);
}

TEST(WatchI18n, ChineseTwoPhaseRunWithAGpuMatchesTheReviewedGolden) {
  InLanguage zh("zh_CN");
  const Recording rec = two_phase_run();
  const Analysis a = analyse(rec);
  ASSERT_EQ(a.phases.size(), 2u) << render_text(rec, a, core::i18n::language());
  std::string text = render_text(rec, a, core::i18n::language());
  text += "\n" + status_line(rec.samples.back()) + "\n";
  EXPECT_TRUE(tfrig::test::matches_golden(tfrig::test::golden_path("watch/h100_then_rtx4080_starved.zh_CN.txt"), text));
}

TEST(WatchI18n, PhaseTextsStartInOneColumnInEveryLanguage) {
  for (const char* lang : {"en", "zh_CN"}) {
    InLanguage in(lang);
    const Recording rec = two_phase_run();
    const Analysis a = analyse(rec);
    const std::string text = render_text(rec, a, core::i18n::language());
    ASSERT_EQ(a.phases.size(), 2u) << text;
    // Each phase line ends with its why; what comes before it (times and
    // the padded verdict) has the same display width on every line.
    std::vector<size_t> starts;
    for (const Phase& p : a.phases) {
      const std::string label = verdict_label(p.verdict);
      for (auto line : core::split_lines(text)) {
        if (line.find(label) != std::string_view::npos && core::ends_with(line, core::render(p.why, lang))) {
          starts.push_back(core::display_width(line) - core::display_width(core::render(p.why, lang)));
          break;
        }
      }
    }
    ASSERT_EQ(starts.size(), 2u) << text;
    EXPECT_EQ(starts[0], starts[1]) << lang << "\n" << text;
    EXPECT_NE(verdict_label(a.phases[0].verdict), verdict_label(a.phases[1].verdict));
  }
}

TEST(WatchI18n, JsonAndCsvAreByteIdenticalWhateverTheLocaleWithoutLang) {
  for (const char* format : {"json", "csv"}) {
    auto en = tfrig::test::run_tfrig({"watch", "--replay", data("io-heavy.jsonl"), "--format", format}, tfrig::test::in_locale("C.UTF-8"));
    auto zh = tfrig::test::run_tfrig({"watch", "--replay", data("io-heavy.jsonl"), "--format", format}, tfrig::test::in_locale("zh_CN.UTF-8"));
    ASSERT_EQ(en.exit_code, 0) << en.err;
    EXPECT_EQ(zh.out, en.out) << format;
    EXPECT_TRUE(ascii(zh.out)) << format;
  }
  // --lang zh_CN: the explanation, fix, phases' why and not_seen are Chinese; ids stay.
  auto en = nlohmann::json::parse(tfrig::test::run_tfrig({"watch", "--replay", data("io-heavy.jsonl"), "--format", "json"}, tfrig::test::in_locale("C")).out);
  auto zh = nlohmann::json::parse(
      tfrig::test::run_tfrig({"--lang", "zh_CN", "watch", "--replay", data("io-heavy.jsonl"), "--format", "json"}, tfrig::test::in_locale("C")).out);
  EXPECT_EQ(zh["verdict"], en["verdict"]);
  EXPECT_EQ(zh["severity"], en["severity"]);
  EXPECT_EQ(zh["thresholds"], en["thresholds"]);
  ASSERT_EQ(zh["phases"].size(), en["phases"].size());
  EXPECT_EQ(zh["phases"][0]["verdict"], en["phases"][0]["verdict"]);
  EXPECT_FALSE(ascii(zh["explanation"].get<std::string>()));
  EXPECT_FALSE(ascii(zh["fix"].get<std::string>()));
  EXPECT_FALSE(ascii(zh["phases"][0]["why"].get<std::string>()));
}

}  // namespace
}  // namespace tfrig::watch
