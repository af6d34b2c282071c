#include "codec/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <vector>

#include "core/i18n.h"

namespace tfrig::codec {

namespace {

std::atomic<uint64_t> g_inflated{0};

// Stops a stream early without being an error (gunzip_head has enough).
constexpr std::string_view kEnough = "\x01enough";

}  // namespace

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

uint64_t inflated_bytes_total() { return g_inflated.load(); }

core::Status gunzip_stream(std::string_view bytes, const GunzipSink& sink, size_t chunk) {
  chunk = std::clamp<size_t>(chunk, 1, size_t{1} << 20);
  std::vector<char> buf(chunk);
  size_t pos = 0;
  while (pos < bytes.size()) {
    // Padding after the last member (tar-style zeros) is not another member.
    if (!is_gzip(bytes.substr(pos))) {
      if (pos > 0 &&
          std::all_of(bytes.begin() + static_cast<std::ptrdiff_t>(pos), bytes.end(), [](char c) { return c == 0; }))
        break;
      return core::fail(core::ErrorCode::kParse, core::Message(N_("offset {}"), pos),
                        core::Message(pos == 0 ? N_("not gzip data (expected the magic bytes 1f 8b)")
                                               : N_("trailing bytes after a gzip member that are not another member")));
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
      z.next_out = reinterpret_cast<Bytef*>(buf.data());
      z.avail_out = static_cast<uInt>(buf.size());
      rc = inflate(&z, Z_NO_FLUSH);
      pos += avail - z.avail_in;
      const size_t produced = buf.size() - z.avail_out;
      g_inflated += produced;
      if (rc != Z_OK && rc != Z_STREAM_END && !(rc == Z_BUF_ERROR && produced > 0)) {
        std::string msg = z.msg != nullptr ? z.msg : "inflate error";
        inflateEnd(&z);
        if (rc == Z_BUF_ERROR) {
          return core::fail(
              core::ErrorCode::kParse, core::Message(N_("offset {}"), pos),
              core::Message(N_("truncated gzip data (the member starting at offset {} does not end)"), member_start));
        }
        return core::fail(core::ErrorCode::kParse, core::Message(N_("offset {}"), pos),
                          core::Message(N_("corrupt gzip data: {}"), std::string(msg)));
      }
      if (produced > 0) {
        if (auto ok = sink(std::string_view(buf.data(), produced), pos); !ok) {
          inflateEnd(&z);
          return ok;
        }
      }
      if (rc != Z_STREAM_END && produced == 0 && pos >= bytes.size()) {
        inflateEnd(&z);
        return core::fail(
            core::ErrorCode::kParse, core::Message(N_("offset {}"), pos),
            core::Message(N_("truncated gzip data (the member starting at offset {} does not end)"), member_start));
      }
    }
    inflateEnd(&z);
  }
  return {};
}

core::Result<std::string> gunzip(std::string_view bytes, size_t max_output, std::string* partial) {
  std::string out;
  // Room for the whole text at once, so that it is not copied at every
  // doubling of the string (a fifth of `doctor --from`'s time on a 7 MB
  // report). The size is the last member's trailer (ISIZE: the input size
  // modulo 2^32, RFC 1952 section 2.3.1), believed only as far as deflate can
  // expand (at most 1032 bytes out per byte in, zlib's tech notes) and
  // max_output: a hint for reserve, never a limit.
  if (is_gzip(bytes) && bytes.size() >= 18) {
    const auto* t = reinterpret_cast<const unsigned char*>(bytes.data() + bytes.size() - 4);
    const uint64_t isize = uint64_t{t[0]} | (uint64_t{t[1]} << 8) | (uint64_t{t[2]} << 16) | (uint64_t{t[3]} << 24);
    out.reserve(static_cast<size_t>(std::min<uint64_t>({isize, uint64_t{bytes.size()} * 1032, uint64_t{max_output}})));
  }
  bool over = false;
  auto done = gunzip_stream(bytes, [&](std::string_view chunk, size_t consumed) -> core::Status {
    if (out.size() + chunk.size() > max_output) {
      over = true;
      return core::fail(core::ErrorCode::kUnsupported, core::Message(N_("offset {}"), consumed),
                        core::Message(N_("decompressed data larger than {} MiB"), max_output >> 20));
    }
    out.append(chunk);
    return {};
  });
  if (!done) {
    // Hands the text inflated so far to the caller with a parse error.
    if (partial != nullptr && !over) *partial = std::move(out);
    return tl::unexpected(done.error());
  }
  return out;
}

core::Result<std::string> gunzip_head(std::string_view bytes, size_t max_output, std::optional<core::Error>* cut) {
  std::string out;
  if (max_output == 0) return out;
  // Chunks no larger than what is still wanted: zlib inflates no further.
  size_t chunk = std::min<size_t>(max_output, 4096);
  auto done = gunzip_stream(
      bytes,
      [&](std::string_view piece, size_t) -> core::Status {
        out.append(piece.substr(0, max_output - out.size()));
        if (out.size() >= max_output) return core::fail(core::ErrorCode::kInternal, std::string(kEnough), "");
        return {};
      },
      chunk);
  if (!done && done.error().where != kEnough) {
    if (out.empty()) return tl::unexpected(done.error());
    if (cut != nullptr) *cut = done.error();
  }
  return out;
}

}  // namespace tfrig::codec
