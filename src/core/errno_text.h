// The text of an errno value in the reader's language: strerror(3) is
// English here (tfrig never calls setlocale, and glibc translates only for
// generated locales), so the common ones go through our catalog.
#pragma once

#include <string>
#include <string_view>

namespace tfrig::core {

// strerror(err), translated when the catalog has it ("No such file or directory").
std::string errno_text(int err);

// A file operation as errno_error names it ("open", "read", "fsync directory"),
// translated when the catalog has it; an unknown one stays as given.
std::string file_action_text(std::string_view action);

}  // namespace tfrig::core
