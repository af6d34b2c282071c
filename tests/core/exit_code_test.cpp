#include "core/exit_code.h"

#include <cerrno>

#include <gtest/gtest.h>

#include "core/sysroot.h"

namespace tfrig::core {
namespace {

TEST(ExitCode, ErrnoToErrorCode) {
  EXPECT_EQ(error_code_for_errno(ENOENT), ErrorCode::kNotFound);
  EXPECT_EQ(error_code_for_errno(ENOTDIR), ErrorCode::kNotFound);
  EXPECT_EQ(error_code_for_errno(EACCES), ErrorCode::kPermissionDenied);
  EXPECT_EQ(error_code_for_errno(EPERM), ErrorCode::kPermissionDenied);
  EXPECT_EQ(error_code_for_errno(EIO), ErrorCode::kIo);
  EXPECT_EQ(error_code_for_errno(ENOSPC), ErrorCode::kIo);
  // errno_error builds its Error with the same mapping.
  EXPECT_EQ(errno_error(EACCES, "/x", "open").code, ErrorCode::kPermissionDenied);
  EXPECT_EQ(errno_error(ENOTDIR, "/x", "open").code, ErrorCode::kNotFound);
}

TEST(ExitCode, ErrorCodeToDocumentedExitCode) {
  auto code = [](ErrorCode c) { return exit_code_for(Error{c, "f", "m"}); };
  EXPECT_EQ(code(ErrorCode::kNotFound), kExitNoInput);
  EXPECT_EQ(code(ErrorCode::kPermissionDenied), kExitNoInput);
  EXPECT_EQ(code(ErrorCode::kIo), kExitNoInput);
  EXPECT_EQ(code(ErrorCode::kParse), kExitDataErr);
  EXPECT_EQ(code(ErrorCode::kUnsupported), kExitDataErr);
  EXPECT_EQ(code(ErrorCode::kInvalidArgument), kExitUsage);
  EXPECT_EQ(code(ErrorCode::kTimeout), kExitInternal);
  EXPECT_EQ(code(ErrorCode::kInternal), kExitInternal);
  // The numbers docs/cli.md documents (sysexits.h).
  EXPECT_EQ(kExitUsage, 64);
  EXPECT_EQ(kExitDataErr, 65);
  EXPECT_EQ(kExitNoInput, 66);
  EXPECT_EQ(kExitInternal, 70);
  EXPECT_EQ(kExitCantCreate, 73);
}

}  // namespace
}  // namespace tfrig::core
