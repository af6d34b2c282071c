// Monotonic timing for probe durations and benchmarks; wall-clock time only
// for the timestamps written into reports.
#pragma once

#include <chrono>
#include <string>

namespace tfrig::core {

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Current UTC time as ISO 8601 ("2026-11-30T05:12:00Z").
std::string utc_timestamp();

}  // namespace tfrig::core
