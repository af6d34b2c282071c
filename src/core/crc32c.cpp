#include "core/crc32c.h"

#include <array>
#include <cstring>

#if defined(TFRIG_HAVE_ISAL)
#include <isa-l/crc.h>
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define TFRIG_CRC32C_X86 1
#endif

namespace tfrig::core {

namespace {

// Reflected polynomial (RFC 3720 B.4).
constexpr uint32_t kPolyReflected = 0x82F63B78u;

// Slicing-by-8 tables: table[k][b] = CRC of byte b followed by k zero bytes,
// so eight bytes are folded per step with eight lookups (Intel's "slicing-by-8",
// Kounavis & Berry 2005).
struct Tables {
  std::array<std::array<uint32_t, 256>, 8> t{};
  constexpr Tables() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? (c >> 1) ^ kPolyReflected : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i) {
      for (size_t k = 1; k < 8; ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
    }
  }
};

constexpr Tables kTables{};

// Works on the raw (pre-/post-inverted) register value.
uint32_t portable_raw(uint32_t reg, const unsigned char* p, size_t n) {
  const auto& t = kTables.t;
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    reg = (reg >> 8) ^ t[0][(reg ^ *p++) & 0xff];
    --n;
  }
  while (n >= 8) {
    uint32_t lo = 0;
    uint32_t hi = 0;
    // Byte-wise assembly keeps this correct on big-endian hosts too.
    lo = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
    hi = uint32_t(p[4]) | uint32_t(p[5]) << 8 | uint32_t(p[6]) << 16 | uint32_t(p[7]) << 24;
    lo ^= reg;
    reg = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^ t[3][hi & 0xff] ^
          t[2][(hi >> 8) & 0xff] ^ t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n > 0) {
    reg = (reg >> 8) ^ t[0][(reg ^ *p++) & 0xff];
    --n;
  }
  return reg;
}

#if defined(TFRIG_CRC32C_X86)
// The SSE4.2 CRC32 instruction computes exactly CRC-32C (Intel SDM, CRC32:
// "polynomial 11EDC6F41H"), 8 bytes per instruction.
__attribute__((target("sse4.2"))) uint32_t sse42_raw(uint32_t reg, const unsigned char* p, size_t n) {
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    reg = _mm_crc32_u8(reg, *p++);
    --n;
  }
  uint64_t r64 = reg;
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    r64 = _mm_crc32_u64(r64, v);
    p += 8;
    n -= 8;
  }
  reg = static_cast<uint32_t>(r64);
  while (n > 0) {
    reg = _mm_crc32_u8(reg, *p++);
    --n;
  }
  return reg;
}

bool cpu_has_sse42() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}
#endif

Crc32cImpl choose_best() {
#if defined(TFRIG_HAVE_ISAL)
  return Crc32cImpl::kIsal;
#else
#if defined(TFRIG_CRC32C_X86)
  if (cpu_has_sse42()) return Crc32cImpl::kSse42;
#endif
  return Crc32cImpl::kPortable;
#endif
}

#if defined(TFRIG_HAVE_ISAL)
// ISA-L's AVX-512 CRC path (crc32_iscsi_by16_10, chosen at run time) returns
// with the upper halves of the vector registers dirty. Every SSE instruction
// after it then pays for that state (Intel's optimization manual, "Mixing AVX
// code and SSE code"), libm's SSE exp/log/pow included: the plan estimator's
// fit ran 10x slower in any process that had read a TFRecord file (26 s ->
// 320 s for PlanValidation). VZEROUPPER clears that state; it only exists
// with AVX, and ISA-L only takes an AVX path where the CPU has AVX.
void clear_upper_vector_state() {
#if defined(__x86_64__)
  static const bool has_avx = __builtin_cpu_supports("avx");
  if (has_avx) asm volatile("vzeroupper" ::: "memory");
#endif
}
#endif

uint32_t extend_impl(Crc32cImpl impl, uint32_t crc, const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  switch (impl) {
#if defined(TFRIG_HAVE_ISAL)
    case Crc32cImpl::kIsal: {
      // crc32_iscsi neither pre- nor post-inverts (isa-l crc.h; checked by the
      // published check values in tests/core/crc32c_test.cpp), so we do both.
      // Its length is an int: feed at most 1 GiB per call.
      uint32_t reg = ~crc;
      while (size > 0) {
        size_t chunk = size > (size_t{1} << 30) ? (size_t{1} << 30) : size;
        reg = crc32_iscsi(const_cast<unsigned char*>(p), static_cast<int>(chunk), reg);
        p += chunk;
        size -= chunk;
      }
      clear_upper_vector_state();
      return ~reg;
    }
#endif
#if defined(TFRIG_CRC32C_X86)
    case Crc32cImpl::kSse42: return ~sse42_raw(~crc, p, size);
#endif
    default: return ~portable_raw(~crc, p, size);
  }
}

}  // namespace

std::string_view crc32c_impl_name(Crc32cImpl impl) {
  switch (impl) {
    case Crc32cImpl::kIsal: return "isa-l";
    case Crc32cImpl::kSse42: return "sse4.2";
    case Crc32cImpl::kPortable: return "portable";
  }
  return "portable";
}

Crc32cImpl crc32c_best_impl() {
  static const Crc32cImpl best = choose_best();
  return best;
}

uint32_t crc32c_extend(uint32_t crc, const void* data, size_t size) {
  return extend_impl(crc32c_best_impl(), crc, data, size);
}

std::optional<uint32_t> crc32c_extend_with(Crc32cImpl impl, uint32_t crc, const void* data, size_t size) {
  switch (impl) {
    case Crc32cImpl::kIsal:
#if defined(TFRIG_HAVE_ISAL)
      return extend_impl(impl, crc, data, size);
#else
      return std::nullopt;
#endif
    case Crc32cImpl::kSse42:
#if defined(TFRIG_CRC32C_X86)
      if (!cpu_has_sse42()) return std::nullopt;
      return extend_impl(impl, crc, data, size);
#else
      return std::nullopt;
#endif
    case Crc32cImpl::kPortable: return extend_impl(impl, crc, data, size);
  }
  return std::nullopt;
}

}  // namespace tfrig::core
