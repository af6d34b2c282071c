// A plain table for the terminal: columns sized to their widest cell,
// left-aligned text, right-aligned numbers when asked.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tfrig::core {

class Table {
 public:
  enum class Align { kLeft, kRight };

  explicit Table(std::vector<std::string> headers, std::vector<Align> align = {});
  void add_row(std::vector<std::string> cells);
  bool empty() const { return rows_.empty(); }
  // Each line starts with indent; no trailing spaces.
  std::string render(const std::string& indent = "  ") const;

 private:
  std::vector<std::string> headers_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

// Terminal columns of UTF-8 text (CJK wide = 2; core/display_width.h).
size_t display_width(std::string_view s);

}  // namespace tfrig::core
