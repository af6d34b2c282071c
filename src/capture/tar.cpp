#include "capture/tar.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/try.h"

namespace tfrig::capture {

namespace {

constexpr size_t kBlock = 512;

void put_octal(char* field, size_t width, uint64_t value) {
  // width-1 octal digits and a NUL, as tar writes them.
  const std::string digits = fmt::format("{:0{}o}", value, width - 1);
  std::memcpy(field, digits.data(), std::min(digits.size(), width - 1));
  field[width - 1] = '\0';
}

std::string header(std::string_view name, char type, uint64_t size, std::string_view link) {
  std::string h(kBlock, '\0');
  std::memcpy(h.data(), name.data(), std::min<size_t>(name.size(), 100));
  put_octal(&h[100], 8, type == '5' ? 0755 : type == '2' ? 0777 : 0644);
  put_octal(&h[108], 8, 0);
  put_octal(&h[116], 8, 0);
  put_octal(&h[124], 12, size);
  put_octal(&h[136], 12, 0);
  h[156] = type;
  std::memcpy(&h[157], link.data(), std::min<size_t>(link.size(), 100));
  std::memcpy(&h[257], "ustar  ", 8);  // GNU magic and version ("ustar " " \0")
  std::memcpy(&h[265], "root", 4);
  std::memcpy(&h[297], "root", 4);
  std::memset(&h[148], ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  const std::string chk = fmt::format("{:06o}", sum);
  std::memcpy(&h[148], chk.data(), 6);
  h[154] = '\0';
  h[155] = ' ';
  return h;
}

void pad(std::string& out) {
  if (out.size() % kBlock) out.append(kBlock - out.size() % kBlock, '\0');
}

// A GNU long-name ('L') or long-link ('K') record before the real header.
void long_record(std::string& out, char type, std::string_view text) {
  out += header("././@LongLink", type, text.size() + 1, "");
  out += text;
  out.push_back('\0');
  pad(out);
}

std::optional<uint64_t> get_octal(std::string_view field) {
  uint64_t v = 0;
  bool any = false;
  for (char c : field) {
    if (c == '\0' || c == ' ') {
      if (any) break;
      continue;
    }
    if (c < '0' || c > '7') return std::nullopt;
    v = v * 8 + static_cast<uint64_t>(c - '0');
    any = true;
  }
  return v;
}

std::string cstr(std::string_view field) {
  auto nul = field.find('\0');
  return std::string(nul == std::string_view::npos ? field : field.substr(0, nul));
}

}  // namespace

std::string write_tar(const std::vector<TarEntry>& entries) {
  std::string out;
  for (const auto& e : entries) {
    const char type = e.type == TarEntry::Type::kDir ? '5' : e.type == TarEntry::Type::kSymlink ? '2' : '0';
    const std::string name = e.type == TarEntry::Type::kDir ? e.path + "/" : e.path;
    if (name.size() > 100) long_record(out, 'L', name);
    if (e.target.size() > 100) long_record(out, 'K', e.target);
    out += header(name, type, e.type == TarEntry::Type::kFile ? e.data.size() : 0, e.target);
    if (e.type == TarEntry::Type::kFile) {
      out += e.data;
      pad(out);
    }
  }
  out.append(2 * kBlock, '\0');  // end of archive
  return out;
}

namespace {

bool all_zero(std::string_view block) {
  return std::all_of(block.begin(), block.end(), [](char c) { return c == '\0'; });
}

bool checksum_ok(std::string_view h) {
  unsigned sum = 0;
  for (size_t i = 0; i < kBlock; ++i) sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(h[i]);
  auto want = get_octal(h.substr(148, 8));
  return want && *want == sum;
}

// The entry's name: a GNU long name when one came before, else the header's
// name with the ustar prefix; trailing slashes (folders) dropped.
std::string header_name(std::string_view h, const std::string& long_name) {
  std::string name = long_name.empty() ? cstr(h.substr(0, 100)) : long_name;
  const std::string prefix = cstr(h.substr(345, 155));
  if (long_name.empty() && !prefix.empty() && h.substr(257, 6) == std::string_view("ustar\0", 6)) {
    name = prefix + "/" + name;
  }
  while (!name.empty() && name.back() == '/') name.pop_back();
  return name;
}

uint64_t padded(uint64_t size) { return (size + kBlock - 1) / kBlock * kBlock; }

}  // namespace

core::Status TarHeaderScan::feed(std::string_view all) {
  while (!done_ && next_ + kBlock <= all.size()) {
    std::string_view h = all.substr(next_, kBlock);
    auto size = get_octal(h.substr(124, 12));
    if (all_zero(h) || !checksum_ok(h) || !size) {
      done_ = true;  // the end, or a header read_tar names
      break;
    }
    const char type = h[156];
    if (type == 'L' || type == 'K') {
      // The record's text is needed for the next header's name.
      if (next_ + kBlock + *size > all.size()) break;
      TarHeader th{next_, type, *size, "././@LongLink"};
      if (check_) {
        if (auto ok = check_(th); !ok) return ok;
      }
      if (type == 'L') long_name_ = cstr(all.substr(next_ + kBlock, *size));
    } else {
      TarHeader th{next_, type, *size, header_name(h, long_name_)};
      long_name_.clear();
      if (check_) {
        if (auto ok = check_(th); !ok) return ok;
      }
    }
    if (*size > UINT64_MAX - 2 * kBlock) {
      done_ = true;
      break;
    }
    next_ += kBlock + padded(*size);
  }
  return {};
}

core::Result<std::vector<TarEntry>> read_tar(std::string_view bytes, const TarHeaderCheck& check) {
  std::vector<TarEntry> out;
  std::string long_name, long_link;
  size_t off = 0;
  while (true) {
    if (off + kBlock > bytes.size()) {
      return core::fail(core::ErrorCode::kParse, trf("offset {}", off), _("truncated: expected a 512-byte tar header"));
    }
    std::string_view h = bytes.substr(off, kBlock);
    if (all_zero(h)) break;
    if (!checksum_ok(h)) {
      return core::fail(core::ErrorCode::kParse, trf("offset {}", off), _("tar header checksum does not match"));
    }
    auto size = get_octal(h.substr(124, 12));
    if (!size || *size > bytes.size() - off - kBlock) {
      return core::fail(core::ErrorCode::kParse, trf("offset {}", off + 124),
                        _("entry size past the end of the archive"));
    }
    const char type = h[156];
    if (check) {
      TarHeader th{off, type, *size,
                   (type == 'L' || type == 'K') ? std::string("././@LongLink") : header_name(h, long_name)};
      TFRIG_TRY(check(th));
    }
    std::string_view data = bytes.substr(off + kBlock, *size);
    off += kBlock + padded(*size);
    if (type == 'L' || type == 'K') {
      (type == 'L' ? long_name : long_link) = cstr(data);
      continue;
    }
    TarEntry e;
    e.path = header_name(h, long_name);
    e.target = long_link.empty() ? cstr(h.substr(157, 100)) : long_link;
    long_name.clear();
    long_link.clear();
    if (type == '0' || type == '\0') {
      e.type = TarEntry::Type::kFile;
      e.data = std::string(data);
    } else if (type == '5') {
      e.type = TarEntry::Type::kDir;
    } else if (type == '2') {
      e.type = TarEntry::Type::kSymlink;
    } else {
      continue;  // hard links, devices, FIFOs: a capture never holds them
    }
    out.push_back(std::move(e));
  }
  return out;
}

core::Result<std::string> gzip(std::string_view bytes) {
  z_stream zs{};
  // 15 + 16: a gzip header and trailer around the deflate stream.
  if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return core::fail(core::ErrorCode::kInternal, "gzip", "deflateInit2 failed");
  }
  std::string out;
  out.resize(deflateBound(&zs, static_cast<uLong>(bytes.size())) + 64);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = static_cast<uInt>(bytes.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return core::fail(core::ErrorCode::kInternal, "gzip", "deflate did not finish");
  return out;
}

}  // namespace tfrig::capture
