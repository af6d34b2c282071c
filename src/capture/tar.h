// A minimal tar (GNU/ustar) writer and reader for `tfrig capture`: regular
// files, directories and symlinks, long names through GNU 'L'/'K' records.
// Why our own: libarchive would be one more dependency for ~200 lines, and
// zlib (already used to read bug reports and TFRecords) does the compression.
// Output is deterministic: mtime 0, uid/gid 0, fixed modes.
#pragma once

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
// Fails naming the byte offset of a bad header (checksum, size, truncation).
core::Result<std::vector<TarEntry>> read_tar(std::string_view bytes);

// gzip (RFC 1952) of the bytes, zlib level 6; reading back is importer::gunzip.
core::Result<std::string> gzip(std::string_view bytes);

}  // namespace tfrig::capture
