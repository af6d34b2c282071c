#include "bench/history.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/sysroot.h"
#include "core/try.h"

namespace tfrig::bench {

namespace {

// Bumped with any change to the tables; a newer file is refused rather than misread.
constexpr int kHistorySchema = 1;

constexpr const char* kSchemaSql = R"sql(
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  timestamp TEXT NOT NULL,
  machine_id TEXT NOT NULL,
  hostname TEXT NOT NULL,
  tool_version TEXT NOT NULL,
  context_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  bench_id TEXT NOT NULL,
  metric TEXT NOT NULL,
  unit TEXT NOT NULL,
  status TEXT NOT NULL,
  median REAL, min REAL, max REAL, cv REAL,
  samples_json TEXT NOT NULL,
  params_json TEXT NOT NULL,
  reason TEXT,
  notes_json TEXT NOT NULL,
  PRIMARY KEY (run_id, bench_id, metric)
);
CREATE INDEX IF NOT EXISTS results_by_metric ON results(bench_id, metric);
CREATE INDEX IF NOT EXISTS runs_by_machine ON runs(machine_id);
)sql";

// A prepared statement that finalises itself.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* get() const { return s_; }
  void text(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void real(int i, double v) { sqlite3_bind_double(s_, i, v); }
  void integer(int i, int64_t v) { sqlite3_bind_int64(s_, i, v); }
  void null(int i) { sqlite3_bind_null(s_, i); }
  std::string column_text(int i) const {
    const unsigned char* t = sqlite3_column_text(s_, i);
    return t != nullptr ? reinterpret_cast<const char*>(t) : "";
  }

 private:
  sqlite3_stmt* s_ = nullptr;
  int rc_ = SQLITE_ERROR;
};

nlohmann::json parse_or(const std::string& text, nlohmann::json fallback) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  return j.is_discarded() ? fallback : j;
}

}  // namespace

std::string default_history_path() {
  const char* xdg = std::getenv("XDG_DATA_HOME");
  // The spec says a relative XDG_DATA_HOME is invalid and must be ignored.
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/tfrig/history.db";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] != '\0') return std::string(home) + "/.local/share/tfrig/history.db";
  return "";
}

History::~History() {
  if (db_ != nullptr) sqlite3_close(db_);
}

History::History(History&& other) noexcept : db_(other.db_), path_(std::move(other.path_)) { other.db_ = nullptr; }

History& History::operator=(History&& other) noexcept {
  if (this != &other) {
    if (db_ != nullptr) sqlite3_close(db_);
    db_ = other.db_;
    path_ = std::move(other.path_);
    other.db_ = nullptr;
  }
  return *this;
}

core::Error History::sql_error(const std::string& what) const {
  // `what` names the SQLite call ("prepare"); SQLite's own message stays as it gives it.
  return core::Error{core::ErrorCode::kIo, path_,
                     what + ": " + (db_ != nullptr ? std::string(sqlite3_errmsg(db_)) : _("no database"))};
}

core::Status History::exec(const char* sql) const {
  char* msg = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
    std::string text = msg != nullptr ? std::string(msg) : _("unknown error");
    sqlite3_free(msg);
    return core::fail(core::ErrorCode::kIo, path_, text);
  }
  return {};
}

core::Result<History> History::open(const std::string& path) {
  if (path.empty()) {
    return core::fail(core::ErrorCode::kInvalidArgument, "history",
                      _("no XDG_DATA_HOME or HOME to put history.db in; pass --history FILE or --no-history"));
  }
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) return tl::unexpected(core::errno_error(ec.value(), parent.string(), "create history directory"));
  }
  History h;
  h.path_ = path;
  if (sqlite3_open_v2(path.c_str(), &h.db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    return tl::unexpected(h.sql_error("open"));
  }
  // Another tfrig writing at the same moment waits instead of failing.
  sqlite3_busy_timeout(h.db_, 5000);
  int version = 0;
  {
    Stmt s(h.db_, "PRAGMA user_version");
    if (!s.ok()) return tl::unexpected(h.sql_error("read schema version (is this an SQLite file?)"));
    if (sqlite3_step(s.get()) == SQLITE_ROW) version = sqlite3_column_int(s.get(), 0);
  }
  if (version > kHistorySchema) {
    return core::fail(core::ErrorCode::kUnsupported, path,
                      trf("history schema {0} is newer than this tfrig understands ({1})", version, kHistorySchema));
  }
  TFRIG_TRY(h.exec("PRAGMA foreign_keys = ON"));
  TFRIG_TRY(h.exec(kSchemaSql));
  TFRIG_TRY(h.exec(fmt::format("PRAGMA user_version = {}", kHistorySchema).c_str()));
  return h;
}

core::Result<int64_t> History::record(const BenchReport& report) {
  TFRIG_TRY(exec("BEGIN IMMEDIATE"));
  auto rollback = [this](core::Error e) -> core::Result<int64_t> {
    (void)exec("ROLLBACK");
    return tl::unexpected(std::move(e));
  };
  Stmt run(db_, "INSERT INTO runs (timestamp, machine_id, hostname, tool_version, context_json) VALUES (?,?,?,?,?)");
  if (!run.ok()) return rollback(sql_error("prepare"));
  run.text(1, report.context.timestamp);
  run.text(2, report.context.machine_id);
  run.text(3, report.context.hostname);
  run.text(4, report.context.tool_version);
  run.text(5, to_json(report.context, "en").dump());  // the history keeps the English
  if (sqlite3_step(run.get()) != SQLITE_DONE) return rollback(sql_error("insert run"));
  int64_t id = sqlite3_last_insert_rowid(db_);
  Stmt res(db_, "INSERT INTO results (run_id, bench_id, metric, unit, status, median, min, max, cv, samples_json, "
                "params_json, reason, notes_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
  if (!res.ok()) return rollback(sql_error("prepare"));
  for (const auto& m : report.results) {
    sqlite3_reset(res.get());
    sqlite3_clear_bindings(res.get());
    res.integer(1, id);
    res.text(2, m.id);
    res.text(3, m.metric);
    res.text(4, m.unit);
    res.text(5, std::string(status_name(m.status)));
    if (m.status == Status::kOk) {
      res.real(6, m.median);
      res.real(7, m.min);
      res.real(8, m.max);
      res.real(9, m.cv);
    } else {
      for (int i = 6; i <= 9; ++i) res.null(i);
    }
    res.text(10, nlohmann::json(m.samples).dump());
    res.text(11, m.params.dump());
    if (m.reason.empty()) {
      res.null(12);
    } else {
      res.text(12, core::english(m.reason));
    }
    nlohmann::json notes = nlohmann::json::array();
    for (const auto& n : m.notes) notes.push_back(core::english(n));
    res.text(13, notes.dump());
    if (sqlite3_step(res.get()) != SQLITE_DONE) return rollback(sql_error("insert " + m.id + "." + m.metric));
  }
  if (auto s = exec("COMMIT"); !s) return rollback(s.error());
  return id;
}

core::Result<std::optional<PreviousResult>> History::previous(const std::string& machine_id, const std::string& id,
                                                              const std::string& metric, int64_t before_run) const {
  Stmt s(db_, "SELECT runs.id, runs.timestamp, results.median FROM results JOIN runs ON results.run_id = runs.id "
              "WHERE runs.machine_id = ? AND results.bench_id = ? AND results.metric = ? AND results.status = 'ok' "
              "AND runs.id < ? ORDER BY runs.id DESC LIMIT 1");
  if (!s.ok()) return tl::unexpected(sql_error("prepare"));
  s.text(1, machine_id);
  s.text(2, id);
  s.text(3, metric);
  s.integer(4, before_run);
  int rc = sqlite3_step(s.get());
  if (rc == SQLITE_DONE) return std::optional<PreviousResult>();
  if (rc != SQLITE_ROW) return tl::unexpected(sql_error("query"));
  PreviousResult p;
  p.run_id = sqlite3_column_int64(s.get(), 0);
  p.timestamp = s.column_text(1);
  p.median = sqlite3_column_double(s.get(), 2);
  return std::optional<PreviousResult>(p);
}

core::Result<std::vector<HistoryPoint>> History::results_of_machine(const std::string& machine_id) const {
  Stmt s(
      db_,
      "SELECT runs.id, runs.timestamp, results.bench_id, results.metric, results.unit, results.median "
      "FROM results JOIN runs ON results.run_id = runs.id "
      "WHERE runs.machine_id = ? AND results.status = 'ok' AND results.median IS NOT NULL ORDER BY runs.id, results.rowid");
  if (!s.ok()) return tl::unexpected(sql_error("prepare"));
  s.text(1, machine_id);
  std::vector<HistoryPoint> out;
  int rc = 0;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    HistoryPoint p;
    p.run_id = sqlite3_column_int64(s.get(), 0);
    p.timestamp = s.column_text(1);
    p.id = s.column_text(2);
    p.metric = s.column_text(3);
    p.unit = s.column_text(4);
    p.median = sqlite3_column_double(s.get(), 5);
    out.push_back(std::move(p));
  }
  if (rc != SQLITE_DONE) return tl::unexpected(sql_error("query"));
  return out;
}

core::Result<BenchReport> History::load(int64_t run_id) const {
  BenchReport report;
  {
    Stmt s(db_, "SELECT context_json FROM runs WHERE id = ?");
    if (!s.ok()) return tl::unexpected(sql_error("prepare"));
    s.integer(1, run_id);
    if (sqlite3_step(s.get()) != SQLITE_ROW) {
      return core::fail(core::ErrorCode::kNotFound, path_, trf("no run {}", run_id));
    }
    report.context = context_from_json(parse_or(s.column_text(0), nlohmann::json::object()));
  }
  Stmt s(db_,
         "SELECT bench_id, metric, unit, status, median, min, max, cv, samples_json, params_json, reason, notes_json "
         "FROM results WHERE run_id = ? ORDER BY rowid");
  if (!s.ok()) return tl::unexpected(sql_error("prepare"));
  s.integer(1, run_id);
  while (sqlite3_step(s.get()) == SQLITE_ROW) {
    Measurement m;
    m.id = s.column_text(0);
    m.metric = s.column_text(1);
    m.unit = s.column_text(2);
    std::string status = s.column_text(3);
    m.status = status_from_name(status).value_or(Status::kFailed);
    m.median = sqlite3_column_double(s.get(), 4);
    m.min = sqlite3_column_double(s.get(), 5);
    m.max = sqlite3_column_double(s.get(), 6);
    m.cv = sqlite3_column_double(s.get(), 7);
    auto samples = parse_or(s.column_text(8), nlohmann::json::array());
    for (const auto& v : samples) {
      if (v.is_number()) m.samples.push_back(v.get<double>());
    }
    m.params = parse_or(s.column_text(9), nlohmann::json::object());
    // Read back as stored: English, or an older run's language.
    if (const std::string reason = s.column_text(10); !reason.empty()) m.reason = core::Message("{}", reason);
    auto notes = parse_or(s.column_text(11), nlohmann::json::array());
    for (const auto& n : notes) {
      if (n.is_string()) m.notes.emplace_back("{}", n.get<std::string>());
    }
    report.results.push_back(std::move(m));
  }
  return report;
}

}  // namespace tfrig::bench
