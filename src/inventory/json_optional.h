// std::optional <-> JSON null. nlohmann-json 3.11 (Debian 12) has no built-in
// support; unknown is null everywhere in tfrig's JSON.
#pragma once

#include <optional>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace nlohmann {

template <class T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& value) {
    if (value) {
      j = *value;
    } else {
      j = nullptr;
    }
  }
  static void from_json(const json& j, std::optional<T>& value) {
    if (j.is_null()) {
      value.reset();
      return;
    }
    // nlohmann converts -1 to 18446744073709551615 silently; a size or count
    // must be a non-negative number (the error carries the JSON path).
    if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {
      if (!j.is_number_unsigned()) {
        throw json::type_error::create(302, "expected a non-negative integer, got " + j.dump(), &j);
      }
    }
    value = j.get<T>();
  }
};

}  // namespace nlohmann
