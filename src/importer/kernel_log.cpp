#include "importer/kernel_log.h"

#include <cctype>
#include <set>

#include "core/pci_address.h"
#include "core/text.h"

namespace tfrig::importer {

namespace {

bool is_clock(std::string_view s) {  // "12:43:10"
  return s.size() == 8 && s[2] == ':' && s[5] == ':' && std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::isdigit(static_cast<unsigned char>(s[7]));
}

// The timestamp(s) before "NVRM:": ISO first token, syslog "Mon DD HH:MM:SS"
// (any locale's month name), and/or the kernel's "[ uptime]".
std::optional<std::string> time_of(std::string_view prefix) {
  std::string out;
  const auto tokens = core::split_ws(prefix);
  if (!tokens.empty() && tokens[0].size() >= 19 && std::isdigit(static_cast<unsigned char>(tokens[0][0])) &&
      tokens[0].find('T') != std::string_view::npos) {
    out = std::string(tokens[0]);
  } else if (tokens.size() >= 3 && is_clock(tokens[2])) {
    out = std::string(tokens[0]) + " " + std::string(tokens[1]) + " " + std::string(tokens[2]);
  }
  const size_t open = prefix.find('[');
  const size_t close = open == std::string_view::npos ? open : prefix.find(']', open);
  if (close != std::string_view::npos) {
    if (!out.empty()) out += " ";
    out += std::string(prefix.substr(open, close - open + 1));
  }
  if (out.empty()) return std::nullopt;
  return out;
}

// The version after "has the version " up to ',' or '.' followed by space/end.
std::optional<std::string> version_after(std::string_view line, std::string_view marker) {
  const size_t at = line.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + marker.size());
  size_t n = 0;
  while (n < rest.size() && (std::isdigit(static_cast<unsigned char>(rest[n])) || rest[n] == '.')) ++n;
  while (n > 0 && rest[n - 1] == '.') --n;
  if (n == 0) return std::nullopt;
  return std::string(rest.substr(0, n));
}

}  // namespace

KernelLog parse_kernel_log(std::string_view text) {
  KernelLog out;
  std::set<std::string, std::less<>> seen;
  std::set<std::string, std::less<>> lost;
  int line_no = 0;
  std::optional<std::string> pending_lost;  // "The NVIDIA GPU <bus>" waiting for its "fallen off the bus" line
  int pending_lines = 0;
  for (auto raw : core::split_lines(text)) {
    ++line_no;
    const size_t nvrm = raw.find("NVRM: ");
    if (nvrm == std::string_view::npos) continue;
    const std::string_view prefix = raw.substr(0, nvrm);
    const std::string_view msg = raw.substr(nvrm + 6);
    if (core::starts_with(msg, "Xid (PCI:")) {
      const size_t close = msg.find("): ");
      if (close == std::string_view::npos) continue;
      // "PCI:0000:03:00" names the device without its function: the GPU is function 0.
      const std::string_view raw_bus = msg.substr(9, close - 9);
      auto bus = core::normalize_pci_bus_id(raw_bus);
      if (!bus) bus = core::normalize_pci_bus_id(std::string(raw_bus) + ".0");
      std::string_view rest = msg.substr(close + 3);
      size_t n = 0;
      while (n < rest.size() && n < 6 && std::isdigit(static_cast<unsigned char>(rest[n]))) ++n;
      auto xid = core::parse_u64(rest.substr(0, n));
      if (!bus || !xid || *xid > 100000) continue;
      // The same message is repeated across the log sources; keep one.
      if (!seen.insert(std::string(raw)).second) continue;
      std::string_view message = rest.substr(n);
      if (core::starts_with(message, ",")) message.remove_prefix(1);
      out.xids.push_back(
          KernelXid{static_cast<int>(*xid), *bus, time_of(prefix), std::string(core::trim(message)), line_no});
    } else if (msg.find("fallen off the bus") != std::string_view::npos && core::starts_with(msg, "GPU ")) {
      // "GPU at 00000000:04:00.0 has fallen off the bus." (older drivers) and
      // "GPU 0000:01:00.0: GPU has fallen off the bus." (newer ones).
      std::string_view rest = msg.substr(core::starts_with(msg, "GPU at ") ? 7 : 4);
      // The bus id itself holds ':'; it ends at the first space (and drops the ':' before it).
      std::string_view token = rest.substr(0, rest.find(' '));
      if (core::ends_with(token, ":")) token.remove_suffix(1);
      if (auto bus = core::normalize_pci_bus_id(token); bus && lost.insert(*bus).second)
        out.fallen_off_bus.push_back(*bus);
    } else if (core::starts_with(msg, "The NVIDIA GPU ")) {
      // RmInitAdapter (open-gpu-kernel-modules src/nvidia/arch/nvalloc/unix/src/osinit.c) prints
      //   "NVRM: The NVIDIA GPU 0000:b3:00.0" / "NVRM: (PCI ID: 10de:26b5) installed in this system has" /
      //   "NVRM: fallen off the bus and is not responding to commands."
      // on three lines (one when a log joins them).
      std::string_view rest = msg.substr(15);
      pending_lost = core::normalize_pci_bus_id(rest.substr(0, rest.find(' ')));
      pending_lines = 3;
      if (msg.find("fallen off the bus") != std::string_view::npos && pending_lost &&
          lost.insert(*pending_lost).second) {
        out.fallen_off_bus.push_back(*pending_lost);
        pending_lost.reset();
      }
    } else if (pending_lost && pending_lines > 0 && msg.find("fallen off the bus") != std::string_view::npos) {
      if (lost.insert(*pending_lost).second) out.fallen_off_bus.push_back(*pending_lost);
      pending_lost.reset();
    }
    if (pending_lines > 0 && --pending_lines == 0)
      pending_lost.reset();
    else if (core::starts_with(msg, "GPU ") && msg.find("RmInitAdapter failed") != std::string_view::npos) {
      std::string_view rest = msg.substr(4);
      const size_t colon = rest.find(": ");
      if (colon == std::string_view::npos) continue;
      auto bus = core::normalize_pci_bus_id(rest.substr(0, colon));
      if (!bus) continue;
      bool dup = false;
      for (const auto& f : out.init_failed) dup = dup || f.first == *bus;
      if (!dup) out.init_failed.emplace_back(*bus, std::string(core::trim(rest.substr(colon + 2))));
    } else if (core::starts_with(msg, "API mismatch:")) {
      if (auto v = version_after(msg, "the client has the version ")) out.api_mismatch_client = v;
    } else if (core::starts_with(msg, "this kernel module has the version ")) {
      if (auto v = version_after(msg, "this kernel module has the version ")) out.api_mismatch_module = v;
    }
  }
  return out;
}

}  // namespace tfrig::importer
