// libFuzzer target: parse_ld_so_cache (and the ABI name of every entry) on
// arbitrary bytes must return, never crash or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "probe/parse/ld_so_cache.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (auto cache = tfrig::probe::parse::parse_ld_so_cache(bytes)) {
    for (const auto& e : cache->entries) (void)tfrig::probe::parse::ld_cache_abi(e.flags);
  }
  (void)tfrig::probe::parse::parse_ld_so_conf(bytes);
  return 0;
}
