// The verdict of tfrig watch: which side of the barrel the GPU waits on.
//
// Each sample is classified on its own, runs of equal labels become phases
// (short blips merged into their neighbour), and the whole run gets the
// label most of its active samples carry. Every threshold is stated in
// Thresholds with its source; ASSUMED marks a judgement.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/message.h"
#include "watch/sample.h"

namespace tfrig::watch {

enum class Verdict {
  kInputBoundCpu,  // GPU idles while the CPU side is saturated: preprocessing
  kInputBoundIo,   // GPU idles while the process waits on storage
  kComputeBound,   // GPU busy above the threshold
  kPcieBound,      // GPU idles while its PCIe link runs near its limit
  kIdle,           // nothing much happens
  kCpuBound,       // no GPU watched: CPU saturated
  kIoBound,        // no GPU watched: waiting on storage
};
std::string_view verdict_name(Verdict v);                         // the JSON names: "input_bound_cpu", ...
std::optional<Verdict> verdict_from_name(std::string_view name);  // nullopt for a name it does not know
// The verdict for the terminal: the JSON name in English, a phrase in Chinese.
std::string verdict_label(Verdict v);
core::Message verdict_message(Verdict v);

// "1 h", "5 min", "2.5 s", "500 ms": as a person writes an interval (never "3.6e+03 s").
std::string interval_text(double seconds);
core::Message interval_message(double seconds);

struct Thresholds {
  // TensorFlow's Profiler calls a program HIGHLY input-bound when >= 20% of
  // step time waits for input, MODERATELY when >= 5%, NOT input-bound below
  // (kHighlyInfeedBoundThresholdInPercent = 20, kModeratelyInfeedBoundThresholdInPercent
  // = 5, tensorflow/core/profiler/convert/op_stats_to_input_pipeline_analysis.cc;
  // https://www.tensorflow.org/guide/data_performance_analysis). Watching from outside,
  // the GPU's idle share stands in for the input share of step time
  // (ASSUMED: with prefetch, the GPU idles exactly while it waits for input).
  double highly_input_bound_idle = 0.20;
  double moderately_input_bound_idle = 0.05;
  // So the GPU counts as busy (compute-bound) at >= 95% utilisation.
  double gpu_busy_percent = 95;
  // Below 5% the GPU is taken as doing nothing (ASSUMED, the same 5%).
  double gpu_idle_percent = 5;
  // CPU saturated: with a watched process tree, the tree wanting >= 90% of
  // min(its threads, the cores), or one thread wanting >= 90% of a core (a
  // serial stage: Python's GIL, a single-threaded loader); "wanting" is
  // running plus waiting on a run queue (/proc/PID/task/TID/schedstat), so a
  // CPU-bound job on a shared, overloaded machine still counts. System-wide
  // (no tree): >= 90% of the cores busy. ASSUMED: 90% leaves room for jitter.
  double cpu_saturated = 0.90;
  // Waiting on storage: at least half a core's time in iowait (ASSUMED;
  // proc(5) warns iowait is approximate, so disk utilisation and blocked
  // threads count as well), a disk busy >= 90% of the interval (iostat(1):
  // %util near 100% means a serial device is saturated), or reads at >= 90%
  // of the --disk-limit the user measured (tfrig bench storage). With a tree
  // watched, these count only while the tree reads or has threads blocked.
  double iowait_cores = 0.5;
  // A watched tree that reads >= 1 MB/s from storage while even its busiest
  // thread is off the CPU (neither running nor runnable) >= 25% of the time
  // is waiting on those reads (ASSUMED; Linux's per-task block-I/O delay,
  // delayacct, is off by default since 5.14, and thread state D is only an
  // instant's view).
  double reading_min_bytes_per_s = 1e6;
  double reading_off_cpu_share = 0.25;
  double disk_util = 0.90;
  double disk_limit_share = 0.90;
  // PCIe-bound: host<->GPU traffic at >= 70% of the link's theoretical
  // one-direction rate (ASSUMED: pinned copies reach about 80-90% of it, so
  // 70% means the copies run most of the time).
  double pcie_share = 0.70;
  // Phases shorter than this many samples are merged into a neighbour (ASSUMED).
  int min_phase_samples = 3;
  // The run counts as idle unless >= 25% of samples are active (ASSUMED).
  double active_share = 0.25;
};

struct SampleClass {
  Verdict verdict = Verdict::kIdle;
  core::Message why;                       // rendered by each output in its language
  std::optional<double> gpu_util_percent;  // mean over watched GPUs
};

SampleClass classify_sample(const Sample& s, const RunInfo& info, const Thresholds& th = {});

struct Phase {
  Verdict verdict = Verdict::kIdle;
  double start_t = 0;
  double end_t = 0;
  size_t samples = 0;
  std::optional<double> gpu_util_percent;   // mean
  std::optional<double> cpu_busy_share;     // mean busy cores / cores
  std::optional<double> iowait_cores;       // mean
  std::optional<double> process_cpu_cores;  // mean
  std::optional<double> read_bytes_per_s;   // mean of the tree's storage reads (or the disks')
  core::Message why;                        // the first sample's reason
};

struct Analysis {
  Verdict verdict = Verdict::kIdle;
  bool gpu_watched = false;
  std::string severity;  // input-bound runs: "highly" or "moderately" (the Profiler's words)
  // Messages: render_text / render_json say them in the output's language.
  core::Message explanation;  // one paragraph: what was seen and what it means
  core::Message fix;          // the first thing to change
  std::vector<Phase> phases;
  Phase whole;  // means over the whole run
  size_t samples = 0;
  std::vector<core::Message> blind;  // what could not be seen
};

Analysis analyse(const Recording& rec, const Thresholds& th = {});

}  // namespace tfrig::watch
