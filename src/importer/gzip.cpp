#include "importer/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <climits>

#include "core/i18n.h"

namespace tfrig::importer {

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

core::Result<std::string> gunzip(std::string_view bytes, size_t max_output, std::string* partial) {
  std::string out;
  // Hands the text inflated so far to the caller, then the error.
  auto cut = [&](tl::unexpected<core::Error> e) -> core::Result<std::string> {
    if (partial != nullptr) *partial = std::move(out);
    return e;
  };
  size_t pos = 0;
  char buf[1 << 16];
  while (pos < bytes.size()) {
    // Padding after the last member (tar-style zeros) is not another member.
    if (!is_gzip(bytes.substr(pos))) {
      if (pos > 0 && std::all_of(bytes.begin() + static_cast<std::ptrdiff_t>(pos), bytes.end(), [](char c) { return c == 0; })) break;
      return cut(core::fail(core::ErrorCode::kParse, trf("offset {}", pos),
                            pos == 0 ? _("not gzip data (expected the magic bytes 1f 8b)")
                                     : _("trailing bytes after a gzip member that are not another member")));
    }
    z_stream z{};
    // 15 + 16: a gzip wrapper (zlib.h, inflateInit2).
    if (inflateInit2(&z, 15 + 16) != Z_OK) return core::fail(core::ErrorCode::kInternal, "zlib", "inflateInit2 failed");
    const size_t member_start = pos;
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
      const size_t avail = std::min<size_t>(bytes.size() - pos, UINT_MAX);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + pos));
      z.avail_in = static_cast<uInt>(avail);
      z.next_out = reinterpret_cast<Bytef*>(buf);
      z.avail_out = sizeof(buf);
      rc = inflate(&z, Z_NO_FLUSH);
      pos += avail - z.avail_in;
      const size_t produced = sizeof(buf) - z.avail_out;
      if (rc != Z_OK && rc != Z_STREAM_END && !(rc == Z_BUF_ERROR && produced > 0)) {
        std::string msg = z.msg != nullptr ? z.msg : "inflate error";
        inflateEnd(&z);
        if (rc == Z_BUF_ERROR) {
          return cut(core::fail(core::ErrorCode::kParse, trf("offset {}", pos),
                                trf("truncated gzip data (the member starting at offset {} does not end)",
                                    member_start)));
        }
        return cut(core::fail(core::ErrorCode::kParse, trf("offset {}", pos), trf("corrupt gzip data: {}", msg)));
      }
      if (out.size() + produced > max_output) {
        inflateEnd(&z);
        return core::fail(core::ErrorCode::kUnsupported, trf("offset {}", pos),
                          trf("decompressed data larger than {} MiB", max_output >> 20));
      }
      out.append(buf, produced);
      if (rc != Z_STREAM_END && produced == 0 && pos >= bytes.size()) {
        inflateEnd(&z);
        return cut(core::fail(core::ErrorCode::kParse, trf("offset {}", pos),
                              trf("truncated gzip data (the member starting at offset {} does not end)",
                                  member_start)));
      }
    }
    inflateEnd(&z);
  }
  return out;
}

}  // namespace tfrig::importer
