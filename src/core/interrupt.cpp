#include "core/interrupt.h"

#include <pthread.h>
#include <unistd.h>

#include <chrono>

#include "core/i18n.h"
#include "core/log.h"

namespace tfrig::core {

InterruptGuard::InterruptGuard(double grace_seconds, std::function<void()> on_forced_exit)
    : grace_seconds_(grace_seconds), on_forced_exit_(std::move(on_forced_exit)) {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  sigaddset(&set_, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set_, &old_mask_);
  watcher_ = std::thread([this] { watch(); });
}

InterruptGuard::~InterruptGuard() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  done_cv_.notify_all();
  // Wakes the watcher if it still sits in sigwait; it sees stopping_ and returns.
  if (signal_.load() == 0) pthread_kill(watcher_.native_handle(), SIGHUP);
  watcher_.join();
  // Signals that arrived while we were shutting down stay pending in this
  // thread; drop them so that restoring the mask does not kill the process
  // after its clean exit.
  timespec zero{0, 0};
  while (sigtimedwait(&set_, nullptr, &zero) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

void InterruptGuard::watch() {
  int sig = 0;
  if (sigwait(&set_, &sig) != 0) return;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
  }
  signal_.store(sig);
  cancelled_.store(true);
  log(LogLevel::kWarn, "{}", trf("interrupted by signal {}: stopping and cleaning up", sig));

  // Either the main thread finishes (stopping_) or a second signal comes or
  // the grace period ends. A second signal is polled with sigtimedwait so this
  // thread stays the only one that takes them.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_seconds_);
  while (true) {
    {
      std::unique_lock lock(mutex_);
      if (done_cv_.wait_for(lock, std::chrono::milliseconds(50), [this] { return stopping_; })) return;
    }
    timespec zero{0, 0};
    bool second = sigtimedwait(&set_, nullptr, &zero) > 0;
    if (second || std::chrono::steady_clock::now() >= deadline) break;
  }
  if (on_forced_exit_) on_forced_exit_();
  // The one deliberate process exit below main: the main thread is stuck and
  // the user asked twice or waited; the clean-up has run already.
  _exit(128 + sig);
}

}  // namespace tfrig::core
