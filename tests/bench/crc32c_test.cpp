#include "bench/crc32c_local.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace tfrig::bench {
namespace {

TEST(Crc32c, CheckValues) {
  // The standard check value of CRC-32C (Castagnoli), and RFC 3720 B.4's
  // 32 bytes of zeros and of 0xFF.
  EXPECT_EQ(crc32c_extend(0, "123456789", 9), 0xE3069283u);
  EXPECT_EQ(crc32c_extend_portable(0, "123456789", 9), 0xE3069283u);
  std::string zeros(32, '\0'), ones(32, '\xFF');
  EXPECT_EQ(crc32c_extend(0, zeros.data(), zeros.size()), 0x8A9136AAu);
  EXPECT_EQ(crc32c_extend(0, ones.data(), ones.size()), 0x62A8AB43u);
  EXPECT_EQ(crc32c_extend(0, "", 0), 0u);
}

TEST(Crc32c, FastAndPortableAgreeOnEveryLengthAndAlignment) {
  std::mt19937 rng(1);
  std::vector<unsigned char> buf(5000);
  for (auto& b : buf) b = static_cast<unsigned char>(rng());
  for (size_t offset = 0; offset < 9; ++offset) {
    for (size_t len : {0u, 1u, 7u, 8u, 9u, 63u, 64u, 65u, 255u, 256u, 1000u, 4096u}) {
      ASSERT_EQ(crc32c_extend(0, buf.data() + offset, len), crc32c_extend_portable(0, buf.data() + offset, len))
          << "offset " << offset << " length " << len;
    }
  }
}

TEST(Crc32c, ExtendingInPiecesEqualsOneCall) {
  std::string data = "The quick brown fox jumps over the lazy dog, again and again and again.";
  uint32_t whole = crc32c_extend(0, data.data(), data.size());
  uint32_t part = crc32c_extend(0, data.data(), 10);
  part = crc32c_extend(part, data.data() + 10, data.size() - 10);
  EXPECT_EQ(part, whole);
  uint32_t portable = crc32c_extend_portable(crc32c_extend_portable(0, data.data(), 33), data.data() + 33,
                                             data.size() - 33);
  EXPECT_EQ(portable, whole);
}

}  // namespace
}  // namespace tfrig::bench
