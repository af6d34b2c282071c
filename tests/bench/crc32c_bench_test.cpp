// The crc32c benchmark measures core/crc32c; its own tests live with it
// (tests/core/crc32c_test.cpp on the tfrecord branch). Here: every
// implementation the benchmark times gives the standard check value, so a
// fast number is never a wrong checksum.
#include <gtest/gtest.h>

#include "core/crc32c.h"

namespace tfrig::bench {
namespace {

TEST(Crc32cBench, EveryImplementationItTimesGivesTheCheckValue) {
  for (auto impl : {core::Crc32cImpl::kIsal, core::Crc32cImpl::kSse42, core::Crc32cImpl::kPortable}) {
    auto crc = core::crc32c_extend_with(impl, 0, "123456789", 9);
    if (!crc) continue;  // not in this build or CPU
    EXPECT_EQ(*crc, 0xE3069283u) << core::crc32c_impl_name(impl);
  }
  EXPECT_EQ(core::crc32c("123456789"), 0xE3069283u);
}

}  // namespace
}  // namespace tfrig::bench
