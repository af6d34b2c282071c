// tfrig fleet: differences planted one at a time into fleets of real fixture
// machines are named, each on the node it was planted on, and nothing else is.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fleet/compare.h"
#include "fleet/load.h"
#include "fleet/render.h"
#include "knowledge/knowledge.h"
#include "report/report.h"
#include "test_support.h"

namespace tfrig::fleet {
namespace {

using nlohmann::json;
using test::TempDir;

const knowledge::Knowledge& kb() {
  static const knowledge::Knowledge k = *knowledge::load("");
  return k;
}

// The real machines the fleets are made of: two snapshots, a fixture root
// snapshotted now, and a real bug report imported now.
struct Base {
  std::string name;
  json doc;
};

const std::vector<Base>& bases() {
  static const std::vector<Base> cache = [] {
    std::vector<Base> out;
    for (const char* f : {"gpu_box_two_a100_old_driver.json", "cpu_box_cuda13.json"}) {
      out.push_back({f, json::parse(test::read_file(test::data_dir() + "/snapshots/" + f))});
    }
    TempDir tmp;
    auto snap = test::run_tfrig({"--root", test::root_dir("stack-cuda12"), "snapshot", "-o", tmp.file("s.json")});
    EXPECT_EQ(snap.exit_code, 0) << snap.err;
    out.push_back({"root stack-cuda12", json::parse(test::read_file(tmp.file("s.json")))});
    // Prometheus node_exporter's fixture tree: CPU frequency governors, NUMA.
    auto ne = test::run_tfrig({"--root", test::root_dir("node-exporter"), "snapshot", "-o", tmp.file("n.json")});
    EXPECT_EQ(ne.exit_code, 0) << ne.err;
    out.push_back({"root node-exporter", json::parse(test::read_file(tmp.file("n.json")))});
    auto imp = test::run_tfrig({"import", test::data_dir() + "/nvidia-bug-report/pavana27__Lambda-Bug-report.log.gz", "-o",
                                tmp.file("i.json")});
    EXPECT_EQ(imp.exit_code, 0) << imp.err;
    out.push_back({"bug report pavana27__Lambda-Bug-report", json::parse(test::read_file(tmp.file("i.json")))});
    return out;
  }();
  return cache;
}

// What differs between identical machines and must never show: names, times,
// the tfrig that wrote the snapshot, its schema, live counters.
void add_noise(json& doc, int i) {
  auto& inv = doc["inventory"];
  inv["host"]["hostname"] = "node0" + std::to_string(i);
  doc["generated_at"] = "2026-12-0" + std::to_string(i) + "T10:00:00Z";
  if (inv["memory"].contains("available_bytes") && inv["memory"]["available_bytes"].is_number()) {
    inv["memory"]["available_bytes"] = inv["memory"]["available_bytes"].get<uint64_t>() - 4096u * static_cast<unsigned>(i);
  }
  if (doc.contains("probes")) {
    for (auto& p : doc["probes"]) p["seconds"] = 0.001 * i;
  }
  for (auto& g : inv["gpus"]) g["uuid"] = "GPU-" + std::to_string(i) + "-" + std::to_string(g["index"].get<int>());
  if (i == 2) doc["tool_version"] = "0.0.9";  // an older tfrig
  if (i == 4) {                                // a newer tfrig: schema 2 with a field this one does not know
    doc["schema_version"] = 2;
    inv["host"]["boot_id"] = "c0ffee";
  }
  if (i == 5) {  // an older snapshot: the fields import added later are absent
    for (auto& g : inv["gpus"]) {
      g.erase("lost");
      g.erase("lost_evidence");
      g.erase("init_error");
    }
    inv["driver"].erase("xid_events");
    inv["driver"].erase("nvidia_smi_error");
  }
}

// A planted difference: changes node03's document and returns the fact ids
// it should show as, or nothing when the base has no such field.
using Plant = std::function<std::optional<std::set<std::string>>(json& doc)>;

bool probed(const json& doc, const char* id) {
  for (const auto& p : doc["probes"]) {
    if (p["id"] == id) return p["state"] == "ok" || p["state"] == "absent";
  }
  return false;
}

json* first_gpu(json& inv) { return inv["gpus"].empty() ? nullptr : &inv["gpus"][0]; }

json* first_env_with(json& inv, const char* key) {
  for (auto& e : inv["python"]["environments"]) {
    if (e.contains(key) && !e[key].is_null()) return &e;
  }
  return nullptr;
}

const std::vector<std::pair<std::string, Plant>>& plants() {
  static const std::vector<std::pair<std::string, Plant>> p = {
      {"driver", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         auto& d = inv["driver"];
         if (!d["version"].is_string() && !d["kernel_module_version"].is_string()) return std::nullopt;
         for (const char* k : {"version", "kernel_module_version"}) {
           if (d[k].is_string()) d[k] = "550.54.14";
         }
         for (auto& lib : inv["cuda"]["libraries"]) {
           if (lib["family"] == "libcuda" || lib["family"] == "nvml") lib["version"] = "550.54.14";
         }
         return std::set<std::string>{"driver.version"};
       }},
      {"driver cuda", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         if (!inv["driver"]["cuda_version"].is_string()) return std::nullopt;
         inv["driver"]["cuda_version"] = "11.4";
         return std::set<std::string>{"driver.cuda_version"};
       }},
      {"cudnn", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         for (auto& lib : inv["cuda"]["libraries"]) {
           if (lib["family"] != "cudnn") continue;
           lib["version"] = "9.1.0";
           return std::set<std::string>{"cuda.library[cudnn]"};
         }
         return std::nullopt;
       }},
      {"tensorflow", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         json* e = first_env_with(inv, "tensorflow");
         if (!e) return std::nullopt;
         (*e)["tensorflow"]["version"] = "2.12.0";
         return std::set<std::string>{"python.tensorflow[" + (*e)["prefix"].get<std::string>() + "]"};
       }},
      {"tensorflow missing", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         json* e = first_env_with(inv, "tensorflow");
         if (!e) return std::nullopt;
         (*e)["tensorflow"] = nullptr;
         return std::set<std::string>{"tf.environments"};
       }},
      {"python", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         json* e = first_env_with(inv, "python_version");
         if (!e) return std::nullopt;
         (*e)["python_version"] = "3.8";
         return std::set<std::string>{"python.version[" + (*e)["prefix"].get<std::string>() + "]"};
       }},
      {"kernel", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         if (!inv["host"]["kernel_release"].is_string()) return std::nullopt;
         inv["host"]["kernel_release"] = "5.15.0-91-generic";
         return std::set<std::string>{"os.kernel"};
       }},
      {"os", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         if (!inv["host"]["os_pretty_name"].is_string()) return std::nullopt;
         inv["host"]["os_pretty_name"] = "Ubuntu 20.04.6 LTS";
         return std::set<std::string>{"os.release"};
       }},
      {"lost gpu", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         if (inv["gpus"].size() < 2) return std::nullopt;
         inv["gpus"].back()["lost"] = true;
         inv["gpus"].back()["lost_evidence"] = "Unable to determine the device handle for GPU: GPU is lost";
         return std::set<std::string>{"gpu.count"};
       }},
      {"gpu model", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         json* g = first_gpu(inv);
         if (!g || !(*g)["name"].is_string()) return std::nullopt;
         (*g)["name"] = "NVIDIA A100-PCIE-40GB";
         return std::set<std::string>{"gpu.model[gpu0]"};
       }},
      {"vram", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         json* g = first_gpu(inv);
         if (!g || !(*g)["memory_total_bytes"].is_number()) return std::nullopt;
         (*g)["memory_total_bytes"] = (*g)["memory_total_bytes"].get<uint64_t>() / 2;
         return std::set<std::string>{"gpu.memory[gpu0]"};
       }},
      {"link width", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         json* g = first_gpu(inv);
         if (!g || !(*g)["pcie_link_width_current"].is_number() || !(*g)["pcie_link_gen_max"].is_number()) return std::nullopt;
         (*g)["pcie_link_width_current"] = (*g)["pcie_link_width_current"].get<int>() / 2;
         return std::set<std::string>{"gpu.pcie_link[gpu0]"};
       }},
      {"link generation", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         json* g = first_gpu(inv);
         if (!g || !(*g)["pcie_link_gen_max"].is_number() || !(*g)["pcie_link_width_current"].is_number()) return std::nullopt;
         const int gen = (*g)["pcie_link_gen_max"].get<int>() - 1;
         (*g)["pcie_link_gen_max"] = gen;
         if ((*g)["pcie_link_gen_current"].is_number() && (*g)["pcie_link_gen_current"].get<int>() > gen) {
           (*g)["pcie_link_gen_current"] = gen;
         }
         return std::set<std::string>{"gpu.pcie_link[gpu0]"};
       }},
      {"nvlink", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         if (inv["gpu_topology"].empty()) return std::nullopt;
         auto& pair = inv["gpu_topology"][0];
         pair["nvlink"] = !pair.value("nvlink", false);
         return std::set<std::string>{"gpu.nvlink"};
       }},
      {"numa", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         auto& nodes = inv["cpu"]["numa_nodes"];
         if (nodes.empty()) return std::nullopt;
         if (nodes.size() == 1) {
           auto cpus = nodes[0]["cpus"];
           if (cpus.size() < 2) return std::nullopt;
           json a = nodes[0], b = nodes[0];
           a["cpus"] = json(std::vector<int>(cpus.begin(), cpus.begin() + static_cast<long>(cpus.size() / 2)));
           b["cpus"] = json(std::vector<int>(cpus.begin() + static_cast<long>(cpus.size() / 2), cpus.end()));
           b["id"] = 1;
           nodes = json::array({a, b});
         } else {
           nodes.erase(nodes.size() - 1);
         }
         return std::set<std::string>{"cpu.numa"};
       }},
      {"ram", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         if (!inv["memory"]["total_bytes"].is_number()) return std::nullopt;
         inv["memory"]["total_bytes"] = inv["memory"]["total_bytes"].get<uint64_t>() / 4 * 3;
         return std::set<std::string>{"memory.total"};
       }},
      {"ram within the kernel's reservations", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         if (!inv["memory"]["total_bytes"].is_number()) return std::nullopt;
         inv["memory"]["total_bytes"] = inv["memory"]["total_bytes"].get<uint64_t>() / 1000 * 995;
         return std::set<std::string>{};
       }},
      {"swap", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         auto& m = inv["memory"];
         if (!m["swap_total_bytes"].is_number()) return std::nullopt;
         m["swap_total_bytes"] = m["swap_total_bytes"].get<uint64_t>() == 0 ? uint64_t{8} << 30 : 0;
         return std::set<std::string>{"memory.swap"};
       }},
      {"nofile", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         auto& l = inv["limits"]["nofile"];
         if (!l["soft"].is_number()) return std::nullopt;
         l["soft"] = l["soft"].get<uint64_t>() == 1024 ? 4096 : 1024;
         return std::set<std::string>{"limits.nofile"};
       }},
      {"memlock", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         auto& l = inv["limits"]["memlock"];
         if (l["soft"].is_null() && l["hard"].is_null()) return std::nullopt;
         l["soft"] = "unlimited";
         l["hard"] = "unlimited";
         return std::set<std::string>{"limits.memlock"};
       }},
      {"governor", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         auto& g = inv["cpu"]["governor"];
         if (!g.is_string()) return std::nullopt;
         g = g == "powersave" ? "performance" : "powersave";
         return std::set<std::string>{"cpu.governor"};
       }},
      {"cpu model", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         if (!inv["cpu"]["model_name"].is_string()) return std::nullopt;
         inv["cpu"]["model_name"] = "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz";
         return std::set<std::string>{"cpu.model"};
       }},
      {"container toolkit", [](json& doc) -> std::optional<std::set<std::string>> {
         json& inv = doc["inventory"];
         if (!probed(doc, "containers")) return std::nullopt;
         auto& c = inv["containers"];
         if (c["nvidia_ctk"].is_string()) {
           for (const char* k : {"nvidia_ctk", "nvidia_container_runtime", "nvidia_container_cli"}) c[k] = nullptr;
         } else {
           c["nvidia_ctk"] = "/usr/bin/nvidia-ctk";
         }
         return std::set<std::string>{"container.toolkit"};
       }},
  };
  return p;
}

std::string base_text_prefix() { return bases()[0].doc.dump().substr(0, 200); }

FleetReport compare_dir(const std::string& dir) {
  auto files = list_inputs({dir});
  EXPECT_TRUE(files.has_value());
  auto loaded = load_nodes(*files, kb(), LoadOptions{});
  return compare(std::move(loaded.nodes), std::move(loaded.unreadable));
}

constexpr int kNodes = 5;
const char* kPlanted = "node03";

TEST(FleetPlanted, EachPlantedDifferenceIsNamedAndNothingElse) {
  int planted = 0;
  for (const auto& base : bases()) {
    // The same machine five times, with only noise between them: nothing drifts.
    {
      TempDir dir;
      for (int i = 1; i <= kNodes; ++i) {
        json doc = base.doc;
        add_noise(doc, i);
        test::write_file(dir.file("node0" + std::to_string(i) + ".json"), doc.dump());
      }
      auto r = compare_dir(dir.path());
      EXPECT_EQ(r.nodes.size(), static_cast<size_t>(kNodes)) << base.name;
      EXPECT_TRUE(r.unreadable.empty()) << base.name;
      EXPECT_TRUE(r.drift.empty()) << base.name << ": " << (r.drift.empty() ? "" : r.drift[0].fact);
      EXPECT_TRUE(r.odd_nodes.empty()) << base.name;
      for (const auto& f : r.findings) EXPECT_EQ(f.nodes.size(), static_cast<size_t>(kNodes)) << base.name << " " << f.rule_id;
    }
    for (const auto& [what, plant] : plants()) {
      json changed = base.doc;
      auto expected = plant(changed);
      if (!expected) continue;
      ++planted;
      SCOPED_TRACE(base.name + ": " + what);
      TempDir dir;
      for (int i = 1; i <= kNodes; ++i) {
        json doc = i == 3 ? changed : base.doc;
        add_noise(doc, i);
        test::write_file(dir.file("node0" + std::to_string(i) + ".json"), doc.dump());
      }
      auto r = compare_dir(dir.path());
      ASSERT_EQ(r.nodes.size(), static_cast<size_t>(kNodes));
      std::set<std::string> drifted;
      for (const auto& d : r.drift) {
        drifted.insert(d.fact);
        ASSERT_EQ(d.differing.size(), 1u) << d.fact;
        EXPECT_EQ(d.differing[0].node, kPlanted) << d.fact;
        EXPECT_EQ(d.expected_nodes, static_cast<size_t>(kNodes - 1)) << d.fact;
      }
      EXPECT_EQ(drifted, *expected);
      // A rule fires everywhere, or only on the planted node, or everywhere but there.
      bool finding_differs = false;
      for (const auto& f : r.findings) {
        const bool on_planted = std::any_of(f.nodes.begin(), f.nodes.end(), [](const NodeEntity& n) { return n.node == kPlanted; });
        const bool everywhere = f.nodes.size() == static_cast<size_t>(kNodes);
        const bool only_planted = f.nodes.size() == 1 && on_planted;
        const bool all_but_planted = f.nodes.size() == static_cast<size_t>(kNodes - 1) && !on_planted;
        EXPECT_TRUE(everywhere || only_planted || all_but_planted) << f.rule_id;
        finding_differs = finding_differs || only_planted;
      }
      if (expected->empty() && !finding_differs) {
        EXPECT_TRUE(r.odd_nodes.empty());
      } else {
        ASSERT_EQ(r.odd_nodes.size(), 1u);
        EXPECT_EQ(r.odd_nodes[0].node, kPlanted);
        EXPECT_FALSE(r.odd_nodes[0].fixes.empty());
        EXPECT_EQ(r.odd_nodes[0].differences.size(), expected->size());
      }
    }
  }
  // Every kind of fact was planted on at least one real machine.
  EXPECT_GE(planted, 60) << planted;
}

TEST(FleetPlanted, EveryFactKindIsPlantedSomewhere) {
  std::set<std::string> kinds;
  for (const auto& base : bases()) {
    for (const auto& [what, plant] : plants()) {
      json changed = base.doc;
      auto expected = plant(changed);
      if (!expected) continue;
      for (const auto& id : *expected) kinds.insert(id.substr(0, id.find('[')));
    }
  }
  std::set<std::string> all;
  for (const auto& k : fact_kinds()) all.insert(std::string(k.id));
  EXPECT_EQ(kinds, all);
}

TEST(FleetLoad, VariedFleetOfSnapshotsBugReportsAndBrokenFiles) {
  TempDir dir;
  for (const auto& base : bases()) {
    std::string name = base.name;
    std::replace(name.begin(), name.end(), ' ', '_');
    test::write_file(dir.file(name + ".json"), base.doc.dump());
  }
  // Bug reports and nvidia-smi XML go through the importer, one file per node.
  test::write_file(dir.file("young.log.gz"), test::read_file(test::data_dir() + "/nvidia-bug-report/Young768__profiling.log.gz"));
  test::write_file(dir.file("lost.log.gz"), test::read_file(test::data_dir() + "/nvidia-bug-report/blacksoil__BashCommands.log.gz"));
  test::write_file(dir.file("truncated.json"), base_text_prefix());
  // A subdirectory is one machine of several files, imported together: a
  // real bug report and a real NVLink topology matrix.
  ASSERT_EQ(std::system(("mkdir " + dir.file("multi")).c_str()), 0);
  test::write_file(dir.file("multi/report.log.gz"),
                   test::read_file(test::data_dir() + "/nvidia-bug-report/pavana27__Lambda-Bug-report.log.gz"));
  test::write_file(dir.file("multi/topo.txt"), test::read_file(test::data_dir() + "/nvidia-smi-topo/2xGPU-NV2.topo-m.txt"));
  auto multi = load_node(dir.file("multi"), kb(), LoadOptions{});
  ASSERT_TRUE(multi.has_value()) << multi.error().to_string();
  EXPECT_EQ(multi->name, "multi");
  ASSERT_EQ(multi->notes.size(), 1u);
  EXPECT_EQ(core::english(multi->notes[0]), "imported from 2 files");
  EXPECT_EQ(core::render(multi->notes[0], "zh_CN").find("files"), std::string::npos);
  EXPECT_TRUE(std::any_of(multi->facts.begin(), multi->facts.end(), [](const Fact& f) { return f.kind == "gpu.nvlink" && f.value != "none"; }));
  // A gzipped snapshot is read as one.
  test::write_file(dir.file("zipped"), bases()[1].doc.dump());
  ASSERT_EQ(std::system(("gzip -n " + dir.file("zipped") + " && mv " + dir.file("zipped.gz") + " " + dir.file("zipped.json.gz")).c_str()), 0);
  test::write_file(dir.file("notes.md"), "not a node");  // not taken from a directory
  test::write_file(dir.file("garbage.txt"), "hello\n");  // taken, and of no known kind
  auto r = compare_dir(dir.path());
  EXPECT_EQ(r.nodes.size(), bases().size() + 4);
  EXPECT_TRUE(std::any_of(r.nodes.begin(), r.nodes.end(), [](const Node& n) { return n.name == "zipped" && n.source == "snapshot"; }));
  ASSERT_EQ(r.unreadable.size(), 2u);
  EXPECT_EQ(r.unreadable[0].name, "garbage");
  EXPECT_EQ(r.unreadable[1].name, "truncated");
  EXPECT_NE(r.unreadable[1].error.find("truncated.json"), std::string::npos) << r.unreadable[1].error;
  std::set<std::string> drifted;
  for (const auto& d : r.drift) drifted.insert(d.fact);
  for (const char* f : {"driver.version", "os.kernel", "gpu.count", "cpu.model", "memory.total"}) {
    EXPECT_TRUE(drifted.count(f)) << f;
  }
  // The lost GPU of the laptop's bug report is an error on that node alone.
  bool lost = false;
  for (const auto& f : r.findings) {
    if (f.severity == rules::Severity::kError && f.nodes.size() == 1 && f.nodes[0].node == "lost") lost = true;
  }
  EXPECT_TRUE(lost);
  for (const auto& n : r.nodes) {
    if (n.name == "young" || n.name == "lost") {
      EXPECT_EQ(n.source, "import") << n.name;
    }
  }
  EXPECT_EQ(r.worst, rules::Severity::kError);
}

TEST(FleetCompare, BaselineValuesAreExpectedAndItsFindingsAreNotHeldAgainstNodes) {
  const json& gpu_box = bases()[0].doc;
  TempDir dir;
  json newer = gpu_box;
  newer["inventory"]["driver"]["version"] = "535.113.01";
  for (int i = 1; i <= 5; ++i) test::write_file(dir.file("n" + std::to_string(i) + ".json"), (i <= 3 ? gpu_box : newer).dump());
  TempDir other;
  const std::string baseline_file = other.file("known-good.json");
  test::write_file(baseline_file, newer.dump());
  auto files = list_inputs({dir.path()});
  ASSERT_TRUE(files.has_value());
  auto loaded = load_nodes(*files, kb(), LoadOptions{});
  auto b = load_node(baseline_file, kb(), LoadOptions{});
  ASSERT_TRUE(b.has_value());
  // Without it the majority (3 of 5 on 470) wins; with it 535 is expected.
  auto by_majority = compare(loaded.nodes, loaded.unreadable);
  ASSERT_EQ(by_majority.drift.size(), 1u);
  EXPECT_EQ(by_majority.drift[0].expected, "470.82.01");
  auto r = compare(loaded.nodes, loaded.unreadable, *b);
  ASSERT_EQ(r.drift.size(), 1u);
  EXPECT_EQ(r.drift[0].expected, "535.113.01");
  ASSERT_EQ(r.drift[0].differing.size(), 3u);
  EXPECT_EQ(r.drift[0].differing[0].node, "n1");
  ASSERT_EQ(r.odd_nodes.size(), 3u);
  for (const auto& o : r.odd_nodes) EXPECT_NE(o.node, "n4");
  // The text lists the first odd nodes and says how many more the JSON has.
  const std::string text = render_text(r, RenderOptions{false, 12, 1});
  EXPECT_NE(text.find("1. n1"), std::string::npos) << text;
  EXPECT_NE(text.find("and 2 more"), std::string::npos) << text;
  EXPECT_NE(text.find("baseline: on 2 of the 5 nodes"), std::string::npos) << text;
  for (const auto& f : r.findings) {
    if (f.on_baseline) {
      for (const auto& o : r.odd_nodes) {
        EXPECT_EQ(std::count(o.findings.begin(), o.findings.end(), f.rule_id), 0) << f.rule_id;
      }
    }
  }
}

Node node_with(const std::string& name, std::vector<Fact> facts) {
  Node n;
  n.name = name;
  n.facts = std::move(facts);
  return n;
}

TEST(FleetCompare, RamWithinTwoPercentIsTheSameAndTiesAreStable) {
  // MemTotal of two real 128 GiB machines (tests/data bug reports) and one with a DIMM missing.
  auto ram = [](double kb) { return Fact{"memory.total", "", std::to_string(kb), kb * 1024}; };
  std::vector<Node> nodes = {node_with("a", {ram(131725808)}), node_with("b", {ram(131078716)}),
                             node_with("c", {ram(131725808 * 0.75)})};
  auto r = compare(nodes, {});
  ASSERT_EQ(r.drift.size(), 1u);
  ASSERT_EQ(r.drift[0].differing.size(), 1u);
  EXPECT_EQ(r.drift[0].differing[0].node, "c");
  // Two against two: the smaller value is the fleet's, whatever the order.
  auto v = [](const char* s) { return Fact{"driver.version", "", s, std::nullopt}; };
  std::vector<Node> tie = {node_with("d", {v("550.54.14")}), node_with("a", {v("535.113.01")}),
                           node_with("c", {v("550.54.14")}), node_with("b", {v("535.113.01")})};
  auto t1 = compare(tie, {});
  std::reverse(tie.begin(), tie.end());
  auto t2 = compare(tie, {});
  ASSERT_EQ(t1.drift.size(), 1u);
  EXPECT_EQ(t1.drift[0].expected, "535.113.01");
  EXPECT_EQ(t2.drift[0].expected, t1.drift[0].expected);
  ASSERT_EQ(t1.drift[0].differing.size(), 2u);
  EXPECT_EQ(t1.drift[0].differing[0].node, "c");
}

TEST(FleetCompare, UnknownIsNotDifferent) {
  auto v = [](const char* s) { return Fact{"os.kernel", "", s, std::nullopt}; };
  std::vector<Node> nodes = {node_with("a", {v("6.1.0")}), node_with("b", {}), node_with("c", {v("6.1.0")})};
  auto r = compare(nodes, {});
  EXPECT_TRUE(r.drift.empty());
  EXPECT_TRUE(r.odd_nodes.empty());
  EXPECT_FALSE(r.any_problem);
}

TEST(FleetLoad, NodeNamesComeFromFileNames) {
  EXPECT_EQ(node_name("/x/node07.json"), "node07");
  EXPECT_EQ(node_name("a/gpu-3.log.gz"), "gpu-3");
  EXPECT_EQ(node_name("smi.xml"), "smi");
  EXPECT_EQ(node_name("plain"), "plain");
  EXPECT_FALSE(list_inputs({"/nonexistent/fleet"}).has_value());
}

// The binary: exit code by the worst finding as doctor's, JSON, an unreadable
// node reported and not fatal, --baseline.
TEST(FleetCli, ExitCodeFollowsTheWorstFindingLikeDoctor) {
  for (const auto& base : bases()) {
    SCOPED_TRACE(base.name);
    TempDir dir;
    for (int i = 1; i <= 3; ++i) test::write_file(dir.file("node" + std::to_string(i) + ".json"), base.doc.dump());
    auto doctor = test::run_tfrig({"doctor", "--snapshot", dir.file("node1.json"), "--format", "json"});
    auto fleet = test::run_tfrig({"fleet", dir.path()});
    EXPECT_EQ(fleet.exit_code, doctor.exit_code) << fleet.out << fleet.err;
    EXPECT_NE(fleet.out.find("every compared fact is the same on every node"), std::string::npos) << fleet.out;
    EXPECT_EQ(test::run_tfrig({"fleet", "--fail-on", "never", dir.path()}).exit_code, 0);
  }
}

TEST(FleetCli, JsonNamesTheOddNodeAndKeepsGoingPastABrokenFile) {
  TempDir dir;
  json doc = bases()[0].doc;
  for (int i = 1; i <= 4; ++i) test::write_file(dir.file("gpu" + std::to_string(i) + ".json"), doc.dump());
  doc["inventory"]["gpus"][0]["pcie_link_width_current"] = 8;
  test::write_file(dir.file("gpu5.json"), doc.dump());
  test::write_file(dir.file("gpu6.json"), "{\"schema_version\": \"one\"}");
  auto r = test::run_tfrig({"fleet", "--format", "json", dir.path()});
  EXPECT_EQ(r.exit_code, 2) << r.err;  // the old driver is an error on every node
  auto j = json::parse(r.out);
  EXPECT_EQ(j["node_count"], 6);
  ASSERT_EQ(j["unreadable"].size(), 1u);
  EXPECT_EQ(j["unreadable"][0]["node"], "gpu6");
  EXPECT_NE(j["unreadable"][0]["error"].get<std::string>().find("/schema_version"), std::string::npos);
  ASSERT_EQ(j["drift"].size(), 1u);
  EXPECT_EQ(j["drift"][0]["fact"], "gpu.pcie_link[gpu0]");
  EXPECT_EQ(j["drift"][0]["expected"], "gen4 x16");
  EXPECT_EQ(j["drift"][0]["differing"][0], (json{{"node", "gpu5"}, {"value", "gen4 x8"}}));
  ASSERT_EQ(j["odd_nodes"].size(), 1u);
  EXPECT_EQ(j["odd_nodes"][0]["node"], "gpu5");
  EXPECT_EQ(j["odd_nodes"][0]["findings"], json::array({"gpu.pcie_link_downgraded"}));
  bool downgraded_listed = false;
  for (const auto& f : j["findings"]) {
    if (f["rule_id"] == "gpu.pcie_link_downgraded") {
      downgraded_listed = true;
      EXPECT_EQ(f["node_count"], 1);
    }
  }
  EXPECT_TRUE(downgraded_listed);
  // The text names the same, with the fix.
  auto text = test::run_tfrig({"fleet", dir.path()});
  EXPECT_NE(text.out.find("1. gpu5"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("fix: reseat gpu0"), std::string::npos) << text.out;
  // --baseline: the downgraded node as the known-good one makes the other four odd.
  auto b = test::run_tfrig({"fleet", "--format", "json", "--baseline", dir.file("gpu5.json"), dir.path()});
  auto jb = json::parse(b.out);
  EXPECT_EQ(jb["baseline"], "gpu5");
  ASSERT_EQ(jb["drift"].size(), 1u);
  EXPECT_EQ(jb["drift"][0]["differing"].size(), 4u);
}

// ---- The simdjson reader (read_snapshot_fast) against nlohmann-json's ----

// nlohmann-json's reading of a snapshot text, as fleet did it before simdjson:
// the report, or nullopt where it names an error.
std::optional<report::Report> nlohmann_report(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception&) {
    return std::nullopt;
  }
  // fleet reads a newer schema's known fields (load.cpp does the same).
  std::optional<int> newer;
  if (j.is_object() && j.contains("schema_version") && j["schema_version"].is_number_unsigned() &&
      j["schema_version"].get<uint64_t>() > static_cast<uint64_t>(inventory::kSchemaVersion) &&
      j["schema_version"].get<uint64_t>() <= 1'000'000) {
    newer = j["schema_version"].get<int>();
    j["schema_version"] = inventory::kSchemaVersion;
  }
  auto r = report::report_from_json(j);
  if (!r) return std::nullopt;
  if (newer) r->schema_version = *newer;
  // The probes' optional messages (probe.h) are for rendering a snapshot's
  // probe table; fleet shows no probe summaries, and its fast reader skips them.
  for (auto& p : r->probes) {
    p.detail_message.reset();
    p.problem_messages.clear();
  }
  // So are the inventory texts' messages (inventory.h's set_text): fleet shows none of those texts.
  auto& inv = r->inventory;
  inv.driver.nvml.detail_message.reset();
  for (auto& g : inv.gpus) {
    g.driver_problem_message.reset();
    g.lost_evidence_message.reset();
  }
  for (auto& dp : inv.storage.data_paths) dp.error_message.reset();
  return std::move(*r);
}

// The fast reader either declines a text or reads exactly what nlohmann does.
void expect_same_or_declined(const std::string& text, const std::string& what) {
  std::string copy = text;
  auto fast = read_snapshot_fast(copy);
  EXPECT_EQ(copy, text) << what << ": the text is given back unchanged";
  if (!fast) return;
  auto slow = nlohmann_report(text);
  ASSERT_TRUE(slow.has_value()) << what << ": simdjson took a document nlohmann-json refuses";
  EXPECT_EQ(report::to_json(*fast).dump(), report::to_json(*slow).dump()) << what;
}

TEST(FleetFastReader, ReadsEveryRealSnapshotAsNlohmannDoes) {
  std::vector<std::pair<std::string, std::string>> texts;
  for (const auto& base : bases()) texts.emplace_back(base.name, base.doc.dump(1));
  for (const char* f : {"gpu_box_two_a100_old_driver.json", "cpu_box_cuda13.json", "eight_quadro_rtx5000.json"}) {
    texts.emplace_back(f, test::read_file(test::data_dir() + "/snapshots/" + f));
  }
  // doctor's JSON report: findings, summary and verdict besides the snapshot.
  auto doctor = test::run_tfrig({"--root", test::root_dir("stack-cuda12"), "doctor", "--format", "json"});
  texts.emplace_back("doctor --format json", doctor.out);
  for (const auto& [name, text] : texts) {
    std::string copy = text;
    auto fast = read_snapshot_fast(copy);
    ASSERT_TRUE(fast.has_value()) << name << ": a real snapshot goes the fast way";
    auto slow = nlohmann_report(text);
    ASSERT_TRUE(slow.has_value()) << name;
    EXPECT_EQ(report::to_json(*fast).dump(), report::to_json(*slow).dump()) << name;
    EXPECT_EQ(copy, text);
  }
}

TEST(FleetFastReader, DeclinesWhatNlohmannWouldNameAsAnError) {
  const std::string good = bases()[0].doc.dump();
  // The last occurrence: the probes come after the inventory (keys sorted).
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    const size_t at = t.rfind(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? t : t.replace(at, from.size(), to);
  };
  // Each is refused by nlohmann-json (a syntax error or report_from_json's
  // check); the fast reader must decline it, so that the error says where.
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"trailing text", good + " x"},
      {"second document", good + "{}"},
      {"unclosed", good.substr(0, good.size() - 1)},
      {"string for a number", with("\"index\":0", "\"index\":\"0\"")},
      {"negative number", with("\"index\":0", "\"index\":-1")},
      {"fraction for an int", with("\"index\":0", "\"index\":0.5")},
      {"beyond a double", with("\"index\":0", "\"index\":1e400")},
      {"int beyond int", with("\"index\":0", "\"index\":4294967296")},
      {"null for a list", with("\"gpus\":[", "\"gpus\":null,\"x\":[")},
      {"limit misspelt", "{\"schema_version\":1,\"inventory\":{\"limits\":{\"nofile\":{\"soft\":\"unlimitd\"}}}}"},
      {"broken unused part", "{\"findings\":[1 2]," + good.substr(1)},
      {"bad literal in unused part", "{\"extra\":tru," + good.substr(1)},
      {"bad number in unused part", "{\"extra\":01," + good.substr(1)},
      {"lone surrogate", with("\"inventory\":{", "\"inventory\":{\"note\":\"\\ud800\",")},
      {"control character", with("\"inventory\":{", "\"inventory\":{\"note\":\"a\x01b\",")},
      {"unknown probe state", with("\"state\":\"ok\"", "\"state\":\"fine\"")},
      {"schema zero", with("\"schema_version\":1", "\"schema_version\":0")},
      {"schema as text", with("\"schema_version\":1", "\"schema_version\":\"1\"")},
      {"no inventory", "{\"schema_version\":1,\"inventori\":{}}"},
  };
  for (const auto& [what, text] : bad) {
    ASSERT_FALSE(nlohmann_report(text).has_value()) << what << ": the case must be an error to nlohmann-json";
    std::string copy = text;
    EXPECT_FALSE(read_snapshot_fast(copy).has_value()) << what;
  }
  // Through load_node the error still names the file and the JSON path.
  TempDir dir;
  test::write_file(dir.file("n.json"), with("\"index\":0", "\"index\":\"0\""));
  auto n = load_node(dir.file("n.json"), kb(), LoadOptions{});
  ASSERT_FALSE(n.has_value());
  EXPECT_NE(n.error().to_string().find(dir.file("n.json")), std::string::npos) << n.error().to_string();
  EXPECT_NE(n.error().to_string().find("/inventory/gpus/0/index"), std::string::npos) << n.error().to_string();
  test::write_file(dir.file("t.json"), good.substr(0, 300));
  auto t = load_node(dir.file("t.json"), kb(), LoadOptions{});
  ASSERT_FALSE(t.has_value());
  EXPECT_NE(t.error().to_string().find("byte"), std::string::npos) << t.error().to_string();
}

TEST(FleetFastReader, OddButValidDocumentsReadAsNlohmannReadsThem) {
  const std::string good = bases()[0].doc.dump();
  const std::vector<std::pair<std::string, std::string>> odd = {
      // A key given twice: the last one counts, whole (no field of the first stays).
      {"section twice", "{\"schema_version\":1,\"inventory\":{\"host\":{\"hostname\":\"a\"},\"host\":{\"os_id\":\"x\"}}}"},
      {"list twice", "{\"schema_version\":1,\"inventory\":{\"gpus\":[{\"index\":1}],\"gpus\":[]}}"},
      {"escaped key", "{\"schema_version\":1,\"inventory\":{\"host\":{\"host\\u006eame\":\"n\\u00e9\"}}}"},
      {"newer schema", "{\"schema_version\":7,\"inventory\":{},\"probes\":[{\"id\":\"gpu\",\"state\":\"ok\",\"seconds\":-0}]}"},
      {"minus zero", "{\"schema_version\":1,\"inventory\":{\"cpu\":{\"base_mhz\":-0.0}}}"},
      {"whole double for an int", "{\"schema_version\":1,\"inventory\":{\"cpu\":{\"sockets\":2.0}}}"},
      {"big integer in an unused part", "{\"schema_version\":1,\"x\":18446744073709551616,\"inventory\":{}}"},
      {"deep unused part", "{\"schema_version\":1,\"x\":" + std::string(2000, '[') + std::string(2000, ']') + ",\"inventory\":{}}"},
      {"real snapshot", good},
  };
  for (const auto& [what, text] : odd) {
    ASSERT_TRUE(nlohmann_report(text).has_value()) << what << ": the case must be valid to nlohmann-json";
    expect_same_or_declined(text, what);
  }
  std::string dup = odd[0].second;
  auto r = read_snapshot_fast(dup);
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->inventory.host.hostname.has_value());
  EXPECT_EQ(r->inventory.host.os_id, std::optional<std::string>("x"));
}

// Hostile bytes: a real snapshot with bytes changed, cut or doubled at
// random (a fixed seed). Whatever simdjson takes, nlohmann reads the same.
TEST(FleetFastReader, MutatedSnapshotsAreDeclinedOrReadTheSame) {
  const std::string good = bases()[0].doc.dump(1);
  const std::string alphabet = "{}[]\",:0123456789-+.eEtrufalsn\\ \x01\xff\xc3u";
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  auto next = [&rng] {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };
  int declined = 0;
  for (int i = 0; i < 400; ++i) {
    std::string t = good;
    const int edits = 1 + static_cast<int>(next() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = next() % t.size();
      switch (next() % 3) {
        case 0: t[at] = alphabet[next() % alphabet.size()]; break;
        case 1: t.erase(at, 1 + next() % 8); break;
        default: t.insert(at, t.substr(at, 1 + next() % 16)); break;
      }
    }
    std::string copy = t;
    if (!read_snapshot_fast(copy)) ++declined;
    expect_same_or_declined(t, "mutation " + std::to_string(i));
  }
  EXPECT_GT(declined, 0);
}

// The JSON as it was written before render_json wrote its bytes itself:
// every element built as nlohmann values and dumped (keys sorted by its map).
std::string nlohmann_fleet_json(const FleetReport& r) {
  const auto dump = [](const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); };
  std::string out = "{\n \"schema_version\": 1";
  out += ",\n \"tool_version\": " + dump(TFRIG_VERSION);
  out += ",\n \"baseline\": " + (r.baseline ? dump(*r.baseline) : std::string("null"));
  out += ",\n \"worst\": " + (r.any_problem ? dump(std::string(rules::severity_name(r.worst))) : std::string("null"));
  out += ",\n \"node_count\": " + std::to_string(r.nodes.size() + r.unreadable.size());
  const auto array = [&](const char* key, size_t n, const std::function<json(size_t)>& make) {
    out += ",\n \"" + std::string(key) + "\": [";
    for (size_t i = 0; i < n; ++i) out += (i ? ",\n  " : "\n  ") + dump(make(i));
    out += n == 0 ? "]" : "\n ]";
  };
  array("nodes", r.nodes.size(), [&](size_t i) {
    const Node& n = r.nodes[i];
    return json{{"node", n.name}, {"file", n.file}, {"hostname", n.hostname.empty() ? json(nullptr) : json(n.hostname)},
                {"source", n.source}, {"schema_version", n.schema_version}, {"tool_version", n.tool_version},
                {"notes", [&n] {
                   std::vector<std::string> notes;
                   for (const auto& note : n.notes) notes.push_back(core::english(note));
                   return notes;
                 }()},
                {"summary", {{"error", n.summary.errors}, {"warning", n.summary.warnings}, {"info", n.summary.infos}}}};
  });
  array("unreadable", r.unreadable.size(), [&](size_t i) {
    const Unreadable& u = r.unreadable[i];
    return json{{"node", u.name}, {"file", u.file}, {"error", u.error}};
  });
  array("drift", r.drift.size(), [&](size_t i) {
    const Drift& d = r.drift[i];
    json differing = json::array();
    for (const auto& nv : d.differing) differing.push_back({{"node", nv.node}, {"value", nv.value}});
    return json{{"fact", d.fact}, {"kind", d.kind}, {"scope", d.scope.empty() ? json(nullptr) : json(d.scope)},
                {"title", d.title}, {"expected", d.expected}, {"expected_nodes", d.expected_nodes},
                {"known_nodes", d.known_nodes}, {"differing", differing}};
  });
  array("findings", r.findings.size(), [&](size_t i) {
    const FindingAcross& f = r.findings[i];
    json on = json::array();
    for (const auto& n : f.nodes) on.push_back({{"node", n.node}, {"entities", n.entities}});
    return json{{"rule_id", f.rule_id}, {"severity", rules::severity_name(f.severity)}, {"title", f.title},
                {"node_count", f.nodes.size()}, {"nodes", on}, {"on_baseline", f.on_baseline}};
  });
  array("odd_nodes", r.odd_nodes.size(), [&](size_t i) {
    const OddNode& n = r.odd_nodes[i];
    json diffs = json::array();
    for (const auto& d : n.differences) diffs.push_back({{"fact", d.fact}, {"value", d.value}, {"expected", d.expected}});
    return json{{"rank", i + 1}, {"node", n.node}, {"score", n.score}, {"differences", diffs}, {"findings", n.findings},
                {"fixes", n.fixes}};
  });
  out += "\n}\n";
  return out;
}

TEST(FleetRender, JsonIsTheBytesNlohmannWrote) {
  // A real fleet: the fixture machines, one with a planted driver.
  TempDir dir;
  int i = 0;
  for (const auto& base : bases()) {
    json doc = base.doc;
    if (i == 1 && doc["inventory"]["driver"].contains("version")) doc["inventory"]["driver"]["version"] = "550.54.14";
    test::write_file(dir.file("node" + std::to_string(i++) + ".json"), doc.dump());
  }
  test::write_file(dir.file("broken.json"), "{\"schema_version\": ");
  const FleetReport real = compare_dir(dir.path());
  ASSERT_FALSE(real.drift.empty());
  ASSERT_FALSE(real.findings.empty());
  EXPECT_EQ(render_json(real), nlohmann_fleet_json(real));

  // Outside bytes in every string: each ASCII byte, quotes and backslashes,
  // multi-byte UTF-8, bidi controls, and bytes that are not UTF-8 (replaced
  // by U+FFFD, as nlohmann's error_handler_t::replace does).
  std::string ascii;
  for (int c = 0; c < 0x80; ++c) ascii += static_cast<char>(c);
  const std::vector<std::string> odd = {ascii, "\"q\" \\b\\", "GPU \xe2\x80\xae" "evil", "显存 16 GiB", "bad \xff\xfe end",
                                        "cut \xe6\x98", "\xed\xa0\x80 surrogate", "\xc0\xaf overlong", ""};
  FleetReport r = real;
  r.baseline = odd[3];
  for (size_t k = 0; k < odd.size(); ++k) {
    const std::string& s = odd[k];
    Node n;
    n.name = s;
    n.file = s + ".json";
    n.hostname = s;
    n.source = "snapshot";
    n.tool_version = s;
    n.schema_version = static_cast<int>(k);
    n.notes = {core::Message("{}", s), core::Message("{}", s + s)};
    n.summary = rules::Summary{static_cast<int>(k), 2, 3};
    r.nodes.push_back(n);
    r.unreadable.push_back(Unreadable{s, s, s, {}});
    r.drift.push_back(Drift{s, s, s, s, s, k, k + 1, {NodeValue{s, s}, NodeValue{"n", s}}});
    r.findings.push_back(FindingAcross{s, rules::Severity::kError, s, {NodeEntity{s, s}}, k % 2 == 0});
    r.odd_nodes.push_back(OddNode{s, static_cast<int>(k), {Difference{s, s, s}}, {s}, {s, "fix"}, {}});
  }
  EXPECT_EQ(render_json(r), nlohmann_fleet_json(r));
  EXPECT_TRUE(json::parse(render_json(r)).is_object());
}

TEST(FleetCli, NothingReadableOrMissingIsAnInputError) {
  TempDir dir;
  test::write_file(dir.file("a.json"), "[]");
  EXPECT_EQ(test::run_tfrig({"fleet", dir.path()}).exit_code, 66);
  EXPECT_EQ(test::run_tfrig({"fleet", dir.file("missing.json")}).exit_code, 66);
  TempDir empty;
  EXPECT_EQ(test::run_tfrig({"fleet", empty.path()}).exit_code, 66);
  EXPECT_EQ(test::run_tfrig({"fleet", "--format", "yaml", dir.path()}).exit_code, 64);
}

// The comparison keeps its titles and fixes in English with what renders
// them: any renderer says them in its language, with no language switch.
TEST(Fleet, TitlesAndFixesRenderInTheRenderersLanguage) {
  const FactKind* kind = find_fact_kind("driver.version");
  ASSERT_NE(kind, nullptr);
  const Fix fix{kind, "", "535.104.05", {}, nullptr};
  const std::string en = fix_in(fix, "en");
  const std::string zh = fix_in(fix, "zh_CN");
  EXPECT_NE(en.find("535.104.05"), std::string::npos) << en;
  EXPECT_NE(zh.find("535.104.05"), std::string::npos) << zh;
  EXPECT_NE(zh, en);
  EXPECT_EQ(zh.find("{expected}"), std::string::npos) << zh;
  EXPECT_EQ(title_in(std::string(kind->title), "en"), kind->title);
  EXPECT_NE(title_in(std::string(kind->title), "zh_CN"), kind->title);
  // An id that is no catalog text shows as it is.
  EXPECT_EQ(title_in("vendor.custom_rule", "zh_CN"), "vendor.custom_rule");
  const Fix finding{nullptr, "", "", core::Message(N_("yes")), nullptr};
  EXPECT_EQ(fix_in(finding, "en"), "yes");
  EXPECT_NE(fix_in(finding, "zh_CN"), "yes");
  // A fact's value with words fills the fix in the fix's language.
  const FactKind* toolkit = find_fact_kind("container.toolkit");
  ASSERT_NE(toolkit, nullptr);
  const Fix words{toolkit, "", "installed", {},
                  std::make_shared<const core::Message>(core::Message::in_context(NC_("fleet value", "installed")))};
  EXPECT_NE(fix_in(words, "en").find("(installed)"), std::string::npos) << fix_in(words, "en");
  EXPECT_EQ(fix_in(words, "zh_CN").find("installed"), std::string::npos) << fix_in(words, "zh_CN");
  EXPECT_EQ(fact_value_in("installed", words.expected_message, "zh_CN"), core::render(*words.expected_message, "zh_CN"));
}

}  // namespace
}  // namespace tfrig::fleet
