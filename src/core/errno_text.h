// The text of an errno value in the reader's language: strerror(3) is
// English here (tfrig never calls setlocale, and glibc translates only for
// generated locales), so the common ones go through our catalog.
#pragma once

#include <string>
#include <string_view>
#include <system_error>

#include "core/message.h"

namespace tfrig::core {

// strerror(err), translated when the catalog has it ("No such file or directory").
std::string errno_text(int err);

// std::error_code::message() in the reader's language: an errno (generic or
// system category, what std::filesystem reports) through errno_text, any
// other category as the library says it.
std::string error_code_text(const std::error_code& ec);

// A file operation as errno_error names it ("open", "read", "fsync directory"),
// translated when the catalog has it; an unknown one stays as given.
std::string file_action_text(std::string_view action);

// The same as message arguments (a nested message when the catalog has it,
// else the text as it is), for errors built from messages (errno_error).
MessageArg errno_arg(int err);
MessageArg file_action_arg(std::string_view action);

}  // namespace tfrig::core
