// The one escaping step between foreign bytes and a terminal (stdout in a
// text format, stderr): docs/architecture.md "Text for the terminal passes
// one escaping step". Implemented next to escape_bytes (core/escape.cpp).
#pragma once

#include <string>
#include <string_view>

namespace tfrig::core {

// Text on its way to the terminal (stdout in a text format, stderr): the one
// escaping step between foreign bytes and a terminal, so that a GPU name, a
// file name or a log line can never move the cursor, set the window title
// (OSC), clear the screen, rewrite a line (CR) or hide text. On top of
// escape_bytes it writes the C1 controls (U+0080..U+009F, which some
// terminals obey as ESC-sequences) and the Unicode bidirectional overrides
// and isolates (U+202A..U+202E, U+2066..U+2069, "Trojan Source") as "\xNN"
// of their bytes. Tab and newline are kept. With keep_colour, the Select
// Graphic Rendition sequences tfrig itself paints with (ESC [ 0/1/2/31/32/33/36 m)
// pass; any other ESC, and those too without keep_colour, become "\x1b".
std::string terminal_text(std::string_view s, bool keep_colour);

// One value on one line of a text report (a table cell, a field, a finding's
// message): as terminal_text, and tab, newline and CR are escaped too, so a
// value cannot forge a line of its own. tfrig's colour sequences pass: the
// renderer's final terminal_text decides whether colour stays.
std::string terminal_line(std::string_view s);

}  // namespace tfrig::core
