// The benchmark model: a Benchmark measures one stage of the input pipeline
// and yields one Measurement per metric. The Runner (runner.h) owns warm-up,
// repetitions, the time budget, skipping and cancellation, so a benchmark
// only says how to take one sample.
//
// Ids of benchmarks and metrics are part of the JSON contract (
// docs/bench.md) and never change once released.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/message.h"
#include "core/result.h"
#include "inventory/inventory.h"

namespace tfrig::bench {

enum class Status { kOk, kSkipped, kFailed };

std::string_view status_name(Status status);                    // the JSON and history word: ok, skipped, failed
std::optional<Status> status_from_name(std::string_view name);  // nullopt for another word
std::string status_label(Status status);                        // as the reader's language says it

// One metric of one benchmark, aggregated over its samples.
// What the knowledge base says this hardware should reach (bench/expectation.h).
// Its texts are messages, rendered by each output in its language.
struct Expectation {
  double value = 0;      // in the measurement's unit
  core::Message basis;   // "catalog peak, dense tensor-core bf16" / "PCIe Gen 5 x16 link rate"
  core::Message source;  // where the figure comes from
};

struct Measurement {
  std::string id;      // benchmark id: "storage"
  std::string metric;  // "rand4k_qd32"
  std::string unit;    // "IOPS", "MB/s", "GB/s", "images/s", "files/s", "TFLOPS"
  std::vector<double> samples;
  double median = 0;
  double min = 0;
  double max = 0;
  double cv = 0;  // coefficient of variation: sample standard deviation / mean
  nlohmann::json params = nlohmann::json::object();
  Status status = Status::kOk;
  // Texts are messages: JSON writes them in the output language (English
  // unless --lang), the table in the reader's (to_json, render_text).
  core::Message reason;              // why skipped or failed; empty when ok
  std::vector<core::Message> notes;  // what the user should know about an ok result
  double seconds = 0;                // wall time spent on this metric, warm-up included
  // From the history with --compare: the previous run's median on this machine.
  std::optional<double> previous_median;
  std::string previous_timestamp;
  // With --compare: what this hardware should reach, where known.
  std::optional<Expectation> expected;
};

// What the user asked for; benchmarks read what applies to them.
struct Config {
  std::string scratch_parent = ".";  // where storage makes its scratch directory
  std::string data_dir;              // --data: the user's dataset (read only)
  int threads = 0;                   // 0: every online CPU
  int repetitions = 5;               // samples per metric
  int warmup = 1;                    // discarded samples per metric
  double budget_seconds = 30;        // per benchmark, warm-up included
  double sample_seconds = 0.5;       // target length of a time-based sample
  uint64_t file_bytes = 0;           // storage test file; 0: the benchmark's default
  int small_files = 0;               // generated small files; 0: the benchmark's default
  bool quick = false;                // smaller sizes, for tests and a first look
};

// Shared with every benchmark while it runs.
struct RunContext {
  const Config& config;
  const inventory::Inventory& inventory;
  const std::atomic<bool>& cancelled;
  int threads = 1;  // resolved --threads
};

// A sample: the metric's value for one repetition, or why it failed.
using SampleFn = std::function<core::Result<double>()>;

class Runner;

class Benchmark {
 public:
  virtual ~Benchmark() = default;
  // Stable id: "storage", "memory", "decode", "crc32c", "pcie", "gemm".
  virtual std::string_view id() const = 0;
  virtual std::string_view description() const = 0;
  // The metrics it reports as {metric, unit}, so that a skipped benchmark
  // still lists each of them with the reason.
  virtual std::vector<std::pair<std::string, std::string>> metrics() const = 0;
  // nullopt when it can run here; else the reason it is skipped.
  virtual std::optional<core::Message> skip_reason(const RunContext& ctx) const = 0;
  // Measures every metric through runner.measure()/skip()/fail().
  virtual void run(const RunContext& ctx, Runner& runner) = 0;
};

// Every benchmark, in the order they run.
std::vector<std::unique_ptr<Benchmark>> all_benchmarks();
std::vector<std::string> benchmark_ids();

// An error as a measurement's reason: its message ("PATH: text"), or its
// text as it is when it was built from a plain string.
core::Message error_reason(const core::Error& e);

}  // namespace tfrig::bench
