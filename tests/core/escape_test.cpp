#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/escape.h"
#include "core/input_file.h"
#include "core/json_text.h"
#include "core/terminal_text.h"
#include "test_support.h"

namespace tfrig::core {
namespace {

TEST(Escape, ValidUtf8IsKeptInvalidBytesAndControlsAreHex) {
  EXPECT_TRUE(is_valid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
  EXPECT_EQ(escape_bytes("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_FALSE(is_valid_utf8("caf\xe9"));
  EXPECT_EQ(escape_bytes("caf\xe9"), "caf\\xe9");
  EXPECT_EQ(escape_bytes(std::string("\xff\xfe", 2)), "\\xff\\xfe");
  // Overlong, surrogate, above U+10FFFF, truncated: all invalid.
  for (std::string bad : {"\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"}) {
    EXPECT_FALSE(is_valid_utf8(bad)) << escape_bytes(bad);
    EXPECT_TRUE(is_valid_utf8(escape_bytes(bad)));
  }
  // Terminal control sequences from a file name are neutralised; tab and newline stay.
  EXPECT_EQ(escape_bytes("a\x1b[2Jb\tc\n\x7f"), "a\\x1b[2Jb\tc\n\\x7f");
  EXPECT_EQ(hex_bytes(std::string("\x00\xff", 2)), "00ff");
}

TEST(Escape, JsonTextEscapesStringsAndKeysAndNeverThrows) {
  nlohmann::ordered_json j;
  j["ok"] = "caf\xc3\xa9";
  j[std::string("\xff\xfe", 2)] = std::vector<std::string>{"x\xe9"};
  j["nested"] = {{"v", "\x80"}};
  std::string text;
  ASSERT_NO_THROW(text = json_text(j));
  auto back = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(back["ok"], "caf\xc3\xa9");
  EXPECT_EQ(back["\\xff\\xfe"][0], "x\\xe9");
  EXPECT_EQ(back["nested"]["v"], "\\x80");
  // Key order is kept.
  EXPECT_EQ(back.begin().key(), "ok");
}

TEST(InputFile, RefusesDirectoriesAndDevicesAndCapsPipes) {
  test::TempDir dir;
  auto d = read_input_file(dir.path(), 100);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().code, ErrorCode::kNotFound);
  EXPECT_NE(d.error().to_string().find("is a directory"), std::string::npos);
  auto dev = read_input_file("/dev/zero", 100);
  ASSERT_FALSE(dev);
  EXPECT_EQ(dev.error().code, ErrorCode::kIo);
  test::write_file(dir.file("f"), "0123456789");
  EXPECT_EQ(read_input_file(dir.file("f"), 10).value_or("?"), "0123456789");
  auto big = read_input_file(dir.file("f"), 9);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().code, ErrorCode::kParse);
  // A FIFO with no writer reads as empty at once instead of blocking.
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
  EXPECT_EQ(read_input_file(dir.file("fifo"), 10).value_or("?"), "");
  auto missing = read_input_file(dir.file("nope"), 10);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_NE(missing.error().where.find("nope"), std::string::npos);
}

// The one step between foreign bytes and a terminal (docs/architecture.md).
TEST(Escape, TerminalTextNeutralisesEveryControlSequenceAndKeepsOnlyOwnColours) {
  using namespace std::string_literals;
  // Pieces end where the next byte is a hex digit ("\x07" "B"), and the NUL stays (""s).
  const std::string hostile = "A\x1b]0;pwned\x07" "B\x1b[2J\rC\x00" "D\xff\xc2\x9b" "31mE\xe2\x80\xae" "F"s;
  ASSERT_EQ(hostile.size(), 31u);
  const std::string out = terminal_text(hostile, false);
  EXPECT_EQ(out, "A\\x1b]0;pwned\\x07B\\x1b[2J\\x0dC\\x00D\\xff\\xc2\\x9b31mE\\xe2\\x80\\xaeF");
  EXPECT_TRUE(is_valid_utf8(out));
  // Tab and newline kept in a block, escaped in a line.
  EXPECT_EQ(terminal_text("a\tb\nc", false), "a\tb\nc");
  EXPECT_EQ(terminal_line("a\tb\nc\rd"), "a\\x09b\\x0ac\\x0dd");
  // tfrig's own SGR colours pass with colour on, and only those.
  EXPECT_EQ(terminal_text("\x1b[31merr\x1b[0m", true), "\x1b[31merr\x1b[0m");
  EXPECT_EQ(terminal_text("\x1b[31merr\x1b[0m", false), "\\x1b[31merr\\x1b[0m");
  EXPECT_EQ(terminal_text("\x1b[8mhidden\x1b[0m", true), "\\x1b[8mhidden\x1b[0m");
  EXPECT_EQ(terminal_line("\x1b[1mbold\x1b[0m"), "\x1b[1mbold\x1b[0m");
  // Valid text, Chinese included, is unchanged; the escaping is idempotent.
  EXPECT_EQ(terminal_text("\xe6\x98\xbe\xe5\x8d\xa1 GPU \xe2\x82\xac", false), "\xe6\x98\xbe\xe5\x8d\xa1 GPU \xe2\x82\xac");
  EXPECT_EQ(terminal_text(out, false), out);
}

}  // namespace
}  // namespace tfrig::core
