#include "core/units.h"

#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

namespace tfrig::core {
namespace {

TEST(Units, FormatBytesBinary) {
  EXPECT_EQ(format_bytes_binary(0), "0 B");
  EXPECT_EQ(format_bytes_binary(1023), "1023 B");
  EXPECT_EQ(format_bytes_binary(1024), "1.0 KiB");
  EXPECT_EQ(format_bytes_binary(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes_binary(100 * kKiB), "100 KiB");
  EXPECT_EQ(format_bytes_binary(16 * kGiB), "16.0 GiB");
  EXPECT_EQ(format_bytes_binary(15 * kGiB + 600 * kMiB), "15.6 GiB");
  EXPECT_EQ(format_bytes_binary(1024 * 1024 * kGiB), "1.0 PiB");
}

TEST(Units, FormatBytesBinaryNeverShowsTheNextUnitsWorth) {
  // One byte short of 1 MiB is 1023.999 KiB: rounded it must read "1.0 MiB",
  // not "1024 KiB".
  EXPECT_EQ(format_bytes_binary(kMiB - 1), "1.0 MiB");
}

TEST(Units, FormatBytesBinaryCoversTheWholeRange) {
  // RLIM_INFINITY-sized values (e.g. memlock 18446744073708503040 in
  // procfs-fixtures) are 16 EiB; "16384 PiB" means the unit table stops short.
  EXPECT_EQ(format_bytes_binary(std::numeric_limits<uint64_t>::max()), "16.0 EiB");
}

TEST(Units, FormatBytesDecimal) {
  EXPECT_EQ(format_bytes_decimal(999), "999 B");
  EXPECT_EQ(format_bytes_decimal(1000), "1.0 kB");
  EXPECT_EQ(format_bytes_decimal(107'374'182'400ull), "107 GB");
  EXPECT_EQ(format_bytes_decimal(53'687'091'200ull), "53.7 GB");
  EXPECT_EQ(format_bytes_decimal(2'000'000'000'000ull), "2.0 TB");
}

TEST(Units, FormatRatesAndSeconds) {
  EXPECT_EQ(format_rate(12.3e9), "12.3 GB/s");
  EXPECT_EQ(format_rate(500), "500 B/s");
  EXPECT_EQ(format_transfer_rate(16.0), "16 GT/s");
  EXPECT_EQ(format_transfer_rate(8.0), "8 GT/s");
  EXPECT_EQ(format_transfer_rate(2.5), "2.5 GT/s");
  EXPECT_EQ(format_seconds(0.000012), "12 us");
  EXPECT_EQ(format_seconds(0.012), "12.0 ms");
  EXPECT_EQ(format_seconds(1.52), "1.52 s");
  EXPECT_EQ(format_seconds(0.0), "0 us");
}

TEST(Units, ParseSizeAcceptsDecimalBinaryAndBare) {
  EXPECT_EQ(parse_size("200MB").value(), 200'000'000u);
  EXPECT_EQ(parse_size("1.5GiB").value(), 1'610'612'736u);
  EXPECT_EQ(parse_size("4096").value(), 4096u);
  EXPECT_EQ(parse_size("64k").value(), 65536u);
  EXPECT_EQ(parse_size("64K").value(), 65536u);
  EXPECT_EQ(parse_size("64kB").value(), 64000u);
  EXPECT_EQ(parse_size("2M").value(), 2 * kMiB);
  EXPECT_EQ(parse_size("1G").value(), kGiB);
  EXPECT_EQ(parse_size("1gb").value(), 1'000'000'000u);
  EXPECT_EQ(parse_size("1TB").value(), 1'000'000'000'000u);
  EXPECT_EQ(parse_size("1TiB").value(), 1024 * kGiB);
  EXPECT_EQ(parse_size(" 10 MiB ").value(), 10 * kMiB);
  EXPECT_EQ(parse_size("7B").value(), 7u);
  EXPECT_EQ(parse_size("0").value(), 0u);
}

TEST(Units, ParseSizeErrorsNameTheInputAndWhatIsExpected) {
  for (const char* bad : {"", "abc", "-5", "MB", "1.2.3", "1e3"}) {
    auto r = parse_size(bad);
    ASSERT_FALSE(r.has_value()) << "should reject: '" << bad << "'";
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(r.error().where, bad);
    EXPECT_FALSE(r.error().message.empty());
  }
  auto unit = parse_size("10 XB");
  ASSERT_FALSE(unit.has_value());
  EXPECT_EQ(unit.error().where, "10 XB");
  EXPECT_NE(unit.error().message.find("'xb'"), std::string::npos) << unit.error().message;
  auto big = parse_size("20000000TB");
  ASSERT_FALSE(big.has_value());
  EXPECT_NE(big.error().message.find("too large"), std::string::npos) << big.error().message;
}

}  // namespace
}  // namespace tfrig::core
