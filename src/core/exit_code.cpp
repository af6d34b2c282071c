#include "core/exit_code.h"

#include <cerrno>

namespace tfrig::core {

ErrorCode error_code_for_errno(int err) {
  if (err == ENOENT || err == ENOTDIR) return ErrorCode::kNotFound;
  if (err == EACCES || err == EPERM) return ErrorCode::kPermissionDenied;
  return ErrorCode::kIo;
}

int exit_code_for(const Error& error) {
  switch (error.code) {
    case ErrorCode::kNotFound:
    case ErrorCode::kPermissionDenied:
    case ErrorCode::kIo: return kExitNoInput;
    case ErrorCode::kParse:
    case ErrorCode::kUnsupported: return kExitDataErr;
    case ErrorCode::kInvalidArgument: return kExitUsage;
    case ErrorCode::kTimeout:
    case ErrorCode::kInternal: return kExitInternal;
  }
  return kExitInternal;
}

}  // namespace tfrig::core
