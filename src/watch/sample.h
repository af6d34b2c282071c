// What tfrig watch records each interval, and what it knows about the run.
// Unknown is std::optional empty (null in the recording), never 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfrig::watch {

// /proc/stat over the interval, in "cores": 1.0 = one core's whole time.
struct CpuSample {
  int cores = 0;
  double busy_cores = 0;            // user + nice + system + irq + softirq + steal
  double iowait_cores = 0;          // idle while a task of this CPU waited for I/O
  std::vector<double> core_busy;    // per core, 0..1
  std::vector<double> core_iowait;  // per core, 0..1
};

// The watched process and its descendants over the interval.
struct ProcessSample {
  int processes = 0;
  uint64_t threads = 0;
  double cpu_cores = 0;             // CPU time / wall time
  double cpu_demand_cores = 0;      // CPU time + run-queue wait / wall time: what the tree wanted
  double hottest_thread_cores = 0;  // the busiest single thread, running or runnable (a serial stage: Python's GIL)
  int blocked_threads = 0;          // in state D (uninterruptible, usually waiting for disk) at the sample
  std::optional<double> read_bytes_per_s;  // /proc/PID/io read_bytes (storage, not page cache)
};

// One whole disk of /proc/diskstats over the interval.
struct DiskSample {
  std::string name;
  double read_bytes_per_s = 0;
  double util = 0;  // share of the interval with I/O in flight (iostat %util / 100)
  uint64_t in_flight = 0;
};

// One GPU through NVML; each field unknown when NVML cannot say.
struct GpuSample {
  unsigned index = 0;
  std::optional<double> util_percent;         // kernel running, share of the last NVML period
  std::optional<double> memory_util_percent;  // device memory read/written
  std::optional<uint64_t> memory_used_bytes;
  std::optional<double> pcie_rx_bytes_per_s;  // host -> GPU
  std::optional<double> pcie_tx_bytes_per_s;  // GPU -> host
  std::optional<double> sm_clock_mhz;
  std::optional<double> power_watts;
};

struct Sample {
  double t = 0;  // seconds since the watch began, at the end of the interval
  std::optional<CpuSample> cpu;
  std::optional<ProcessSample> process;
  std::vector<DiskSample> disks;
  std::vector<GpuSample> gpus;
};

struct GpuInfo {
  unsigned index = 0;
  std::string name;
  // Theoretical one-direction bandwidth of the current PCIe link (gen x width).
  std::optional<double> pcie_link_bytes_per_s;
};

struct RunInfo {
  double interval_s = 1;
  int cpus = 0;
  std::string started_utc;
  std::string command;         // what was run, or empty
  std::optional<int64_t> pid;  // the watched tree's root
  std::vector<GpuInfo> gpus;
  std::string gpu_status;  // why no GPU is watched ("NVML: library_missing ..."); empty when watched
  std::optional<double> disk_limit_bytes_per_s;  // --disk-limit: the measured limit of the data disk
  std::string source;                            // "live" or "replay FILE"
};

struct Recording {
  RunInfo info;
  std::vector<Sample> samples;
};

}  // namespace tfrig::watch
