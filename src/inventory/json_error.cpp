#include "inventory/json_error.h"

#include <optional>

#include "core/i18n.h"

namespace tfrig::inventory {

namespace {

// "[json.exception.type_error.302] (/a/b) rest" -> {"type_error.302", "/a/b", "rest"}.
struct Parts {
  std::string id;
  std::string path;
  std::string text;
};

std::optional<Parts> split(std::string_view what) {
  constexpr std::string_view kPrefix = "[json.exception.";
  if (what.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const size_t close = what.find("] (", kPrefix.size());
  if (close == std::string_view::npos) return std::nullopt;
  const size_t path_end = what.find(") ", close + 3);
  if (path_end == std::string_view::npos) return std::nullopt;
  return Parts{std::string(what.substr(kPrefix.size(), close - kPrefix.size())),
               std::string(what.substr(close + 3, path_end - close - 3)), std::string(what.substr(path_end + 2))};
}

// The text after `prefix` up to `suffix` (suffix empty: to the end), when text has that shape.
std::optional<std::string> between(std::string_view text, std::string_view prefix, std::string_view suffix) {
  if (text.substr(0, prefix.size()) != prefix) return std::nullopt;
  text.remove_prefix(prefix.size());
  if (suffix.empty()) return std::string(text);
  const size_t at = text.find(suffix);
  if (at == std::string_view::npos) return std::nullopt;
  return std::string(text.substr(0, at));
}

}  // namespace

std::string json_error_text(std::string_view what) {
  auto p = split(what);
  if (!p) return std::string(what);
  const std::string& id = p->id;
  const std::string& path = p->path;
  const std::string_view text = p->text;
  // nlohmann's: "type must be number, but is string" (JSON type names stay as they are).
  if (auto want = between(text, "type must be ", ", but is ")) {
    const std::string got(text.substr(13 + want->size() + 9));
    // TRANSLATORS: a snapshot's JSON error; {1} is the JSON path, {2} and {3} JSON type names (number, string, ...).
    return trf("[json.exception.{0}] ({1}) type must be {2}, but is {3}", id, path, *want, got);
  }
  if (auto key = between(text, "key '", "' not found")) {
    return trf("[json.exception.{0}] ({1}) key '{2}' not found", id, path, *key);
  }
  // tfrig's own checks (inventory/json.cpp, json_optional.h).
  if (auto max = between(text, "expected a whole number from 0 to ", ", got ")) {
    const std::string got(text.substr(34 + max->size() + 6));
    return trf("[json.exception.{0}] ({1}) expected a whole number from 0 to {2}, got {3}", id, path, *max, got);
  }
  if (auto got = between(text, "expected a finite number from 0, got ", "")) {
    return trf("[json.exception.{0}] ({1}) expected a finite number from 0, got {2}", id, path, *got);
  }
  if (auto got = between(text, "expected a non-negative integer or \"unlimited\", got ", "")) {
    return trf("[json.exception.{0}] ({1}) expected a non-negative integer or \"unlimited\", got {2}", id, path, *got);
  }
  if (auto got = between(text, "expected an object {soft, hard}, got ", "")) {
    return trf("[json.exception.{0}] ({1}) expected an object {2}, got {3}", id, path, "{soft, hard}", *got);
  }
  return std::string(what);
}

}  // namespace tfrig::inventory
