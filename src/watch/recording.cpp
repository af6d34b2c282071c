#include "watch/recording.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/json_text.h"
#include "core/text.h"
#include "core/try.h"

namespace tfrig::watch {
namespace {

using OJson = nlohmann::ordered_json;
using Json = nlohmann::json;

// Limits of what a recording may hold: far above any real machine, low
// enough that every conversion to an integer type is defined.
constexpr double kMaxCount = 1e7;     // cores, processes, threads
constexpr double kMaxBytes = 9.0e15;  // below 2^53: exact in a double
constexpr double kMaxRate = 1e15;     // bytes/s
constexpr double kMaxSeconds = 1e9;
constexpr size_t kMaxArray = 65536;

// Reading one line's object: every error names the line and the field path.
class Reader {
 public:
  Reader(std::string where, size_t line) : where_(std::move(where)), line_(line) {}

  core::Error error(const std::string& field, const std::string& message) const {
    return core::Error{core::ErrorCode::kParse, fmt::format("{}:{}", where_, line_),
                       field.empty() ? message : field + ": " + message};
  }

  // A number in [lo, hi]; nullopt when absent or null and !required.
  core::Result<std::optional<double>> number(const Json& obj, const char* key, const std::string& path, double lo,
                                             double hi, bool required = false) const {
    const std::string field = path.empty() ? key : path + "." + key;
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
      if (required) return tl::unexpected(error(field, _("missing")));
      return std::optional<double>{};
    }
    if (!it->is_number()) return tl::unexpected(error(field, _("expected a number")));
    const double v = it->get<double>();
    if (!std::isfinite(v) || v < lo || v > hi) {
      return tl::unexpected(error(field, trf("expected a number from {0} to {1}", lo, hi)));
    }
    return std::optional<double>{v};
  }

  core::Result<std::string> string(const Json& obj, const char* key, const std::string& path) const {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return std::string();
    if (!it->is_string()) return tl::unexpected(error(path.empty() ? key : path + "." + key, _("expected a string")));
    return it->get<std::string>();
  }

  // An array (or absent/null = empty) of at most kMaxArray elements.
  core::Result<const Json*> array(const Json& obj, const char* key, const std::string& path) const {
    static const Json kEmpty = Json::array();
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return &kEmpty;
    if (!it->is_array()) return tl::unexpected(error(path.empty() ? key : path + "." + key, _("expected an array")));
    if (it->size() > kMaxArray)
      return tl::unexpected(error(path.empty() ? key : path + "." + key, _("too many elements")));
    return &*it;
  }

 private:
  std::string where_;
  size_t line_;
};

core::Result<RunInfo> parse_info(const Json& j, const Reader& r) {
  RunInfo info;
  const std::optional<double> version = TFRIG_TRY(r.number(j, "tfrig_watch", "", 1, 1e6, true));
  if (*version > kRecordingVersion) {
    return tl::unexpected(r.error(
        "tfrig_watch", trf("recording version {0} is newer than this tfrig reads ({1})", *version, kRecordingVersion)));
  }
  const std::optional<double> interval = TFRIG_TRY(r.number(j, "interval_s", "", 0.001, 86400, true));
  info.interval_s = *interval;
  const std::optional<double> cpus = TFRIG_TRY(r.number(j, "cpus", "", 0, kMaxCount));
  info.cpus = static_cast<int>(cpus.value_or(0));
  for (auto [key, out] : {std::pair{"started_utc", &info.started_utc}, std::pair{"command", &info.command},
                          std::pair{"gpu_status", &info.gpu_status}}) {
    *out = TFRIG_TRY(r.string(j, key, ""));
  }
  const std::optional<double> pid =
      TFRIG_TRY(r.number(j, "pid", "", 0, 4194304));  // PID_MAX_LIMIT on 64-bit (proc(5), pid_max)
  if (pid) info.pid = static_cast<int64_t>(*pid);
  const std::optional<double> limit = TFRIG_TRY(r.number(j, "disk_limit_bytes_per_s", "", 0, kMaxRate));
  info.disk_limit_bytes_per_s = limit;
  auto gpus = TFRIG_TRY(r.array(j, "gpus", ""));
  for (size_t i = 0; i < gpus->size(); ++i) {
    const Json& g = (*gpus)[i];
    const std::string path = fmt::format("gpus[{}]", i);
    if (!g.is_object()) return tl::unexpected(r.error(path, _("expected an object")));
    GpuInfo gi;
    const std::optional<double> index = TFRIG_TRY(r.number(g, "index", path, 0, 65535, true));
    gi.index = static_cast<unsigned>(*index);
    auto name = TFRIG_TRY(r.string(g, "name", path));
    gi.name = name;
    const std::optional<double> link = TFRIG_TRY(r.number(g, "pcie_link_bytes_per_s", path, 0, kMaxRate));
    gi.pcie_link_bytes_per_s = link;
    info.gpus.push_back(std::move(gi));
  }
  return info;
}

// The "cpu" object of a sample: cores, busy and iowait cores, per-core fractions.
core::Result<CpuSample> parse_cpu_sample(const Json& cpu, const Reader& r) {
  CpuSample c;
  const std::optional<double> cores = TFRIG_TRY(r.number(cpu, "cores", "cpu", 0, kMaxCount, true));
  c.cores = static_cast<int>(*cores);
  const std::optional<double> busy = TFRIG_TRY(r.number(cpu, "busy_cores", "cpu", 0, kMaxCount, true));
  c.busy_cores = *busy;
  const std::optional<double> iowait = TFRIG_TRY(r.number(cpu, "iowait_cores", "cpu", 0, kMaxCount));
  c.iowait_cores = iowait.value_or(0);
  for (auto [key, out] : {std::pair{"core_busy", &c.core_busy}, std::pair{"core_iowait", &c.core_iowait}}) {
    auto arr = TFRIG_TRY(r.array(cpu, key, "cpu"));
    for (size_t i = 0; i < arr->size(); ++i) {
      const Json& v = (*arr)[i];
      if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 || v.get<double>() > 1) {
        return tl::unexpected(r.error(fmt::format("cpu.{}[{}]", key, i), _("expected a fraction from 0 to 1")));
      }
      out->push_back(v.get<double>());
    }
  }
  return c;
}

// The "process" object: the watched process tree's threads, CPU and reads.
core::Result<ProcessSample> parse_process_sample(const Json& process, const Reader& r) {
  ProcessSample p;
  const std::optional<double> processes = TFRIG_TRY(r.number(process, "processes", "process", 0, kMaxCount));
  p.processes = static_cast<int>(processes.value_or(0));
  const std::optional<double> threads = TFRIG_TRY(r.number(process, "threads", "process", 0, kMaxCount));
  p.threads = static_cast<uint64_t>(threads.value_or(0));
  const std::optional<double> cpu = TFRIG_TRY(r.number(process, "cpu_cores", "process", 0, kMaxCount, true));
  p.cpu_cores = *cpu;
  const std::optional<double> demand = TFRIG_TRY(r.number(process, "cpu_demand_cores", "process", 0, kMaxCount));
  p.cpu_demand_cores = demand.value_or(p.cpu_cores);
  const std::optional<double> hot = TFRIG_TRY(r.number(process, "hottest_thread_cores", "process", 0, kMaxCount));
  p.hottest_thread_cores = hot.value_or(0);
  const std::optional<double> blocked = TFRIG_TRY(r.number(process, "blocked_threads", "process", 0, kMaxCount));
  p.blocked_threads = static_cast<int>(blocked.value_or(0));
  const std::optional<double> read = TFRIG_TRY(r.number(process, "read_bytes_per_s", "process", 0, kMaxRate));
  p.read_bytes_per_s = read;
  return p;
}

// One element of "disks" (`path` names it in errors).
core::Result<DiskSample> parse_disk_sample(const Json& d, const std::string& path, const Reader& r) {
  DiskSample ds;
  auto name = TFRIG_TRY(r.string(d, "name", path));
  ds.name = name;
  const std::optional<double> read = TFRIG_TRY(r.number(d, "read_bytes_per_s", path, 0, kMaxRate, true));
  ds.read_bytes_per_s = *read;
  const std::optional<double> util =
      TFRIG_TRY(r.number(d, "util", path, 0, 1.5));  // io_ticks can overshoot the interval slightly
  ds.util = util.value_or(0);
  const std::optional<double> inflight = TFRIG_TRY(r.number(d, "in_flight", path, 0, kMaxCount));
  ds.in_flight = static_cast<uint64_t>(inflight.value_or(0));
  return ds;
}

// One element of "gpus" (`path` names it in errors).
core::Result<GpuSample> parse_gpu_sample(const Json& g, const std::string& path, const Reader& r) {
  GpuSample gs;
  const std::optional<double> index = TFRIG_TRY(r.number(g, "index", path, 0, 65535, true));
  gs.index = static_cast<unsigned>(*index);
  const std::optional<double> util = TFRIG_TRY(r.number(g, "util_percent", path, 0, 100));
  gs.util_percent = util;
  const std::optional<double> mutil = TFRIG_TRY(r.number(g, "memory_util_percent", path, 0, 100));
  gs.memory_util_percent = mutil;
  const std::optional<double> mem = TFRIG_TRY(r.number(g, "memory_used_bytes", path, 0, kMaxBytes));
  if (mem) gs.memory_used_bytes = static_cast<uint64_t>(*mem);
  const std::optional<double> rx = TFRIG_TRY(r.number(g, "pcie_rx_bytes_per_s", path, 0, kMaxRate));
  gs.pcie_rx_bytes_per_s = rx;
  const std::optional<double> tx = TFRIG_TRY(r.number(g, "pcie_tx_bytes_per_s", path, 0, kMaxRate));
  gs.pcie_tx_bytes_per_s = tx;
  const std::optional<double> clock = TFRIG_TRY(r.number(g, "sm_clock_mhz", path, 0, 1e6));
  gs.sm_clock_mhz = clock;
  const std::optional<double> power = TFRIG_TRY(r.number(g, "power_watts", path, 0, 1e6));
  gs.power_watts = power;
  return gs;
}

// One sample line: its time, then each part, every number checked against its range.
core::Result<Sample> parse_sample(const Json& j, const Reader& r) {
  Sample s;
  const std::optional<double> t = TFRIG_TRY(r.number(j, "t", "", 0, kMaxSeconds, true));
  s.t = *t;
  if (auto it = j.find("cpu"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) return tl::unexpected(r.error("cpu", _("expected an object")));
    s.cpu = TFRIG_TRY(parse_cpu_sample(*it, r));
  }
  if (auto it = j.find("process"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) return tl::unexpected(r.error("process", _("expected an object")));
    s.process = TFRIG_TRY(parse_process_sample(*it, r));
  }
  auto disks = TFRIG_TRY(r.array(j, "disks", ""));
  for (size_t i = 0; i < disks->size(); ++i) {
    const Json& d = (*disks)[i];
    const std::string path = fmt::format("disks[{}]", i);
    if (!d.is_object()) return tl::unexpected(r.error(path, _("expected an object")));
    s.disks.push_back(TFRIG_TRY(parse_disk_sample(d, path, r)));
  }
  auto gpus = TFRIG_TRY(r.array(j, "gpus", ""));
  for (size_t i = 0; i < gpus->size(); ++i) {
    const Json& g = (*gpus)[i];
    const std::string path = fmt::format("gpus[{}]", i);
    if (!g.is_object()) return tl::unexpected(r.error(path, _("expected an object")));
    s.gpus.push_back(TFRIG_TRY(parse_gpu_sample(g, path, r)));
  }
  return s;
}

#undef TRY_NUM

}  // namespace

OJson info_to_json(const RunInfo& info) {
  OJson j;
  j["tfrig_watch"] = kRecordingVersion;
  j["interval_s"] = info.interval_s;
  j["cpus"] = info.cpus;
  j["started_utc"] = info.started_utc;
  j["command"] = info.command;
  j["pid"] = core::json_or_null(info.pid);
  j["gpu_status"] = info.gpu_status;
  j["disk_limit_bytes_per_s"] = core::json_or_null(info.disk_limit_bytes_per_s);
  OJson gpus = OJson::array();
  for (const GpuInfo& g : info.gpus) {
    gpus.push_back(OJson{
        {"index", g.index}, {"name", g.name}, {"pcie_link_bytes_per_s", core::json_or_null(g.pcie_link_bytes_per_s)}});
  }
  j["gpus"] = std::move(gpus);
  return j;
}

OJson sample_to_json(const Sample& s) {
  OJson j;
  // Rounded so recordings stay small and diffs readable; far below the noise.
  auto r3 = [](double v) { return std::round(v * 1000.0) / 1000.0; };
  j["t"] = r3(s.t);
  if (s.cpu) {
    OJson busy = OJson::array(), iowait = OJson::array();
    for (double v : s.cpu->core_busy) busy.push_back(r3(v));
    for (double v : s.cpu->core_iowait) iowait.push_back(r3(v));
    j["cpu"] = OJson{{"cores", s.cpu->cores},
                     {"busy_cores", r3(s.cpu->busy_cores)},
                     {"iowait_cores", r3(s.cpu->iowait_cores)},
                     {"core_busy", std::move(busy)},
                     {"core_iowait", std::move(iowait)}};
  } else {
    j["cpu"] = nullptr;
  }
  if (s.process) {
    const ProcessSample& p = *s.process;
    OJson read = p.read_bytes_per_s ? OJson(std::round(*p.read_bytes_per_s)) : OJson(nullptr);
    j["process"] = OJson{{"processes", p.processes},
                         {"threads", p.threads},
                         {"cpu_cores", r3(p.cpu_cores)},
                         {"cpu_demand_cores", r3(p.cpu_demand_cores)},
                         {"hottest_thread_cores", r3(p.hottest_thread_cores)},
                         {"blocked_threads", p.blocked_threads},
                         {"read_bytes_per_s", std::move(read)}};
  } else {
    j["process"] = nullptr;
  }
  OJson disks = OJson::array();
  for (const DiskSample& d : s.disks) {
    disks.push_back(OJson{{"name", d.name},
                          {"read_bytes_per_s", std::round(d.read_bytes_per_s)},
                          {"util", r3(d.util)},
                          {"in_flight", d.in_flight}});
  }
  j["disks"] = std::move(disks);
  OJson gpus = OJson::array();
  for (const GpuSample& g : s.gpus) {
    gpus.push_back(OJson{{"index", g.index},
                         {"util_percent", core::json_or_null(g.util_percent)},
                         {"memory_util_percent", core::json_or_null(g.memory_util_percent)},
                         {"memory_used_bytes", core::json_or_null(g.memory_used_bytes)},
                         {"pcie_rx_bytes_per_s", core::json_or_null(g.pcie_rx_bytes_per_s)},
                         {"pcie_tx_bytes_per_s", core::json_or_null(g.pcie_tx_bytes_per_s)},
                         {"sm_clock_mhz", core::json_or_null(g.sm_clock_mhz)},
                         {"power_watts", core::json_or_null(g.power_watts)}});
  }
  j["gpus"] = std::move(gpus);
  return j;
}

std::string info_line(const RunInfo& info) { return core::json_text(info_to_json(info), -1); }
std::string sample_line(const Sample& s) { return core::json_text(sample_to_json(s), -1); }

core::Result<Recording> parse_recording(std::string_view text, const std::string& where) {
  Recording rec;
  bool have_info = false;
  size_t line_no = 0;
  double last_t = -1;
  for (std::string_view line : core::split_lines(text)) {
    ++line_no;
    if (core::trim(line).empty()) continue;
    Reader r(where, line_no);
    Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return tl::unexpected(r.error("", _("not a JSON object (each line of a recording is one)")));
    if (!j.is_object()) return tl::unexpected(r.error("", _("expected a JSON object")));
    if (!have_info) {
      if (!j.contains("tfrig_watch")) {
        return tl::unexpected(r.error(
            "", _("the first line must be the run header {\"tfrig_watch\":1,...}: not a tfrig watch recording")));
      }
      auto info = TFRIG_TRY(parse_info(j, r));
      rec.info = std::move(info);
      have_info = true;
      continue;
    }
    auto s = TFRIG_TRY(parse_sample(j, r));
    if (s.t < last_t) return tl::unexpected(r.error("t", trf("goes back in time ({0} after {1})", s.t, last_t)));
    last_t = s.t;
    rec.samples.push_back(std::move(s));
  }
  if (!have_info) return tl::unexpected(core::Error{core::ErrorCode::kParse, where, _("empty: no run header line")});
  rec.info.source = "replay " + where;
  return rec;
}

}  // namespace tfrig::watch
