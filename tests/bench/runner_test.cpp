#include "bench/runner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>

namespace tfrig::bench {
namespace {

TEST(Summarize, OddCountMedianIsTheMiddleValue) {
  Statistics s = summarize({5, 1, 3});
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
}

TEST(Summarize, EvenCountMedianIsTheMeanOfTheMiddlePair) {
  Statistics s = summarize({4, 1, 3, 10});
  EXPECT_DOUBLE_EQ(s.median, 3.5);
}

TEST(Summarize, CoefficientOfVariationUsesTheSampleStandardDeviation) {
  // mean 5; squared deviations 9+1+1+9 = 20; /(n-1) = 20/3; sd = 2.5820; cv = 0.5164
  Statistics s = summarize({2, 4, 6, 8});
  EXPECT_NEAR(s.cv, std::sqrt(20.0 / 3.0) / 5.0, 1e-12);
}

TEST(Summarize, OneSampleHasNoSpreadAndEmptyIsZero) {
  Statistics one = summarize({7});
  EXPECT_DOUBLE_EQ(one.median, 7);
  EXPECT_DOUBLE_EQ(one.cv, 0);
  Statistics none = summarize({});
  EXPECT_DOUBLE_EQ(none.median, 0);
  EXPECT_DOUBLE_EQ(none.max, 0);
}

class RunnerTest : public ::testing::Test {
 protected:
  Config config_;
  std::atomic<bool> cancelled_{false};
};

TEST_F(RunnerTest, DiscardsWarmupAndKeepsTheRepetitions) {
  config_.warmup = 2;
  config_.repetitions = 4;
  Runner runner(config_, cancelled_);
  runner.begin("t", 1);
  int calls = 0;
  Measurement& m = runner.measure("x", "u", {{"k", 1}}, [&]() -> core::Result<double> {
    ++calls;
    return calls <= 2 ? 1000.0 : static_cast<double>(calls);  // warm-up values are outliers
  });
  EXPECT_EQ(calls, 6);
  EXPECT_EQ(m.status, Status::kOk);
  ASSERT_EQ(m.samples.size(), 4u);
  EXPECT_DOUBLE_EQ(m.min, 3);
  EXPECT_DOUBLE_EQ(m.max, 6);
  EXPECT_DOUBLE_EQ(m.median, 4.5);
  EXPECT_EQ(m.params["k"], 1);
}

TEST_F(RunnerTest, AFailedSampleFailsTheMetricWithItsError) {
  Runner runner(config_, cancelled_);
  runner.begin("t", 1);
  int calls = 0;
  Measurement& m = runner.measure("x", "u", {}, [&]() -> core::Result<double> {
    if (++calls == 3) return core::fail(core::ErrorCode::kIo, "/data/f", "read failed");
    return 1.0;
  });
  EXPECT_EQ(m.status, Status::kFailed);
  EXPECT_NE(core::english(m.reason).find("/data/f"), std::string::npos);
}

TEST_F(RunnerTest, AnExhaustedBudgetStillTakesOneSampleAndSaysSo) {
  config_.budget_seconds = 0.1;
  config_.warmup = 0;
  config_.repetitions = 5;
  Runner runner(config_, cancelled_);
  runner.begin("t", 1);
  Measurement& m = runner.measure("x", "u", {}, [&]() -> core::Result<double> {
    // Each sample costs more than the whole budget.
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    return 2.0;
  });
  EXPECT_EQ(m.status, Status::kOk);
  EXPECT_EQ(m.samples.size(), 1u);
  ASSERT_FALSE(m.notes.empty());
  EXPECT_NE(core::english(m.notes.front()).find("1 of 5"), std::string::npos);
}

TEST_F(RunnerTest, CancellationMarksTheMetricInterrupted) {
  Runner runner(config_, cancelled_);
  runner.begin("t", 1);
  Measurement& m = runner.measure("x", "u", {}, [&]() -> core::Result<double> {
    cancelled_ = true;
    return 1.0;
  });
  EXPECT_EQ(m.status, Status::kFailed);
  EXPECT_EQ(core::english(m.reason), "interrupted");
  EXPECT_EQ(m.reason.id, "interrupted");  // a catalog message, rendered in each output's language
}

TEST_F(RunnerTest, SkippedMetricsSerialiseWithNullNumbersAndTheReason) {
  Runner runner(config_, cancelled_);
  runner.begin("pcie", 1);
  runner.skip("h2d_pinned", "GB/s", core::Message("{}", "libcuda.so.1 not found: no NVIDIA driver"));
  nlohmann::json j = to_json(runner.results().front(), "en");
  EXPECT_EQ(j["id"], "pcie");
  EXPECT_EQ(j["metric"], "h2d_pinned");
  EXPECT_EQ(j["status"], "skipped");
  EXPECT_TRUE(j["median"].is_null());
  EXPECT_EQ(j["reason"], "libcuda.so.1 not found: no NVIDIA driver");
}

TEST_F(RunnerTest, UnknownBenchmarkIdsAreRefusedBeforeAnythingRuns) {
  inventory::Inventory inv;
  auto r = run_benchmarks({"crc32c", "nope"}, config_, inv, cancelled_);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.error().where, "nope");
}

TEST_F(RunnerTest, ReportJsonHasTheContractKeys) {
  config_.repetitions = 2;
  config_.warmup = 0;
  config_.sample_seconds = 0.01;
  inventory::Inventory inv;
  auto r = run_benchmarks({"crc32c"}, config_, inv, cancelled_);
  ASSERT_TRUE(r);
  nlohmann::json j = to_json(*r, "en");
  ASSERT_TRUE(j.contains("context"));
  ASSERT_TRUE(j["results"].is_array());
  for (const auto& m : j["results"]) {
    for (const char* key : {"id", "metric", "unit", "median", "min", "max", "samples", "params", "status", "reason"}) {
      EXPECT_TRUE(m.contains(key)) << key;
    }
    EXPECT_EQ(m["status"], "ok");
    EXPECT_GT(m["median"].get<double>(), 0);
  }
  EXPECT_EQ(j["results"][0]["metric"], "crc32c");
}

TEST(RenderText, GroupsARepeatedReasonIntoOneLine) {
  BenchReport report;
  for (const char* metric : {"fp32", "fp16"}) {
    Measurement m;
    m.id = "gemm";
    m.metric = metric;
    m.unit = "TFLOPS";
    m.status = Status::kSkipped;
    m.reason = core::Message("{}", "no GPU");
    report.results.push_back(m);
  }
  std::string text = render_text(report, "en");
  EXPECT_NE(text.find("gemm (fp32, fp16) skipped: no GPU"), std::string::npos) << text;
}

}  // namespace
}  // namespace tfrig::bench
