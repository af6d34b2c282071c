// Pure parsers of the /proc files tfrig watch samples: text in, values out.
// Formats: proc(5) (/proc/stat, /proc/PID/stat, /proc/PID/io) and the
// kernel's Documentation/admin-guide/iostats.rst (/proc/diskstats).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace tfrig::watch {

// One "cpu" line of /proc/stat, in clock ticks (USER_HZ).
struct CpuTimes {
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  // guest and guest_nice are already inside user and nice (proc(5)), so
  // they are not added again.
  uint64_t total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
  uint64_t busy() const { return user + nice + system + irq + softirq + steal; }
};

struct ProcStat {
  CpuTimes all;                 // the "cpu" line
  std::vector<CpuTimes> cores;  // "cpu0".."cpuN" in file order
};

// `where` names the file in errors.
core::Result<ProcStat> parse_proc_stat(std::string_view text, const std::string& where);

// The fields of /proc/PID/stat (or /proc/PID/task/TID/stat) tfrig uses.
struct PidStat {
  int64_t pid = 0;
  int64_t ppid = 0;
  char state = '?';                 // R running, S sleeping, D uninterruptible (usually disk I/O), Z zombie, ...
  uint64_t utime = 0, stime = 0;    // ticks of this process
  uint64_t cutime = 0, cstime = 0;  // ticks of its waited-for children (negative values read as 0)
  uint64_t threads = 0;
};
// The command name (field 2) may hold spaces and parentheses, so the fields
// after it are found from the LAST ')'.
core::Result<PidStat> parse_pid_stat(std::string_view text, const std::string& where);

struct PidIo {
  uint64_t rchar = 0;       // bytes read() returned, page cache included
  uint64_t read_bytes = 0;  // bytes fetched from the storage layer
};
core::Result<PidIo> parse_pid_io(std::string_view text, const std::string& where);

// /proc/PID/schedstat (or task/TID/schedstat): nanoseconds on a CPU,
// nanoseconds runnable but waiting on a run queue, timeslices
// (Documentation/scheduler/sched-stats.rst).
struct SchedStat {
  uint64_t run_ns = 0;
  uint64_t wait_ns = 0;
};
core::Result<SchedStat> parse_schedstat(std::string_view text, const std::string& where);

// One line of /proc/diskstats. Sectors are 512 bytes whatever the device's
// sector size (iostats.rst).
struct DiskStat {
  std::string name;
  uint64_t reads = 0;
  uint64_t sectors_read = 0;
  uint64_t writes = 0;
  uint64_t sectors_written = 0;
  uint64_t in_flight = 0;    // field 9: I/Os currently in progress
  uint64_t io_ticks_ms = 0;  // field 10: ms spent doing I/O (iostat's %util)
};
core::Result<std::vector<DiskStat>> parse_diskstats(std::string_view text, const std::string& where);

}  // namespace tfrig::watch
