// The benchmark history: every run of `tfrig bench` with its machine
// identity, context and results, in an embedded SQLite database, so that
// `--compare` can show what changed since the previous run on this machine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/runner.h"
#include "core/result.h"

struct sqlite3;

namespace tfrig::bench {

// $XDG_DATA_HOME/tfrig/history.db, else $HOME/.local/share/tfrig/history.db
// (XDG Base Directory Specification 0.8); empty when neither is set.
std::string default_history_path();

struct PreviousResult {
  int64_t run_id = 0;
  std::string timestamp;
  double median = 0;
};

struct HistoryPoint {
  int64_t run_id = 0;
  std::string timestamp;
  std::string id;
  std::string metric;
  std::string unit;
  double median = 0;
};

class History {
 public:
  History() = default;
  ~History();
  History(const History&) = delete;
  History& operator=(const History&) = delete;
  History(History&& other) noexcept;
  History& operator=(History&& other) noexcept;

  // Opens (creating the file, its directory and the schema when new).
  static core::Result<History> open(const std::string& path);

  // Stores a run in one transaction; returns its id.
  core::Result<int64_t> record(const BenchReport& report);
  // The latest ok result of id/metric on this machine from a run before `before_run`.
  core::Result<std::optional<PreviousResult>> previous(const std::string& machine_id, const std::string& id,
                                                       const std::string& metric, int64_t before_run) const;
  // Every ok result of this machine, oldest run first (the report's history charts).
  core::Result<std::vector<HistoryPoint>> results_of_machine(const std::string& machine_id) const;
  // A stored run, as it was recorded.
  core::Result<BenchReport> load(int64_t run_id) const;
  const std::string& path() const { return path_; }

 private:
  core::Status exec(const char* sql) const;
  core::Error sql_error(const std::string& what) const;

  sqlite3* db_ = nullptr;
  std::string path_;
};

}  // namespace tfrig::bench
