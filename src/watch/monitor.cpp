#include "watch/monitor.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include <fmt/format.h>

#include "core/clock.h"
#include "core/i18n.h"
#include "core/try.h"
#include "watch/recording.h"
#include "watch/sampler.h"

extern char** environ;

namespace tfrig::watch {
namespace {

// The recording is written under FILE.tmp as it goes and renamed at the end,
// so FILE is either absent or complete (src/core/atomic_file.h's rule).
class RecordWriter {
 public:
  core::Status open(const std::string& path) {
    path_ = path;
    tmp_ = path + ".tmp";
    f_ = std::fopen(tmp_.c_str(), "w");
    if (f_ == nullptr) return tl::unexpected(core::errno_error(errno, tmp_, "create"));
    return {};
  }
  // The first failed write (a full disk) is kept: close() reports it and
  // leaves nothing under FILE.
  void write(const std::string& line) {
    if (f_ == nullptr || write_errno_ != 0) return;
    errno = 0;
    if (std::fwrite(line.data(), 1, line.size(), f_) != line.size() || std::fflush(f_) != 0) {
      write_errno_ = errno != 0 ? errno : EIO;
    }
  }
  core::Status close() {
    if (f_ == nullptr) return {};
    errno = 0;
    const bool bad = write_errno_ != 0 || std::fflush(f_) != 0 || std::ferror(f_) || ::fsync(fileno(f_)) != 0;
    const int err = write_errno_ != 0 ? write_errno_ : (errno != 0 ? errno : EIO);
    const bool close_failed = std::fclose(f_) != 0;
    f_ = nullptr;
    if (bad || close_failed) {
      std::remove(tmp_.c_str());
      return tl::unexpected(core::errno_error(bad ? err : errno, path_, "write"));
    }
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
      const int rename_err = errno;
      std::remove(tmp_.c_str());
      return tl::unexpected(core::errno_error(rename_err, path_, "rename"));
    }
    return {};
  }
  // Not closed: the run failed before it began (no command, no process);
  // nothing was recorded, so the temporary file goes.
  ~RecordWriter() {
    if (f_ != nullptr) {
      std::fclose(f_);
      std::remove(tmp_.c_str());
    }
  }

 private:
  std::string path_, tmp_;
  FILE* f_ = nullptr;
  int write_errno_ = 0;
};

core::Result<pid_t> spawn(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // The caller may block SIGINT/SIGTERM for its interrupt watcher; the
  // command must start with the default mask, as from a shell.
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_setsigmask(&attr, &empty);
  // Its own process group: a signal to tfrig is forwarded to the command and
  // everything it started (a launcher's workers), exactly once.
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], nullptr, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return tl::unexpected(core::errno_error(rc, command.front(), "run"));
  return pid;
}

}  // namespace

namespace {

// NVML on its worker thread, or why the GPUs are not watched.
void start_gpu_poller(GpuPoller& gpus, const WatchOptions& o, RunInfo& info) {
  if (!o.gpu) {
    info.gpu_status = N_("not watched (--no-gpu)");  // a recording keeps English; shown translated
    return;
  }
  if (gpus.start(o.interval_s, o.nvml_library)) {
    info.gpus = gpus.gpus();
  } else {
    info.gpu_status = gpus.status();
  }
}

// What is watched: the command started here (returned: it is our child), a
// running process (--pid, which must exist), or the whole machine.
core::Result<std::optional<pid_t>> watch_target(const core::SysRoot& root, const WatchOptions& o, RunInfo& info) {
  if (!o.command.empty()) {
    auto pid = TFRIG_TRY(spawn(o.command));
    info.pid = pid;
    std::string cmd;
    for (const auto& a : o.command) cmd += (cmd.empty() ? "" : " ") + a;
    info.command = cmd;
    return std::optional<pid_t>(pid);
  }
  if (o.pid) {
    info.pid = *o.pid;
    if (!root.exists(fmt::format("proc/{}/stat", *o.pid))) {
      return tl::unexpected(core::Error{core::ErrorCode::kNotFound, root.full_path(fmt::format("proc/{}", *o.pid)),
                                        _("no such process")});
    }
  }
  return std::optional<pid_t>();
}

// The command's exit status as a shell gives it (128 + signal when killed).
std::optional<int> command_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return std::nullopt;
}

// Sleeps to `wake` in slices, so that the end of the command or a stop
// request is seen within 50 ms; true when the command exited.
bool sleep_to_tick(const core::Stopwatch& watch, double wake, const std::atomic<bool>& stop,
                   std::optional<pid_t> child) {
  while (watch.seconds() < wake && !stop.load()) {
    if (child) {
      siginfo_t si{};
      // WNOWAIT leaves the zombie in place: its /proc/PID/stat still
      // holds its final CPU times for the last sample.
      if (::waitid(P_PID, static_cast<id_t>(*child), &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == *child)
        return true;
    }
    const double left = wake - watch.seconds();
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(0.05, std::max(0.0, left))));
  }
  return false;
}

// Stopped early by a signal: pass it on to the command's process group
// and wait for the command (the interrupt guard's grace is 5 s). Stopped
// by --duration: the command keeps running, as documented. True when the
// command ended.
bool end_child(pid_t child, const WatchOptions& o, WatchResult& result) {
  const int sig = o.stop_signal ? o.stop_signal() : 0;
  if (sig != 0) ::kill(-child, sig);
  for (int i = 0; i < (sig != 0 ? 80 : 40); ++i) {
    int status = 0;
    if (::waitpid(child, &status, WNOHANG) == child) {
      if (auto code = command_status(status)) result.command_exit_status = *code;
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  result.problems.push_back(trf("the command (pid {}) was still running when the watch stopped", child));
  return false;
}

}  // namespace

// Watches a command, a process or the machine: the GPUs polled on a worker,
// the target attached, then one sample per tick (recorded as it is taken)
// until the command ends, --duration passes or a stop is asked for.
core::Result<WatchResult> run_watch(const core::SysRoot& root, const WatchOptions& o, const std::atomic<bool>& stop,
                                    const std::function<void(const Sample&)>& on_sample) {
  WatchResult result;
  RunInfo& info = result.recording.info;
  info.interval_s = o.interval_s;
  info.started_utc = core::utc_timestamp();
  info.disk_limit_bytes_per_s = o.disk_limit_bytes_per_s;
  info.source = "live";
  info.cpus = static_cast<int>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));

  GpuPoller gpus;
  start_gpu_poller(gpus, o, info);
  RecordWriter writer;
  if (!o.record_path.empty()) {
    TFRIG_TRY(writer.open(o.record_path));
  }
  const std::optional<pid_t> child = TFRIG_TRY(watch_target(root, o, info));
  writer.write(info_line(info));

  const double duration = o.duration_s.value_or(child ? 1e12 : kDefaultDurationSeconds);
  ProcSampler sampler(root, info.pid);
  core::Stopwatch watch;
  sampler.take(0, 0);
  double last_t = 0;
  bool child_done = false;
  for (int64_t tick = 1;; ++tick) {
    const double target = static_cast<double>(tick) * o.interval_s;
    // --duration ends the run even inside a long interval.
    const bool exited = sleep_to_tick(watch, std::min(target, duration), stop, child);
    const double now = watch.seconds();
    auto taken = sampler.take(now, now - last_t);
    last_t = now;
    if (taken && now > 0.2 * o.interval_s) {
      Sample s = std::move(*taken);
      s.gpus = gpus.latest();
      writer.write(sample_line(s));
      if (on_sample) on_sample(s);
      result.recording.samples.push_back(std::move(s));
    }
    if (exited) {
      int status = 0;
      if (::waitpid(*child, &status, 0) == *child) {
        child_done = true;
        if (auto code = command_status(status)) result.command_exit_status = *code;
      }
      break;
    }
    if (stop.load() || now >= duration || (!child && sampler.root_gone())) break;
  }
  gpus.stop();
  if (child && !child_done) end_child(*child, o, result);
  for (const auto& p : sampler.problems()) result.problems.push_back(p);
  if (!o.record_path.empty()) {
    TFRIG_TRY(writer.close());
  }
  return result;
}

}  // namespace tfrig::watch
