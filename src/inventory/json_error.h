// The text of a snapshot's JSON error, in the reader's language. nlohmann's
// exceptions (with JSON_DIAGNOSTICS) read "[json.exception.type_error.302]
// (/inventory/gpus/0/index) type must be number, but is string": the JSON
// path of the bad value, then what was expected. The forms tfrig meets are
// translated with the path kept; the English is the text as thrown, byte for
// byte; any other form stays as the library wrote it.
#pragma once

#include <string>
#include <string_view>

namespace tfrig::inventory {

std::string json_error_text(std::string_view what);

}  // namespace tfrig::inventory
