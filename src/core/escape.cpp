#include "core/escape.h"
#include "core/terminal_text.h"

namespace tfrig::core {

namespace {

// Length of the well-formed UTF-8 sequence starting at s[i], or 0.
size_t utf8_sequence_length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t len = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // allowed range of the second byte (Unicode 15, table 3-7)
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;  // no UTF-16 surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
  }
  return len;
}

void append_hex_escape(std::string& out, unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 15];
}

// Length of an SGR sequence tfrig paints with at s[i] (ESC [ n m with n one
// of 0, 1, 2, 31, 32, 33, 36), or 0: only these colour a report.
size_t own_sgr_length(std::string_view s, size_t i) {
  static constexpr std::string_view kOwn[] = {"\x1b[0m",  "\x1b[1m",  "\x1b[2m", "\x1b[31m",
                                              "\x1b[32m", "\x1b[33m", "\x1b[36m"};
  for (std::string_view sgr : kOwn) {
    if (s.substr(i, sgr.size()) == sgr) return sgr.size();
  }
  return 0;
}

// A well-formed sequence the terminal must not receive as it is: C1 controls
// (C2 80..C2 9F) and the bidi embeddings, overrides and isolates.
bool is_terminal_control_sequence(std::string_view seq) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(seq[k]); };
  if (seq.size() == 2) return b(0) == 0xc2 && b(1) <= 0x9f;
  if (seq.size() == 3 && b(0) == 0xe2) {
    if (b(1) == 0x80 && b(2) >= 0xaa && b(2) <= 0xae) return true;  // U+202A..U+202E
    if (b(1) == 0x81 && b(2) >= 0xa6 && b(2) <= 0xa9) return true;  // U+2066..U+2069
  }
  return false;
}

std::string escape_for_terminal(std::string_view s, bool keep_colour, bool one_line) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0x1b && keep_colour) {
      if (const size_t n = own_sgr_length(s, i); n > 0) {
        out.append(s.substr(i, n));
        i += n;
        continue;
      }
    }
    const bool kept_space = (c == '\t' || c == '\n') && !one_line;
    const size_t n = utf8_sequence_length(s, i);
    if (n == 0 || (c < 0x20 && !kept_space) || c == 0x7f) {
      append_hex_escape(out, c);
      ++i;
      continue;
    }
    const std::string_view seq = s.substr(i, n);
    if (n > 1 && is_terminal_control_sequence(seq)) {
      for (unsigned char b : seq) append_hex_escape(out, b);
    } else {
      out.append(seq);
    }
    i += n;
  }
  return out;
}

}  // namespace

std::string terminal_text(std::string_view s, bool keep_colour) { return escape_for_terminal(s, keep_colour, false); }

std::string terminal_line(std::string_view s) { return escape_for_terminal(s, true, true); }

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string escape_bytes(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = utf8_sequence_length(s, i);
    if (n == 0 || (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) {
      append_hex_escape(out, c);
      ++i;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

std::string hex_bytes(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() * 2);
  for (unsigned char c : s) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

}  // namespace tfrig::core
