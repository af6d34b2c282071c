// How many columns the text output may take: one decision, made once by the
// command (cli/) and passed down to the renderers, which are pure functions of
// it (tests pass 80 or 120). docs/cli.md "Output width" says how it is chosen.
// Implemented in core/display_width.cpp.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace tfrig::core {

// The width when nothing says otherwise (stdout is a pipe or a file, COLUMNS
// unset): the width the findings always wrapped at, so a report saved to a
// file reads the same on a 100-column screen and goldens keep one width.
inline constexpr size_t kDefaultTextWidth = 100;
// Narrower than this leaves too little beside the hanging indents (10 to 16
// columns) and table gutters: a smaller COLUMNS or terminal is taken as this.
inline constexpr size_t kMinTextWidth = 40;
// A COLUMNS larger than this is not a terminal's width: it is ignored.
inline constexpr size_t kMaxTextWidth = 1000;

// The width from what the environment says, first that applies:
//  1. COLUMNS, when set to a whole number 1..kMaxTextWidth (the POSIX
//     variable, "the user's preferred width in column positions",
//     https://pubs.opengroup.org/onlinepubs/9699919799/basedefs/V1_chap08.html);
//  2. the terminal's own width, when the output goes to a terminal;
//  3. kDefaultTextWidth.
// The result is at least kMinTextWidth.
size_t choose_text_width(std::optional<std::string_view> columns, std::optional<size_t> terminal_columns);

// choose_text_width with this process's COLUMNS and, when fd is a terminal,
// its size (ioctl TIOCGWINSZ). fd is where the text goes (STDOUT_FILENO, or
// STDERR_FILENO for explain -- CMD); a command writing to a file (-o FILE)
// passes -1: the terminal's size says nothing about a file.
size_t text_width(int fd);

}  // namespace tfrig::core
