// The verdicts on sample streams made from real runs: the CPU/I/O side
// recorded here with `tfrig watch --record` (an I/O-heavy and a CPU-heavy
// command, tests/data/watch/README.md) and GPU rows of real nvidia-smi CSV
// captures taken under load and idle.
#include <gtest/gtest.h>

#include "watch/classify.h"
#include "watch/render.h"
#include "watch_test_util.h"

namespace tfrig::watch {
namespace {

using test_util::load_recording;
using test_util::with_gpu;
using test_util::kH100Load;
using test_util::kH100Idle;
using test_util::k4080Load;
using test_util::k4080Idle;
using test_util::k2080Load;
using test_util::kMigLoad;

TEST(WatchClassify, AnIntervalReadsAsPeopleWriteIt) {
  Recording rec;
  rec.info.interval_s = 3600;
  const Analysis a = analyse(rec);
  ASSERT_FALSE(a.blind.empty());
  EXPECT_NE(core::english(a.blind[0]).find("first 1 h interval"), std::string::npos) << core::english(a.blind[0]);
  EXPECT_NE(render_text(rec, a, "en").find("every 1 h"), std::string::npos) << render_text(rec, a, "en");  // not "3600.00 s"
  rec.info.interval_s = 0.5;
  EXPECT_NE(core::english(analyse(rec).blind[0]).find("first 500 ms interval"), std::string::npos) << core::english(analyse(rec).blind[0]);
}

TEST(WatchClassify, RecordedIoHeavyRunIsIoBound) {
  const Recording rec = load_recording("io-heavy.jsonl");
  ASSERT_GE(rec.samples.size(), 3u);
  const Analysis a = analyse(rec);
  EXPECT_EQ(verdict_name(a.verdict), "io_bound") << render_text(rec, a, "en");
  EXPECT_FALSE(a.gpu_watched);
  ASSERT_FALSE(a.blind.empty());
  EXPECT_NE(core::english(a.blind.front()).find("GPU"), std::string::npos);
}

TEST(WatchClassify, RecordedCpuHeavyRunIsCpuBound) {
  const Recording rec = load_recording("cpu-heavy.jsonl");
  ASSERT_GE(rec.samples.size(), 3u);
  const Analysis a = analyse(rec);
  EXPECT_EQ(verdict_name(a.verdict), "cpu_bound") << render_text(rec, a, "en");
}

TEST(WatchClassify, BusyGpuIsComputeBoundWhateverTheHost) {
  // The H100 at 100% (the capture under load) next to the CPU-heavy host.
  const Recording rec = with_gpu(load_recording("cpu-heavy.jsonl"), kH100Load);
  const Analysis a = analyse(rec);
  EXPECT_EQ(verdict_name(a.verdict), "compute_bound") << render_text(rec, a, "en");
  EXPECT_TRUE(a.gpu_watched);
}

TEST(WatchClassify, StarvedGpuWithSaturatedCpuIsInputBoundCpu) {
  // The guide's Q&A: the GPU nearly idle (RTX 4080 SUPER "load" row: 7%)
  // while preprocessing holds the CPU.
  const Recording rec = with_gpu(load_recording("cpu-heavy.jsonl"), k4080Load);
  const Analysis a = analyse(rec);
  EXPECT_EQ(verdict_name(a.verdict), "input_bound_cpu") << render_text(rec, a, "en");
  EXPECT_EQ(a.severity, "highly");  // idle 93% >= the Profiler's 20%
}

TEST(WatchClassify, StarvedGpuWaitingOnStorageIsInputBoundIo) {
  // The guide's case study: the GPU starved because small-file reads were slow.
  const Recording rec = with_gpu(load_recording("io-heavy.jsonl"), k2080Load);
  const Analysis a = analyse(rec);
  EXPECT_EQ(verdict_name(a.verdict), "input_bound_io") << render_text(rec, a, "en");
}

TEST(WatchClassify, IdleGpuAndIdleHostIsIdle) {
  Recording rec = with_gpu(load_recording("cpu-heavy.jsonl"), kH100Idle);
  for (auto& s : rec.samples) {  // a quiet host: no process, CPUs idle
    s.process.reset();
    if (s.cpu) {
      s.cpu->busy_cores = 0.02;
      s.cpu->iowait_cores = 0;
    }
    s.disks.clear();
  }
  EXPECT_EQ(verdict_name(analyse(rec).verdict), "idle");
  rec = with_gpu(rec, k4080Idle);
  EXPECT_EQ(verdict_name(analyse(rec).verdict), "idle");
}

TEST(WatchClassify, ABusySerialProcessOnABigMachineIsNotIdle) {
  // One Python thread at 0.97 cores inside a 40-thread process on a 64-core
  // host: 1.5% of the machine, but the GIL-bound stage is saturated.
  Recording rec = load_recording("cpu-heavy.jsonl");
  for (auto& s : rec.samples) {
    if (s.cpu) {
      s.cpu->cores = 64;
      s.cpu->busy_cores = 1.0;
      s.cpu->iowait_cores = 0;
    }
    ASSERT_TRUE(s.process);
    s.process->threads = 40;
    s.process->cpu_cores = 0.97;
    s.process->cpu_demand_cores = 0.97;
    s.process->hottest_thread_cores = 0.97;
    s.process->blocked_threads = 0;
    s.process->read_bytes_per_s = 0;
    s.disks.clear();
  }
  Analysis a = analyse(rec);
  EXPECT_EQ(verdict_name(a.verdict), "cpu_bound") << render_text(rec, a, "en");
  rec = with_gpu(rec, kH100Idle);
  a = analyse(rec);
  EXPECT_EQ(verdict_name(a.verdict), "input_bound_cpu") << render_text(rec, a, "en");
}

TEST(WatchClassify, MigGpuWithoutUtilisationFallsBackToTheHostSide) {
  // MIG instances report utilization.gpu as [N/A]: the GPU side is unknown.
  const Recording rec = with_gpu(load_recording("cpu-heavy.jsonl"), kMigLoad);
  const Analysis a = analyse(rec);
  EXPECT_FALSE(a.gpu_watched);
  EXPECT_EQ(verdict_name(a.verdict), "cpu_bound");
}

TEST(WatchClassify, PcieNearTheLinkLimitIsPcieBound) {
  RunInfo info;
  info.gpus = {GpuInfo{0, "x", 31.5e9}};
  Sample s;
  s.cpu = CpuSample{8, 2.0, 0.0, {}, {}};
  GpuSample g;
  g.util_percent = 60;
  g.pcie_rx_bytes_per_s = 25e9;
  s.gpus = {g};
  EXPECT_EQ(classify_sample(s, info).verdict, Verdict::kPcieBound);
  s.gpus[0].pcie_rx_bytes_per_s = 5e9;  // far from the link: the host side then
  EXPECT_NE(classify_sample(s, info).verdict, Verdict::kPcieBound);
}

TEST(WatchClassify, ThresholdsOfTheProfiler) {
  // Idle share 10%: MODERATELY input-bound (5 <= x < 20); 30%: HIGHLY.
  RunInfo info;
  info.interval_s = 1;
  Recording rec;
  rec.info = info;
  for (int i = 0; i < 6; ++i) {
    Sample s;
    s.t = i + 1;
    s.cpu = CpuSample{4, 3.9, 0.0, {}, {}};
    GpuSample g;
    g.util_percent = 90;
    s.gpus = {g};
    rec.samples.push_back(s);
  }
  Analysis a = analyse(rec);
  EXPECT_EQ(a.verdict, Verdict::kInputBoundCpu);
  EXPECT_EQ(a.severity, "moderately");
  for (auto& s : rec.samples) s.gpus[0].util_percent = 70;
  a = analyse(rec);
  EXPECT_EQ(a.severity, "highly");
  for (auto& s : rec.samples) s.gpus[0].util_percent = 96;
  EXPECT_EQ(analyse(rec).verdict, Verdict::kComputeBound);
}

TEST(WatchClassify, PhasesFollowChangesAndIgnoreBlips) {
  Recording compute = with_gpu(load_recording("cpu-heavy.jsonl"), kH100Load);
  Recording starved = with_gpu(load_recording("cpu-heavy.jsonl"), k4080Load);
  Recording rec = compute;
  double t = rec.samples.back().t;
  for (const auto& s : starved.samples) {
    Sample c = s;
    c.t = (t += 1);
    rec.samples.push_back(c);
  }
  // A one-sample blip inside the first phase does not make a phase.
  rec.samples[1].gpus[0].util_percent = 7;
  const Analysis a = analyse(rec);
  ASSERT_EQ(a.phases.size(), 2u) << render_text(rec, a, "en");
  EXPECT_EQ(a.phases[0].verdict, Verdict::kComputeBound);
  EXPECT_EQ(a.phases[1].verdict, Verdict::kInputBoundCpu);
  EXPECT_LT(a.phases[0].end_t, a.phases[1].end_t);
}

TEST(WatchClassify, JsonEndsWithTheContractKeys) {
  const Recording rec = load_recording("io-heavy.jsonl");
  const auto j = render_json(rec, analyse(rec), "en");
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  ASSERT_GE(keys.size(), 3u);
  EXPECT_EQ(keys[keys.size() - 3], "verdict");
  EXPECT_EQ(keys[keys.size() - 2], "phases");
  EXPECT_EQ(keys[keys.size() - 1], "samples");
  EXPECT_EQ(j["samples"].get<size_t>(), rec.samples.size());
  const std::string csv = render_csv(rec, analyse(rec));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), static_cast<long>(rec.samples.size()) + 2);
}

}  // namespace
}  // namespace tfrig::watch

// The HTML report reads a verdict back from the JSON name to show the
// terminal's words; every name comes back, an unknown one does not.
TEST(Classify, EveryVerdictNameReadsBack) {
  for (const char* name : {"input_bound_cpu", "input_bound_io", "compute_bound", "pcie_bound", "idle", "cpu_bound", "io_bound"}) {
    const auto v = tfrig::watch::verdict_from_name(name);
    ASSERT_TRUE(v.has_value()) << name;
    EXPECT_EQ(tfrig::watch::verdict_name(*v), name);
  }
  EXPECT_FALSE(tfrig::watch::verdict_from_name("gpu_bound").has_value());
}
