// The runner: warm-up, repetitions, a time budget per benchmark, skipping
// with a reason, cancellation (Ctrl-C), and the statistics of the samples.
// The benchmark says how to take one sample; the runner decides how many.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/benchmark.h"
#include "bench/context.h"
#include "core/clock.h"
#include "core/text_width.h"

namespace tfrig::bench {

struct Statistics {
  double median = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
  double cv = 0;  // sample standard deviation / mean; 0 with fewer than 2 samples
};

// Empty input gives all zeros. The median of an even count is the mean of
// the two middle values (the usual definition; google/benchmark does the same).
Statistics summarize(const std::vector<double>& samples);

// What the progress line shows: which metric, which sample, time so far.
struct Progress {
  std::string id;
  std::string metric;
  int sample = 0;      // 0 during warm-up
  int samples = 0;     // planned
  double elapsed = 0;  // seconds since this benchmark began
};
using ProgressFn = std::function<void(const Progress&)>;

class Runner {
 public:
  Runner(const Config& config, const std::atomic<bool>& cancelled, ProgressFn progress = {});

  // Starts a benchmark: its budget starts now and is shared by `metric_count` metrics.
  void begin(std::string id, int metric_count);

  // Takes config.warmup discarded samples, then up to config.repetitions
  // samples while this metric's share of the budget lasts (at least one).
  // A failed sample fails the metric with its error; cancellation marks it
  // failed with "interrupted".
  Measurement& measure(const std::string& metric, const std::string& unit, nlohmann::json params,
                       const SampleFn& sample);
  Measurement& skip(const std::string& metric, const std::string& unit, core::Message reason,
                    nlohmann::json params = nlohmann::json::object());
  Measurement& fail(const std::string& metric, const std::string& unit, core::Message reason,
                    nlohmann::json params = nlohmann::json::object());

  // Records a measurement made elsewhere (a metric derived from another's
  // samples), keeping the budget accounting.
  Measurement& record(Measurement m);

  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }
  // Seconds left of the current benchmark's budget (may be negative).
  double budget_left() const;

  const std::vector<Measurement>& results() const { return results_; }
  std::vector<Measurement> take_results() { return std::move(results_); }

 private:
  Measurement& push(const std::string& metric, const std::string& unit, nlohmann::json params);

  const Config& config_;
  const std::atomic<bool>& cancelled_;
  ProgressFn progress_;
  std::string id_;
  core::Stopwatch benchmark_watch_;
  int metrics_left_ = 1;
  std::vector<Measurement> results_;
};

// One run of `tfrig bench`: the context and every measurement.
struct BenchReport {
  BenchContext context;
  std::vector<Measurement> results;
};

// An error naming the first id that is no benchmark (run_benchmarks checks
// it too; the command checks first, so the error is in the reader's language).
core::Status check_benchmark_ids(const std::vector<std::string>& ids);

// Runs the benchmarks named in `ids` (all when empty) in the standard order.
// Unknown ids are refused before anything runs.
core::Result<BenchReport> run_benchmarks(const std::vector<std::string>& ids, const Config& config,
                                         const inventory::Inventory& inventory, const std::atomic<bool>& cancelled,
                                         ProgressFn progress = {});

// The report's texts (reasons, notes, warnings, expectations) are messages,
// rendered in `language`: the output's for JSON (English unless --lang),
// "en" for the history. One built report renders in any language.
nlohmann::json to_json(const Measurement& m, std::string_view language);
nlohmann::json to_json(const BenchReport& report, std::string_view language);
// The terminal table; `previous` (from the history) adds a change column.
// The table folds and notes wrap to `width` columns (core/text_width.h).
// Messages render in `language`; the table's own words (headers, statuses)
// in the process's language, which is the reader's.
std::string render_text(const BenchReport& report, std::string_view language, size_t width = core::kDefaultTextWidth);

}  // namespace tfrig::bench
