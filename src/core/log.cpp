#include "core/log.h"

#include <atomic>
#include <cstdio>
#include <mutex>

namespace tfrig::core {

namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::kWarn)};
std::mutex g_mutex;

const char* level_name(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return "error";
    case LogLevel::kWarn: return "warning";
    case LogLevel::kInfo: return "info";
    case LogLevel::kDebug: return "debug";
  }
  return "log";
}
}  // namespace

void set_log_level(LogLevel level) { g_level.store(static_cast<int>(level)); }
LogLevel log_level() { return static_cast<LogLevel>(g_level.load()); }
bool log_enabled(LogLevel level) { return static_cast<int>(level) <= g_level.load(); }

void log_line(LogLevel level, std::string_view message) {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::fprintf(stderr, "tfrig: %s: %.*s\n", level_name(level), static_cast<int>(message.size()), message.data());
}

}  // namespace tfrig::core
