// libFuzzer target: parse_limits_conf on arbitrary bytes must return, never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "probe/parse/proc_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto result = tfrig::probe::parse::parse_limits_conf(text, "limits.conf");
  (void)result;
  (void)tfrig::probe::parse::parse_bracket_choice(text);
  (void)tfrig::probe::parse::parse_link_speed(text);
  return 0;
}
