// The GPU catalog's PCI device ids against the PCI ID database (Debian's
// pci.ids package, scripts/deps-knowledge.txt): where that file names the
// device, the catalog entry holding the id is that model, and a memory size
// in the file's name is the entry's. Plus the ids whose marketing name hides
// two cards (RTX 3060 8GB/12GB, RTX 4060 Ti 8GB/16GB), which the file of
// Debian 12 does not tell apart.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "knowledge/knowledge.h"

namespace tfrig::knowledge {
namespace {

// Debian's pci.ids package, else hwdata's copy.
std::string pci_ids_path() {
  for (const char* p : {"/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids"}) {
    if (std::filesystem::exists(p)) return p;
  }
  return "";
}

// NVIDIA's (vendor 10de) device lines: "\t2204  GA102 [GeForce RTX 3090]".
std::map<uint32_t, std::string> nvidia_devices(const std::string& path) {
  std::map<uint32_t, std::string> out;
  std::ifstream in(path);
  std::string line;
  bool nvidia = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] != '\t') {
      nvidia = line.rfind("10de ", 0) == 0;
      continue;
    }
    if (!nvidia || line.size() < 7 || line[1] == '\t') continue;  // "\t\t" = a subsystem
    out[static_cast<uint32_t>(std::stoul(line.substr(1, 4), nullptr, 16))] = line.substr(7);
  }
  return out;
}

std::vector<std::string> tokens(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.') {
      cur.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool memory_token(const std::string& t) {
  return t.size() > 2 && t.compare(t.size() - 2, 2, "gb") == 0 &&
         std::all_of(t.begin(), t.end() - 2, [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// The words of a pci.ids model name that say which model it is: not the
// brand, the bus, the memory type or the mining-limiter marks.
std::set<std::string> model_words(const std::string& name) {
  static const std::set<std::string> kNoise{"geforce", "tesla", "nvidia", "lite", "hash", "rate", "gddr6x",
                                            "pcie", "sxm", "sxm2", "sxm4", "sxm5"};
  std::set<std::string> out;
  for (const auto& t : tokens(name.substr(0, name.find("Rev.")))) {
    if (!kNoise.count(t) && !memory_token(t)) out.insert(t);
  }
  return out;
}

std::optional<int> memory_gb(const std::string& name) {
  for (const auto& t : tokens(name)) {
    if (memory_token(t)) return std::stoi(t.substr(0, t.size() - 2));
  }
  return std::nullopt;
}

TEST(KnowledgePciIds, EveryCatalogIdAgreesWithThePciIdDatabase) {
  const std::string path = pci_ids_path();
  ASSERT_FALSE(path.empty()) << "no pci.ids: install the Debian package pci.ids (scripts/deps-knowledge.txt)";
  const auto devices = nvidia_devices(path);
  ASSERT_GT(devices.size(), 500u) << path;
  const auto& k = builtin();
  int compared = 0;
  for (const auto& g : k.gpus()) {
    std::set<std::string> have;
    for (const auto& t : tokens(g.name)) have.insert(t);
    for (const auto& a : g.aliases) {
      for (const auto& t : tokens(a)) have.insert(t);
    }
    for (uint32_t id : g.pci_device_ids) {
      auto it = devices.find(id);
      if (it == devices.end()) continue;  // newer than the file
      const std::string& line = it->second;
      const size_t open = line.find('['), close = line.rfind(']');
      if (open == std::string::npos || close == std::string::npos || close < open) continue;  // "GH100": chip only
      const std::string model = line.substr(open + 1, close - open - 1);
      // "A2 / A16", "L6000 / RTX 6000 Ada Generation": one of the names.
      bool named = false;
      std::optional<int> gb;
      std::stringstream alternatives(model);
      for (std::string alt; std::getline(alternatives, alt, '/');) {
        const auto words = model_words(alt);
        if (words.empty()) continue;
        if (std::includes(have.begin(), have.end(), words.begin(), words.end())) {
          named = true;
          gb = memory_gb(alt);
        }
      }
      ++compared;
      EXPECT_TRUE(named) << fmt::format("10de:{:04x} is '{}' in {}, but the catalog puts it in '{}' ({})", id, line,
                                        path, g.name, g.id);
      if (named && gb && g.vram_gib) {
        EXPECT_EQ(*gb, static_cast<int>(*g.vram_gib))
            << fmt::format("10de:{:04x} is '{}' in {}, but '{}' has {} GiB", id, line, path, g.name, *g.vram_gib);
      }
    }
  }
  EXPECT_GE(compared, 30);
}

TEST(KnowledgePciIds, SharedMarketingNamesGoByDeviceId) {
  const auto& k = builtin();
  // https://pci-ids.ucw.cz/read/PC/10de/24c7 (RTX 3060 8GB), /2803 and /2788
  // (RTX 4060 Ti, 8 GB), /2805 (RTX 4060 Ti 16GB).
  const std::pair<uint32_t, double> kCases[] = {{0x24c7, 8}, {0x2487, 12}, {0x2503, 12}, {0x2803, 8}, {0x2788, 8}, {0x2805, 16}};
  for (const auto& [id, gib] : kCases) {
    auto m = k.find_gpu_by_pci_id(id);
    ASSERT_TRUE(m && m->spec) << std::hex << id;
    EXPECT_EQ(m->spec->vram_gib, gib) << std::hex << id << " " << m->name;
  }
}

}  // namespace
}  // namespace tfrig::knowledge
