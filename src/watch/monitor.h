// One watch run: start (or attach to) the process, sample every interval on
// this thread, poll NVML on a worker, write the recording as it goes, stop
// when the process tree's root exits, the duration passes or `stop` is set.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/sysroot.h"
#include "watch/sample.h"

namespace tfrig::watch {

struct WatchOptions {
  std::optional<int64_t> pid;        // --pid
  std::vector<std::string> command;  // -- COMMAND ARGS...
  double interval_s = 1.0;
  std::optional<double> duration_s;  // none: until the process ends (60 s system-wide)
  std::string record_path;           // --record FILE
  std::optional<double> disk_limit_bytes_per_s;
  bool gpu = true;                          // false: --no-gpu
  std::optional<std::string> nvml_library;  // TFRIG_NVML_LIBRARY
  // The signal that set `stop` (0 or unset: none). The command runs in its
  // own process group, so the terminal's Ctrl-C reaches only tfrig; the
  // signal is forwarded to the whole group and the command waited for.
  std::function<int()> stop_signal;
};

struct WatchResult {
  Recording recording;
  std::optional<int> command_exit_status;  // the command's exit status (128+signal when killed)
  std::vector<std::string> problems;
};

// Default duration when watching the whole system or an existing --pid.
inline constexpr double kDefaultDurationSeconds = 60;

core::Result<WatchResult> run_watch(const core::SysRoot& root, const WatchOptions& options,
                                    const std::atomic<bool>& stop,
                                    const std::function<void(const Sample&)>& on_sample = {});

}  // namespace tfrig::watch
