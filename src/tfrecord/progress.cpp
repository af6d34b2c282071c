#include "tfrecord/progress.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "core/clock.h"
#include "core/i18n.h"
#include "core/units.h"

namespace tfrig::tfrecord {

namespace {
// "12s", "5m03s", "2h07m": an ETA needs no more precision.
std::string format_eta(double seconds) {
  auto s = static_cast<uint64_t>(seconds + 0.5);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02d}s", s / 60, s % 60);
  return fmt::format("{}h{:02d}m", s / 3600, (s % 3600) / 60);
}
}  // namespace

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

Progress::Progress(bool enabled, std::string label, uint64_t total_files, uint64_t total_bytes)
    : enabled_(enabled),
      terminal_(stderr_is_terminal()),
      label_(std::move(label)),
      total_files_(total_files),
      total_bytes_(total_bytes) {
  if (enabled_) thread_ = std::thread([this] { loop(); });
}

Progress::~Progress() { finish(); }

void Progress::finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (done_) return;
    done_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::string Progress::format_line(const std::string& label, uint64_t files, uint64_t total_files, uint64_t bytes,
                                  uint64_t total_bytes, double seconds) {
  double fps = seconds > 0 ? static_cast<double>(files) / seconds : 0;
  double bps = seconds > 0 ? static_cast<double>(bytes) / seconds : 0;
  std::string eta = "?";
  if (bps > 0 && total_bytes >= bytes) {
    eta = format_eta(static_cast<double>(total_bytes - bytes) / bps);
  } else if (fps > 0 && total_files >= files) {
    eta = format_eta(static_cast<double>(total_files - files) / fps);
  }
  // TRANSLATORS: the progress line of pack and verify on stderr: done/total
  // files, files per second, bytes per second, the estimated time left.
  return trf("{}: {}/{} files  {:.0f} files/s  {}  ETA {}", label, files, total_files, fps, core::format_rate(bps),
             eta);
}

void Progress::loop() {
  core::Stopwatch watch;
  // Terminal: redraw 4 times a second. Log file: a line every 5 s.
  const auto period = terminal_ ? std::chrono::milliseconds(250) : std::chrono::milliseconds(5000);
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    bool stop = cv_.wait_for(lock, period, [this] { return done_; });
    std::string line = format_line(label_, files_.load(), total_files_, bytes_.load(), total_bytes_, watch.seconds());
    if (terminal_) {
      std::fprintf(stderr, "\r%s\033[K%s", line.c_str(), stop ? "\n" : "");
    } else {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fflush(stderr);
    if (stop) return;
  }
}

}  // namespace tfrig::tfrecord
