// Outside bytes (file and folder names, CSV labels, Example keys and values,
// anything read from a file the user gave) on their way to JSON or the
// terminal. JSON requires valid UTF-8 (nlohmann::json throws on anything
// else) and a terminal must not receive control sequences from a file name,
// so every such place goes through escape_bytes: one rendering everywhere.
#pragma once

#include <string>
#include <string_view>

namespace tfrig::core {

// True when s is well-formed UTF-8 (RFC 3629: no overlongs, no surrogates,
// nothing above U+10FFFF).
bool is_valid_utf8(std::string_view s);

// Valid UTF-8 text is kept as it is; each byte of an invalid sequence, each
// C0 control character other than tab and newline, and DEL become "\xNN"
// (lower-case hex). A backslash stays a backslash: the escaping is for
// reading, the exact bytes are kept where they matter (shards, *_hex fields).
std::string escape_bytes(std::string_view s);

// Lower-case hex of every byte ("ff fe" -> "fffe").
std::string hex_bytes(std::string_view s);

}  // namespace tfrig::core
