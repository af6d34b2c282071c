// One table per enum of (value, name): the name of a value and the value of a
// name are both looked up in it, so the two directions cannot drift apart (a
// pair of switch functions could: a value added to one and not the other).
//
//   inline constexpr core::NameTable<Origin, 3> kOriginNames{{
//       {Origin::kMeasured, "measured"}, {Origin::kEstimated, "estimated"}, {Origin::kAssumed, "assumed"}}};
//   std::string_view origin_name(Origin o) { return kOriginNames.name(o, "assumed"); }
//   std::optional<Origin> origin_from_name(std::string_view n) { return kOriginNames.value(n); }
//
// The names are the fixed words of machine formats (JSON, history, options);
// words shown to a reader stay in their translated label functions.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace tfrig::core {

template <class E>
struct NameRow {
  E value;
  std::string_view name;
};

template <class E, size_t N>
struct NameTable {
  std::array<NameRow<E>, N> rows;

  // The name of `v`, or `fallback` for a value the table lacks (an integer
  // cast into the enum).
  constexpr std::string_view name(E v, std::string_view fallback) const {
    for (const auto& r : rows) {
      if (r.value == v) return r.name;
    }
    return fallback;
  }
  // The value named exactly `n`, or nullopt.
  constexpr std::optional<E> value(std::string_view n) const {
    for (const auto& r : rows) {
      if (r.name == n) return r.value;
    }
    return std::nullopt;
  }
  // True when no value and no name appears twice (checked by static_assert
  // next to each table).
  constexpr bool unique() const {
    for (size_t i = 0; i < N; ++i) {
      for (size_t j = i + 1; j < N; ++j) {
        if (rows[i].value == rows[j].value || rows[i].name == rows[j].name) return false;
      }
    }
    return true;
  }
};

}  // namespace tfrig::core
