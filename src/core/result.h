// Result<T> and Error: how every stage reports an expected failure.
// No exceptions cross a stage boundary; an Error names where (path, field or
// offset) and what was wrong or expected, so the user can act on it.
#pragma once

#include <string>
#include <string_view>

#include <tl/expected.hpp>

namespace tfrig::core {

enum class ErrorCode {
  kNotFound,
  kPermissionDenied,
  kIo,
  kParse,
  kInvalidArgument,
  kTimeout,
  kUnsupported,
  kInternal,
};

std::string_view error_code_name(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string where;    // full path, "file:line", "offset 123" or a field name
  std::string message;  // what was wrong, and what was expected

  // "where: message" (or just the message when there is no location).
  std::string to_string() const;
};

template <class T>
using Result = tl::expected<T, Error>;

using Status = tl::expected<void, Error>;

inline tl::unexpected<Error> fail(ErrorCode code, std::string where, std::string message) {
  return tl::unexpected<Error>(Error{code, std::move(where), std::move(message)});
}

}  // namespace tfrig::core
