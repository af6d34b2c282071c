// A progress line on stderr for long runs: files/s, MB/s and ETA. Shown only
// when stderr is a terminal or when asked (--progress); on a terminal it
// redraws one line, otherwise it prints a line every few seconds (logs).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace tfrig::tfrecord {

bool stderr_is_terminal();

class Progress {
 public:
  Progress(bool enabled, std::string label, uint64_t total_files, uint64_t total_bytes);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void add(uint64_t files, uint64_t bytes) {
    files_.fetch_add(files, std::memory_order_relaxed);
    bytes_.fetch_add(bytes, std::memory_order_relaxed);
  }
  void finish();

  // "1234/20000 files  3456 files/s  123.4 MB/s  ETA 5 s" (pure, for tests).
  static std::string format_line(const std::string& label, uint64_t files, uint64_t total_files, uint64_t bytes,
                                 uint64_t total_bytes, double seconds);

 private:
  void loop();

  bool enabled_;
  bool terminal_;
  std::string label_;
  uint64_t total_files_;
  uint64_t total_bytes_;
  std::atomic<uint64_t> files_{0};
  std::atomic<uint64_t> bytes_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace tfrig::tfrecord
