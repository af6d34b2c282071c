#include "core/table.h"

#include <algorithm>

#include "core/display_width.h"
#include "core/terminal_text.h"

namespace tfrig::core {

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

std::string Table::render(const std::string& indent) const {
  std::vector<size_t> widths(headers_.size(), 0);
  for (size_t c = 0; c < headers_.size(); ++c) widths[c] = display_width(headers_[c]);
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = indent;
    for (size_t c = 0; c < cells.size(); ++c) {
      size_t pad = widths[c] - display_width(cells[c]);
      if (align_[c] == Align::kRight) out.append(pad, ' ');
      out += cells[c];
      if (align_[c] == Align::kLeft && c + 1 < cells.size()) out.append(pad, ' ');
      if (c + 1 < cells.size()) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(headers_);
  for (const auto& row : rows_) out += line(row);
  return out;
}

}  // namespace tfrig::core
