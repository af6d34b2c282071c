// JSON text of a document that may hold outside bytes anywhere (a file name
// in a note, a label in a summary): every string and key that is not valid
// UTF-8 is rendered with core::escape_bytes first, so dump() never throws
// (nlohmann::json's type_error 316) and the escaping is the same as on the
// terminal. Strings that are valid UTF-8 are left exactly as they are.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/escape.h"

namespace tfrig::core {

template <class Json>
void escape_json_strings(Json& j) {
  if (j.is_string()) {
    auto& s = j.template get_ref<typename Json::string_t&>();
    if (!is_valid_utf8(s)) s = escape_bytes(s);
  } else if (j.is_array()) {
    for (auto& v : j) escape_json_strings(v);
  } else if (j.is_object()) {
    bool bad_key = false;
    for (auto it = j.begin(); it != j.end(); ++it) {
      escape_json_strings(it.value());
      if (!is_valid_utf8(it.key())) bad_key = true;
    }
    if (bad_key) {
      // Keys cannot be renamed in place: rebuild the object in its order.
      Json fixed = Json::object();
      for (auto it = j.begin(); it != j.end(); ++it) fixed[escape_bytes(it.key())] = std::move(it.value());
      j = std::move(fixed);
    }
  }
}

// An optional as a JSON value: null when it holds nothing.
template <class Json = nlohmann::ordered_json, class T>
Json json_or_null(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

// dump(indent) + "\n", after escape_json_strings.
template <class Json>
std::string json_text(Json j, int indent = 2) {
  escape_json_strings(j);
  return j.dump(indent) + "\n";
}

}  // namespace tfrig::core
