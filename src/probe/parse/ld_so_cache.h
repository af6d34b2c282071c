// /etc/ld.so.cache, the dynamic loader's cache that ldconfig(8) writes: what
// `dlopen("libcudart.so.12")` resolves to without searching directories.
// Read, never executed (no `ldconfig -p`).
//
// Formats (glibc sysdeps/generic/dl-cache.h):
//  - old, "ld.so-1.7.0": magic[11], uint32 nlibs at offset 12, entries of
//    {int32 flags, uint32 key, uint32 value}; string offsets are relative to
//    the end of the entry array.
//  - new, "glibc-ld.so.cache" "1.1": magic+version[20], uint32 nlibs,
//    uint32 len_strings, uint8 flags, 3 pad, uint32 extension_offset,
//    uint32 unused[3]; 24-byte entries {int32 flags, uint32 key, uint32 value,
//    uint32 osversion, uint64 hwcap} from offset 48; string offsets are
//    relative to the start of the new header.
//  - compat (glibc 2.2 to 2.31 default): an old table, then the new one
//    aligned to 8 bytes after it. The new table is preferred.
// Only little-endian caches on a little-endian host are decoded; others are
// reported as unsupported.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace tfrig::probe::parse {

struct LdCacheEntry {
  std::string soname;  // key: "libcudart.so.12"
  std::string path;    // value: "/usr/local/cuda-12.2/lib64/libcudart.so.12"
  int32_t flags = 0;   // FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 = 0x0303, ...
  uint64_t hwcap = 0;  // new format only
};

struct LdCache {
  std::string format;                 // "new", "old", "compat"
  std::vector<LdCacheEntry> entries;  // in file order (ldconfig sorts them, newest soname first)
};

core::Result<LdCache> parse_ld_so_cache(std::string_view bytes);

// The ABI an entry is for ("x86-64", "i386", "aarch64", "x32", ...), from
// FLAG_REQUIRED_MASK (dl-cache.h: FLAG_X8664_LIB64 0x0300, FLAG_AARCH64_LIB64
// 0x0a00, ...); "32-bit" for entries without a 64-bit flag.
std::string ld_cache_abi(int32_t flags);

// ld.so.conf(5): one directory per line, '#' comments, "include GLOB" lines
// (relative globs are relative to the including file's directory).
struct LdSoConfLine {
  std::string directory;     // non-empty for a directory line
  std::string include_glob;  // non-empty for an include line
};
std::vector<LdSoConfLine> parse_ld_so_conf(std::string_view text);

}  // namespace tfrig::probe::parse
