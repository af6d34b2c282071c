#include "importer/nvidia_smi_topo.h"

#include <cctype>

#include "core/i18n.h"
#include "core/text.h"
#include "probe/parse/proc_text.h"

namespace tfrig::importer {

namespace {

// Drops ANSI escape sequences (ESC [ ... letter).
std::string strip_ansi(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b') {
      size_t j = i + 1;
      if (j < s.size() && s[j] == '[') {
        ++j;
        while (j < s.size() && !std::isalpha(static_cast<unsigned char>(s[j]))) ++j;
      }
      i = j;
      continue;
    }
    out.push_back(s[i]);
  }
  return out;
}

bool device_name(std::string_view t) {
  auto numbered = [&](std::string_view prefix) {
    if (!core::starts_with(t, prefix) || t.size() == prefix.size()) return false;
    for (char c : t.substr(prefix.size())) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    }
    return true;
  };
  return numbered("GPU") || numbered("NIC") || numbered("mlx5_");
}

std::optional<int> gpu_number(std::string_view name) {
  if (!core::starts_with(name, "GPU")) return std::nullopt;
  auto n = core::parse_u64(name.substr(3));
  if (!n || *n > 1024) return std::nullopt;
  return static_cast<int>(*n);
}

}  // namespace

bool looks_like_nvidia_smi_topo(std::string_view text) {
  int n = 0;
  for (auto line : core::split_lines(text)) {
    if (++n > 20) break;
    const std::string clean = strip_ansi(line);
    const auto tokens = core::split_ws(clean);
    if (!tokens.empty() && tokens[0] == "GPU0" && clean.find("Affinity") != std::string::npos) return true;
  }
  return false;
}

std::optional<std::string> topo_level(std::string_view cell) {
  if (cell == "PIX") return "single_switch";
  if (cell == "PXB") return "multiple_switches";
  if (cell == "PHB") return "host_bridge";
  if (cell == "NODE") return "same_cpu";
  if (cell == "SYS" || cell == "SOC") return "across_sockets";
  return std::nullopt;
}

std::optional<int> topo_nvlinks(std::string_view cell) {
  if (!core::starts_with(cell, "NV") || cell.size() < 3) return std::nullopt;
  auto n = core::parse_u64(cell.substr(2));
  if (!n || *n == 0 || *n > 64) return std::nullopt;
  return static_cast<int>(*n);
}

core::Result<TopoMatrix> parse_nvidia_smi_topo(std::string_view text) {
  TopoMatrix m;
  bool header = false;
  size_t affinity_columns = 0;
  bool nic_legend = false;
  int line_no = 0;
  for (auto raw : core::split_lines(text)) {
    ++line_no;
    const std::string line = strip_ansi(raw);
    const auto tokens = core::split_ws(line);
    if (tokens.empty()) continue;
    if (!header) {
      if (tokens[0] != "GPU0") continue;
      header = true;
      for (size_t i = 0; i < tokens.size(); ++i) {
        if (device_name(tokens[i])) {
          m.devices.emplace_back(tokens[i]);
        } else if (tokens[i] == "Affinity" || tokens[i] == "ID") {
          ++affinity_columns;  // "CPU Affinity", "NUMA Affinity", "GPU NUMA ID"
        }
      }
      continue;
    }
    if (tokens[0] == "Legend:") {
      nic_legend = false;
      continue;
    }
    if (tokens[0] == "NIC" && tokens.size() > 1 && tokens[1] == "Legend:") {
      nic_legend = true;
      continue;
    }
    if (nic_legend) {
      // "  NIC0: mlx5_0"
      if (tokens.size() >= 2 && core::ends_with(tokens[0], ":")) {
        m.nic_names.emplace_back(std::string(tokens[0].substr(0, tokens[0].size() - 1)), std::string(tokens[1]));
      }
      continue;
    }
    if (!device_name(tokens[0])) continue;
    if (tokens.size() < 1 + m.devices.size()) {
      return core::fail(core::ErrorCode::kParse, core::Message(N_("line {}"), line_no),
                        core::Message(N_("row {} has {} cells, expected {}"), std::string(tokens[0]), tokens.size() - 1,
                                      m.devices.size()));
    }
    TopoRow row;
    row.name = std::string(tokens[0]);
    for (size_t i = 0; i < m.devices.size(); ++i) row.cells.emplace_back(tokens[1 + i]);
    const size_t extra = tokens.size() - 1 - m.devices.size();
    if (affinity_columns >= 1 && extra >= 1 && tokens[1 + m.devices.size()] != "N/A") {
      row.cpu_affinity = std::string(tokens[1 + m.devices.size()]);
    }
    if (affinity_columns >= 2 && extra >= 2 && tokens[2 + m.devices.size()] != "N/A") {
      row.numa_affinity = std::string(tokens[2 + m.devices.size()]);
    }
    m.rows.push_back(std::move(row));
  }
  if (!header) {
    return core::fail(core::ErrorCode::kParse, core::Message(N_("line {}"), 1),
                      core::Message(N_("no 'GPU0 ... CPU Affinity' header line of nvidia-smi topo -m")));
  }
  if (m.rows.empty())
    return core::fail(core::ErrorCode::kParse, core::Message(N_("line {}"), line_no),
                      core::Message(N_("a header without rows")));
  return m;
}

void apply_nvidia_smi_topo(const TopoMatrix& m, inventory::Inventory& inv) {
  auto gpu_at = [&inv](int index) -> inventory::Gpu* {
    for (auto& g : inv.gpus) {
      if (g.index == index) return &g;
    }
    return nullptr;
  };
  std::vector<inventory::GpuPair> pairs;
  for (const auto& row : m.rows) {
    auto a = gpu_number(row.name);
    if (!a) continue;
    if (auto* g = gpu_at(*a)) {
      if (row.cpu_affinity) {
        if (auto cpus = probe::parse::parse_cpulist(*row.cpu_affinity)) g->cpu_affinity = *cpus;
      }
      if (row.numa_affinity) {
        if (auto n = core::parse_u64(*row.numa_affinity); n && *n < 4096) g->numa_node = static_cast<int>(*n);
      }
    }
    for (size_t i = 0; i < row.cells.size() && i < m.devices.size(); ++i) {
      auto b = gpu_number(m.devices[i]);
      if (!b || *b <= *a) continue;
      inventory::GpuPair p;
      p.gpu_a = *a;
      p.gpu_b = *b;
      p.level = topo_level(row.cells[i]);
      p.nvlink = topo_nvlinks(row.cells[i]).has_value();
      pairs.push_back(std::move(p));
    }
  }
  if (!pairs.empty()) inv.gpu_topology = std::move(pairs);
}

}  // namespace tfrig::importer
