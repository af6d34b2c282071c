// tfrig plan --calibrate: real Keras fit logs (tests/data/keras_fit/README.md)
// read as hostile input, and the rate they give carried to every GPU.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "plan/calibrate.h"
#include "plan_test_support.h"
#include "test_paths.h"
#include "test_support.h"

namespace tfrig::plan {
namespace {

using test::fixture;
using test::fixture_gpus;
using test::model_workload;

std::string keras_log(const std::string& name) {
  std::ifstream in(std::string(TFRIG_TEST_DATA) + "/keras_fit/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_FALSE(ss.str().empty()) << name;
  return ss.str();
}

// keras-io's Perceiver example on a V100: 705 steps of batch 64 at
// 402-405 ms/step; the first epoch (305 s with tracing) is dropped and the
// median of epochs 2-10 is 402 ms.
TEST(PlanCalibrate, KerasIoPerceiverLog) {
  auto m = parse_keras_fit_log(keras_log("keras-io-perceiver-v100-epochs-1-10.log"), "perceiver.log");
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->kind, "keras-fit-log");
  EXPECT_EQ(m->epochs_seen, 10u);
  EXPECT_EQ(m->epochs_used, 9u);
  EXPECT_NEAR(m->seconds_per_step, 0.402, 1e-9);
  EXPECT_TRUE(m->includes_validation);
  EXPECT_EQ(m->lines, "lines 4-20");
  EXPECT_NEAR(measured_rate_per_gpu(*m, 64, 1), 64 / 0.402, 1e-6);
}

// evaluate()'s "313/313 ... 69ms/step" after the last epoch is no epoch.
TEST(PlanCalibrate, EvaluateLineIsNotAnEpoch) {
  auto m = parse_keras_fit_log(keras_log("keras-io-perceiver-v100-epochs-41-45-evaluate.log"), "tail.log");
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->epochs_seen, 5u);
  EXPECT_EQ(m->epochs_used, 4u);
  EXPECT_NEAR(m->seconds_per_step, 0.402, 1e-9);
}

// A log cut inside an epoch: the unfinished bar is ignored; epochs 2-11
// printed 31-41 ms/step (median 37.5 ms).
TEST(PlanCalibrate, InterruptedLogUsesFinishedEpochs) {
  auto m = parse_keras_fit_log(keras_log("keras-io-mnist-convnet-interrupted.log"), "mnist.log");
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->epochs_seen, 11u);
  EXPECT_NEAR(m->seconds_per_step, 0.0375, 1e-9);
}

TEST(PlanCalibrate, HostileInputIsAClearError) {
  auto none = parse_step_file("just some text\nEpoch 1/3\n", "x.log");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, core::ErrorCode::kParse);
  EXPECT_EQ(none.error().where, "x.log");
  auto long_line = parse_step_file("Epoch 1/1\n" + std::string(70000, '='), "long.log");
  ASSERT_FALSE(long_line);
  EXPECT_EQ(long_line.error().where, "long.log: line 2");
  // A zero time is no step time: nothing to calibrate on.
  auto zero = parse_step_file("Epoch 1/1\n10/10 [====] - 0s 0us/step - loss: 1\n", "zero.log");
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().code, core::ErrorCode::kParse);
  auto slow = parse_step_file("Epoch 1/1\n10/10 [====] - 9000000s 900000s/step - loss: 1\n", "slow.log");
  ASSERT_FALSE(slow);
  EXPECT_EQ(slow.error().where, "slow.log: line 2");
  auto watch = parse_step_file("{\"tfrig_watch\":1,\"interval_s\":1}\n", "rec.jsonl");
  ASSERT_FALSE(watch);
  EXPECT_NE(watch.error().message.find("watch"), std::string::npos);
  auto gz = parse_step_file(std::string("\x1f\x8b\x08\x00", 4), "t.trace.json.gz");
  ASSERT_FALSE(gz);
  EXPECT_NE(gz.error().message.find("Profiler"), std::string::npos);
  auto nul = parse_step_file(std::string("Epoch 1/1\n\0\0", 12), "bin.log");
  ASSERT_FALSE(nul);
  // Numbers too long to be a time are not read as one.
  auto huge = parse_step_file("Epoch 1/1\n10/10 [==] - 99999999999999999999999s - loss: 1\n", "huge.log");
  EXPECT_FALSE(huge);
}

TEST(PlanCalibrate, PipelineResultOnlyWithTheUsersRate) {
  auto given = parse_step_file(R"({"stages":[{"name":"storage","samples_per_s":9000,"origin":"measured"},
                                            {"name":"gpu","samples_per_s":412,"origin":"assumed"}]})",
                               "p.json");
  ASSERT_TRUE(given) << given.error().to_string();
  EXPECT_NEAR(measured_rate_per_gpu(*given, 64, 1), 412, 1e-9);
  auto estimated = parse_step_file(R"({"stages":[{"name":"gpu","samples_per_s":412,"origin":"estimated"}]})", "p.json");
  ASSERT_FALSE(estimated);
  EXPECT_EQ(estimated.error().where, "p.json: stages[0].origin");
}

// The measured rate becomes the run's GPU's rate; every other GPU moves by
// the same factor, and both say so.
TEST(PlanCalibrate, EveryGpuFollowsTheUsersRun) {
  const auto gpus = fixture_gpus();
  const GpuCandidate& v100 = fixture(gpus, "tesla-v100-sxm2-16gb");
  const GpuCandidate& a100 = fixture(gpus, "a100-sxm4-40gb");
  auto step = parse_keras_fit_log(keras_log("keras-io-perceiver-v100-epochs-1-10.log"), "perceiver.log");
  ASSERT_TRUE(step);
  const Workload w = model_workload("bert_base", Precision::kFp32, 64);
  const ThroughputModel& base = builtin_throughput_model();
  auto calibrated = calibrate_model(base, w, v100, *step, "perceiver.log");
  ASSERT_TRUE(calibrated) << calibrated.error().to_string();
  ASSERT_TRUE(calibrated->user);
  const auto on_v100 = gpu_throughput(w, v100, *calibrated);
  ASSERT_TRUE(on_v100);
  EXPECT_NEAR(on_v100->samples_per_s, 64 / 0.402, 1e-6);
  EXPECT_EQ(on_v100->basis, "calibrated");
  EXPECT_NE(on_v100->detail.find("calibrated on your run"), std::string::npos);
  const auto before = gpu_throughput(w, a100, base);
  const auto after = gpu_throughput(w, a100, *calibrated);
  ASSERT_TRUE(before && after);
  EXPECT_NEAR(after->samples_per_s / before->samples_per_s, calibrated->user->factor, 1e-9);
  EXPECT_NEAR(after->high / after->samples_per_s, before->high / before->samples_per_s, 1e-9);
  EXPECT_EQ(calibrated->user->json["gpu_id"], "tesla-v100-sxm2-16gb");
  EXPECT_EQ(calibrated->user->json["step"]["includes_validation"], true);
}

}  // namespace
}  // namespace tfrig::plan

namespace tfrig {
namespace {

// End to end: the calibration in JSON and in the text notes; a missing GPU
// is a usage error (64), a file without a step time bad data (65).
TEST(PlanCli, CalibrateOnAKerasLog) {
  const std::string log = test::data_dir() + "/keras_fit/keras-io-perceiver-v100-epochs-1-10.log";
  auto r = test::run_tfrig({"plan", "--model", "bert_base", "--batch", "64", "--calibrate", log, "--calibrate-gpu", "tesla-v100-sxm2-16gb",
                            "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["calibration"].is_object()) << r.out.substr(0, 400);
  EXPECT_NEAR(j["calibration"]["measured_samples_per_s_per_gpu"].get<double>(), 64 / 0.402, 1e-6);
  bool any_calibrated = false;
  for (const auto& g : j["gpus"]) any_calibrated = any_calibrated || g.value("basis", "") == "calibrated";
  EXPECT_TRUE(any_calibrated);
  auto t = test::run_tfrig({"plan", "--model", "bert_base", "--batch", "64", "--calibrate", log, "--calibrate-gpu", "V100 SXM2 16GB"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("calibrated on your run"), std::string::npos);
  EXPECT_EQ(test::run_tfrig({"plan", "--model", "bert_base", "--calibrate", log}).exit_code, 64);
  auto bad = test::run_tfrig({"plan", "--model", "bert_base", "--calibrate", test::data_dir() + "/keras_fit/README.md", "--calibrate-gpu",
                              "tesla-v100-sxm2-16gb"});
  EXPECT_EQ(bad.exit_code, 65);
  EXPECT_NE(bad.err.find("README.md"), std::string::npos);
}

}  // namespace
}  // namespace tfrig
