#include "core/result.h"

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

}  // namespace tfrig::core
