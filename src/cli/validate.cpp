#include "cli/validate.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>
#include <vector>


#include "core/escape.h"
#include "core/i18n.h"
#include "core/text.h"
#include "core/units.h"
#include "core/version.h"

namespace tfrig::cli {

CLI::Validator finite_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        auto v = core::parse_double(text);
        if (!v || !std::isfinite(*v) || *v < lo || *v > hi) {
          return trf("value '{}' is not a number from {} to {}", text, lo, hi);
        }
        return {};
      },
      "");  // help's type column shows the type alone (the error message gives the range)
}

CLI::Validator whole_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
          return trf("value '{}' is not a whole number 0 or more", text);
        }
        return {};
      },
      "");
}

CLI::Validator whole_in(uint64_t lo, uint64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        uint64_t v = 0;
        const char* end = text.data() + text.size();
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        const auto parsed = digits ? std::from_chars(text.data(), end, v) : std::from_chars_result{text.data(), std::errc::invalid_argument};
        if (parsed.ec != std::errc() || parsed.ptr != end || v < lo || v > hi) {
          return trf("value '{}' is not a whole number from {} to {}", core::escape_bytes(text), lo, hi);
        }
        return {};
      },
      "");
}

CLI::Validator size_text(const std::string& example) {
  return CLI::Validator(
      [example](std::string& text) -> std::string {
        auto v = core::parse_size(text);
        if (!v || *v == 0) return trf("value '{}' is not a size such as {}", core::escape_bytes(text), example);
        return {};
      },
      "");
}

CLI::Validator version_text(const std::string& example) {
  return CLI::Validator(
      [example](std::string& text) -> std::string {
        if (!core::Version::parse(text)) return trf("'{}' is not a version; expected numbers such as {}", text, example);
        return {};
      },
      "");
}

core::Status known_tf_version(const knowledge::Knowledge& k, const std::string& option, const std::string& value) {
  std::string oldest, newest;
  std::optional<core::Version> lo, hi;
  for (const auto& b : k.tf_builds()) {
    auto v = core::Version::parse(b.tf);
    if (!v) continue;
    if (!lo || *v < *lo) {
      lo = v;
      oldest = b.tf;
    }
    if (!hi || *hi < *v) {
      hi = v;
      newest = b.tf;
    }
  }
  const std::string known = lo ? trf("tfrig knows TensorFlow {} to {}", oldest, newest) : _("tfrig knows none");
  auto v = core::Version::parse(value);
  if (!v) {
    return core::fail(core::ErrorCode::kInvalidArgument, option,
                      trf("'{}' is not a version; expected MAJOR.MINOR[.PATCH] such as {} ({})", value,
                          newest.empty() ? "2.16" : newest, known));
  }
  if (k.find_tf_build(*v) == nullptr) {
    return core::fail(core::ErrorCode::kInvalidArgument, option,
                      trf("TensorFlow {} is not in tfrig's knowledge ({}; --knowledge DIR adds newer facts)", value,
                          known));
  }
  return {};
}

// Levenshtein distance: insertions, deletions and substitutions of one byte.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::optional<std::string> unknown_command_message(const CLI::App& app, int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg == "--") return std::nullopt;
    if (!arg.empty() && arg.front() == '-') {
      // Global options that take a value in the next word.
      if (arg == "--root" || arg == "--knowledge" || arg == "--lang") ++i;
      continue;
    }
    std::string best;
    size_t best_distance = 3;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      if (sub->get_name() == arg) return std::nullopt;
      const size_t d = edit_distance(arg, sub->get_name());
      if (d < best_distance) {
        best_distance = d;
        best = sub->get_name();
      }
    }
    if (!best.empty()) {
      return trf("unknown command '{0}'; did you mean '{1}'? ('tfrig --help' lists the commands)", core::escape_bytes(std::string(arg)), best);
    }
    return trf("unknown command '{}' ('tfrig --help' lists the commands)", core::escape_bytes(std::string(arg)));
  }
  return std::nullopt;
}

}  // namespace tfrig::cli
