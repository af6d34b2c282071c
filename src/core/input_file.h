// Reading a file the user named (--snapshot, --keras-summary, --replay, a
// manifest, `import FILE`): bounded, and never stuck on something that is
// not a file. The machine itself is read through SysRoot instead.
#pragma once

#include <cstddef>
#include <string>

#include "core/result.h"

namespace tfrig::core {

// A relative path is relative to the working directory; "-" is stdin.
// Regular files and pipes (a FIFO, `<(zcat x.gz)`, stdin from a pipe) are read
// up to max_bytes; more is an error (kParse, the content is not what was
// expected). A directory is kNotFound ("is a directory"); a device or socket
// is kIo ("/dev/zero" never ends, a terminal blocks). Errors name the path.
// `slack`: bytes of room reserved after a regular file's contents, for a
// reader that appends padding (simdjson's) without copying the text again.
Result<std::string> read_input_file(const std::string& path, size_t max_bytes, size_t slack = 0);

// The same refusals without reading: for inputs read elsewhere in pieces.
Status check_input_file(const std::string& path);

}  // namespace tfrig::core
