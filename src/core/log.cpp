#include "core/log.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>

#include "core/terminal_text.h"
#include "core/i18n.h"

namespace tfrig::core {

namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::kWarn)};
std::mutex g_mutex;

// The line's prefix in the reader's language ("error: ...", "错误：..."). The
// language is chosen in main before anything logs.
std::string prefixed(LogLevel level, std::string_view message) {
  switch (level) {
    // TRANSLATORS: a log line on stderr, after "tfrig: ".
    case LogLevel::kError: return trf("error: {}", message);
    case LogLevel::kWarn: return trf("warning: {}", message);
    case LogLevel::kInfo: return trf("info: {}", message);
    case LogLevel::kDebug: return fmt::format("debug: {}", message);  // for developers: English
  }
  return fmt::format("log: {}", message);
}
}  // namespace

void set_log_level(LogLevel level) { g_level.store(static_cast<int>(level)); }
LogLevel log_level() { return static_cast<LogLevel>(g_level.load()); }
bool log_enabled(LogLevel level) { return static_cast<int>(level) <= g_level.load(); }

void log_line(LogLevel level, std::string_view message) {
  // The one step between stderr and the bytes a message quotes (a file name,
  // a field read from a capture): control sequences as "\xNN"; a NUL no
  // longer cuts the line short either.
  const std::string line = terminal_text(prefixed(level, message), false);
  std::lock_guard<std::mutex> lock(g_mutex);
  std::fprintf(stderr, "tfrig: %.*s\n", static_cast<int>(line.size()), line.data());
}

}  // namespace tfrig::core
