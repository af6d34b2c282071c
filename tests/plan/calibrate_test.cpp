// tfrig plan --calibrate: real Keras fit logs (tests/data/keras_fit/README.md)
// read as hostile input, and the rate they give carried to every GPU.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "codec/gzip.h"
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
  EXPECT_EQ(core::english(m->lines), "lines 4-20");
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
  // Four bytes of a gzip header: a trace cut short, named by file and offset.
  auto gz = parse_step_file(std::string("\x1f\x8b\x08\x00", 4), "t.trace.json.gz");
  ASSERT_FALSE(gz);
  EXPECT_EQ(gz.error().code, core::ErrorCode::kParse);
  EXPECT_EQ(gz.error().where.rfind("t.trace.json.gz: offset", 0), 0u) << gz.error().where;
  auto nul = parse_step_file(std::string("Epoch 1/1\n\0\0", 12), "bin.log");
  ASSERT_FALSE(nul);
  // Numbers too long to be a time are not read as one.
  auto huge = parse_step_file("Epoch 1/1\n10/10 [==] - 99999999999999999999999s - loss: 1\n", "huge.log");
  EXPECT_FALSE(huge);
}

// ---- TensorFlow Profiler traces (tests/data/tf_profiler/README.md) ----

std::string profiler_file(const std::string& name) {
  std::ifstream in(std::string(TFRIG_TEST_DATA) + "/tf_profiler/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_FALSE(ss.str().empty()) << name;
  return ss.str();
}

// A course's GPU VM: one profiled step; the device's 'Steps' track gives it
// (9,008.359 us), not the host's train_function (5,409.891 us), which returns
// before the GPU is done.
TEST(PlanCalibrate, ProfilerTraceGpuSteps2022) {
  auto m = parse_step_file(profiler_file("ecbme4040-2022-gpu-one-step.trace.json.gz"), "a.trace.json.gz");
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->kind, "tf-profiler-trace");
  EXPECT_EQ(m->step_events, "device-steps");
  EXPECT_EQ(m->steps_seen, 1u);
  EXPECT_EQ(m->steps_used, 1u);
  EXPECT_NEAR(m->seconds_per_step, 9008.359e-6, 1e-12);
  EXPECT_FALSE(m->trace_without_gpu);
  EXPECT_NE(core::english(m->lines).find("'Steps' track of /device:GPU:0"), std::string::npos)
      << core::english(m->lines);
  EXPECT_NE(core::english(m->lines).find("only step"), std::string::npos) << core::english(m->lines);
  EXPECT_NEAR(measured_rate_per_gpu(*m, 256, 1), 256 / 9008.359e-6, 1e-6);
}

TEST(PlanCalibrate, ProfilerTraceGpuSteps2023) {
  auto m = parse_step_file(profiler_file("ecbme4040-2023-gpu-one-step.trace.json.gz"), "b.trace.json.gz");
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->step_events, "device-steps");
  EXPECT_NEAR(m->seconds_per_step, 13111.156e-6, 1e-12);
}

// No GPU: the host's train_function call is the step.
TEST(PlanCalibrate, ProfilerTraceHostTrainFunction) {
  auto m = parse_step_file(profiler_file("fbf-tf-hoon-cpu-train-function.trace.json.gz"), "cpu.trace.json.gz");
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->step_events, "host-train-function");
  EXPECT_EQ(m->steps_seen, 1u);
  EXPECT_NEAR(m->seconds_per_step, 702632.675e-6, 1e-12);
  EXPECT_NE(core::english(m->lines).find("train_function"), std::string::npos) << core::english(m->lines);
  // The trace has no GPU: the calibration says so.
  EXPECT_TRUE(m->trace_without_gpu);
  const auto gpus = fixture_gpus();
  auto calibrated = calibrate_model(builtin_throughput_model(), model_workload("resnet50", Precision::kFp32, 32),
                                    fixture(gpus, "rtx-3060-12gb"), *m, "cpu.trace.json.gz");
  ASSERT_TRUE(calibrated) << calibrated.error().to_string();
  EXPECT_NE(core::english(calibrated->user->text).find("the trace shows no GPU"), std::string::npos)
      << core::english(calibrated->user->text);
  EXPECT_EQ(calibrated->user->json["step"]["trace_has_gpu"], false);
}

// The same trace inflated (the plain Chrome-trace JSON) reads the same.
TEST(PlanCalibrate, ProfilerTracePlainJson) {
  auto gz = parse_step_file(profiler_file("ecbme4040-2022-gpu-one-step.trace.json.gz"), "a.trace.json.gz");
  ASSERT_TRUE(gz);
  // An empty trace has no step.
  auto empty = parse_profiler_trace("{\"traceEvents\":[]}", "empty.json");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().where, "empty.json");
  auto inflated = codec::gunzip(profiler_file("ecbme4040-2022-gpu-one-step.trace.json.gz"), kMaxTraceBytes);
  ASSERT_TRUE(inflated) << inflated.error().to_string();
  const std::string& plain = *inflated;
  auto m = parse_step_file(plain, "a.trace.json");
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->seconds_per_step, gz->seconds_per_step);
  // Cut in the middle: not a whole trace, said with the file's name.
  auto cut = parse_step_file(plain.substr(0, plain.size() / 2), "cut.trace.json");
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().code, core::ErrorCode::kParse);
  EXPECT_EQ(cut.error().where.rfind("cut.trace.json", 0), 0u) << cut.error().where;
}

// A real trace of a fit whose steps ran eagerly: no marker, and the error
// says what was expected.
TEST(PlanCalibrate, ProfilerTraceWithoutStepsIsAClearError) {
  auto m = parse_step_file(profiler_file("fbf-tf-hoon-cpu-no-training.trace.json.gz"), "eager.trace.json.gz");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, core::ErrorCode::kParse);
  EXPECT_EQ(m.error().where, "eager.trace.json.gz");
  EXPECT_NE(m.error().message.find("no training step in 6639 trace events"), std::string::npos) << m.error().message;
  EXPECT_NE(m.error().message.find("'Steps' track"), std::string::npos);
}

TEST(PlanCalibrate, ProfilerTraceTruncatedGzip) {
  const std::string raw = profiler_file("ecbme4040-2022-gpu-one-step.trace.json.gz");
  auto m = parse_step_file(raw.substr(0, raw.size() / 2), "half.trace.json.gz");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, core::ErrorCode::kParse);
  EXPECT_EQ(m.error().where.rfind("half.trace.json.gz: offset ", 0), 0u) << m.error().where;
  EXPECT_NE(m.error().message.find("truncated"), std::string::npos) << m.error().message;
}

// The profiler's memory profile of the same run is gzip JSON, not a trace.
TEST(PlanCalibrate, ProfilerGzipJsonThatIsNotATrace) {
  auto m = parse_step_file(profiler_file("fbf-tf-hoon-memory-profile.json.gz"), "mem.json.gz");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, core::ErrorCode::kParse);
  EXPECT_EQ(m.error().where, "mem.json.gz: traceEvents");
  EXPECT_NE(m.error().message.find("traceEvents array"), std::string::npos) << m.error().message;
  auto not_array = parse_step_file(R"({"traceEvents": 5})", "x.json");
  ASSERT_FALSE(not_array);
  EXPECT_EQ(not_array.error().where, "x.json: traceEvents");
  auto bad_time =
      parse_step_file(R"({"traceEvents":[{"ph":"X","pid":1,"tid":3735928559,"ts":-5,"dur":10,"name":"1"}]})", "t.json");
  ASSERT_FALSE(bad_time);
  EXPECT_EQ(bad_time.error().where, "t.json: traceEvents[0].ts");
}

// Several profiled steps (profile_batch='10,20'), in the layout the real
// traces above show (literal: no public trace of several steps was found).
// GPU:0's Steps track has 5 steps, one of them in two events of one group;
// the first (slow, autotuning) is dropped; the median of the intervals
// between the other starts (10.0, 10.5, 10.5 ms) is 10.5 ms. GPU:1 has fewer
// steps and the host's train_function calls are not read when the device
// has steps.
TEST(PlanCalibrate, ProfilerTraceSeveralStepsMedianInterval) {
  const std::string trace = R"({"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[
    {"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}},
    {"ph":"M","pid":1,"tid":3735928559,"name":"thread_name","args":{"name":"Steps"}},
    {"ph":"M","pid":2,"name":"process_name","args":{"name":"/device:GPU:1"}},
    {"ph":"M","pid":2,"tid":3735928559,"name":"thread_name","args":{"name":"Steps"}},
    {"ph":"M","pid":501,"name":"process_name","args":{"name":"/host:CPU"}},
    {"ph":"X","pid":1,"tid":3735928559,"ts":0,"dur":90000,"name":"10","args":{"group_id":"10","step_name":"10"}},
    {"ph":"X","pid":1,"tid":3735928559,"ts":100000,"dur":4000,"name":"11","args":{"group_id":"11","step_name":"11"}},
    {"ph":"X","pid":1,"tid":3735928559,"ts":104000,"dur":5000,"name":"11","args":{"group_id":"11","step_name":"11"}},
    {"ph":"X","pid":1,"tid":3735928559,"ts":120500,"dur":9000,"name":"13","args":{"group_id":"13"}},
    {"ph":"X","pid":1,"tid":3735928559,"ts":110000,"dur":9000,"name":"12","args":{"group_id":12}},
    {"ph":"X","pid":1,"tid":3735928559,"ts":131000,"dur":9000,"name":"14","args":{"group_id":"14"}},
    {"ph":"X","pid":2,"tid":3735928559,"ts":0,"dur":5,"name":"10","args":{"group_id":"10"}},
    {"ph":"X","pid":501,"tid":7,"ts":0,"dur":1,"name":"train_function"},
    {}]})";
  auto m = parse_step_file(trace, "steps.json");
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->step_events, "device-steps");
  EXPECT_EQ(m->steps_seen, 5u);
  EXPECT_EQ(m->steps_used, 3u);
  EXPECT_NEAR(m->seconds_per_step, 0.0105, 1e-12);
  EXPECT_NE(core::english(m->lines).find("steps 2-5 of 5"), std::string::npos) << core::english(m->lines);
  EXPECT_NE(core::english(m->lines).find("/device:GPU:0"), std::string::npos) << core::english(m->lines);

  // tf.profiler.experimental.Trace('train', step_num=N) on the host, two
  // events of step 2; no device track.
  const std::string host = R"({"traceEvents":[
    {"ph":"X","pid":501,"tid":7,"ts":1000,"dur":500,"name":"train","args":{"step_num":"1","_r":"1"}},
    {"ph":"X","pid":501,"tid":7,"ts":3000,"dur":100,"name":"train","args":{"step_num":"2","_r":"1"}},
    {"ph":"X","pid":501,"tid":8,"ts":3200,"dur":400,"name":"train","args":{"step_num":"2"}},
    {"ph":"X","pid":501,"tid":7,"ts":5000,"dur":300,"name":"train","args":{"step_num":3}}]})";
  auto h = parse_step_file(host, "host.json");
  ASSERT_TRUE(h) << h.error().to_string();
  EXPECT_EQ(h->step_events, "host-step-num");
  EXPECT_EQ(h->steps_seen, 3u);
  EXPECT_EQ(h->steps_used, 1u);
  EXPECT_NEAR(h->seconds_per_step, 0.002, 1e-12);

  // Writers that count from the Unix epoch (microseconds since 1970).
  const std::string epoch = R"({"traceEvents":[
    {"ph":"X","pid":1,"tid":1,"ts":1700000000000000,"dur":9000,"name":"train","args":{"step_num":"7"}},
    {"ph":"X","pid":1,"tid":1,"ts":1700000000010000,"dur":9000,"name":"train","args":{"step_num":"8"}},
    {"ph":"X","pid":1,"tid":1,"ts":1700000000020500,"dur":9000,"name":"train","args":{"step_num":"9"}}]})";
  auto e = parse_step_file(epoch, "epoch.json");
  ASSERT_TRUE(e) << e.error().to_string();
  EXPECT_NEAR(e->seconds_per_step, 0.0105, 1e-9);
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

// The warning's bounds, both ways: a run 4x slower or 4x faster than the
// model's rate for the same workload is flagged, with the likely causes of
// each direction; 2x either way is not.
TEST(PlanCalibrate, ExtremeFactorWarns) {
  UserCalibration c;
  c.file = "run.log";
  c.gpu_name = "NVIDIA T4";
  for (const double f : {0.25, 0.5, 2.0, 4.0}) {
    c.factor = f;
    const bool extreme = f < kCalibrationFactorLow || f > kCalibrationFactorHigh;
    EXPECT_EQ(c.factor_extreme(), extreme) << f;
    EXPECT_EQ(c.warning().empty(), !extreme) << f;
    EXPECT_EQ(calibration_to_json(c)["warning"].is_string(), extreme) << f;
  }
  c.factor = 0.25;
  EXPECT_NE(core::english(c.warning()).find("input pipeline"), std::string::npos) << core::english(c.warning());
  EXPECT_NE(core::english(c.warning()).find("run.log"), std::string::npos) << core::english(c.warning());
  c.factor = 4.0;
  EXPECT_NE(core::english(c.warning()).find("larger batch"), std::string::npos) << core::english(c.warning());
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
  EXPECT_NE(core::english(on_v100->detail).find("calibrated on your run"), std::string::npos);
  const auto before = gpu_throughput(w, a100, base);
  const auto after = gpu_throughput(w, a100, *calibrated);
  ASSERT_TRUE(before && after);
  EXPECT_NEAR(after->samples_per_s / before->samples_per_s, calibrated->user->factor, 1e-9);
  EXPECT_NEAR(after->high / after->samples_per_s, before->high / before->samples_per_s, 1e-9);
  EXPECT_EQ(calibrated->user->json["gpu_id"], "tesla-v100-sxm2-16gb");
  // A factor within 1/3x-3x is no reason to doubt the log: no warning.
  const double factor = calibrated->user->factor;
  EXPECT_EQ(calibrated->user->json["factor_extreme"],
            factor < kCalibrationFactorLow || factor > kCalibrationFactorHigh);
  EXPECT_EQ(calibrated->user->warning.empty(), !(factor < kCalibrationFactorLow || factor > kCalibrationFactorHigh));
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
  auto r = test::run_tfrig({"plan", "--model", "bert_base", "--batch", "64", "--calibrate", log, "--calibrate-gpu",
                            "tesla-v100-sxm2-16gb", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["calibration"].is_object()) << r.out.substr(0, 400);
  EXPECT_NEAR(j["calibration"]["measured_samples_per_s_per_gpu"].get<double>(), 64 / 0.402, 1e-6);
  bool any_calibrated = false;
  for (const auto& g : j["gpus"]) any_calibrated = any_calibrated || g.value("basis", "") == "calibrated";
  EXPECT_TRUE(any_calibrated);
  auto t = test::run_tfrig(
      {"plan", "--model", "bert_base", "--batch", "64", "--calibrate", log, "--calibrate-gpu", "V100 SXM2 16GB"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("calibrated on your run"), std::string::npos);
  EXPECT_EQ(test::run_tfrig({"plan", "--model", "bert_base", "--calibrate", log}).exit_code, 64);
  auto bad = test::run_tfrig({"plan", "--model", "bert_base", "--calibrate", test::data_dir() + "/keras_fit/README.md",
                              "--calibrate-gpu", "tesla-v100-sxm2-16gb"});
  EXPECT_EQ(bad.exit_code, 65);
  EXPECT_NE(bad.err.find("README.md"), std::string::npos);
}

// End to end on a real Profiler trace: the step of the trace's Steps track
// becomes the rate on the GPU named, in JSON and in the text; a trace without
// steps is bad data (65) naming the file.
TEST(PlanCli, CalibrateOnAProfilerTrace) {
  const std::string trace = test::data_dir() + "/tf_profiler/ecbme4040-2022-gpu-one-step.trace.json.gz";
  auto r = test::run_tfrig({"plan", "--model", "resnet50", "--batch", "256", "--calibrate", trace, "--calibrate-gpu",
                            "tesla-t4", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["calibration"].is_object()) << r.out.substr(0, 400);
  EXPECT_EQ(j["calibration"]["gpu_id"], "tesla-t4");
  EXPECT_EQ(j["calibration"]["step"]["kind"], "tf-profiler-trace");
  EXPECT_EQ(j["calibration"]["step"]["step_events"], "device-steps");
  EXPECT_EQ(j["calibration"]["step"]["steps_seen"], 1);
  EXPECT_NEAR(j["calibration"]["step"]["seconds_per_step"].get<double>(), 9008.359e-6, 1e-12);
  EXPECT_NEAR(j["calibration"]["measured_samples_per_s_per_gpu"].get<double>(), 256 / 9008.359e-6, 1e-6);
  bool t4_calibrated = false;
  for (const auto& g : j["gpus"])
    t4_calibrated = t4_calibrated || (g.value("id", "") == "tesla-t4" && g.value("basis", "") == "calibrated");
  EXPECT_TRUE(t4_calibrated) << r.out.substr(0, 600);
  auto t = test::run_tfrig(
      {"plan", "--model", "resnet50", "--batch", "256", "--calibrate", trace, "--calibrate-gpu", "tesla-t4"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("calibrated on your run"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("'Steps' track of /device:GPU:0"), std::string::npos) << t.out;
  // The trace's run is a course's small CNN (tests/data/tf_profiler/README.md), not ResNet-50: its
  // step is ~100x faster than tfrig's ResNet-50 at batch 256 on a T4, and the plan warns that the
  // log is not comparable, in JSON (calibration.warning and the notes), text and HTML.
  const double factor = j["calibration"]["factor"].get<double>();
  EXPECT_GT(factor, plan::kCalibrationFactorHigh);
  EXPECT_EQ(j["calibration"]["factor_extreme"], true);
  ASSERT_TRUE(j["calibration"]["warning"].is_string());
  const std::string warning = j["calibration"]["warning"].get<std::string>();
  EXPECT_NE(warning.find("not comparable"), std::string::npos) << warning;
  EXPECT_NE(warning.find("a faster run"), std::string::npos) << warning;
  bool noted = false;
  for (const auto& n : j["notes"]) noted = noted || n.get<std::string>() == warning;
  EXPECT_TRUE(noted) << j["notes"].dump();
  std::string flat;  // the text wraps its notes: whitespace runs as one space
  for (const char ch : t.out) {
    const bool space = ch == ' ' || ch == '\n';
    if (!(space && !flat.empty() && flat.back() == ' ')) flat += space ? ' ' : ch;
  }
  EXPECT_NE(flat.find("likely not comparable with the plan"), std::string::npos) << t.out;
  auto html = test::run_tfrig({"plan", "--model", "resnet50", "--batch", "256", "--calibrate", trace, "--calibrate-gpu",
                               "tesla-t4", "--format", "html"});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(html.out.find("likely not comparable with the plan"), std::string::npos);
  auto none = test::run_tfrig({"plan", "--model", "resnet50", "--calibrate",
                               test::data_dir() + "/tf_profiler/fbf-tf-hoon-cpu-no-training.trace.json.gz",
                               "--calibrate-gpu", "tesla-t4"});
  EXPECT_EQ(none.exit_code, 65);
  EXPECT_NE(none.err.find("fbf-tf-hoon-cpu-no-training.trace.json.gz"), std::string::npos) << none.err;
  EXPECT_NE(none.err.find("no training step"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace tfrig
