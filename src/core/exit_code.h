// From a failed system call to the process's exit code, in one place: errno
// -> ErrorCode (what kind of failure) -> the documented exit code
// (docs/cli.md's table), so every command answers the same failure alike.
#pragma once

#include "core/result.h"

namespace tfrig::core {

// Exit codes. 0-2 are verdicts; 64+ are sysexits-style failures.
constexpr int kExitOk = 0;
constexpr int kExitWarnings = 1;
constexpr int kExitErrors = 2;
constexpr int kExitUsage = 64;       // EX_USAGE
constexpr int kExitDataErr = 65;     // EX_DATAERR: an input file is malformed
constexpr int kExitNoInput = 66;     // EX_NOINPUT: an input file is missing or cannot be read
constexpr int kExitInternal = 70;    // EX_SOFTWARE
constexpr int kExitCantCreate = 73;  // EX_CANTCREAT: an output could not be written

// ENOENT, ENOTDIR -> kNotFound; EACCES, EPERM -> kPermissionDenied; any
// other errno -> kIo. core::errno_error (sysroot.h) builds its Error with it.
ErrorCode error_code_for_errno(int err);

// The exit code for an input error: missing or unreadable 66, malformed or
// unsupported 65, a bad argument 64, anything else 70. An output that cannot
// be written is 73, decided where the output is written.
int exit_code_for(const Error& error);

}  // namespace tfrig::core
