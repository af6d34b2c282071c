// The samplers of tfrig watch. Every /proc read goes through core::SysRoot,
// so the same code runs on the live machine and on captured files (tests).
//
// ProcSampler takes the CPU, process-tree and disk counters at each call and
// turns the difference from the previous call into a Sample. GpuPoller
// queries NVML on its own thread: a slow NVML call (a GPU falling off the
// bus can take seconds) delays only the GPU fields, never the sampler.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/sysroot.h"
#include "watch/procfs.h"
#include "watch/sample.h"

namespace tfrig::gpulib {
class Nvml;
}

namespace tfrig::watch {

// Clock ticks per second of /proc's time fields (sysconf(_SC_CLK_TCK); 100
// on every Linux architecture tfrig runs on).
long clock_ticks_per_second();

class ProcSampler {
 public:
  // `pid`: the root of the process tree to follow; none = system-wide only.
  ProcSampler(const core::SysRoot& root, std::optional<int64_t> pid, long ticks_per_second = clock_ticks_per_second());

  // Reads the counters now. The first call only primes them and returns
  // nullopt; each later call returns the interval since the previous one,
  // `elapsed` seconds long, stamped `t`.
  std::optional<Sample> take(double t, double elapsed);

  // True once the watched root process is gone (always false system-wide).
  bool root_gone() const { return root_gone_; }
  // What could not be read (first occurrence of each), for the report.
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  struct Task {
    uint64_t ticks = 0;        // utime + stime
    uint64_t child_ticks = 0;  // cutime + cstime
    int64_t ppid = 0;
  };
  struct Proc {
    Task task;
    uint64_t threads = 0;
    std::optional<uint64_t> read_bytes;
    // Per thread, nanoseconds it ran plus waited on a run queue
    // (/proc/PID/task/TID/schedstat), or its utime + stime in ns where
    // schedstat is missing. Running + runnable = the CPU the thread wanted:
    // on a shared, overloaded machine a CPU-bound thread gets less than a
    // core but still wants all of it.
    std::map<int64_t, double> thread_demand_ns;
    int blocked = 0;  // threads in state D at the read
  };
  void note(const std::string& problem);
  std::optional<ProcStat> read_proc_stat();
  std::map<std::string, DiskStat> read_disks();
  std::map<int64_t, Proc> read_tree();
  // The steps of read_tree: one /proc/PID/stat read into `stats`; the tree's
  // parent links by the kernel's children lists or by every process's stat;
  // one process's reads, threads and demand.
  using PidStats = std::map<int64_t, PidStat>;
  using ChildLinks = std::map<int64_t, std::vector<int64_t>>;
  bool read_pid_stat(int64_t pid, PidStats& stats);
  void walk_children_lists(PidStats& stats, ChildLinks& children);
  bool scan_every_pid(PidStats& stats, ChildLinks& children);
  Proc read_proc(int64_t pid, const PidStat& st);
  // Pure: the tree's use between two reads of it.
  static std::optional<ProcessSample> process_delta(const std::map<int64_t, Proc>& before,
                                                    const std::map<int64_t, Proc>& now, long ticks_per_second,
                                                    double elapsed);

  const core::SysRoot& root_;
  std::optional<int64_t> pid_;
  long ticks_;
  bool primed_ = false;
  bool root_gone_ = false;
  std::optional<ProcStat> last_stat_;
  std::map<int64_t, Proc> last_tree_;
  std::map<std::string, DiskStat> last_disks_;
  std::vector<std::string> whole_disks_;
  std::vector<std::string> problems_;
};

// NVML on a worker thread. start() opens NVML (TFRIG_NVML_LIBRARY honoured)
// and polls every interval; latest() returns the newest readings.
class GpuPoller {
 public:
  GpuPoller();
  ~GpuPoller();
  GpuPoller(const GpuPoller&) = delete;
  GpuPoller& operator=(const GpuPoller&) = delete;

  // False with status() saying why when no GPU can be watched.
  bool start(double interval_s, const std::optional<std::string>& library_override);
  void stop();
  std::vector<GpuSample> latest() const;
  const std::vector<GpuInfo>& gpus() const { return info_; }
  const std::string& status() const { return status_; }
  // Polls done so far (tests).
  uint64_t polls() const { return polls_.load(); }

 private:
  void loop(double interval_s);
  std::vector<GpuSample> poll_once();

  std::unique_ptr<gpulib::Nvml> nvml_;
  std::vector<GpuInfo> info_;
  std::string status_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<GpuSample> latest_;
  std::atomic<uint64_t> polls_{0};
  std::thread thread_;
};

}  // namespace tfrig::watch
