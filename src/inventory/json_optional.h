// std::optional <-> JSON null. nlohmann-json 3.11 (Debian 12) has no built-in
// support; unknown is null everywhere in tfrig's JSON.
//
// Reading checks each number against its C++ type: nlohmann converts -1 to
// 18446744073709551615 and 1e300 to -2147483648 silently (a cast, undefined
// for a double out of range). Every number of a snapshot is a size, count,
// index, clock, temperature, rate or duration, none of them below zero, so a
// negative one is refused too. Errors are json type errors carrying the JSON
// path (JSON_DIAGNOSTICS): the caller turns them into exit 65.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace nlohmann {

namespace tfrig_detail {

// Refuses a JSON number that does not fit T (integral: a whole number from 0
// to T's maximum; floating: finite and not negative). Non-numbers are left to
// nlohmann's own "type must be number" error.
template <class T>
void check_number_fits(const json& j) {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);
  if (!j.is_number()) return;
  if constexpr (std::is_integral_v<T>) {
    const auto max = static_cast<uint64_t>(std::numeric_limits<T>::max());
    const std::string expected = "expected a whole number from 0 to " + std::to_string(max) + ", got ";
    if (j.is_number_unsigned()) {
      if (j.get<uint64_t>() > max) throw json::type_error::create(302, expected + j.dump(), &j);
    } else if (j.is_number_integer()) {
      // Signed storage: parsed text puts only negatives here, but a value
      // built in memory from an int is signed whatever its sign.
      const int64_t v = j.get<int64_t>();
      if (v < 0 || static_cast<uint64_t>(v) > max) throw json::type_error::create(302, expected + j.dump(), &j);
    } else {
      const double v = j.get<double>();
      // 2^64 as a double: the first value above every uint64_t.
      if (!std::isfinite(v) || v < 0 || v != std::trunc(v) || v >= 18446744073709551616.0 ||
          static_cast<uint64_t>(v) > max) {
        throw json::type_error::create(302, expected + j.dump(), &j);
      }
    }
  } else {
    const double v = j.get<double>();
    if (!std::isfinite(v) || v < 0 || v > static_cast<double>(std::numeric_limits<T>::max())) {
      throw json::type_error::create(302, "expected a finite number from 0, got " + j.dump(), &j);
    }
  }
}

}  // namespace tfrig_detail

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
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      tfrig_detail::check_number_fits<T>(j);
    }
    value = j.get<T>();
  }
};

}  // namespace nlohmann
