#include "importer/text_encoding.h"

#include <cstdint>

namespace tfrig::importer {

namespace {

enum class Order { kLittle, kBig };

std::optional<Order> utf16_order(std::string_view b) {
  if (b.size() >= 2 && static_cast<unsigned char>(b[0]) == 0xFF && static_cast<unsigned char>(b[1]) == 0xFE)
    return Order::kLittle;
  if (b.size() >= 2 && static_cast<unsigned char>(b[0]) == 0xFE && static_cast<unsigned char>(b[1]) == 0xFF)
    return Order::kBig;
  // No BOM: ASCII text in UTF-16 has a zero in every other byte. Ask for a
  // whole sample of it so that binary data is not taken for text.
  const size_t n = std::min<size_t>(b.size(), 64) & ~size_t{1};
  if (n < 16) return std::nullopt;
  bool little = true, big = true;
  for (size_t i = 0; i < n; i += 2) {
    const auto lo = static_cast<unsigned char>(b[i]), hi = static_cast<unsigned char>(b[i + 1]);
    little = little && hi == 0 && lo >= 0x09 && lo < 0x7F;
    big = big && lo == 0 && hi >= 0x09 && hi < 0x7F;
  }
  if (little) return Order::kLittle;
  if (big) return Order::kBig;
  return std::nullopt;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

std::optional<std::string> utf16_to_utf8(std::string_view bytes) {
  const auto order = utf16_order(bytes);
  if (!order) return std::nullopt;
  size_t i = 0;
  if (bytes.size() >= 2) {
    const auto b0 = static_cast<unsigned char>(bytes[0]), b1 = static_cast<unsigned char>(bytes[1]);
    if ((b0 == 0xFF && b1 == 0xFE) || (b0 == 0xFE && b1 == 0xFF)) i = 2;
  }
  auto unit = [&](size_t at) -> uint32_t {
    const auto a = static_cast<unsigned char>(bytes[at]), b = static_cast<unsigned char>(bytes[at + 1]);
    return *order == Order::kLittle ? (uint32_t{b} << 8 | a) : (uint32_t{a} << 8 | b);
  };
  std::string out;
  out.reserve(bytes.size() / 2);
  constexpr uint32_t kReplacement = 0xFFFD;
  while (i + 1 < bytes.size()) {
    uint32_t u = unit(i);
    i += 2;
    if (u >= 0xD800 && u <= 0xDBFF) {
      if (i + 1 < bytes.size()) {
        const uint32_t low = unit(i);
        if (low >= 0xDC00 && low <= 0xDFFF) {
          i += 2;
          append_utf8(out, 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00));
          continue;
        }
      }
      u = kReplacement;
    } else if (u >= 0xDC00 && u <= 0xDFFF) {
      u = kReplacement;
    }
    if (u == '\r' && i + 1 < bytes.size() && unit(i) == '\n') continue;  // CRLF -> LF
    append_utf8(out, u);
  }
  return out;
}

}  // namespace tfrig::importer
