// CRC32C (Castagnoli), the checksum of TFRecord framing, for the crc32c
// benchmark. A stand-in until src/core/crc32c (branch tfrecord) lands: ISA-L's
// crc32_iscsi where the library was found at build time, else a portable
// slicing-by-8 table implementation with identical results.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tfrig::bench {

// Standard CRC32C of data, continuing from `crc` (0 for a fresh checksum):
// crc32c(crc32c(0, a), b) == crc32c(0, a + b). Check value: "123456789" -> 0xE3069283.
uint32_t crc32c_extend(uint32_t crc, const void* data, size_t size);
// The same, always through the portable code.
uint32_t crc32c_extend_portable(uint32_t crc, const void* data, size_t size);
// "isa-l" or "portable".
std::string_view crc32c_implementation();

}  // namespace tfrig::bench
