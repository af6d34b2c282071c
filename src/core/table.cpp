#include "core/table.h"

#include <algorithm>
#include <numeric>

#include "core/display_width.h"
#include "core/terminal_text.h"

namespace tfrig::core {

namespace {

constexpr size_t kGutter = 2;  // spaces between two columns

// A cell's lines when its column is `width` wide (one line when it fits).
std::vector<std::string> cell_lines(const std::string& cell, size_t width) {
  if (display_width(cell) <= width) return {cell};
  std::vector<std::string> lines;
  const std::string wrapped = wrap_display(cell, width, "");
  size_t start = 0;
  while (true) {
    const size_t nl = wrapped.find('\n', start);
    lines.push_back(wrapped.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return lines;
}

// The widest piece of a cell that wrap_display cannot break: a run of
// narrow characters between spaces (a wide character breaks on its own).
size_t longest_unbreakable(const std::string& cell) {
  size_t longest = 0;
  const std::string lines = wrap_display(cell, 1, "");
  size_t start = 0;
  while (start <= lines.size()) {
    size_t nl = lines.find('\n', start);
    if (nl == std::string::npos) nl = lines.size();
    longest = std::max(longest, display_width(std::string_view(lines).substr(start, nl - start)));
    start = nl + 1;
  }
  return longest;
}

}  // namespace

std::vector<size_t> fold_column_widths(const std::vector<size_t>& natural, size_t available,
                                       const std::vector<size_t>& longest_word) {
  const size_t total = std::accumulate(natural.begin(), natural.end(), size_t{0});
  if (total <= available || natural.empty()) return natural;
  // Each column's floor: kMinFoldedColumn, or its longest word (which cannot
  // break), never more than its own width. The largest cap L with
  // sum(min(w, max(L, floor))) <= available folds the widest columns first
  // and equally; a column whose words cannot go narrower leaves the room to
  // the others.
  std::vector<size_t> floor(natural.size());
  for (size_t c = 0; c < natural.size(); ++c) {
    const size_t word = c < longest_word.size() ? longest_word[c] : 0;
    floor[c] = std::min(natural[c], std::max(Table::kMinFoldedColumn, word));
  }
  auto width_at = [&](size_t c, size_t cap) { return std::min(natural[c], std::max(cap, floor[c])); };
  auto capped_sum = [&](size_t cap) {
    size_t sum = 0;
    for (size_t c = 0; c < natural.size(); ++c) sum += width_at(c, cap);
    return sum;
  };
  size_t lo = 0, hi = *std::max_element(natural.begin(), natural.end());  // capped_sum(hi) = total > available
  if (capped_sum(lo) <= available) {
    while (hi - lo > 1) {
      const size_t mid = lo + (hi - lo) / 2;
      (capped_sum(mid) <= available ? lo : hi) = mid;
    }
  }
  std::vector<size_t> out(natural.size());
  for (size_t c = 0; c < natural.size(); ++c) out[c] = width_at(c, lo);
  return out;
}

Table::Table(std::vector<std::string> headers, std::vector<Align> align)
    : headers_(std::move(headers)), align_(std::move(align)) {
  align_.resize(headers_.size(), Align::kLeft);
}

void Table::add_row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  // A cell is one line: a value with a newline or control bytes (a GPU or
  // file name from a foreign file) cannot forge a row or drive the terminal.
  for (auto& cell : cells) cell = terminal_line(cell);
  rows_.push_back(std::move(cells));
}

std::string Table::render(const std::string& indent, size_t width) const {
  const size_t n = headers_.size();
  std::vector<size_t> widths(n, 0);
  for (size_t c = 0; c < n; ++c) widths[c] = display_width(headers_[c]);
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  // Fold when the table does not fit: the widest columns get a common cap;
  // a folded column is then as wide as its widest wrapped line (a long word
  // stays whole, so the column may end wider than the cap).
  const size_t fixed = display_width(indent) + (n > 0 ? (n - 1) * kGutter : 0);
  std::vector<size_t> longest_word(n, 0);
  if (std::accumulate(widths.begin(), widths.end(), fixed) > width) {
    auto words = [&](const std::vector<std::string>& cells) {
      for (size_t c = 0; c < n && c < cells.size(); ++c)
        longest_word[c] = std::max(longest_word[c], longest_unbreakable(cells[c]));
    };
    words(headers_);
    for (const auto& row : rows_) words(row);
  }
  const std::vector<size_t> folded = fold_column_widths(widths, width > fixed ? width - fixed : 0, longest_word);
  std::vector<std::vector<std::vector<std::string>>> lines;  // [row][column][line]; row 0 the headers
  auto split_row = [&](const std::vector<std::string>& cells) {
    std::vector<std::vector<std::string>> out(n);
    for (size_t c = 0; c < n; ++c)
      out[c] = folded[c] < widths[c] ? cell_lines(cells[c], folded[c]) : std::vector<std::string>{cells[c]};
    return out;
  };
  lines.push_back(split_row(headers_));
  for (const auto& row : rows_) lines.push_back(split_row(row));
  for (size_t c = 0; c < n; ++c) {
    if (folded[c] >= widths[c]) continue;
    widths[c] = 0;
    for (const auto& row : lines) {
      for (const auto& l : row[c]) widths[c] = std::max(widths[c], display_width(l));
    }
  }
  auto line = [&](const std::vector<std::vector<std::string>>& cells) {
    size_t height = 1;
    for (const auto& cell : cells) height = std::max(height, cell.size());
    std::string out;
    for (size_t k = 0; k < height; ++k) {
      std::string text = indent;
      for (size_t c = 0; c < n; ++c) {
        const std::string empty;
        const std::string& piece = k < cells[c].size() ? cells[c][k] : empty;
        const size_t w = display_width(piece);
        const size_t pad = widths[c] > w ? widths[c] - w : 0;
        if (align_[c] == Align::kRight) text.append(pad, ' ');
        text += piece;
        if (align_[c] == Align::kLeft && c + 1 < n) text.append(pad, ' ');
        if (c + 1 < n) text.append(kGutter, ' ');
      }
      while (!text.empty() && text.back() == ' ') text.pop_back();
      out += text + "\n";
    }
    return out;
  };
  std::string out;
  for (const auto& row : lines) out += line(row);
  return out;
}

}  // namespace tfrig::core
