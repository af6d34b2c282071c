#include "bench/crc32c_local.h"

#include <array>
#include <climits>
#include <cstring>

#if defined(TFRIG_HAVE_ISAL)
#include <isa-l/crc.h>
#endif

namespace tfrig::bench {

namespace {

// The reflected Castagnoli polynomial 0x1EDC6F41 (RFC 3720, section 12.1).
constexpr uint32_t kPolyReflected = 0x82F63B78u;

// Eight tables for slicing-by-8 (Kounavis and Berry, Intel 2005): table[0]
// is the byte-at-a-time table, table[k][b] advances table[k-1][b] by one byte.
constexpr std::array<std::array<uint32_t, 256>, 8> make_tables() {
  std::array<std::array<uint32_t, 256>, 8> t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int i = 0; i < 8; ++i) c = (c & 1) != 0 ? (c >> 1) ^ kPolyReflected : c >> 1;
    t[0][b] = c;
  }
  for (size_t k = 1; k < 8; ++k) {
    for (uint32_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
  }
  return t;
}

constexpr auto kTables = make_tables();

}  // namespace

uint32_t crc32c_extend_portable(uint32_t crc, const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint32_t c = ~crc;
  while (size >= 8) {
    uint32_t lo = 0, hi = 0;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
    // Little-endian loads; on a big-endian host the bytes are swapped first.
    if constexpr (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) {
      lo = __builtin_bswap32(lo);
      hi = __builtin_bswap32(hi);
    }
    lo ^= c;
    c = kTables[7][lo & 0xFF] ^ kTables[6][(lo >> 8) & 0xFF] ^ kTables[5][(lo >> 16) & 0xFF] ^ kTables[4][lo >> 24] ^
        kTables[3][hi & 0xFF] ^ kTables[2][(hi >> 8) & 0xFF] ^ kTables[1][(hi >> 16) & 0xFF] ^ kTables[0][hi >> 24];
    p += 8;
    size -= 8;
  }
  while (size-- > 0) c = (c >> 8) ^ kTables[0][(c ^ *p++) & 0xFF];
  return ~c;
}

uint32_t crc32c_extend(uint32_t crc, const void* data, size_t size) {
#if defined(TFRIG_HAVE_ISAL)
  // crc32_iscsi neither inverts on entry nor on exit, and takes an int
  // length: invert around it and feed it in pieces below 2 GiB.
  auto* p = static_cast<unsigned char*>(const_cast<void*>(data));
  uint32_t c = ~crc;
  while (size > 0) {
    size_t n = size > (1u << 30) ? (1u << 30) : size;
    c = crc32_iscsi(p, static_cast<int>(n), c);
    p += n;
    size -= n;
  }
  return ~c;
#else
  return crc32c_extend_portable(crc, data, size);
#endif
}

std::string_view crc32c_implementation() {
#if defined(TFRIG_HAVE_ISAL)
  return "isa-l";
#else
  return "portable";
#endif
}

}  // namespace tfrig::bench
