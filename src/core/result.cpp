#include "core/result.h"

#include "core/i18n.h"

namespace tfrig::core {

std::string_view error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kPermissionDenied: return "permission_denied";
    case ErrorCode::kIo: return "io_error";
    case ErrorCode::kParse: return "parse_error";
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kTimeout: return "timeout";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kInternal: return "internal_error";
  }
  return "internal_error";
}

std::string Error::to_string() const {
  if (where.empty()) return message;
  return where + ": " + message;
}

std::optional<Message> error_message(const Error& e) {
  if (e.text.empty()) return std::nullopt;
  if (e.where.empty()) return e.text;
  if (!e.place.empty()) return Message(N_("{0}: {1}"), e.place, e.text);
  return Message(N_("{0}: {1}"), e.where, e.text);
}

std::optional<Message> error_message(std::string path, const Error& e) {
  auto m = error_message(e);
  if (!m) return std::nullopt;
  return Message(N_("{0}: {1}"), std::move(path), std::move(*m));
}

std::string describe(const Error& e) {
  if (e.text.empty()) return e.to_string();
  const std::string_view language = i18n::language();
  const std::string text = render(e.text, language);
  if (e.where.empty()) return text;
  // "where: " as the terminal's errors have always read (an ASCII colon after a path).
  return (e.place.empty() ? e.where : render(e.place, language)) + ": " + text;
}

}  // namespace tfrig::core
