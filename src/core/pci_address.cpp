#include "core/pci_address.h"

#include <cctype>

#include "core/text.h"

namespace tfrig::core {

namespace {

bool is_hex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> normalize_pci_bus_id(std::string_view text) {
  text = trim(text);
  // domain:bus:device.function, the domain optional.
  auto parts = split(text, ':');
  if (parts.size() == 2) parts.insert(parts.begin(), std::string_view("0000"));
  if (parts.size() != 3) return std::nullopt;
  const auto dot = parts[2].find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string_view domain = parts[0];
  const std::string_view bus = parts[1];
  const std::string_view dev = parts[2].substr(0, dot);
  const std::string_view fn = parts[2].substr(dot + 1);
  if (!is_hex(domain) || domain.size() > 8 || !is_hex(bus) || bus.size() > 2 || !is_hex(dev) || dev.size() > 2 ||
      fn.size() != 1 || fn[0] < '0' || fn[0] > '7') {
    return std::nullopt;
  }
  // NVML's 8-digit domain has the upper 16 bits zero on every x86 machine;
  // keep extra digits only when they carry a value.
  while (domain.size() > 4 && domain.front() == '0') domain.remove_prefix(1);
  std::string out;
  if (domain.size() < 4) out.append(4 - domain.size(), '0');
  out += domain;
  out += ':';
  if (bus.size() < 2) out += '0';
  out += bus;
  out += ':';
  if (dev.size() < 2) out += '0';
  out += dev;
  out += '.';
  out += fn;
  return to_lower(out);
}

}  // namespace tfrig::core
