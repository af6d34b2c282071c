// The samplers: interval arithmetic on a root whose counters the test moves
// forward, the process tree (children, exits), NVML through the fake
// library, and the sampler's own CPU use.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "core/clock.h"
#include "test_support.h"
#include "watch/monitor.h"
#include "watch/recording.h"
#include "watch/sampler.h"

namespace tfrig::watch {
namespace {

namespace fs = std::filesystem;

// A two-core machine with one disk and a process tree 100 -> 101.
class FakeRoot {
 public:
  // children_files: the kernel's /proc/PID/task/TID/children lists exist
  // (CONFIG_PROC_CHILDREN), so the sampler walks the tree instead of scanning.
  explicit FakeRoot(bool children_files = false) : children_files_(children_files) {
    fs::create_directories(dir_.file("proc"));
    fs::create_directories(dir_.file("sys/block/sda"));
    fs::create_directories(dir_.file("sys/block/loop0"));
  }
  const std::string& path() const { return dir_.path(); }
  void cpu(uint64_t busy0, uint64_t idle0, uint64_t iowait0, uint64_t busy1, uint64_t idle1, uint64_t iowait1) {
    test::write_file(dir_.file("proc/stat"),
                     fmt::format("cpu  {} 0 0 {} {} 0 0 0 0 0\ncpu0 {} 0 0 {} {} 0 0 0 0 0\ncpu1 {} 0 0 {} {} 0 0 0 0 0\nintr 0\n",
                                 busy0 + busy1, idle0 + idle1, iowait0 + iowait1, busy0, idle0, iowait0, busy1, idle1, iowait1));
  }
  void disk(uint64_t sectors_read, uint64_t io_ticks_ms) {
    test::write_file(dir_.file("proc/diskstats"),
                     fmt::format("   8       0 sda 10 0 {} 0 0 0 0 0 1 {} 0\n   7       0 loop0 1 0 999999 0 0 0 0 0 0 0 0\n",
                                 sectors_read, io_ticks_ms));
  }
  void process(int pid, int ppid, char state, uint64_t utime, uint64_t cutime, uint64_t read_bytes) {
    const std::string d = fmt::format("proc/{}", pid);
    fs::create_directories(dir_.file(d + "/task/" + std::to_string(pid)));
    const std::string stat = fmt::format("{} (p{}) {} {} 1 1 0 -1 0 0 0 0 0 {} 0 {} 0 20 0 1 0 1 0 0", pid, pid, state, ppid,
                                         utime, cutime);
    test::write_file(dir_.file(d + "/stat"), stat);
    test::write_file(dir_.file(d + "/task/" + std::to_string(pid) + "/stat"), stat);
    test::write_file(dir_.file(d + "/io"), fmt::format("rchar: {}\nwchar: 0\nread_bytes: {}\nwrite_bytes: 0\n", read_bytes, read_bytes));
    parent_[pid] = ppid;
    write_children();
  }
  void remove_process(int pid) {
    fs::remove_all(dir_.file(fmt::format("proc/{}", pid)));
    parent_.erase(pid);
    write_children();
  }

 private:
  // Each live process's children list, as the kernel keeps it.
  void write_children() {
    if (!children_files_) return;
    for (const auto& [pid, ppid] : parent_) {
      std::string kids;
      for (const auto& [child, its_parent] : parent_) {
        if (its_parent == pid) kids += std::to_string(child) + " ";
      }
      test::write_file(dir_.file(fmt::format("proc/{}/task/{}/children", pid, pid)), kids);
    }
  }
  std::map<int, int> parent_;
  test::TempDir dir_;
  bool children_files_ = false;
};

class WatchSamplerTree : public ::testing::TestWithParam<bool> {};

TEST_P(WatchSamplerTree, IntervalRatesFromCounterDeltas) {
  FakeRoot r(GetParam());
  r.cpu(100, 100, 0, 100, 100, 0);
  r.disk(1000, 0);
  r.process(100, 1, 'S', 10, 0, 0);
  r.process(101, 100, 'R', 5, 0, 0);
  core::SysRoot root(r.path());
  ProcSampler s(root, int64_t{100}, 100);
  EXPECT_FALSE(s.take(0, 0).has_value());  // primes
  // One second later: core 0 fully busy, core 1 half iowait; the tree used
  // 150 ticks (1.5 cores), 101 read 4 MB; the disk read 8192 sectors and was busy 900 ms.
  r.cpu(200, 100, 0, 100, 150, 50);
  r.disk(1000 + 8192, 900);
  r.process(100, 1, 'S', 60, 0, 0);
  r.process(101, 100, 'D', 105, 0, 4000000);
  auto sample = s.take(1, 1.0);
  ASSERT_TRUE(sample);
  ASSERT_TRUE(sample->cpu);
  EXPECT_EQ(sample->cpu->cores, 2);
  EXPECT_DOUBLE_EQ(sample->cpu->core_busy[0], 1.0);
  EXPECT_DOUBLE_EQ(sample->cpu->core_iowait[1], 0.5);
  EXPECT_DOUBLE_EQ(sample->cpu->busy_cores, 1.0);
  ASSERT_TRUE(sample->process);
  EXPECT_EQ(sample->process->processes, 2);
  EXPECT_NEAR(sample->process->cpu_cores, 1.5, 1e-9);
  EXPECT_NEAR(sample->process->hottest_thread_cores, 1.0, 1e-9);
  EXPECT_EQ(sample->process->blocked_threads, 1);
  ASSERT_TRUE(sample->process->read_bytes_per_s);
  EXPECT_NEAR(*sample->process->read_bytes_per_s, 4e6, 1e-6);
  // sda only: loop devices are not storage.
  ASSERT_EQ(sample->disks.size(), 1u);
  EXPECT_EQ(sample->disks[0].name, "sda");
  EXPECT_NEAR(sample->disks[0].read_bytes_per_s, 8192.0 * 512, 1e-6);
  EXPECT_NEAR(sample->disks[0].util, 0.9, 1e-9);
}

TEST_P(WatchSamplerTree, ExitedChildIsNotCountedTwice) {
  FakeRoot r(GetParam());
  r.cpu(0, 100, 0, 0, 100, 0);
  r.disk(0, 0);
  r.process(100, 1, 'S', 10, 0, 0);
  r.process(101, 100, 'R', 50, 0, 1000);
  core::SysRoot root(r.path());
  ProcSampler s(root, int64_t{100}, 100);
  s.take(0, 0);
  // 101 ran 30 more ticks and read 500 more bytes, exited and was waited
  // for: its whole life (80 ticks, 1500 bytes) moved into 100's counters.
  r.remove_process(101);
  r.process(100, 1, 'S', 10, 80, 1500);
  r.cpu(30, 170, 0, 0, 200, 0);
  auto sample = s.take(1, 1.0);
  ASSERT_TRUE(sample && sample->process);
  EXPECT_NEAR(sample->process->cpu_cores, 0.30, 1e-9);
  EXPECT_NEAR(*sample->process->read_bytes_per_s, 500.0, 1e-9);
  // The root goes: the sampler says so.
  r.remove_process(100);
  s.take(2, 1.0);
  EXPECT_TRUE(s.root_gone());
}

// sh -> timeout -> worker: the worker exits and is waited for by timeout,
// which exits and is waited for by sh, between two samples. Both lives land
// in sh's cutime; what was seen of them before must come out once each (the
// run that found it showed 43 cores on a 2-core machine).
TEST_P(WatchSamplerTree, AGrandchildReapedThroughAnExitedParentIsNotCountedTwice) {
  FakeRoot r(GetParam());
  r.cpu(0, 100, 0, 0, 100, 0);
  r.disk(0, 0);
  r.process(100, 1, 'S', 1, 0, 0);
  r.process(101, 100, 'S', 2, 0, 0);
  r.process(102, 101, 'R', 300, 0, 0);
  core::SysRoot root(r.path());
  ProcSampler s(root, int64_t{100}, 100);
  s.take(0, 0);
  // 10 more ticks of the worker, then both exit: 100's cutime gets 101's
  // 2 ticks plus 101's cutime (the worker's 310).
  r.remove_process(102);
  r.remove_process(101);
  r.process(100, 1, 'S', 1, 312, 0);
  r.cpu(10, 90, 0, 0, 100, 0);
  auto sample = s.take(1, 0.1);
  ASSERT_TRUE(sample && sample->process);
  EXPECT_NEAR(sample->process->cpu_cores, 1.0, 1e-9);  // 10 ticks in 0.1 s
}

INSTANTIATE_TEST_SUITE_P(WatchScanOrChildren, WatchSamplerTree, ::testing::Bool());

class WatchNvml : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("TFRIG_FAKE_NVML_CAPTURE", (test::data_dir() + "/watch/fake-nvml-h100-load.json").c_str(), 1);
  }
  void TearDown() override { ::unsetenv("TFRIG_FAKE_NVML_CAPTURE"); }
};

TEST_F(WatchNvml, PollerReadsTheFakeOnAWorker) {
  GpuPoller p;
  ASSERT_TRUE(p.start(0.05, std::string(TFRIG_FAKE_NVML))) << p.status();
  ASSERT_EQ(p.gpus().size(), 1u);
  EXPECT_EQ(p.gpus()[0].name, "NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(p.gpus()[0].pcie_link_bytes_per_s);  // gen 5 x16
  EXPECT_NEAR(*p.gpus()[0].pcie_link_bytes_per_s, 63.0e9, 0.1e9);
  for (int i = 0; i < 100 && p.polls() < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_GE(p.polls(), 3u);
  auto g = p.latest();
  p.stop();
  ASSERT_EQ(g.size(), 1u);
  // The H100 "load" row of the nvidia_gpu_exporter capture.
  EXPECT_EQ(g[0].util_percent, 100.0);
  EXPECT_EQ(g[0].memory_util_percent, 11.0);
  EXPECT_NEAR(*g[0].power_watts, 631.95, 0.01);
  EXPECT_EQ(g[0].sm_clock_mhz, 1980.0);
  EXPECT_EQ(*g[0].memory_used_bytes, 19818ull * 1024 * 1024);
  EXPECT_FALSE(g[0].pcie_rx_bytes_per_s);  // not in the capture: unknown, not 0
}

TEST_F(WatchNvml, OldDriverEntryPointsStillSample) {
  GpuPoller p;
  ASSERT_TRUE(p.start(0.05, std::string(TFRIG_FAKE_NVML_LEGACY))) << p.status();
  auto g = p.latest();
  p.stop();
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].util_percent, 100.0);
  EXPECT_EQ(g[0].sm_clock_mhz, 1980.0);
}

TEST(WatchNvmlMissing, SaysWhyNoGpuIsWatched) {
  GpuPoller p;
  EXPECT_FALSE(p.start(0.05, std::string("/nonexistent/libnvidia-ml.so.1")));
  EXPECT_NE(p.status().find("library_missing"), std::string::npos) << p.status();
}

// The sampler's own CPU use, from getrusage over a short live run at ten
// times the default rate. The bound is generous (machines are noisy): at
// the default 1 s interval the cost is a tenth of what is measured here.
TEST_F(WatchNvml, OwnCpuUseStaysSmall) {
  WatchOptions o;
  o.interval_s = 0.1;
  o.duration_s = 1.5;
  o.nvml_library = std::string(TFRIG_FAKE_NVML);
  o.pid = ::getpid();
  std::atomic<bool> stop{false};
  rusage before{}, after{};
  ::getrusage(RUSAGE_SELF, &before);
  core::Stopwatch w;
  auto r = run_watch(core::SysRoot("/"), o, stop);
  const double wall = w.seconds();
  ::getrusage(RUSAGE_SELF, &after);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_GE(r->recording.samples.size(), 5u);
  auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  const double cpu = secs(after.ru_utime) - secs(before.ru_utime) + secs(after.ru_stime) - secs(before.ru_stime);
  // 10 samples/s: under 5% of one core means under 0.5% at 1 sample/s.
  EXPECT_LT(cpu / wall, 0.05) << cpu << " s of CPU in " << wall << " s";
}

TEST(WatchMonitor, RunsACommandAndKeepsItsExitStatus) {
  test::TempDir dir;
  WatchOptions o;
  o.interval_s = 0.1;
  o.gpu = false;
  o.command = {"sh", "-c", "sleep 0.35; exit 3"};
  o.record_path = dir.file("rec.jsonl");
  std::atomic<bool> stop{false};
  auto r = run_watch(core::SysRoot("/"), o, stop);
  ASSERT_TRUE(r) << r.error().to_string();
  ASSERT_TRUE(r->command_exit_status);
  EXPECT_EQ(*r->command_exit_status, 3);
  EXPECT_GE(r->recording.samples.size(), 2u);
  EXPECT_EQ(r->recording.info.command, "sh -c sleep 0.35; exit 3");
  EXPECT_EQ(r->recording.info.gpu_status, "not watched (--no-gpu)");
  // The recording on disk is complete and reads back.
  EXPECT_FALSE(test::path_exists(dir.file("rec.jsonl.tmp")));
  auto back = parse_recording(test::read_file(dir.file("rec.jsonl")), "rec.jsonl");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back->samples.size(), r->recording.samples.size());
}

TEST(WatchMonitor, MissingPidIsAClearError) {
  WatchOptions o;
  o.pid = 4194303;
  o.gpu = false;
  std::atomic<bool> stop{false};
  auto r = run_watch(core::SysRoot("/"), o, stop);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().to_string().find("no such process"), std::string::npos);
}

}  // namespace
}  // namespace tfrig::watch
