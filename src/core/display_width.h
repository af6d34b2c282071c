// How many terminal columns text takes: East Asian Wide and Fullwidth
// characters (Chinese, Japanese, Korean, fullwidth forms, most emoji) take
// two, combining marks and zero-width characters none, ANSI colour
// sequences none. Tables, bars and wrapped text line up by this, so a
// Chinese report aligns like an English one.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tfrig::core {

// Columns of one code point: 0, 1 or 2.
int codepoint_width(char32_t cp);
// Columns of UTF-8 text (a byte that is not valid UTF-8 counts as one column).
size_t display_width(std::string_view s);
// text followed by spaces up to `width` columns (never cut).
std::string pad_right(std::string_view text, size_t width);
// Words joined into lines of at most `width` columns (a word longer than a
// line stays whole); lines after the first start with `indent`, and the first
// is taken to start after it. Breaks at spaces and between wide characters,
// never before closing CJK punctuation (，。、：；！？）」』】) nor after opening
// CJK punctuation (（「『【《“).
std::string wrap_display(std::string_view text, size_t width, std::string_view indent);
// A hanging indent: prefix, then text wrapped to `width` columns with every
// further line indented by the prefix's display width ("  - note ...",
// "fix: ..."). The prefix itself is not wrapped.
std::string wrap_hanging(std::string_view prefix, std::string_view text, size_t width);
// Each line of a multi-line text that is wider than `width` wrapped as a
// hanging indent: under its list marker ("- ", "* ", "N. ") when it has one,
// else two columns deeper than its own leading spaces. Lines that fit are
// kept byte for byte (a table already folded to the width stays as it is).
std::string wrap_lines(std::string_view text, size_t width);
// The space between a label and its text: none after a full-width colon
// ("修复：" carries its own), one after an English one ("fix: ").
std::string_view gap_after_label(std::string_view label);

}  // namespace tfrig::core
