#include "explain/log_reader.h"

namespace tfrig::explain {

void LineSplitter::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const size_t nl = bytes.find('\n');
    const std::string_view part = bytes.substr(0, nl);
    if (!overflow_) {
      const size_t room = kMaxLineBytes - line_.size();
      if (part.size() > room) {
        line_.append(part.substr(0, room));
        overflow_ = true;
      } else {
        line_.append(part);
      }
    }
    if (nl == std::string_view::npos) return;
    emit();
    bytes.remove_prefix(nl + 1);
  }
}

void LineSplitter::finish() {
  if (!line_.empty() || overflow_) emit();
}

void LineSplitter::emit() {
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  if (overflow_) ++truncated_;
  on_line_(line_);
  line_.clear();
  overflow_ = false;
}

std::string clean_text(std::string_view s, size_t max_bytes) {
  std::string out;
  size_t i = 0;
  while (i < s.size() && out.size() < max_bytes) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out += (c < 0x20 && c != '\t') || c == 0x7f ? ' ' : static_cast<char>(c);
      ++i;
      continue;
    }
    // The length of a well-formed UTF-8 sequence (RFC 3629: no overlongs, no surrogates, <= U+10FFFF).
    size_t len = 0;
    if (c >= 0xc2 && c <= 0xdf)
      len = 2;
    else if (c >= 0xe0 && c <= 0xef)
      len = 3;
    else if (c >= 0xf0 && c <= 0xf4)
      len = 4;
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    if (ok && len >= 3) {
      const auto c1 = static_cast<unsigned char>(s[i + 1]);
      if (c == 0xe0 && c1 < 0xa0) ok = false;
      if (c == 0xed && c1 >= 0xa0) ok = false;
      if (c == 0xf0 && c1 < 0x90) ok = false;
      if (c == 0xf4 && c1 >= 0x90) ok = false;
    }
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += "\xef\xbf\xbd";
      ++i;
    }
  }
  if (i < s.size()) out += "...";
  return out;
}

}  // namespace tfrig::explain
