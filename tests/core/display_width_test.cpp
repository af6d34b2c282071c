#include "core/display_width.h"

#include <gtest/gtest.h>

#include "core/table.h"
#include "core/text.h"
#include "core/text_width.h"

namespace tfrig::core {
namespace {

TEST(DisplayWidth, CjkTakesTwoColumnsCombiningNoneColourNone) {
  EXPECT_EQ(display_width("GPU"), 3u);
  EXPECT_EQ(display_width("显存"), 4u);                    // CJK Unified Ideographs: W
  EXPECT_EQ(display_width("显存：24 GB"), 11u);            // fullwidth colon U+FF1A: F
  EXPECT_EQ(display_width("\xe3\x80\x82"), 2u);            // U+3002 ideographic full stop: W
  EXPECT_EQ(display_width("e\xcc\x81"), 1u);               // e + U+0301 combining acute
  EXPECT_EQ(display_width("\xe2\x80\x8b"), 0u);            // U+200B zero width space
  EXPECT_EQ(display_width("\033[31m错误\033[0m"), 4u);     // colour takes no room
  EXPECT_EQ(display_width("\xed\x95\x9c"), 2u);            // U+D55C Hangul syllable: W
  EXPECT_EQ(display_width("\xf0\x9f\x9a\x80"), 2u);        // U+1F680 rocket: W
  EXPECT_EQ(display_width("\xf0\xa0\x80\x80"), 2u);        // U+20000 CJK Extension B: W
  EXPECT_EQ(display_width("\xe2\x94\x80"), 1u);            // U+2500 box drawing: ambiguous, narrow
}

TEST(DisplayWidth, MalformedUtf8CountsOneColumnPerBadByte) {
  EXPECT_EQ(display_width("\xff"), 1u);
  EXPECT_EQ(display_width("a\xe6\x98"), 3u);  // a cut 3-byte sequence: two stray bytes
  EXPECT_EQ(display_width("\xe6\x98\xbe\xff"), 3u);
}

TEST(DisplayWidth, CodepointWidthsAtTheRangeEdges) {
  EXPECT_EQ(codepoint_width(0x10FF), 1);
  EXPECT_EQ(codepoint_width(0x1100), 2);
  EXPECT_EQ(codepoint_width(0x115F), 2);
  EXPECT_EQ(codepoint_width(0x1160), 0);  // Hangul medial vowel joins the syllable
  EXPECT_EQ(codepoint_width(0x303E), 2);
  EXPECT_EQ(codepoint_width(0x303F), 1);  // half-fill space: N
  EXPECT_EQ(codepoint_width(0xFF01), 2);
  EXPECT_EQ(codepoint_width(0xFF61), 1);  // halfwidth ideographic full stop: H
  EXPECT_EQ(codepoint_width(0x0A), 0);
}

TEST(DisplayWidth, PadRightFillsToColumnsNotBytes) {
  EXPECT_EQ(pad_right("驱动", 6), "驱动  ");
  EXPECT_EQ(pad_right("Driver", 6), "Driver");
  EXPECT_EQ(pad_right("显存总量", 4), "显存总量");  // never cut
}

TEST(WrapDisplay, EnglishBreaksAtSpaces) {
  EXPECT_EQ(wrap_display("aaa bbb ccc", 9, "  "), "aaa bbb\n  ccc");
  EXPECT_EQ(wrap_display("fact: value  (source)", 80, ""), "fact: value  (source)");  // two spaces stay two
  EXPECT_EQ(wrap_display("  lead", 80, ""), "lead");
  EXPECT_EQ(wrap_display("averyveryverylongword x", 8, ""), "averyveryverylongword\nx");
}

TEST(WrapDisplay, ChineseBreaksBetweenCharactersWithinTheColumns) {
  const std::string text = "驱动升级后没有重启，所以用户态库与内核模块版本不一致。";
  const std::string wrapped = wrap_display(text, 24, "    ");
  size_t lines = 0;
  for (auto line : split_lines(wrapped)) {
    ++lines;
    const size_t width = display_width(line) + (lines == 1 ? 4 : 0);  // the first line starts after the indent
    EXPECT_LE(width, 24u) << line;
    if (lines > 1) {
      EXPECT_EQ(line.substr(0, 4), "    ");
      // Closing punctuation never starts a line.
      EXPECT_NE(line.substr(4, 3), "，");
      EXPECT_NE(line.substr(4, 3), "。");
    }
  }
  EXPECT_GE(lines, 3u);
  std::string joined;
  for (auto line : split_lines(wrapped)) joined += std::string(trim(line));
  EXPECT_EQ(joined, text);  // nothing lost, no spaces added between characters
}

TEST(WrapDisplay, PunctuationStaysWithTheCharacterBeforeIt) {
  // 10 columns hold "一二三四五"; the comma must not open the next line.
  EXPECT_EQ(wrap_display("一二三四五，六", 10, ""), "一二三四\n五，六");
}

TEST(WrapDisplay, MixedTextKeepsItsSpacesAndCommandsWhole) {
  EXPECT_EQ(wrap_display("执行 `sudo ldconfig` 然后重启", 14, ""), "执行 `sudo\nldconfig` 然后\n重启");
}

// Every column of a table starts at the same terminal column on every line,
// whatever mix of Chinese and ASCII the cells hold.
void expect_aligned(const std::string& rendered, size_t columns) {
  std::vector<std::vector<size_t>> starts;
  for (auto line : split_lines(rendered)) {
    std::vector<size_t> s;
    size_t col = 0;
    bool in_gap = true;
    size_t spaces = 0;
    for (size_t i = 0; i < line.size();) {
      const size_t before = i;
      const auto c = static_cast<unsigned char>(line[i]);
      i += c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
      const std::string_view ch = line.substr(before, i - before);
      if (ch == " ") {
        ++spaces;
      } else {
        if (in_gap || spaces >= 2) s.push_back(col);
        in_gap = false;
        spaces = 0;
      }
      col += display_width(ch);
    }
    starts.push_back(s);
  }
  ASSERT_FALSE(starts.empty());
  for (const auto& s : starts) {
    if (s.size() != columns) continue;  // a row with empty cells
    EXPECT_EQ(s, starts.front()) << rendered;
  }
}

TEST(TableDisplayWidth, ChineseCellsAndHeadersAlign) {
  Table t({"GPU", "名称", "显存", "PCIe 当前"});
  t.add_row({"0", "NVIDIA RTX A6000", "48 GiB", "gen4 x16"});
  t.add_row({"1", "未知", "?", "gen4 x8"});
  const std::string out = t.render("  ");
  EXPECT_EQ(out,
            "  GPU  名称              显存    PCIe 当前\n"
            "  0    NVIDIA RTX A6000  48 GiB  gen4 x16\n"
            "  1    未知              ?       gen4 x8\n");
  expect_aligned(out, 4);
}

TEST(TableDisplayWidth, RightAlignedNumbersUnderAChineseHeader) {
  Table t({"探测项", "耗时", "状态"}, {Table::Align::kLeft, Table::Align::kRight, Table::Align::kLeft});
  t.add_row({"cpu", "1.5 ms", "ok"});
  t.add_row({"nvidia_driver", "12 ms", "absent"});
  EXPECT_EQ(t.render(""),
            "探测项           耗时  状态\n"
            "cpu            1.5 ms  ok\n"
            "nvidia_driver   12 ms  absent\n");
}

// The output width: COLUMNS first (a whole number 1..1000), then the
// terminal's, then 100; never below 40.
TEST(TextWidth, ColumnsThenTerminalThenDefault) {
  EXPECT_EQ(choose_text_width(std::nullopt, std::nullopt), kDefaultTextWidth);
  EXPECT_EQ(kDefaultTextWidth, 100u);
  EXPECT_EQ(choose_text_width(std::nullopt, 132), 132u);
  EXPECT_EQ(choose_text_width("80", 132), 80u);
  EXPECT_EQ(choose_text_width(" 120 ", std::nullopt), 120u);
  EXPECT_EQ(choose_text_width("", 90), 90u);        // set but empty: not a width
  EXPECT_EQ(choose_text_width("wide", 90), 90u);    // not a number
  EXPECT_EQ(choose_text_width("0", std::nullopt), kDefaultTextWidth);
  EXPECT_EQ(choose_text_width("100000", 90), 90u);  // not a terminal's width
  EXPECT_EQ(choose_text_width("-80", 90), 90u);
  EXPECT_EQ(choose_text_width("20", 90), kMinTextWidth);
  EXPECT_EQ(choose_text_width(std::nullopt, 10), kMinTextWidth);
  EXPECT_EQ(choose_text_width(std::nullopt, 0), kDefaultTextWidth);  // a terminal that reports no size
}

// A hanging indent: the text's further lines start under its first word,
// by display width (a Chinese label is two columns a character).
TEST(WrapHanging, ContinuationLinesHangUnderTheText) {
  EXPECT_EQ(wrap_hanging("  fix: ", "run the command below then log in again", 24),
            "  fix: run the command\n"
            "       below then log in\n"
            "       again");
  EXPECT_EQ(wrap_hanging("  修复：", "把驱动升级到 525.60.13 或更新", 20),
            "  修复：把驱动升级到\n"
            "        525.60.13 或\n"
            "        更新");
}

// wrap_lines leaves lines that fit byte for byte and hangs the others under
// their list marker, or two columns deeper than their indent.
TEST(WrapLines, LongLinesHangUnderTheirMarker) {
  EXPECT_EQ(wrap_lines("  a  b   c\n", 20), "  a  b   c\n");  // fits: runs of spaces kept
  EXPECT_EQ(wrap_lines("Notes\n  - one two three four five\n", 18),
            "Notes\n"
            "  - one two three\n"
            "    four five\n");
  EXPECT_EQ(wrap_lines("  12. one two three four\n", 16),
            "  12. one two\n"
            "      three four\n");
  EXPECT_EQ(wrap_lines("  note: one two three four\n", 16),
            "  note: one two\n"
            "    three four\n");
  EXPECT_EQ(wrap_lines("no newline at the end of this", 12), "no newline\n  at the end\n  of this");
}

}  // namespace
}  // namespace tfrig::core
