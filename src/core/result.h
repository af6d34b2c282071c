// Result<T> and Error: how every stage reports an expected failure.
// No exceptions cross a stage boundary; an Error names where (path, field or
// offset) and what was wrong or expected, so the user can act on it.
//
// An error built from a core::Message (fail(code, where, Message)) keeps it:
// its message is the English text (what a snapshot or JSON stores), and a
// renderer shows it in its reader's language (describe, error_message). One
// built from a plain string shows that string as it was built.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

#include "core/message.h"

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
  std::string message;  // what was wrong, and what was expected (English when text is set)
  Message text = {};    // message as a Message (message == english(text)); empty for a plain string
  Message place = {};   // where as a Message ("line {}"; where == english(place)); empty: where shows as it is

  // "where: message" (or just the message when there is no location), English
  // when the error was built from messages.
  std::string to_string() const;
};

// The whole error as one message, "{0}: {1}" (where, text) or the text
// alone; nullopt when it was built from a plain string.
std::optional<Message> error_message(const Error& e);
// "PATH: " before the error (a parser's error inside the file it read).
std::optional<Message> error_message(std::string path, const Error& e);
// The error for the terminal, in the process's language: its message
// rendered, or to_string() when it has none.
std::string describe(const Error& e);

template <class T>
using Result = tl::expected<T, Error>;

using Status = tl::expected<void, Error>;

inline tl::unexpected<Error> fail(ErrorCode code, std::string where, std::string message) {
  return tl::unexpected<Error>(Error{code, std::move(where), std::move(message)});
}
inline tl::unexpected<Error> fail(ErrorCode code, std::string where, Message text) {
  std::string english_text = english(text);
  return tl::unexpected<Error>(Error{code, std::move(where), std::move(english_text), std::move(text)});
}
// A location that is itself words ("line 3": Message(N_("line {}"), 3)).
inline tl::unexpected<Error> fail(ErrorCode code, Message place, Message text) {
  std::string english_place = english(place);
  std::string english_text = english(text);
  return tl::unexpected<Error>(
      Error{code, std::move(english_place), std::move(english_text), std::move(text), std::move(place)});
}
// Error values (not wrapped in unexpected), for code that builds them.
inline Error make_error(ErrorCode code, std::string where, Message text) {
  return fail(code, std::move(where), std::move(text)).value();
}

}  // namespace tfrig::core
