// A plain table for the terminal: columns sized to their widest cell,
// left-aligned text, right-aligned numbers when asked. A table wider than the
// output width folds its widest column(s): their cells wrap inside the column
// (core::wrap_display: at spaces and between wide characters), the other
// columns of a row stay on its first line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/text_width.h"

namespace tfrig::core {

class Table {
 public:
  enum class Align { kLeft, kRight };

  explicit Table(std::vector<std::string> headers, std::vector<Align> align = {});
  void add_row(std::vector<std::string> cells);
  bool empty() const { return rows_.empty(); }
  // Each line starts with indent; no trailing spaces. Lines stay within
  // `width` columns (indent included) by folding the widest columns, down to
  // kMinFoldedColumn each or their longest word: a word (a path, a URL) is
  // never cut, so a table of such words may stay wider than `width`.
  std::string render(const std::string& indent = "  ", size_t width = kDefaultTextWidth) const;

  // A folded column keeps at least this many columns (or its longest word).
  static constexpr size_t kMinFoldedColumn = 8;

 private:
  std::vector<std::string> headers_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

// The column widths a table gets within `available` columns (its cells'
// columns without indent and gutters): columns are capped at one common
// limit, the largest that fits, so the widest fold first and equally; none
// below kMinFoldedColumn nor below its longest word (longest_word[c], a piece
// wrap_display cannot break). Pure, for the tests.
std::vector<size_t> fold_column_widths(const std::vector<size_t>& natural, size_t available,
                                       const std::vector<size_t>& longest_word = {});

// Terminal columns of UTF-8 text (CJK wide = 2; core/display_width.h).
size_t display_width(std::string_view s);

}  // namespace tfrig::core
