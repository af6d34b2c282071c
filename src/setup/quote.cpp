#include "setup/quote.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>

namespace tfrig::setup::quote {

namespace {

constexpr char kHex[] = "0123456789abcdef";

void append_byte_escape(std::string& out, unsigned char b) {
  out += "\\x";
  out += kHex[b >> 4];
  out += kHex[b & 0xf];
}

void append_code_point_escape(std::string& out, uint32_t cp) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 0xf];
}

// The length of the valid UTF-8 sequence at s[i] and its code point; 0 when
// the bytes there are not UTF-8 (overlong, surrogate, past U+10FFFF, cut).
size_t utf8_at(std::string_view s, size_t i, uint32_t& cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  size_t n = 0;
  uint32_t min = 0;
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  } else if ((b0 & 0xe0) == 0xc0) {
    n = 2, cp = b0 & 0x1fu, min = 0x80;
  } else if ((b0 & 0xf0) == 0xe0) {
    n = 3, cp = b0 & 0x0fu, min = 0x800;
  } else if ((b0 & 0xf8) == 0xf0) {
    n = 4, cp = b0 & 0x07u, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3fu);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

// Characters that are printable but move or hide text: line and paragraph
// separators (a line break to YAML and JavaScript), bidi embeddings, overrides
// and isolates ("Trojan Source", CVE-2021-42574), the BOM, and U+FFFE/U+FFFF
// (not allowed in YAML).
bool is_hidden_control(uint32_t cp) {
  return cp == 0x2028 || cp == 0x2029 || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff || cp == 0xfffe || cp == 0xffff;
}

bool all_of_set(std::string_view s, std::string_view extra) {
  for (char c : s) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && extra.find(c) == std::string_view::npos) return false;
  }
  return true;
}

std::string keep_set(std::string_view s, std::string_view extra) {
  std::string out;
  for (char c : s) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    out += alnum || extra.find(c) != std::string_view::npos ? c : '_';
  }
  return out;
}

// one_line(s) with each character of `special` preceded by a backslash.
std::string backslashed(std::string_view s, std::string_view special) {
  std::string out;
  for (char c : one_line(s)) {
    if (special.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string one_line(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t n = utf8_at(s, i, cp);
    if (n == 0) {
      append_byte_escape(out, static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    if (cp < 0x20 || cp == 0x7f) {
      append_byte_escape(out, static_cast<unsigned char>(cp));
    } else if ((cp >= 0x80 && cp <= 0x9f) || is_hidden_control(cp)) {
      append_code_point_escape(out, cp);
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  return out;
}

std::string comment(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\x5c";
    } else {
      out += c;
    }
  }
  return one_line(out);
}

std::string sh_word(std::string_view s) {
  const std::string v = one_line(s);
  if (!v.empty() && all_of_set(v, "_@%+=:,./-")) return v;
  return "'" + sh_in_single(v) + "'";
}

std::string sh_in_double(std::string_view s) { return backslashed(s, "\\\"$`"); }

std::string sh_in_single(std::string_view s) {
  std::string out;
  for (char c : one_line(s)) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out;
}

std::string py_literal(std::string_view s) { return "\"" + backslashed(s, "\\\"") + "\""; }

std::string py_in_double(std::string_view s) { return backslashed(s, "\\\""); }

std::string py_in_single(std::string_view s) { return backslashed(s, "\\'"); }

std::string py_code(std::string_view s) {
  if (s == "None") return "None";
  if (!s.empty() && s.size() <= 18 && all_of_set(s, "") &&
      s.find_first_not_of("0123456789") == std::string_view::npos) {
    return std::string(s);
  }
  return py_literal(s);
}

std::string yaml_in_double(std::string_view s) { return backslashed(s, "\\\""); }

std::string yaml_in_single(std::string_view s) {
  std::string out;
  for (char c : one_line(s)) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out;
}

std::string yaml_scalar(std::string_view s) {
  const std::string v = one_line(s);
  const bool plain = !v.empty() && v.front() != '.' && v.front() != '/' && v.front() != '_' && all_of_set(v, "._/-") &&
                     !(v.front() == '-' && v.size() == 1);
  return plain ? v : "\"" + yaml_in_double(v) + "\"";
}

std::string dockerfile_value(std::string_view s) {
  const std::string v = one_line(s);
  if (!v.empty() && v.front() != '-' && all_of_set(v, "._/:@+-")) return v;
  return "\"" + backslashed(v, "\\\"$") + "\"";
}

std::string env_value(std::string_view s) { return keep_set(one_line(s), "_.,:/=+@%-"); }

std::string conf_value(std::string_view s) { return keep_set(one_line(s), "_.,:/=+@%~-"); }

std::string json_in_string(std::string_view s) { return backslashed(s, "\\\""); }

namespace {

// Where a position of a template stands.
enum class Place { kCode, kDouble, kSingle, kComment, kHeredoc, kHeredocExpanding, kParameterWord };

bool word_boundary(char prev) {
  return prev == '\n' || prev == ' ' || prev == '\t' || prev == ';' || prev == '|' || prev == '&' || prev == '(' ||
         prev == ')';
}

// bash, as far as the templates use it: comments, '...', "...", $( ) and
// $(( )) nested in either, here-documents (quoted or not), here-strings.
class ShellLexer {
 public:
  Place place() const {
    if (in_heredoc_) return heredoc_quoted_ ? Place::kHeredoc : Place::kHeredocExpanding;
    if (comment_) return Place::kComment;
    if (single_) return Place::kSingle;
    const Frame& f = stack_.back();
    return f.kind == Frame::kDouble      ? Place::kDouble
           : f.kind == Frame::kParameter ? Place::kParameterWord
                                         : Place::kCode;
  }
  void token() { prev_ = 'A'; }
  // Consumes text[i] (and what belongs to it); returns how many characters.
  size_t feed(std::string_view text, size_t i) {
    const size_t n = step(text, i);
    prev_ = text[i + n - 1];
    return n;
  }

 private:
  struct Frame {
    enum Kind { kCode, kDouble, kParameter } kind = kCode;
    int depth = 0;  // the parentheses open in a $( ) frame, the braces in a ${ } one
  };

  size_t step(std::string_view text, size_t i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (in_heredoc_) {
      if (prev_ == '\n' || i == 0) {
        const size_t end = std::min(text.find('\n', i), text.size());
        if (text.substr(i, end - i) == heredoc_word_) {
          in_heredoc_ = false;
          return end - i;
        }
      }
      return 1;
    }
    if (comment_) {
      if (c == '\n') comment_ = false;
      return c == '\n' ? newline() : 1;
    }
    if (single_) {
      if (c == '\'') single_ = false;
      return 1;
    }
    Frame& f = stack_.back();
    if (f.kind != Frame::kCode) {
      if (c == '\\') return next ? 2 : 1;
      if (c == '"' && f.kind == Frame::kDouble) {
        stack_.pop_back();
        return 1;
      }
      if (c == '"') {  // "${X:-"word"}": a double-quoted string inside the parameter
        stack_.push_back({Frame::kDouble, 0});
        return 1;
      }
      if (c == '$' && (next == '(' || next == '{')) {
        stack_.push_back({next == '(' ? Frame::kCode : Frame::kParameter, 1});
        return 2;
      }
      if (f.kind == Frame::kParameter && c == '{') ++f.depth;
      if (f.kind == Frame::kParameter && c == '}' && --f.depth == 0) stack_.pop_back();
      return 1;
    }
    switch (c) {
      case '\\': return next ? 2 : 1;
      case '\'': single_ = true; return 1;
      case '"': stack_.push_back({Frame::kDouble, 0}); return 1;
      case '#':
        if (word_boundary(prev_)) comment_ = true;
        return 1;
      case '$':
        if (next == '(' || next == '{') {
          stack_.push_back({next == '(' ? Frame::kCode : Frame::kParameter, 1});
          return 2;
        }
        return 1;
      case '(':
        if (stack_.size() > 1) ++f.depth;
        return 1;
      case ')':
        if (stack_.size() > 1 && --f.depth == 0) stack_.pop_back();
        return 1;
      case '<': return here(text, i);
      case '\n': return newline();
      default: return 1;
    }
  }

  size_t newline() {
    if (heredoc_pending_) {
      heredoc_pending_ = false;
      in_heredoc_ = true;
    }
    return 1;
  }

  // "<<WORD", "<<-'WORD'", "<<\"WORD\"": the body starts at the next line; "<<<" is a here-string.
  size_t here(std::string_view text, size_t i) {
    if (text.substr(i, 3) == "<<<") return 3;
    if (text.substr(i, 2) != "<<") return 1;
    size_t j = i + 2;
    if (j < text.size() && text[j] == '-') ++j;
    while (j < text.size() && text[j] == ' ') ++j;
    heredoc_quoted_ = j < text.size() && (text[j] == '\'' || text[j] == '"');
    const char q = heredoc_quoted_ ? text[j++] : '\0';
    const size_t start = j;
    while (j < text.size() &&
           (heredoc_quoted_ ? text[j] != q : (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')))
      ++j;
    heredoc_word_ = std::string(text.substr(start, j - start));
    if (heredoc_quoted_ && j < text.size()) ++j;
    heredoc_pending_ = !heredoc_word_.empty();
    return j - i;
  }

  std::vector<Frame> stack_{Frame{}};  // the bottom frame is the script's code
  bool single_ = false, comment_ = false;
  bool heredoc_pending_ = false, in_heredoc_ = false, heredoc_quoted_ = false;
  std::string heredoc_word_;
  char prev_ = '\n';
};

// Python: comments, '...', "...", and their triple-quoted forms.
class PythonLexer {
 public:
  Place place() const {
    return comment_ ? Place::kComment : quote_ == '"' ? Place::kDouble : quote_ ? Place::kSingle : Place::kCode;
  }
  void token() {}
  size_t feed(std::string_view text, size_t i) {
    const char c = text[i];
    if (comment_) {
      if (c == '\n') comment_ = false;
      return 1;
    }
    if (quote_) {
      if (c == '\\') return i + 1 < text.size() ? 2 : 1;
      if (triple_ && text.substr(i, 3) == std::string(3, quote_)) {
        quote_ = '\0';
        return 3;
      }
      if (!triple_ && (c == quote_ || c == '\n')) quote_ = '\0';
      return 1;
    }
    if (c == '#') {
      comment_ = true;
      return 1;
    }
    if (c == '"' || c == '\'') {
      quote_ = c;
      triple_ = text.substr(i, 3) == std::string(3, c);
      return triple_ ? 3 : 1;
    }
    return 1;
  }

 private:
  bool comment_ = false, triple_ = false;
  char quote_ = '\0';
};

// YAML, block style as compose.yaml uses it: comments, "...", '...'.
class YamlLexer {
 public:
  Place place() const {
    return comment_ ? Place::kComment : quote_ == '"' ? Place::kDouble : quote_ ? Place::kSingle : Place::kCode;
  }
  void token() { prev_ = 'A'; }
  size_t feed(std::string_view text, size_t i) {
    const char c = text[i];
    const size_t n = step(text, i);
    prev_ = c;
    return n;
  }

 private:
  size_t step(std::string_view text, size_t i) {
    const char c = text[i];
    if (comment_) {
      if (c == '\n') comment_ = false;
      return 1;
    }
    if (quote_ == '"') {
      if (c == '\\') return i + 1 < text.size() ? 2 : 1;
      if (c == '"') quote_ = '\0';
      return 1;
    }
    if (quote_ == '\'') {
      if (c == '\'' && i + 1 < text.size() && text[i + 1] == '\'') return 2;
      if (c == '\'') quote_ = '\0';
      return 1;
    }
    if (c == '#' && (prev_ == '\n' || prev_ == ' ' || prev_ == '\t')) comment_ = true;
    if (c == '"' || c == '\'') quote_ = c;
    return 1;
  }
  bool comment_ = false;
  char quote_ = '\0';
  char prev_ = '\n';
};

// Line formats (Dockerfile, env, conf): a line whose first non-blank
// character is "#" is a comment; anything else is a value.
class LineLexer {
 public:
  Place place() const { return comment_ ? Place::kComment : Place::kCode; }
  void token() { line_start_ = false; }
  size_t feed(std::string_view text, size_t i) {
    const char c = text[i];
    if (c == '\n') {
      line_start_ = true;
      comment_ = false;
    } else if (line_start_ && c == '#') {
      comment_ = true;
      line_start_ = false;
    } else if (c != ' ' && c != '\t') {
      line_start_ = false;
    }
    return 1;
  }

 private:
  bool line_start_ = true, comment_ = false;
};

// JSON: inside a string or not.
class JsonLexer {
 public:
  Place place() const { return in_string_ ? Place::kDouble : Place::kCode; }
  void token() {}
  size_t feed(std::string_view text, size_t i) {
    const char c = text[i];
    if (in_string_ && c == '\\') return i + 1 < text.size() ? 2 : 1;
    if (c == '"') in_string_ = !in_string_;
    return 1;
  }

 private:
  bool in_string_ = false;
};

std::string quoted(Lang lang, Place place, std::string_view v) {
  if (place == Place::kComment) return comment(v);
  switch (lang) {
    case Lang::kShell:
      switch (place) {
        case Place::kDouble:
        case Place::kHeredocExpanding: return sh_in_double(v);
        case Place::kSingle: return sh_in_single(v);
        case Place::kHeredoc: return one_line(v);
        case Place::kParameterWord: {
          // The word of ${X:-word}: bash parses quotes in it even inside "...", so
          // anything but a plain word goes in as a nested "..." (bash 5: literal).
          const std::string word = sh_word(v);
          return word.front() == '\'' ? "\"" + sh_in_double(v) + "\"" : word;
        }
        default: return sh_word(v);
      }
    case Lang::kPython:
      return place == Place::kCode ? py_code(v) : place == Place::kSingle ? py_in_single(v) : py_in_double(v);
    case Lang::kYaml:
      return place == Place::kDouble ? yaml_in_double(v) : place == Place::kSingle ? yaml_in_single(v) : yaml_scalar(v);
    case Lang::kDockerfile: return dockerfile_value(v);
    case Lang::kEnv: return env_value(v);
    case Lang::kConf: return conf_value(v);
    case Lang::kJson: return place == Place::kDouble ? json_in_string(v) : "\"" + json_in_string(v) + "\"";
  }
  return one_line(v);
}

template <typename Lexer>
std::string fill_with(std::string_view text, const std::map<std::string, std::string, std::less<>>& values, Lang lang) {
  Lexer lexer;
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '@') {
      size_t j = i + 1;
      while (j < text.size() &&
             ((text[j] >= 'A' && text[j] <= 'Z') || (text[j] >= '0' && text[j] <= '9') || text[j] == '_'))
        ++j;
      if (j > i + 1 && j < text.size() && text[j] == '@') {
        auto it = values.find(text.substr(i + 1, j - i - 1));
        if (it != values.end()) {
          out += quoted(lang, lexer.place(), it->second);
          lexer.token();
          i = j + 1;
          continue;
        }
      }
    }
    const size_t n = lexer.feed(text, i);
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

}  // namespace

std::string fill(std::string_view text, const Values& values, Lang lang) {
  std::map<std::string, std::string, std::less<>> map;
  for (const auto& [k, v] : values) map.emplace(k, v);
  switch (lang) {
    case Lang::kShell: return fill_with<ShellLexer>(text, map, lang);
    case Lang::kPython: return fill_with<PythonLexer>(text, map, lang);
    case Lang::kYaml: return fill_with<YamlLexer>(text, map, lang);
    case Lang::kJson: return fill_with<JsonLexer>(text, map, lang);
    case Lang::kDockerfile:
    case Lang::kEnv:
    case Lang::kConf: return fill_with<LineLexer>(text, map, lang);
  }
  return std::string(text);
}

}  // namespace tfrig::setup::quote
