// Small string helpers shared by the parsers. All pure, all on string_view.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tfrig::core {

std::string_view trim(std::string_view s);
std::vector<std::string_view> split(std::string_view s, char sep);
// Splits on any run of spaces/tabs, dropping empty fields.
std::vector<std::string_view> split_ws(std::string_view s);
std::vector<std::string_view> split_lines(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
bool ends_with(std::string_view s, std::string_view suffix);
std::string to_lower(std::string_view s);

std::optional<uint64_t> parse_u64(std::string_view s, int base = 10);
std::optional<int64_t> parse_i64(std::string_view s);
std::optional<double> parse_double(std::string_view s);
// "0x10de" or "10de" -> 0x10de.
std::optional<uint64_t> parse_hex(std::string_view s);

// True when the text looks like text: no NUL bytes and mostly printable.
bool looks_like_text(std::string_view s);

// Printable rendering of arbitrary bytes for error messages (at most max chars).
std::string printable(std::string_view s, size_t max = 40);

}  // namespace tfrig::core
