#include "core/display_width.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <vector>

#include "core/text.h"
#include "core/text_width.h"

namespace tfrig::core {

namespace {

struct Range {
  char32_t first;
  char32_t last;
};

// Zero columns: combining marks (General_Category Mn/Me) of the scripts a
// report can contain, zero-width format characters (ZWSP..RLM, word joiner,
// BOM), variation selectors and the Hangul medial/final jamo that join the
// preceding syllable. Source: Unicode Character Database 15.0,
// https://www.unicode.org/Public/15.0.0/ucd/UnicodeData.txt (categories Mn, Me, Cf).
constexpr Range kZeroWidth[] = {
    {0x0300, 0x036F},   {0x0483, 0x0489},   {0x0591, 0x05BD},   {0x05BF, 0x05BF},   {0x05C1, 0x05C2},
    {0x05C4, 0x05C5},   {0x05C7, 0x05C7},   {0x0610, 0x061A},   {0x064B, 0x065F},   {0x0670, 0x0670},
    {0x06D6, 0x06DC},   {0x06DF, 0x06E4},   {0x06E7, 0x06E8},   {0x06EA, 0x06ED},   {0x0900, 0x0902},
    {0x093A, 0x093A},   {0x093C, 0x093C},   {0x0941, 0x0948},   {0x094D, 0x094D},   {0x0951, 0x0957},
    {0x0E31, 0x0E31},   {0x0E34, 0x0E3A},   {0x0E47, 0x0E4E},   {0x1160, 0x11FF},   {0x1AB0, 0x1AFF},
    {0x1DC0, 0x1DFF},   {0x200B, 0x200F},   {0x202A, 0x202E},   {0x2060, 0x2064},   {0x20D0, 0x20F0},
    {0x302A, 0x302D},   {0x3099, 0x309A},   {0xD7B0, 0xD7FF},   {0xFE00, 0xFE0F},   {0xFE20, 0xFE2F},
    {0xFEFF, 0xFEFF},   {0x1D167, 0x1D169}, {0x1D173, 0x1D182}, {0xE0001, 0xE0001}, {0xE0020, 0xE007F},
    {0xE0100, 0xE01EF},
};

// Two columns: East_Asian_Width W (wide) and F (fullwidth). Source: Unicode
// Standard Annex #11 "East Asian Width" (https://www.unicode.org/reports/tr11/)
// and its data file https://www.unicode.org/Public/15.0.0/ucd/EastAsianWidth.txt,
// adjacent W/F ranges merged and unassigned gaps inside CJK blocks included
// (a terminal draws them wide too).
constexpr Range kWide[] = {
    {0x1100, 0x115F},   {0x231A, 0x231B},   {0x2329, 0x232A},   {0x23E9, 0x23EC},   {0x23F0, 0x23F0},
    {0x23F3, 0x23F3},   {0x25FD, 0x25FE},   {0x2614, 0x2615},   {0x2648, 0x2653},   {0x267F, 0x267F},
    {0x2693, 0x2693},   {0x26A1, 0x26A1},   {0x26AA, 0x26AB},   {0x26BD, 0x26BE},   {0x26C4, 0x26C5},
    {0x26CE, 0x26CE},   {0x26D4, 0x26D4},   {0x26EA, 0x26EA},   {0x26F2, 0x26F3},   {0x26F5, 0x26F5},
    {0x26FA, 0x26FA},   {0x26FD, 0x26FD},   {0x2705, 0x2705},   {0x270A, 0x270B},   {0x2728, 0x2728},
    {0x274C, 0x274C},   {0x274E, 0x274E},   {0x2753, 0x2755},   {0x2757, 0x2757},   {0x2795, 0x2797},
    {0x27B0, 0x27B0},   {0x27BF, 0x27BF},   {0x2B1B, 0x2B1C},   {0x2B50, 0x2B50},   {0x2B55, 0x2B55},
    {0x2E80, 0x303E},   {0x3041, 0x3247},   {0x3250, 0x4DBF},   {0x4E00, 0xA4CF},   {0xA960, 0xA97F},
    {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},   {0xFE10, 0xFE19},   {0xFE30, 0xFE6F},   {0xFF00, 0xFF60},
    {0xFFE0, 0xFFE6},   {0x16FE0, 0x16FE4}, {0x16FF0, 0x16FF1}, {0x17000, 0x18CFF}, {0x18D00, 0x18D08},
    {0x1AFF0, 0x1B2FF}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF}, {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A},
    {0x1F200, 0x1F202}, {0x1F210, 0x1F23B}, {0x1F240, 0x1F248}, {0x1F250, 0x1F251}, {0x1F260, 0x1F265},
    {0x1F300, 0x1F320}, {0x1F32D, 0x1F335}, {0x1F337, 0x1F37C}, {0x1F37E, 0x1F393}, {0x1F3A0, 0x1F3CA},
    {0x1F3CF, 0x1F3D3}, {0x1F3E0, 0x1F3F0}, {0x1F3F4, 0x1F3F4}, {0x1F3F8, 0x1F43E}, {0x1F440, 0x1F440},
    {0x1F442, 0x1F4FC}, {0x1F4FF, 0x1F53D}, {0x1F54B, 0x1F54E}, {0x1F550, 0x1F567}, {0x1F57A, 0x1F57A},
    {0x1F595, 0x1F596}, {0x1F5A4, 0x1F5A4}, {0x1F5FB, 0x1F64F}, {0x1F680, 0x1F6C5}, {0x1F6CC, 0x1F6CC},
    {0x1F6D0, 0x1F6D2}, {0x1F6D5, 0x1F6D7}, {0x1F6DC, 0x1F6DF}, {0x1F6EB, 0x1F6EC}, {0x1F6F4, 0x1F6FC},
    {0x1F7E0, 0x1F7EB}, {0x1F7F0, 0x1F7F0}, {0x1F90C, 0x1F93A}, {0x1F93C, 0x1F945}, {0x1F947, 0x1F9FF},
    {0x1FA70, 0x1FA7C}, {0x1FA80, 0x1FA88}, {0x1FA90, 0x1FABD}, {0x1FABF, 0x1FAC5}, {0x1FACE, 0x1FADB},
    {0x1FAE0, 0x1FAE8}, {0x1FAF0, 0x1FAF8}, {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD},
};

template <size_t N>
bool in(const Range (&table)[N], char32_t cp) {
  const auto* it =
      std::upper_bound(std::begin(table), std::end(table), cp, [](char32_t c, const Range& r) { return c < r.first; });
  if (it == std::begin(table)) return false;
  --it;
  return cp <= it->last;
}

// U+FFFD, what a terminal draws for a byte that is not UTF-8: one column.
constexpr char32_t kReplacement = 0xFFFD;

// One code point from s at i (advances i); a malformed byte is one U+FFFD,
// so it still takes a column and the rest of the text decodes.
char32_t next_codepoint(std::string_view s, size_t& i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || i + len > s.size()) {
    ++i;
    return kReplacement;
  }
  char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < len; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) {
      ++i;
      return kReplacement;
    }
    cp = (cp << 6) | (cc & 0x3F);
  }
  i += len;
  return cp;
}

// ESC [ ... m (a colour) takes no room; returns the index after it.
size_t skip_ansi(std::string_view s, size_t i) {
  while (i < s.size() && s[i] != 'm') ++i;
  return i < s.size() ? i + 1 : i;
}

// Closing punctuation that must not start a line (the Chinese line-breaking
// rule, W3C "Requirements for Chinese Text Layout" section 3.1.7).
bool no_break_before(char32_t cp) {
  switch (cp) {
    case U'，':
    case U'。':
    case U'、':
    case U'：':
    case U'；':
    case U'！':
    case U'？':
    case U'）':
    case U'」':
    case U'』':
    case U'】':
    case U'》':
    case U'”':
    case U'’':
    case U'.':
    case U',':
    case U':':
    case U';':
    case U')':
    case U'!':
    case U'?': return true;
    default: return false;
  }
}

// Opening punctuation that must not end a line (the same rule): it is glued to
// what follows it.
bool no_break_after(char32_t cp) {
  switch (cp) {
    case U'（':
    case U'「':
    case U'『':
    case U'【':
    case U'《':
    case U'“':
    case U'‘': return true;
    default: return false;
  }
}

}  // namespace

int codepoint_width(char32_t cp) {
  if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0)) return 0;  // controls print nothing
  if (in(kZeroWidth, cp)) return 0;
  if (in(kWide, cp)) return 2;
  return 1;
}

size_t display_width(std::string_view s) {
  size_t width = 0;
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '\x1b') {
      i = skip_ansi(s, i);
      continue;
    }
    width += static_cast<size_t>(codepoint_width(next_codepoint(s, i)));
  }
  return width;
}

std::string pad_right(std::string_view text, size_t width) {
  std::string out(text);
  const size_t w = display_width(text);
  if (w < width) out.append(width - w, ' ');
  return out;
}

namespace {

// wrap_display with the first line starting at first_column (the further
// lines at the indent's width).
std::string wrap_from(std::string_view text, size_t width, std::string_view indent, size_t first_column) {
  // Units that may not be split: a run of narrow characters, or one wide
  // character (with any closing punctuation glued to it). `spaces`: how many
  // spaces come before the unit when it is not at the start of a line (a run
  // of two, as in "value  (source)", stays two).
  struct Unit {
    std::string text;
    size_t width = 0;
    size_t spaces = 0;
  };
  std::vector<Unit> units;
  size_t pending_spaces = 0;
  bool last_wide = false;
  bool last_opening = false;
  for (size_t i = 0; i < text.size();) {
    if (text[i] == ' ') {
      ++pending_spaces;
      ++i;
      continue;
    }
    const size_t start = i;
    int w = 0;
    if (text[i] == '\x1b') {
      i = skip_ansi(text, i);
    } else {
      const char32_t cp = next_codepoint(text, i);
      w = codepoint_width(cp);
      const bool glue = !units.empty() && pending_spaces == 0 &&
                        (no_break_before(cp) || w == 0 || last_opening || (!last_wide && w != 2));
      if (!glue) {
        units.push_back(Unit{{}, 0, pending_spaces});
      }
      last_wide = w == 2;
      last_opening = no_break_after(cp);
    }
    if (units.empty()) units.push_back(Unit{{}, 0, pending_spaces});
    units.back().text.append(text.substr(start, i - start));
    units.back().width += static_cast<size_t>(w);
    pending_spaces = 0;
  }
  std::string out;
  const size_t start_col = display_width(indent);
  size_t line_start = first_column;  // where the current line's text begins
  size_t col = first_column;
  // One space at a time, as the report's wrapping always did: each extra space
  // of a run is placed (or breaks the line) on its own, so English output
  // stays byte for byte what it was.
  auto place = [&](std::string_view piece, size_t piece_width, bool spaced) {
    if (col > line_start && col + (spaced ? 1 : 0) + piece_width > width) {
      out += "\n";
      out += indent;
      col = line_start = start_col;
    } else if (col > line_start && spaced) {
      out += ' ';
      ++col;
    }
    out += piece;
    col += piece_width;
  };
  for (const auto& u : units) {
    for (size_t k = 1; k < u.spaces; ++k) place("", 0, true);
    place(u.text, u.width, u.spaces > 0);
  }
  return out;
}

}  // namespace

std::string wrap_display(std::string_view text, size_t width, std::string_view indent) {
  return wrap_from(text, width, indent, display_width(indent));
}

std::string wrap_hanging(std::string_view prefix, std::string_view text, size_t width) {
  return std::string(prefix) + wrap_display(text, width, std::string(display_width(prefix), ' '));
}

std::string wrap_lines(std::string_view text, size_t width) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    const bool newline = end != std::string_view::npos;
    if (!newline) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (display_width(line) <= width) {
      out += line;
    } else {
      // The hanging part: leading spaces, then a list marker when there is one.
      // Without a marker the further lines go two columns deeper than the
      // first, so they read as its continuation.
      size_t body = line.find_first_not_of(' ');
      if (body == std::string_view::npos) body = line.size();
      const std::string_view rest = line.substr(body);
      size_t marker = 0;
      if (rest.size() >= 2 && (rest[0] == '-' || rest[0] == '*') && rest[1] == ' ') {
        marker = 2;
      } else {
        size_t d = 0;
        while (d < rest.size() && rest[d] >= '0' && rest[d] <= '9') ++d;
        if (d > 0 && d + 1 < rest.size() && (rest[d] == '.' || rest[d] == ')') && rest[d + 1] == ' ') marker = d + 2;
      }
      const std::string indent(body + (marker > 0 ? marker : 2), ' ');
      const std::string_view head = line.substr(0, body + marker);
      out += std::string(head) + wrap_from(line.substr(body + marker), width, indent, display_width(head));
    }
    if (newline) out += '\n';
    start = end + 1;
  }
  return out;
}

std::string_view gap_after_label(std::string_view label) {
  constexpr std::string_view kFullWidthColon = "\xEF\xBC\x9A";  // U+FF1A
  return label.size() >= kFullWidthColon.size() &&
                 label.substr(label.size() - kFullWidthColon.size()) == kFullWidthColon
             ? ""
             : " ";
}

// The output width (core/text_width.h), here beside the widths it bounds: a
// file of its own would shift the unity batches.
size_t choose_text_width(std::optional<std::string_view> columns, std::optional<size_t> terminal_columns) {
  size_t width = kDefaultTextWidth;
  const std::optional<uint64_t> asked = columns ? parse_u64(trim(*columns)) : std::nullopt;
  if (asked && *asked >= 1 && *asked <= kMaxTextWidth) {
    width = static_cast<size_t>(*asked);
  } else if (terminal_columns && *terminal_columns > 0) {
    width = *terminal_columns;
  }
  return std::max(width, kMinTextWidth);
}

size_t text_width(int fd) {
  const char* env = std::getenv("COLUMNS");
  std::optional<std::string_view> columns;
  if (env != nullptr) columns = std::string_view(env);
  std::optional<size_t> terminal;
  if (fd >= 0 && ::isatty(fd) == 1) {
    winsize ws{};
    if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) terminal = ws.ws_col;
  }
  return choose_text_width(columns, terminal);
}

}  // namespace tfrig::core
