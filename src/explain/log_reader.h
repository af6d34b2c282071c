// Reads a log as lines in bounded memory: any bytes (invalid UTF-8 kept as
// is), LF or CRLF endings, a final line without newline; a line longer than
// kMaxLineBytes is cut there (the rest is skipped, and counted) so one
// enormous line (a progress bar, a binary blob) cannot exhaust memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace tfrig::explain {

constexpr size_t kMaxLineBytes = 64 * 1024;

class LineSplitter {
 public:
  using LineFn = std::function<void(std::string_view line)>;
  explicit LineSplitter(LineFn on_line) : on_line_(std::move(on_line)) {}
  // Feeds bytes as they arrive (a file's chunks, a pipe's reads).
  void feed(std::string_view bytes);
  // Emits the last line when it had no newline.
  void finish();
  uint64_t truncated_lines() const { return truncated_; }

 private:
  void emit();
  LineFn on_line_;
  std::string line_;
  bool overflow_ = false;
  uint64_t truncated_ = 0;
};

// Text safe to print and to put in JSON: invalid UTF-8 bytes become U+FFFD,
// control bytes other than tab become spaces, cut at max_bytes (on a character boundary).
std::string clean_text(std::string_view s, size_t max_bytes = 300);

}  // namespace tfrig::explain
