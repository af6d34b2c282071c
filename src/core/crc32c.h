// CRC-32C (Castagnoli), the checksum of TFRecord framing, iSCSI, ext4 and
// LevelDB. Shared by tfrecord/ (every record carries two) and
// `tfrig bench crc32c`.
//
// Parameters (RFC 3720 section 12.1 and appendix B.4; Linux
// include/linux/crc32poly.h CRC32C_POLY_LE): polynomial 0x1EDC6F41, reflected
// 0x82F63B78, initial value 0xFFFFFFFF, reflected input and output, final XOR
// 0xFFFFFFFF. Check value: crc32c("123456789") = 0xE3069283.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tfrig::core {

enum class Crc32cImpl {
  kIsal,      // ISA-L crc32_iscsi: runtime dispatch to the fastest CPU path
  kSse42,     // the SSE4.2 crc32 instruction, 8 bytes per step
  kPortable,  // slicing-by-8 tables, any CPU
};

std::string_view crc32c_impl_name(Crc32cImpl impl);

// The implementation crc32c() uses on this CPU (chosen once).
Crc32cImpl crc32c_best_impl();

// Continues a CRC: crc32c_extend(crc32c(a), b) == crc32c(a + b).
// `crc` is a finished CRC value (0 for the empty string).
uint32_t crc32c_extend(uint32_t crc, const void* data, size_t size);

inline uint32_t crc32c(const void* data, size_t size) { return crc32c_extend(0, data, size); }
inline uint32_t crc32c(std::string_view data) { return crc32c_extend(0, data.data(), data.size()); }

// One specific implementation, for tests and the benchmark; nullopt when this
// build or CPU lacks it.
std::optional<uint32_t> crc32c_extend_with(Crc32cImpl impl, uint32_t crc, const void* data, size_t size);

// TFRecord stores CRCs "masked" so that a CRC of data that itself contains
// CRCs stays well distributed: rotate right by 15 bits and add a constant.
// Source: tensorflow/tsl/lib/hash/crc32c.h (Mask/Unmask, kMaskDelta), the same
// as LevelDB util/crc32c.h.
constexpr uint32_t kCrc32cMaskDelta = 0xa282ead8u;

constexpr uint32_t crc32c_mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kCrc32cMaskDelta; }
constexpr uint32_t crc32c_unmask(uint32_t masked) {
  uint32_t rot = masked - kCrc32cMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace tfrig::core
