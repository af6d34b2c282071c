// std::optional <-> JSON null. nlohmann-json 3.11 (Debian 12) has no built-in
// support; unknown is null everywhere in tfrig's JSON.
#pragma once

#include <optional>

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
    } else {
      value = j.get<T>();
    }
  }
};

}  // namespace nlohmann
