// tfrig watch through the binary: replay, a short live run around a
// command, and the usage errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.h"
#include "watch_test_util.h"

namespace tfrig::watch {
namespace {

using test_util::data;

TEST(WatchCli, ReplayGivesTheRecordedVerdict) {
  auto r = test::run_tfrig({"watch", "--replay", data("io-heavy.jsonl"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verdict"], "io_bound");
  EXPECT_GE(j["samples"].get<int>(), 3);
  EXPECT_TRUE(j["phases"].is_array());
  r = test::run_tfrig({"watch", "--replay", data("cpu-heavy.jsonl")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Verdict: cpu_bound"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Not seen: GPU"), std::string::npos) << r.out;
  r = test::run_tfrig({"watch", "--replay", data("cpu-heavy.jsonl"), "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("t_s,cpu_busy_share", 0), 0u);
}

TEST(WatchCli, MalformedRecordingNamesTheLine) {
  test::TempDir dir;
  test::write_file(dir.file("bad.jsonl"), "{\"tfrig_watch\":1,\"interval_s\":1}\n{\"t\":\"soon\"}\n");
  auto r = test::run_tfrig({"watch", "--replay", dir.file("bad.jsonl")});
  EXPECT_EQ(r.exit_code, 65);
  EXPECT_NE(r.err.find("bad.jsonl:2"), std::string::npos) << r.err;
  r = test::run_tfrig({"watch", "--replay", dir.file("missing.jsonl")});
  EXPECT_EQ(r.exit_code, 66);
}

TEST(WatchCli, LiveRunAroundACommand) {
  test::TempDir dir;
  auto r = test::run_tfrig({"watch", "--no-gpu", "--interval", "100ms", "--format", "json", "--record", dir.file("r.jsonl"),
                            "--", "sh", "-c", "sleep 0.45"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  const std::string v = j["verdict"];
  EXPECT_TRUE(v == "cpu_bound" || v == "io_bound" || v == "idle") << v;  // no GPU: the host-side verdicts only
  EXPECT_FALSE(j["gpu_watched"].get<bool>());
  EXPECT_GE(j["samples"].get<int>(), 2);
  EXPECT_TRUE(test::path_exists(dir.file("r.jsonl")));
  // The command's failure is the watch's exit status 2.
  r = test::run_tfrig({"watch", "--no-gpu", "--interval", "100ms", "--", "sh", "-c", "exit 4"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST(WatchCli, GpuThroughTheFakeNvml) {
  // The H100 "load" row (100% busy) replayed by the fake NVML: compute-bound.
  test::RunOptions env;
  env.env = {std::string("TFRIG_NVML_LIBRARY=") + TFRIG_FAKE_NVML,
             "TFRIG_FAKE_NVML_CAPTURE=" + data("fake-nvml-h100-load.json")};
  auto r = test::run_tfrig({"watch", "--interval", "100ms", "--format", "json", "--", "sh", "-c", "sleep 0.5"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["gpu_watched"].get<bool>());
  EXPECT_EQ(j["gpus"][0]["name"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(j["verdict"], "compute_bound");
}

TEST(WatchCli, MissingCommandLeavesNoRecording) {
  test::TempDir dir;
  auto r = test::run_tfrig({"watch", "--no-gpu", "--record", dir.file("r.jsonl"), "--", "/nonexistent/train.py"});
  EXPECT_EQ(r.exit_code, 127) << r.err;  // not found, as a shell says
  EXPECT_NE(r.err.find("/nonexistent/train.py"), std::string::npos) << r.err;
  EXPECT_TRUE(test::list_dir(dir.path()).empty());
}

TEST(WatchCli, UsageErrors) {
  EXPECT_EQ(test::run_tfrig({"watch", "--interval", "fast", "--", "true"}).exit_code, 64);
  EXPECT_EQ(test::run_tfrig({"watch", "--pid", "1", "--", "true"}).exit_code, 64);
  EXPECT_EQ(test::run_tfrig({"watch", "--replay", "x", "--pid", "1"}).exit_code, 64);
  EXPECT_EQ(test::run_tfrig({"watch", "--disk-limit", "lots", "--", "true"}).exit_code, 64);
  EXPECT_EQ(test::run_tfrig({"watch", "--no-gpu", "--pid", "4194303"}).exit_code, 66);
}

}  // namespace
}  // namespace tfrig::watch
