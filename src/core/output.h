// One checked path for everything a command writes. A write that fails (a full
// disk, /dev/full, an I/O error on close) is an Error naming the path and the
// errno, so the command exits 73 instead of 0 with a cut or empty result.
// Files are written atomically (temporary name, fsync, rename): nothing is
// left under the final name unless the whole content reached the disk.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace tfrig::core {

// Appends to stdout. The stream is buffered, so a failure may only show at
// finish_stdout(); both report it.
Status write_stdout(std::string_view data);

// Flushes stdout and checks its error flag: main calls it once, after the
// command, so every command's output is checked, whichever way it printed.
Status finish_stdout();

// Writes content to `path`: "-" is stdout; an existing device or FIFO
// (`/dev/null`, `/dev/stdout`, a pipe) is written in place and its close
// checked; anything else is written atomically.
Status write_output(const std::string& path, std::string_view content, unsigned mode = 0644);

}  // namespace tfrig::core
