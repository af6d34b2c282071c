// A minimal tar (GNU/ustar) writer and reader for `tfrig capture`: regular
// files, directories and symlinks, long names through GNU 'L'/'K' records.
// Why our own: libarchive would be one more dependency for ~200 lines, and
// zlib (already used to read bug reports and TFRecords) does the compression.
// Output is deterministic: mtime 0, uid/gid 0, fixed modes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace tfrig::capture {

struct TarEntry {
  enum class Type { kFile, kDir, kSymlink };
  Type type = Type::kFile;
  std::string path;    // relative, '/'-separated, no leading '/'
  std::string data;    // kFile: the bytes
  std::string target;  // kSymlink: the link text
};

std::string write_tar(const std::vector<TarEntry>& entries);

// One header as the reader meets it, before its data is copied: what a
// caller checks its limits on.
struct TarHeader {
  size_t offset = 0;  // of the header block
  char type = '0';    // '0' file, '5' folder, '2' symlink, 'L'/'K' long name/link record, ...
  uint64_t size = 0;  // bytes of data after the header
  std::string name;   // the entry's name (a preceding long name applied)
};
using TarHeaderCheck = std::function<core::Status(const TarHeader&)>;

// Fails naming the byte offset of a bad header (checksum, size, truncation),
// or with check's error for the first header it refuses.
core::Result<std::vector<TarEntry>> read_tar(std::string_view bytes, const TarHeaderCheck& check = {});

// Calls check on each header of a tar whose bytes arrive in pieces (as they
// inflate), so that a limit refuses an archive before it is held whole.
// Stops quietly at the end-of-archive block or at a header read_tar would
// refuse (read_tar names that one).
class TarHeaderScan {
 public:
  explicit TarHeaderScan(TarHeaderCheck check) : check_(std::move(check)) {}
  // `all`: every byte so far (the same buffer, grown).
  core::Status feed(std::string_view all);

 private:
  TarHeaderCheck check_;
  size_t next_ = 0;
  bool done_ = false;
  std::string long_name_;
};

// gzip (RFC 1952) of the bytes, zlib level 6; reading back is codec::gunzip.
core::Result<std::string> gzip(std::string_view bytes);

}  // namespace tfrig::capture
