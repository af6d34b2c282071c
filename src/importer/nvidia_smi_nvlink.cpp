#include "importer/nvidia_smi_nvlink.h"

#include "core/pci_address.h"
#include "core/text.h"

namespace tfrig::importer {

namespace {

// "GPU 0: NAME (UUID: GPU-...)" -> index, name, uuid.
bool gpu_line(std::string_view t, NvlinkGpu& out) {
  if (!core::starts_with(t, "GPU ")) return false;
  const size_t colon = t.find(": ");
  if (colon == std::string_view::npos || colon <= 4) return false;
  auto idx = core::parse_u64(t.substr(4, colon - 4));
  if (!idx || *idx > 1024) return false;
  out.index = static_cast<int>(*idx);
  std::string_view rest = t.substr(colon + 2);
  const size_t uuid_at = rest.find(" (UUID: ");
  if (uuid_at != std::string_view::npos) {
    std::string_view uuid = rest.substr(uuid_at + 8);
    if (!uuid.empty() && uuid.back() == ')') uuid.remove_suffix(1);
    out.uuid = std::string(core::trim(uuid));
    rest = rest.substr(0, uuid_at);
  }
  out.name = std::string(core::trim(rest));
  return true;
}

inventory::NvLink& link_of(NvlinkGpu& g, int n) {
  for (auto& l : g.links) {
    if (l.link == n) return l;
  }
  inventory::NvLink l;
  l.link = n;
  g.links.push_back(l);
  return g.links.back();
}

}  // namespace

bool looks_like_nvidia_smi_nvlink(std::string_view text) {
  const auto lines = core::split_lines(text.substr(0, 4096));
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    NvlinkGpu g;
    if (gpu_line(core::trim(lines[i]), g) && core::starts_with(core::trim(lines[i + 1]), "Link ")) return true;
  }
  return false;
}

void parse_nvidia_smi_nvlink(std::string_view text, std::vector<NvlinkGpu>& gpus) {
  NvlinkGpu* cur = nullptr;
  for (auto raw : core::split_lines(text)) {
    const std::string_view t = core::trim(raw);
    NvlinkGpu g;
    if (gpu_line(t, g)) {
      cur = nullptr;
      for (auto& e : gpus) cur = e.index == g.index ? &e : cur;
      if (cur == nullptr) {
        gpus.push_back(std::move(g));
        cur = &gpus.back();
      } else if (!cur->uuid) {
        cur->uuid = g.uuid;
      }
      continue;
    }
    if (cur == nullptr || !core::starts_with(t, "Link ")) continue;
    const size_t colon = t.find(": ");
    if (colon == std::string_view::npos || colon <= 5) continue;
    auto n = core::parse_u64(t.substr(5, colon - 5));
    if (!n || *n > 64) continue;
    const std::string_view value = t.substr(colon + 2);
    auto& l = link_of(*cur, static_cast<int>(*n));
    if (core::starts_with(value, "Remote Device ")) {
      std::string_view rest = value.substr(14);
      const size_t sep = rest.find(": ");
      if (auto bus = core::normalize_pci_bus_id(rest.substr(0, sep))) l.remote_pci_bus_id = bus;
    } else if (value.find("inactive") != std::string_view::npos) {
      l.active = false;
    } else if (value.find("GB/s") != std::string_view::npos) {
      l.active = true;
    }
  }
}

}  // namespace tfrig::importer
