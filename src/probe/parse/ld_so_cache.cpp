#include "probe/parse/ld_so_cache.h"

#include <cstring>

#include "core/i18n.h"
#include "core/text.h"

namespace tfrig::probe::parse {

namespace {

constexpr std::string_view kOldMagic = "ld.so-1.7.0";
constexpr std::string_view kNewMagic = "glibc-ld.so.cache1.1";
constexpr size_t kOldHeaderSize = 16;  // magic[11] + pad + uint32 nlibs
constexpr size_t kOldEntrySize = 12;
constexpr size_t kNewHeaderSize = 48;
constexpr size_t kNewEntrySize = 24;

// TRANSLATORS: an entry of a binary table (ld.so.cache), counted from 0.
core::Message entry_place(size_t entry) { return core::Message(N_("entry {}"), entry); }
core::Message offset_place(size_t offset) { return core::Message(N_("offset {}"), offset); }
// cache_file_new.flags (dl-cache.h): 2 = little endian, 3 = big endian, 0 = not recorded.
constexpr uint8_t kCacheFlagsBigEndian = 3;
// A real cache holds a few thousand entries; this bounds the work on garbage.
constexpr uint32_t kMaxEntries = 1u << 20;

uint32_t u32(std::string_view b, size_t off) {
  uint32_t v = 0;
  std::memcpy(&v, b.data() + off, sizeof(v));
  return v;  // little-endian host assumed (x86-64, aarch64 Linux)
}

uint64_t u64(std::string_view b, size_t off) {
  uint64_t v = 0;
  std::memcpy(&v, b.data() + off, sizeof(v));
  return v;
}

// NUL-terminated string at base + off, bounded by the buffer.
core::Result<std::string> string_at(std::string_view b, size_t base, uint32_t off, const char* what, size_t entry) {
  const size_t pos = base + off;
  if (pos >= b.size()) {
    return core::fail(core::ErrorCode::kParse, entry_place(entry),
                      // TRANSLATORS: {0} is "key" or "value", a field of an ld.so.cache entry.
                      core::Message(N_("{0} offset {1} points past the end of the file"), std::string(what), off));
  }
  const size_t end = b.find('\0', pos);
  if (end == std::string_view::npos) {
    return core::fail(core::ErrorCode::kParse, entry_place(entry),
                      // TRANSLATORS: {} is "key" or "value", a field of an ld.so.cache entry.
                      core::Message(N_("{} string is not NUL-terminated"), std::string(what)));
  }
  return std::string(b.substr(pos, end - pos));
}

core::Result<std::vector<LdCacheEntry>> parse_new(std::string_view b, size_t start) {
  if (b.size() - start < kNewHeaderSize) {
    return core::fail(core::ErrorCode::kParse, offset_place(start),
                      core::Message(N_("truncated glibc-ld.so.cache1.1 header")));
  }
  if (static_cast<uint8_t>(b[start + 28]) == kCacheFlagsBigEndian) {
    return core::fail(core::ErrorCode::kUnsupported, offset_place(start + 28),
                      core::Message(N_("big-endian ld.so.cache")));
  }
  const uint32_t n = u32(b, start + 20);
  if (n > kMaxEntries || n * kNewEntrySize > b.size() - start - kNewHeaderSize) {
    return core::fail(core::ErrorCode::kParse, offset_place(start + 20),
                      core::Message(N_("entry count {} does not fit in the file"), n));
  }
  std::vector<LdCacheEntry> out;
  out.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    const size_t e = start + kNewHeaderSize + size_t{i} * kNewEntrySize;
    LdCacheEntry entry;
    entry.flags = static_cast<int32_t>(u32(b, e));
    auto key = string_at(b, start, u32(b, e + 4), "key", i);
    if (!key) return tl::unexpected(key.error());
    auto value = string_at(b, start, u32(b, e + 8), "value", i);
    if (!value) return tl::unexpected(value.error());
    entry.soname = std::move(*key);
    entry.path = std::move(*value);
    entry.hwcap = u64(b, e + 16);
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace

core::Result<LdCache> parse_ld_so_cache(std::string_view b) {
  LdCache cache;
  if (b.substr(0, kNewMagic.size()) == kNewMagic) {
    auto entries = parse_new(b, 0);
    if (!entries) return tl::unexpected(entries.error());
    cache.format = "new";
    cache.entries = std::move(*entries);
    return cache;
  }
  if (b.substr(0, kOldMagic.size()) != kOldMagic) {
    return core::fail(core::ErrorCode::kParse, offset_place(0),
                      core::Message(N_("expected the magic 'glibc-ld.so.cache1.1' or 'ld.so-1.7.0', got '{}'"),
                                    core::printable(b.substr(0, 20))));
  }
  if (b.size() < kOldHeaderSize)
    return core::fail(core::ErrorCode::kParse, offset_place(12), core::Message(N_("truncated ld.so-1.7.0 header")));
  const uint32_t n = u32(b, 12);
  if (n > kMaxEntries || size_t{n} * kOldEntrySize > b.size() - kOldHeaderSize) {
    return core::fail(core::ErrorCode::kParse, offset_place(12),
                      core::Message(N_("entry count {} does not fit in the file"), n));
  }
  const size_t strings = kOldHeaderSize + size_t{n} * kOldEntrySize;
  // compat: the new table follows, aligned to alignof(cache_file_new) = 8.
  const size_t new_start = (strings + 7) & ~size_t{7};
  if (new_start < b.size() && b.substr(new_start, kNewMagic.size()) == kNewMagic) {
    auto entries = parse_new(b, new_start);
    if (!entries) return tl::unexpected(entries.error());
    cache.format = "compat";
    cache.entries = std::move(*entries);
    return cache;
  }
  cache.format = "old";
  for (uint32_t i = 0; i < n; ++i) {
    const size_t e = kOldHeaderSize + size_t{i} * kOldEntrySize;
    LdCacheEntry entry;
    entry.flags = static_cast<int32_t>(u32(b, e));
    auto key = string_at(b, strings, u32(b, e + 4), "key", i);
    if (!key) return tl::unexpected(key.error());
    auto value = string_at(b, strings, u32(b, e + 8), "value", i);
    if (!value) return tl::unexpected(value.error());
    entry.soname = std::move(*key);
    entry.path = std::move(*value);
    cache.entries.push_back(std::move(entry));
  }
  return cache;
}

std::string ld_cache_abi(int32_t flags) {
  switch (flags & 0xff00) {
    case 0x0000: return "32-bit";
    case 0x0100: return "sparc64";
    case 0x0200: return "ia64";
    case 0x0300: return "x86-64";
    case 0x0400: return "s390x";
    case 0x0500: return "ppc64";
    case 0x0600: return "mips64-n32";
    case 0x0700: return "mips64";
    case 0x0800: return "x32";
    case 0x0900: return "armhf";
    case 0x0a00: return "aarch64";
    case 0x0b00: return "armsf";
    default: return "other";
  }
}

std::vector<LdSoConfLine> parse_ld_so_conf(std::string_view text) {
  std::vector<LdSoConfLine> out;
  for (auto line : core::split_lines(text)) {
    if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = core::trim(line);
    if (line.empty()) continue;
    if (core::starts_with(line, "include") && line.size() > 7 && (line[7] == ' ' || line[7] == '\t')) {
      for (auto glob : core::split_ws(line.substr(8))) out.push_back({"", std::string(glob)});
      continue;
    }
    if (core::starts_with(line, "hwcap")) continue;  // "hwcap N NAME": obsolete, ignored by glibc since 2.26
    // ldconfig also accepts "dir=TYPE" (libc5 era) and comma/space separated dirs.
    for (auto dir : core::split_ws(line)) {
      auto eq = dir.find('=');
      if (eq != std::string_view::npos) dir = dir.substr(0, eq);
      while (!dir.empty() && dir.back() == ',') dir.remove_suffix(1);
      if (!dir.empty()) out.push_back({std::string(dir), ""});
    }
  }
  return out;
}

}  // namespace tfrig::probe::parse
