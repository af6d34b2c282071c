#include "core/table.h"

#include <gtest/gtest.h>

#include "core/display_width.h"
#include "core/text.h"

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

// The widest columns share one cap, the largest that fits; narrow columns
// keep their width; none goes below Table::kMinFoldedColumn.
TEST(TableFold, WidestColumnsAreCappedEquallyToFit) {
  EXPECT_EQ(fold_column_widths({9, 86, 80}, 85), (std::vector<size_t>{9, 38, 38}));
  EXPECT_EQ(fold_column_widths({9, 86, 20}, 85), (std::vector<size_t>{9, 56, 20}));
  EXPECT_EQ(fold_column_widths({9, 30, 20}, 85), (std::vector<size_t>{9, 30, 20}));  // fits: unchanged
  EXPECT_EQ(fold_column_widths({40, 40, 40}, 20), (std::vector<size_t>{8, 8, 8}));  // cannot fit: the floor
  // A column whose longest word is 30 wide cannot go below 30: the others fold more.
  EXPECT_EQ(fold_column_widths({9, 86, 80}, 85, {3, 30, 10}), (std::vector<size_t>{9, 38, 38}));
  EXPECT_EQ(fold_column_widths({9, 86, 80}, 85, {3, 50, 10}), (std::vector<size_t>{9, 50, 26}));
}

// A table wider than the output folds its widest column: the column's cells
// wrap inside it, the other cells stay on the row's first line, and every
// line fits the width.
TEST(TableFold, TheWidestColumnWrapsInsideItsColumn) {
  Table t({"part", "choice", "why"});
  t.add_row({"CPU", "16 cores / 32 threads", "204 samples/s / 300 per core (assumed) + 1 per GPU = 2; docs/guide.md minimum 16"});
  t.add_row({"PSU", "850 W", "(170 W GPUs + 170 W CPU + 100 W rest) x 1.25 = 550 W"});
  const std::string wide = t.render("  ", 200);
  EXPECT_EQ(wide.find('\n'), wide.find("why") + 3);  // one line a row when it fits
  const std::string folded = t.render("  ", 60);
  // 60 - indent 2 - gutters 4 - part 4 - choice 21: "why" gets 29 columns.
  EXPECT_EQ(folded,
            "  part  choice                 why\n"
            "  CPU   16 cores / 32 threads  204 samples/s / 300 per core\n"
            "                               (assumed) + 1 per GPU = 2;\n"
            "                               docs/guide.md minimum 16\n"
            "  PSU   850 W                  (170 W GPUs + 170 W CPU + 100\n"
            "                               W rest) x 1.25 = 550 W\n");
  for (auto line : split_lines(folded)) EXPECT_LE(display_width(line), 60u) << line;
}

// Chinese cells fold by display width and may break between characters; a
// right-aligned column stays right-aligned.
TEST(TableFold, ChineseCellsFoldByDisplayWidth) {
  Table t({"项目", "数量", "说明"}, {Table::Align::kLeft, Table::Align::kRight, Table::Align::kLeft});
  t.add_row({"显存", "80", "每块 GPU 的显存，按规格库的数据计算，不含驱动和 CUDA 上下文占用的部分"});
  const std::string folded = t.render("  ", 40);
  for (auto line : split_lines(folded)) EXPECT_LE(display_width(line), 40u) << folded;
  EXPECT_EQ(split_lines(folded).size(), 4u) << folded;
  EXPECT_EQ(split_lines(folded)[1].rfind("  显存    80  每块", 0), 0u) << folded;
  EXPECT_EQ(split_lines(folded)[2].find_first_not_of(' '), 14u) << folded;  // continuation under its column
}

// A word longer than the folded column (a path) stays whole: the column
// takes its width, and the rows still line up.
TEST(TableFold, AnUnbreakableWordWidensItsColumn) {
  Table t({"path", "kind"});
  t.add_row({"/usr/local/lib/python3.11/dist-packages/nvidia/cudnn/lib/libcudnn.so.9 loaded by dlopen", "so"});
  const std::string folded = t.render("  ", 40);
  const auto lines = split_lines(folded);
  ASSERT_EQ(lines.size(), 3u) << folded;
  EXPECT_EQ(lines[1], "  /usr/local/lib/python3.11/dist-packages/nvidia/cudnn/lib/libcudnn.so.9  so");
  EXPECT_EQ(lines[2], "  loaded by dlopen");
  EXPECT_EQ(lines[0].find("kind"), lines[1].rfind("so"));
}

}  // namespace
}  // namespace tfrig::core
