#include "core/version.h"

#include <ostream>

#include <gtest/gtest.h>

namespace tfrig::core {

// Readable failures: print the version as written.
void PrintTo(const Version& version, std::ostream* os) { *os << '"' << version.text() << '"'; }

namespace {

Version v(std::string_view text) {
  auto parsed = Version::parse(text);
  EXPECT_TRUE(parsed.has_value()) << "should parse: " << text;
  return parsed.value_or(Version{});
}

TEST(Version, ParsesThreeParts) {
  auto ver = v("2.15.1");
  EXPECT_EQ(ver.parts(), (std::vector<uint64_t>{2, 15, 1}));
  EXPECT_EQ(ver.major(), 2u);
  EXPECT_EQ(ver.minor(), 15u);
  EXPECT_EQ(ver.part(2), 1u);
  EXPECT_EQ(ver.part(7), 0u);
  EXPECT_TRUE(ver.prerelease().empty());
  EXPECT_EQ(ver.text(), "2.15.1");
}

TEST(Version, LeadingZerosAreNumbersAndTextIsKept) {
  auto ver = v("535.104.05");
  EXPECT_EQ(ver.parts(), (std::vector<uint64_t>{535, 104, 5}));
  EXPECT_EQ(ver.text(), "535.104.05");
}

TEST(Version, NvidiaDriverComparesNumerically) {
  // As strings "535.104.05" < "535.54.03"; as numbers 104 > 54.
  EXPECT_GT(v("535.104.05"), v("535.54.03"));
  EXPECT_LT(v("535.54.03"), v("535.104.05"));
  EXPECT_GT(v("10.0"), v("9.9"));
}

TEST(Version, MissingTrailingPartsAreZero) {
  EXPECT_EQ(v("12.2"), v("12.2.0"));
  EXPECT_EQ(v("12"), v("12.0.0.0"));
  EXPECT_LT(v("12.2"), v("12.2.1"));
}

TEST(Version, FourPartCudnn) {
  auto ver = v("9.1.0.70");
  EXPECT_EQ(ver.parts(), (std::vector<uint64_t>{9, 1, 0, 70}));
  EXPECT_GT(ver, v("9.1.0"));
  EXPECT_LT(ver, v("9.1.1"));
}

TEST(Version, PrereleaseSortsBeforeRelease) {
  auto rc = v("2.16.0rc0");
  EXPECT_EQ(rc.prerelease(), "rc0");
  EXPECT_EQ(rc.parts(), (std::vector<uint64_t>{2, 16, 0}));
  EXPECT_LT(rc, v("2.16.0"));
  EXPECT_GT(rc, v("2.15.1"));
  EXPECT_LT(v("2.16.0rc0"), v("2.16.0rc1"));
  EXPECT_LT(v("2.16.0a1"), v("2.16.0b1"));
  EXPECT_LT(v("2.16.0b1"), v("2.16.0rc1"));
  EXPECT_EQ(v("1.0.0-rc1").prerelease(), "rc1");
  EXPECT_EQ(v("2.16.0.dev20240101").prerelease(), "dev20240101");
}

TEST(Version, PrereleaseNumbersCompareNumerically) {
  // PEP 440: rc9 < rc10. A plain string comparison puts "rc10" before "rc9".
  EXPECT_LT(v("2.16.0rc9"), v("2.16.0rc10"));
}

TEST(Version, LocalPartIsKeptButIgnored) {
  auto local = v("2.15.0+nv23.11");
  EXPECT_EQ(local.text(), "2.15.0+nv23.11");
  EXPECT_EQ(local.parts(), (std::vector<uint64_t>{2, 15, 0}));
  EXPECT_TRUE(local.prerelease().empty());
  EXPECT_EQ(local, v("2.15.0"));
  EXPECT_EQ(v("2.1.0+cu121"), v("2.1.0+cpu"));
  EXPECT_LT(v("2.15.0+nv23.11"), v("2.15.1"));
}

TEST(Version, LeadingVAndWhitespace) {
  EXPECT_EQ(v("v12.2"), v("12.2"));
  EXPECT_EQ(v("  12.2.140\n"), v("12.2.140"));
}

TEST(Version, RejectsGarbage) {
  for (const char* bad : {"", "   ", "abc", "x1.2", ".1", "+1.2", "1.2 beta", "1.2/3", "1.2.3!", "-1",
                          "12345678901234567890.1"}) {
    EXPECT_FALSE(Version::parse(bad).has_value()) << "should reject: '" << bad << "'";
  }
}

TEST(Version, RejectsEmptyComponent) {
  // "1..2" is not a version; it must not parse as 1 with pre-release ".2".
  EXPECT_FALSE(Version::parse("1..2").has_value());
}

TEST(Version, PrefixAndTruncated) {
  EXPECT_TRUE(v("2.15.1").has_prefix(v("2.15")));
  EXPECT_TRUE(v("2.15").has_prefix(v("2")));
  EXPECT_TRUE(v("2.15").has_prefix(v("2.15")));
  EXPECT_FALSE(v("2.15").has_prefix(v("2.15.1")));
  EXPECT_FALSE(v("2.16.1").has_prefix(v("2.15")));
  EXPECT_EQ(v("12.2.140").truncated(2), "12.2");
  EXPECT_EQ(v("12").truncated(3), "12.0.0");
}

}  // namespace
}  // namespace tfrig::core
