#include "importer/lspci_text.h"

#include <cctype>
#include <cmath>

#include "core/i18n.h"
#include "core/pci_address.h"
#include "core/text.h"

namespace tfrig::importer {

namespace {

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

bool all_hex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!is_hex(c)) return false;
  }
  return true;
}

// "01:00.0" or "0000:01:00.0" at the start of the line, then a space.
size_t address_length(std::string_view line) {
  auto bdf = [](std::string_view s) {
    return s.size() >= 7 && is_hex(s[0]) && is_hex(s[1]) && s[2] == ':' && is_hex(s[3]) && is_hex(s[4]) &&
           s[5] == '.' && s[6] >= '0' && s[6] <= '7';
  };
  if (line.size() > 12 && all_hex(line.substr(0, 4)) && line[4] == ':' && bdf(line.substr(5)) && line[12] == ' ')
    return 12;
  if (line.size() > 7 && bdf(line) && line[7] == ' ') return 7;
  return 0;
}

// Class names of the PCI Code and ID Assignment Specification, for lspci
// without -nn (and without a hex dump).
std::optional<uint32_t> class_from_name(std::string_view name) {
  if (name == "VGA compatible controller") return 0x030000;
  if (name == "3D controller") return 0x030200;
  if (name == "Display controller") return 0x038000;
  if (name == "PCI bridge") return 0x060400;
  if (name == "Host bridge") return 0x060000;
  if (name == "Audio device") return 0x040300;
  if (name == "Non-Volatile memory controller") return 0x010802;
  if (name == "Ethernet controller") return 0x020000;
  if (name == "Infiniband controller") return 0x020700;
  if (name == "USB controller") return 0x0c0300;
  return std::nullopt;
}

// The last "[vvvv:dddd]" in s.
std::optional<std::pair<uint32_t, uint32_t>> last_id_pair(std::string_view s) {
  std::optional<std::pair<uint32_t, uint32_t>> out;
  for (size_t i = 0; i + 11 <= s.size(); ++i) {
    if (s[i] != '[' || s[i + 5] != ':' || s[i + 10] != ']') continue;
    const auto v = s.substr(i + 1, 4);
    const auto d = s.substr(i + 6, 4);
    if (!all_hex(v) || !all_hex(d)) continue;
    out = std::make_pair(static_cast<uint32_t>(*core::parse_hex(v)), static_cast<uint32_t>(*core::parse_hex(d)));
  }
  return out;
}

// "Speed 16GT/s (downgraded)" / "Speed 2.5GT/s" / "Speed unknown".
std::optional<double> speed_of(std::string_view field) {
  field = core::trim(field);
  if (!core::starts_with(field, "Speed ")) return std::nullopt;
  field.remove_prefix(6);
  const size_t gt = field.find("GT/s");
  if (gt == std::string_view::npos || gt == 0) return std::nullopt;
  auto v = core::parse_double(field.substr(0, gt));
  if (!v || !std::isfinite(*v) || *v <= 0 || *v > 1000) return std::nullopt;
  return *v;
}

// "Width x16 (ok)" -> 16.
std::optional<int> width_of(std::string_view field) {
  field = core::trim(field);
  if (!core::starts_with(field, "Width x")) return std::nullopt;
  field.remove_prefix(7);
  size_t n = 0;
  while (n < field.size() && std::isdigit(static_cast<unsigned char>(field[n]))) ++n;
  auto v = core::parse_u64(field.substr(0, n));
  if (!v || *v == 0 || *v > 32) return std::nullopt;
  return static_cast<int>(*v);
}

// LnkCap / LnkSta value: comma-separated fields.
void read_link(std::string_view value, std::optional<double>& speed, std::optional<int>& width, bool* speed_down,
               bool* width_down) {
  for (auto field : core::split(value, ',')) {
    field = core::trim(field);
    if (auto s = speed_of(field)) {
      speed = s;
      if (speed_down != nullptr) *speed_down = field.find("(downgraded)") != std::string_view::npos;
    } else if (auto w = width_of(field)) {
      width = w;
      if (width_down != nullptr) *width_down = field.find("(downgraded)") != std::string_view::npos;
    }
  }
}

// A hex dump line: "00: 22 10 d8 14 ..." (offset 2 or 3 hex digits). Only
// the lines at 0x00 and 0x20 are read (ids, class, subsystem); any other is
// known by its offset and left unread, with `bytes` empty: a bug report's
// `lspci -xxxx` has 256 of them a device, and converting every byte was a
// quarter of `doctor --from`'s time. (Such a line, read or not, changes nothing.)
bool hex_dump_line(std::string_view line, size_t& offset, std::vector<int>& bytes) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon < 2 || colon > 3) return false;
  if (!all_hex(line.substr(0, colon))) return false;
  offset = static_cast<size_t>(*core::parse_hex(line.substr(0, colon)));
  bytes.clear();
  if (offset != 0 && offset != 0x20) return true;
  for (auto tok : core::split_ws(line.substr(colon + 1))) {
    if (tok.size() != 2 || !all_hex(tok)) return false;
    bytes.push_back(static_cast<int>(*core::parse_hex(tok)));
  }
  return !bytes.empty();
}

}  // namespace

bool is_lspci_device_header(std::string_view line) { return address_length(line) != 0; }

bool lspci_is_nvidia_gpu(const LspciDevice& d) {
  return d.vendor_id == 0x10deu && d.class_code && (*d.class_code >> 16) == 0x03;
}

std::optional<std::string> lspci_product_name(const LspciDevice& d) {
  std::string_view s = d.description;
  if (const size_t rev = s.find(" (rev "); rev != std::string_view::npos) s = s.substr(0, rev);
  s = core::trim(s);
  // Drop the "-nn" id pair.
  if (s.size() >= 12 && s.back() == ']' && s[s.size() - 11] == '[' && s[s.size() - 6] == ':')
    s = core::trim(s.substr(0, s.size() - 11));
  if (s.empty() || s.back() != ']') return std::nullopt;
  const size_t open = s.rfind('[');
  if (open == std::string_view::npos || open + 2 > s.size()) return std::nullopt;
  std::string_view name = core::trim(s.substr(open + 1, s.size() - open - 2));
  if (name.empty()) return std::nullopt;
  return std::string(name);
}

std::optional<int> pcie_generation_from_gts(double gts) {
  constexpr double kSpeeds[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  for (int i = 0; i < 6; ++i) {
    if (std::fabs(gts - kSpeeds[i]) < 0.3) return i + 1;
  }
  return std::nullopt;
}

namespace {

// A device's header line: "0000:01:00.0 VGA compatible controller [0300]: NVIDIA
// Corporation GA100 [A100 SXM4 40GB] [10de:20b0] (rev a1)"; `alen` is its
// address's length.
LspciDevice device_from_header(std::string_view line, size_t alen, int line_no) {
  LspciDevice d;
  d.line = line_no;
  d.address = core::normalize_pci_bus_id(line.substr(0, alen)).value_or(std::string(line.substr(0, alen)));
  std::string_view rest = line.substr(alen + 1);
  const size_t colon = rest.find(": ");
  std::string_view cls = colon == std::string_view::npos ? rest : rest.substr(0, colon);
  d.description = std::string(colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 2));
  // "-nn": "VGA compatible controller [0300]".
  if (cls.size() > 7 && cls.back() == ']' && cls[cls.size() - 6] == '[' && all_hex(cls.substr(cls.size() - 5, 4))) {
    d.class_code = static_cast<uint32_t>(*core::parse_hex(cls.substr(cls.size() - 5, 4))) << 8;
    cls = core::trim(cls.substr(0, cls.size() - 6));
  }
  d.class_name = std::string(cls);
  if (!d.class_code) d.class_code = class_from_name(cls);
  std::string_view desc = d.description;
  if (const size_t rev = desc.find("(rev "); rev != std::string_view::npos && rev + 7 <= desc.size()) {
    auto r = desc.substr(rev + 5, 2);
    if (all_hex(r)) d.revision = std::string(r);
  }
  if (auto ids = last_id_pair(desc.substr(0, std::min(desc.size(), desc.find(" (rev "))))) {
    d.vendor_id = ids->first;
    d.device_id = ids->second;
  } else if (core::starts_with(desc, "NVIDIA Corporation")) {
    d.vendor_id = 0x10de;  // the vendor's name in pci.ids
  }
  if (d.revision == "ff") d.config_all_ones = true;
  return d;
}

// The config space's lines at 0x00 (ids, class, revision) and 0x20
// (subsystem). The subsystem is read only after a readable 0x00 line
// (`hex_vendor_seen`): a device whose config reads all 1s has none.
void read_config_bytes(size_t offset, const std::vector<int>& bytes, bool& hex_vendor_seen, LspciDevice& d) {
  if (offset == 0 && bytes.size() >= 12) {
    const uint32_t vendor = static_cast<uint32_t>(bytes[0] | (bytes[1] << 8));
    const uint32_t device = static_cast<uint32_t>(bytes[2] | (bytes[3] << 8));
    if (vendor == 0xffff) {
      d.config_all_ones = true;
      return;
    }
    hex_vendor_seen = true;
    if (!d.vendor_id) d.vendor_id = vendor;
    if (!d.device_id) d.device_id = device;
    const uint32_t cls = static_cast<uint32_t>((bytes[11] << 16) | (bytes[10] << 8) | bytes[9]);
    d.class_code = cls;
    if (!d.revision) {
      static constexpr char kHex[] = "0123456789abcdef";
      d.revision = std::string{kHex[(bytes[8] >> 4) & 0xf], kHex[bytes[8] & 0xf]};
    }
  } else if (offset == 0x20 && bytes.size() >= 16 && hex_vendor_seen && !d.subsystem_vendor_id) {
    d.subsystem_vendor_id = static_cast<uint32_t>(bytes[12] | (bytes[13] << 8));
    d.subsystem_device_id = static_cast<uint32_t>(bytes[14] | (bytes[15] << 8));
  }
}

// A "Key: value" line of `lspci -vvv` under a device (`t` trimmed).
void read_device_field(std::string_view t, LspciDevice& d) {
  const size_t colon = t.find(':');
  if (colon == std::string_view::npos) {
    if (core::starts_with(t, "!!! Unknown header type 7f")) d.config_all_ones = true;
    return;
  }
  const std::string_view key = t.substr(0, colon);
  const std::string_view value = core::trim(t.substr(colon + 1));
  if (key == "Kernel driver in use") {
    if (!value.empty()) d.driver = std::string(value);
  } else if (key == "Kernel modules") {
    for (auto m : core::split(value, ',')) {
      if (!core::trim(m).empty()) d.modules.emplace_back(core::trim(m));
    }
  } else if (key == "NUMA node") {
    if (auto n = core::parse_i64(value); n && *n >= 0 && *n < 4096) d.numa_node = static_cast<int>(*n);
  } else if (key == "Subsystem") {
    if (auto ids = last_id_pair(value)) {
      d.subsystem_vendor_id = ids->first;
      d.subsystem_device_id = ids->second;
    }
  } else if (key == "LnkCap") {
    read_link(value, d.link_speed_cap_gts, d.link_width_cap, nullptr, nullptr);
  } else if (key == "LnkSta") {
    read_link(value, d.link_speed_gts, d.link_width, &d.speed_downgraded, &d.width_downgraded);
  } else if (core::starts_with(t, "!!! Unknown header type 7f")) {
    d.config_all_ones = true;
  }
}

}  // namespace

core::Result<Lspci> parse_lspci(std::string_view text) {
  Lspci out;
  LspciDevice* cur = nullptr;
  bool hex_vendor_seen = false;
  int line_no = 0;
  std::vector<int> bytes;
  for (auto raw : core::split_lines(text)) {
    ++line_no;
    std::string_view line = raw;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (core::trim(line).empty()) continue;
    if (const size_t alen = address_length(line); alen != 0) {
      out.devices.push_back(device_from_header(line, alen, line_no));
      cur = &out.devices.back();
      hex_vendor_seen = false;
      continue;
    }
    if (cur == nullptr) {
      out.problems.push_back(core::Message(N_("line {}: text before the first device header"), line_no));
      continue;
    }
    size_t offset = 0;
    if (line.front() != '\t' && line.front() != ' ' && hex_dump_line(line, offset, bytes)) {
      read_config_bytes(offset, bytes, hex_vendor_seen, *cur);
      continue;
    }
    read_device_field(core::trim(line), *cur);
  }
  if (out.devices.empty()) {
    return core::fail(
        core::ErrorCode::kParse, core::Message(N_("line {}"), 1),
        core::Message(N_("no lspci device header (expected lines like '0000:01:00.0 VGA compatible controller ...')")));
  }
  return out;
}

}  // namespace tfrig::importer
