// A levelled logger on stderr: stdout is the report, stderr the log.
// -v shows info, -vv debug. Thread-safe: probes log from their own threads.
#pragma once

#include <string_view>

#include <fmt/format.h>

namespace tfrig::core {

enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

void set_log_level(LogLevel level);
LogLevel log_level();
bool log_enabled(LogLevel level);
void log_line(LogLevel level, std::string_view message);

template <class... Args>
void log(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
  if (!log_enabled(level)) return;
  log_line(level, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace tfrig::core
