#include "core/units.h"

#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/text.h"

namespace tfrig::core {

namespace {
std::string scaled(double value, double base, const char* const* names, int count) {
  int i = 0;
  while (std::fabs(value) >= base && i + 1 < count) {
    value /= base;
    ++i;
  }
  int digits = (i == 0 || std::fabs(value) >= 100) ? 0 : 1;
  // 1023.96 KiB would print as "1024 KiB": show it as the next unit instead.
  const double shown = std::round(value * std::pow(10.0, digits)) / std::pow(10.0, digits);
  if (std::fabs(shown) >= base && i + 1 < count) {
    value /= base;
    ++i;
    digits = 1;
  }
  return fmt::format("{:.{}f} {}", value, digits, names[i]);
}
}  // namespace

std::string format_bytes_binary(uint64_t bytes) {
  static const char* const kNames[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  return scaled(static_cast<double>(bytes), 1024.0, kNames, 7);
}

std::string format_bytes_decimal(uint64_t bytes) {
  static const char* const kNames[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  return scaled(static_cast<double>(bytes), 1000.0, kNames, 7);
}

std::string format_rate(double bytes_per_second) {
  static const char* const kNames[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
  return scaled(bytes_per_second, 1000.0, kNames, 5);
}

std::string format_transfer_rate(double gts) {
  if (gts == std::floor(gts)) return fmt::format("{:.0f} GT/s", gts);
  return fmt::format("{:.1f} GT/s", gts);
}

std::string format_seconds(double seconds) {
  // Translated: a Chinese report says "1507.26 秒"; JSON is written in English unless --lang asks.
  if (seconds < 1e-3) return trf("{:.0f} us", seconds * 1e6);
  if (seconds < 1.0) return trf("{:.1f} ms", seconds * 1e3);
  return trf("{:.2f} s", seconds);
}

core::Message seconds_message(double seconds) {
  if (seconds < 1e-3) return core::Message(N_("{:.0f} us"), seconds * 1e6);
  if (seconds < 1.0) return core::Message(N_("{:.1f} ms"), seconds * 1e3);
  return core::Message(N_("{:.2f} s"), seconds);
}

Result<uint64_t> parse_size(std::string_view text) {
  std::string_view s = trim(text);
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  auto number = parse_double(s.substr(0, i));
  if (!number || *number < 0) {
    return fail(ErrorCode::kInvalidArgument, std::string(text), _("expected a size such as 200MB, 1GiB or 4096"));
  }
  std::string unit = to_lower(trim(s.substr(i)));
  double mult = 1;
  if (unit.empty() || unit == "b")
    mult = 1;
  else if (unit == "k" || unit == "kib")
    mult = 1024.0;
  else if (unit == "kb")
    mult = 1e3;
  else if (unit == "m" || unit == "mib")
    mult = 1024.0 * 1024;
  else if (unit == "mb")
    mult = 1e6;
  else if (unit == "g" || unit == "gib")
    mult = 1024.0 * 1024 * 1024;
  else if (unit == "gb")
    mult = 1e9;
  else if (unit == "t" || unit == "tib")
    mult = 1024.0 * 1024 * 1024 * 1024;
  else if (unit == "tb")
    mult = 1e12;
  else
    return fail(ErrorCode::kInvalidArgument, std::string(text),
                trf("unknown size unit '{}' (use B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)", unit));
  double bytes = *number * mult;
  if (bytes >= 1.8e19) return fail(ErrorCode::kInvalidArgument, std::string(text), _("size too large"));
  return static_cast<uint64_t>(std::llround(bytes));
}

}  // namespace tfrig::core
