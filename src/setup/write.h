// tfrig setup, the writer: the rendered files into DIR, never half of them.
//
// Every file is first written into a new folder beside DIR (".tfrig-setup-*"
// in DIR's parent, so the same file system); only when all are written is
// that folder renamed to DIR (DIR new or empty: one rename, DIR appears
// whole), or, with --force into a DIR that holds other files, each file is
// renamed into DIR (renames need no space, so a full disk stops the write
// before DIR is touched). A failure removes the staging folder.
//
// Who may change the files before root runs install.sh (docs/security.md):
// DIR must not be a symbolic link; a DIR that belongs to another user, or
// that every user may write to, is refused unless `force`; with it, an empty
// such DIR is replaced by a new folder of the caller's (the rename), a
// non-empty one is written into with a warning. A non-empty DIR is refused
// unless `force`: then tfrig's files are replaced and any other file is left.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "setup/render.h"

namespace tfrig::setup {

// Writes one file (the tests pass one that fails like a full disk).
using FileWriter = std::function<core::Status(const std::string& path, std::string_view content, unsigned mode)>;

core::Status write_outputs(const std::string& dir, const std::vector<OutputFile>& files, bool force);
core::Status write_outputs(const std::string& dir, const std::vector<OutputFile>& files, bool force,
                           const FileWriter& writer);

}  // namespace tfrig::setup
