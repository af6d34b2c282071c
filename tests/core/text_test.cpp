#include "core/text.h"

#include <gtest/gtest.h>

namespace tfrig::core {
namespace {

using Views = std::vector<std::string_view>;

TEST(Text, Trim) {
  EXPECT_EQ(trim("  a b \t\r\n"), "a b");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim(" \n\t"), "");
  EXPECT_EQ(trim("x"), "x");
}

TEST(Text, SplitKeepsEmptyFields) {
  EXPECT_EQ(split("a,,b", ','), (Views{"a", "", "b"}));
  EXPECT_EQ(split("", ','), (Views{""}));
  EXPECT_EQ(split("a,", ','), (Views{"a", ""}));
  EXPECT_EQ(split("abc", ','), (Views{"abc"}));
}

TEST(Text, SplitWsDropsEmptyFields) {
  EXPECT_EQ(split_ws("  a \t b  c "), (Views{"a", "b", "c"}));
  EXPECT_TRUE(split_ws("").empty());
  EXPECT_TRUE(split_ws(" \t ").empty());
}

TEST(Text, SplitLinesHandlesCrlfAndMissingFinalNewline) {
  EXPECT_EQ(split_lines("a\nb\n"), (Views{"a", "b"}));
  EXPECT_EQ(split_lines("a\r\nb\r\n"), (Views{"a", "b"}));
  EXPECT_EQ(split_lines("a\n\nb"), (Views{"a", "", "b"}));
  EXPECT_EQ(split_lines("last"), (Views{"last"}));
  EXPECT_TRUE(split_lines("").empty());
}

TEST(Text, PrefixSuffixLower) {
  EXPECT_TRUE(starts_with("nvme0n1", "nvme"));
  EXPECT_FALSE(starts_with("nv", "nvme"));
  EXPECT_TRUE(starts_with("x", ""));
  EXPECT_TRUE(ends_with("2.40GHz", "GHz"));
  EXPECT_FALSE(ends_with("Hz", "GHz"));
  EXPECT_EQ(to_lower("QEMU Standard PC"), "qemu standard pc");
}

TEST(Text, ParseNumbers) {
  EXPECT_EQ(parse_u64(" 42\n"), 42u);
  EXPECT_EQ(parse_u64("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(parse_u64("18446744073709551616"));
  EXPECT_FALSE(parse_u64("-1"));
  EXPECT_FALSE(parse_u64("12abc"));
  EXPECT_FALSE(parse_u64(""));
  EXPECT_FALSE(parse_u64("0x10"));
  EXPECT_EQ(parse_u64("ff", 16), 255u);
  EXPECT_EQ(parse_i64("-1"), -1);
  EXPECT_FALSE(parse_i64("1.5"));
  EXPECT_EQ(parse_double("8.0"), 8.0);
  EXPECT_EQ(parse_double(" 2.5 "), 2.5);
  EXPECT_FALSE(parse_double("2.5GT"));
  EXPECT_EQ(parse_hex("0x10de"), 0x10deu);
  EXPECT_EQ(parse_hex("0X10DE"), 0x10deu);
  EXPECT_EQ(parse_hex("10de\n"), 0x10deu);
  EXPECT_FALSE(parse_hex("0x"));
  EXPECT_FALSE(parse_hex("0xzz"));
}

TEST(Text, LooksLikeText) {
  EXPECT_TRUE(looks_like_text("NAME=\"Debian\"\n\tx\r\n"));
  EXPECT_TRUE(looks_like_text(""));
  EXPECT_FALSE(looks_like_text(std::string_view("a\0b", 3)));
  EXPECT_FALSE(looks_like_text("\x01\x02\x03\x04"));
  // One stray escape in a long line is still text.
  EXPECT_TRUE(looks_like_text("\x1b[1mbold text that goes on for a while\n"));
}

TEST(Text, PrintableEscapesAndTruncates) {
  EXPECT_EQ(printable("abc"), "abc");
  EXPECT_EQ(printable(std::string_view("a\0\xff", 3)), "a\\x00\\xff");
  EXPECT_EQ(printable("abcdef", 3), "abc...");
  EXPECT_EQ(printable(std::string(100, 'x')).size(), 43u);  // 40 + "..."
}

}  // namespace
}  // namespace tfrig::core
