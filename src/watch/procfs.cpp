#include "watch/procfs.h"

#include <fmt/format.h>

#include "core/text.h"
#include "core/try.h"

namespace tfrig::watch {
namespace {

core::Error parse_error(const std::string& where, size_t line, std::string message) {
  return core::Error{core::ErrorCode::kParse, line == 0 ? where : fmt::format("{}:{}", where, line),
                     std::move(message)};
}

}  // namespace

core::Result<ProcStat> parse_proc_stat(std::string_view text, const std::string& where) {
  ProcStat out;
  bool have_all = false;
  size_t line_no = 0;
  for (std::string_view line : core::split_lines(text)) {
    ++line_no;
    if (!core::starts_with(line, "cpu")) continue;
    auto f = core::split_ws(line);
    // Kernels before 2.6.11 had no steal column; 4 numbers is the minimum.
    if (f.size() < 5) return tl::unexpected(parse_error(where, line_no, "a cpu line needs at least 4 counters"));
    uint64_t v[8] = {};
    for (size_t i = 1; i < f.size() && i <= 8; ++i) {
      auto n = core::parse_u64(f[i]);
      if (!n) {
        return tl::unexpected(
            parse_error(where, line_no, fmt::format("counter {} is not a number: '{}'", i, core::printable(f[i]))));
      }
      v[i - 1] = *n;
    }
    CpuTimes t{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
    if (f[0] == "cpu") {
      out.all = t;
      have_all = true;
    } else {
      out.cores.push_back(t);
    }
  }
  if (!have_all) return tl::unexpected(parse_error(where, 0, "no 'cpu' line: not a /proc/stat file"));
  return out;
}

core::Result<PidStat> parse_pid_stat(std::string_view text, const std::string& where) {
  const size_t open = text.find('(');
  const size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return tl::unexpected(parse_error(where, 0, "expected 'PID (comm) STATE ...'"));
  }
  PidStat s;
  auto pid = core::parse_i64(core::trim(text.substr(0, open)));
  if (!pid) return tl::unexpected(parse_error(where, 0, "field 1 (pid) is not a number"));
  s.pid = *pid;
  auto f = core::split_ws(text.substr(close + 1));
  // f[0] is field 3 (state); field N is f[N - 3]. We need up to field 20.
  if (f.size() < 18)
    return tl::unexpected(
        parse_error(where, 0, fmt::format("{} fields after the command name, expected at least 18", f.size())));
  if (f[0].size() != 1) return tl::unexpected(parse_error(where, 0, "field 3 (state) is not one character"));
  s.state = f[0][0];
  auto num = [&](int field) -> core::Result<int64_t> {
    auto v = core::parse_i64(f[static_cast<size_t>(field - 3)]);
    if (!v) return tl::unexpected(parse_error(where, 0, fmt::format("field {} is not a number", field)));
    return *v;
  };
  auto non_negative = [](int64_t v) { return v < 0 ? uint64_t{0} : static_cast<uint64_t>(v); };
  auto ppid = TFRIG_TRY(num(4));
  s.ppid = ppid;
  // proc(5): 14 utime, 15 stime, 16 cutime, 17 cstime, 20 num_threads.
  const int fields[] = {14, 15, 16, 17, 20};
  uint64_t* outs[] = {&s.utime, &s.stime, &s.cutime, &s.cstime, &s.threads};
  for (size_t i = 0; i < 5; ++i) {
    auto v = TFRIG_TRY(num(fields[i]));
    *outs[i] = non_negative(v);
  }
  return s;
}

core::Result<PidIo> parse_pid_io(std::string_view text, const std::string& where) {
  PidIo io;
  bool have_read = false;
  size_t line_no = 0;
  for (std::string_view line : core::split_lines(text)) {
    ++line_no;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = core::trim(line.substr(0, colon));
    std::string_view value = core::trim(line.substr(colon + 1));
    if (key != "rchar" && key != "read_bytes") continue;
    auto v = core::parse_u64(value);
    if (!v) return tl::unexpected(parse_error(where, line_no, fmt::format("{} is not a number", key)));
    if (key == "rchar") {
      io.rchar = *v;
    } else {
      io.read_bytes = *v;
      have_read = true;
    }
  }
  if (!have_read)
    return tl::unexpected(parse_error(where, 0, "no read_bytes line (kernel without CONFIG_TASK_IO_ACCOUNTING?)"));
  return io;
}

core::Result<SchedStat> parse_schedstat(std::string_view text, const std::string& where) {
  auto f = core::split_ws(text);
  if (f.size() < 2) return tl::unexpected(parse_error(where, 0, "expected 'RUN_NS WAIT_NS SLICES'"));
  auto run = core::parse_u64(f[0]);
  auto wait = core::parse_u64(f[1]);
  if (!run || !wait) return tl::unexpected(parse_error(where, 0, "run and wait times must be numbers"));
  return SchedStat{*run, *wait};
}

core::Result<std::vector<DiskStat>> parse_diskstats(std::string_view text, const std::string& where) {
  std::vector<DiskStat> out;
  size_t line_no = 0;
  for (std::string_view line : core::split_lines(text)) {
    ++line_no;
    auto f = core::split_ws(line);
    if (f.empty()) continue;
    // major minor name + 11 fields (4.18+ adds discard and flush columns).
    if (f.size() < 14) {
      return tl::unexpected(parse_error(where, line_no, fmt::format("{} columns, expected at least 14", f.size())));
    }
    DiskStat d;
    d.name = std::string(f[2]);
    uint64_t v[11] = {};
    for (size_t i = 0; i < 11; ++i) {
      auto n = core::parse_u64(f[3 + i]);
      if (!n)
        return tl::unexpected(
            parse_error(where, line_no, fmt::format("field {} of {} is not a number", i + 1, core::printable(d.name))));
      v[i] = *n;
    }
    d.reads = v[0];
    d.sectors_read = v[2];
    d.writes = v[4];
    d.sectors_written = v[6];
    d.in_flight = v[8];
    d.io_ticks_ms = v[9];
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace tfrig::watch
