#include "core/crc32c.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include <random>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace tfrig::core {
namespace {

std::vector<Crc32cImpl> available() {
  std::vector<Crc32cImpl> out;
  for (auto impl : {Crc32cImpl::kIsal, Crc32cImpl::kSse42, Crc32cImpl::kPortable}) {
    if (crc32c_extend_with(impl, 0, "", 0)) out.push_back(impl);
  }
  return out;
}

// The CRC catalogue's check value (RFC 3720 B.4 parameters; "CRC-32/ISCSI"
// check = 0xE3069283) and the four 32-byte iSCSI test vectors of RFC 3720
// appendix B.4 (bytes listed there low byte first, i.e. the values below).
TEST(Crc32c, PublishedCheckValuesEveryImplementation) {
  std::string zeros(32, '\0');
  std::string ones(32, '\xff');
  std::string inc;
  std::string dec;
  for (int i = 0; i < 32; ++i) {
    inc += static_cast<char>(i);
    dec += static_cast<char>(31 - i);
  }
  ASSERT_FALSE(available().empty());
  for (auto impl : available()) {
    SCOPED_TRACE(std::string(crc32c_impl_name(impl)));
    EXPECT_EQ(*crc32c_extend_with(impl, 0, "123456789", 9), 0xE3069283u);
    EXPECT_EQ(*crc32c_extend_with(impl, 0, "", 0), 0u);
    EXPECT_EQ(*crc32c_extend_with(impl, 0, zeros.data(), 32), 0x8A9136AAu);
    EXPECT_EQ(*crc32c_extend_with(impl, 0, ones.data(), 32), 0x62A8AB43u);
    EXPECT_EQ(*crc32c_extend_with(impl, 0, inc.data(), 32), 0x46DD794Eu);
    EXPECT_EQ(*crc32c_extend_with(impl, 0, dec.data(), 32), 0x113FDB5Cu);
  }
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);
}

TEST(Crc32c, ImplementationsAgreeOnEveryLengthAndAlignment) {
  std::mt19937 rng(42);
  std::string buf(4096 + 16, '\0');
  for (auto& c : buf) c = static_cast<char>(rng() & 0xff);
  auto impls = available();
  for (size_t align = 0; align < 8; ++align) {
    for (size_t len : {0u, 1u, 7u, 8u, 9u, 15u, 16u, 63u, 64u, 65u, 255u, 1000u, 4096u}) {
      uint32_t want = *crc32c_extend_with(Crc32cImpl::kPortable, 0, buf.data() + align, len);
      for (auto impl : impls) {
        EXPECT_EQ(*crc32c_extend_with(impl, 0, buf.data() + align, len), want)
            << crc32c_impl_name(impl) << " len " << len << " align " << align;
      }
    }
  }
}

TEST(Crc32c, ExtendEqualsWhole) {
  std::string a = "The quick brown fox ";
  std::string b = "jumps over the lazy dog";
  EXPECT_EQ(crc32c_extend(crc32c(a), b.data(), b.size()), crc32c(a + b));
  // Published: CRC-32C of the pangram is 0x22620404 (e.g. Go hash/crc32
  // Castagnoli golden table).
  EXPECT_EQ(crc32c("The quick brown fox jumps over the lazy dog"), 0x22620404u);
}

TEST(Crc32c, MaskMatchesTensorFlow) {
  // Masked CRC of empty data = kMaskDelta; mask/unmask are inverses
  // (tsl/lib/hash/crc32c.h).
  EXPECT_EQ(crc32c_mask(0), 0xa282ead8u);
  for (uint32_t v : {0u, 1u, 0xE3069283u, 0xffffffffu, 0x80000000u}) EXPECT_EQ(crc32c_unmask(crc32c_mask(v)), v);
}

#if defined(__x86_64__)
// XINUSE, read with XGETBV and ECX = 1 (Intel SDM vol. 1, 13.6): bit 2 is set
// while the upper halves of YMM0-15 are not known to be zero, bit 6 the same
// for the upper halves of ZMM0-15. Not every CPU can read it (CPUID 0Dh.1 EAX
// bit 2); nullopt there.
std::optional<uint64_t> xinuse() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0 || (c & (1u << 27)) == 0) return std::nullopt;  // OSXSAVE
  if (__get_cpuid_count(0xD, 1, &a, &b, &c, &d) == 0 || (a & (1u << 2)) == 0) return std::nullopt;
  uint32_t lo = 0, hi = 0;
  asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
  return (uint64_t{hi} << 32) | lo;
}

// ISA-L's AVX-512 path left the upper vector state dirty, and every SSE
// instruction after it (libm's included) ran slowly: the plan estimator 10x.
// What is checked is the state itself, not a time.
TEST(Crc32c, IsalLeavesTheUpperVectorStateClean) {
  const auto impls = available();
  if (std::find(impls.begin(), impls.end(), Crc32cImpl::kIsal) == impls.end()) GTEST_SKIP() << "built without ISA-L";
  const std::string data(1 << 20, 'x');
  const auto crc = crc32c_extend_with(Crc32cImpl::kIsal, 0, data.data(), data.size());
  const auto state = xinuse();
  if (!state) GTEST_SKIP() << "this CPU cannot read XINUSE";
  ASSERT_TRUE(crc.has_value());
  EXPECT_EQ(*state & 0x44u, 0u) << "XINUSE 0x" << std::hex << *state;
}
#endif

}  // namespace
}  // namespace tfrig::core
