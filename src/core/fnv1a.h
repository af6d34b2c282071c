// FNV-1a, 64 bits (http://www.isthe.com/chongo/tech/comp/fnv/): not for
// security, only to tell two inputs apart (pack's plans, plan's fit inputs).
#pragma once

#include <cstdint>
#include <string_view>

namespace tfrig::core {

struct Fnv1a {
  uint64_t h = 14695981039346656037ull;
  void add(std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
    h ^= 0xff;  // a separator no text byte sequence can fake: "ab"+"c" != "a"+"bc"
    h *= 1099511628211ull;
  }
  void add(uint64_t v) { add(std::string_view(reinterpret_cast<const char*>(&v), sizeof v)); }
};

}  // namespace tfrig::core
