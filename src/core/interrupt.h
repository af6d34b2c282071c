// Ctrl-C and SIGTERM during a long command (bench, pipeline, pack, watch):
// the run stops between samples or records, its clean-up runs (bench's
// scratch directories are removed), and the command exits 128+signal.
//
// How: the guard blocks SIGINT, SIGTERM and SIGHUP in the calling thread
// before any worker thread exists (workers inherit the mask), and one
// watcher thread takes them with sigwait. That thread is an ordinary thread,
// so it may log, lock and remove files, which a signal handler may not.
// It sets the cancel flag; if the main thread has not finished its own
// clean-up within the grace period (a sample stuck in the kernel), or a
// second signal arrives, the watcher runs `on_forced_exit` itself (bench
// passes the removal of its scratch directories) and ends the process with
// _exit.
#pragma once

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <functional>
#include <mutex>
#include <thread>

namespace tfrig::core {

class InterruptGuard {
 public:
  explicit InterruptGuard(double grace_seconds = 5.0, std::function<void()> on_forced_exit = {});
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  const std::atomic<bool>& cancelled() const { return cancelled_; }
  // The signal that cancelled the run, 0 when none.
  int signal_number() const { return signal_.load(); }

 private:
  void watch();

  double grace_seconds_;
  std::function<void()> on_forced_exit_;
  sigset_t set_{};
  sigset_t old_mask_{};
  std::atomic<bool> cancelled_{false};
  std::atomic<int> signal_{0};
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool stopping_ = false;
  std::thread watcher_;
};

}  // namespace tfrig::core
