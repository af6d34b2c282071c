// libFuzzer target: tfrig watch's /proc parsers on arbitrary bytes must
// return, never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "watch/procfs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)tfrig::watch::parse_proc_stat(text, "stat");
  (void)tfrig::watch::parse_pid_stat(text, "pid/stat");
  (void)tfrig::watch::parse_pid_io(text, "pid/io");
  (void)tfrig::watch::parse_diskstats(text, "diskstats");
  return 0;
}
