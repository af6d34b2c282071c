#include "core/table.h"

#include <gtest/gtest.h>

namespace tfrig::core {
namespace {

TEST(Table, ColumnsAreSizedToTheWidestCellWithTwoSpacesBetween) {
  Table t({"name", "kind"});
  t.add_row({"nvme0n1", "nvme"});
  t.add_row({"sda", "hdd"});
  EXPECT_EQ(t.render("  "),
            "  name     kind\n"
            "  nvme0n1  nvme\n"
            "  sda      hdd\n");
}

TEST(Table, RightAlignedNumbersAndNoTrailingSpaces) {
  Table t({"probe", "ms", "detail"}, {Table::Align::kLeft, Table::Align::kRight, Table::Align::kLeft});
  t.add_row({"cpu", "1.5", ""});
  t.add_row({"storage", "12.25", "16 devices"});
  EXPECT_EQ(t.render(""),
            "probe       ms  detail\n"
            "cpu        1.5\n"
            "storage  12.25  16 devices\n");
}

TEST(Table, ShortRowsArePaddedAndLongRowsCut) {
  Table t({"a", "b"});
  EXPECT_TRUE(t.empty());
  t.add_row({"1"});
  t.add_row({"x", "y", "dropped"});
  EXPECT_FALSE(t.empty());
  EXPECT_EQ(t.render(">"), ">a  b\n>1\n>x  y\n");
}

TEST(Table, WidthCountsCodePointsAndIgnoresColour) {
  EXPECT_EQ(display_width("abc"), 3u);
  EXPECT_EQ(display_width("\xc3\xa9t\xc3\xa9"), 3u);  // "été"
  EXPECT_EQ(display_width("\033[32mok\033[0m"), 2u);
  Table t({"state", "n"});
  t.add_row({"\033[32mok\033[0m", "1"});
  t.add_row({"\xc3\xa9t\xc3\xa9", "2"});
  EXPECT_EQ(t.render(""),
            "state  n\n"
            "\033[32mok\033[0m     1\n"
            "\xc3\xa9t\xc3\xa9    2\n");
}

}  // namespace
}  // namespace tfrig::core
