// tfrig import on every fixture machine (end to end): the facts each
// nvidia-bug-report gives (checked against the files; provenance in
// tests/data/provenance/nvidia-bug-report.md), the rules they fire, and the golden
// doctor findings in tests/data/golden/import/ (reviewed by hand; rerun with
// TFRIG_UPDATE_GOLDEN=1 to accept a change).
#include <sys/stat.h>

#include <array>
#include <thread>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "golden.h"
#include "importer/importer.h"
#include "inventory/json.h"
#include "knowledge/knowledge.h"
#include "rules/judge.h"
#include "test_support.h"

namespace tfrig {
namespace {

report::Report import(const std::vector<std::string>& rels) {
  std::vector<importer::Input> inputs;
  for (const auto& rel : rels) inputs.push_back({rel, test::read_file(test::data_dir() + "/" + rel)});
  auto r = importer::import_inputs(inputs);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().to_string());
  return r ? *r : report::Report{};
}

std::string inventory_json_for_test(const report::Report& r) {
  // Everything but the driver section, whose details name the input file.
  nlohmann::json j = r.inventory;
  j.erase("driver");
  return j.dump() + r.inventory.driver.nvml.state + r.inventory.driver.kernel_module_version.value_or("");
}

report::Report bug_report(const std::string& machine) { return import({"nvidia-bug-report/" + machine + ".log.gz"}); }

// Rule ids of the findings doctor gives on the report, with their entities.
std::multiset<std::string> findings(report::Report r) {
  rules::attach_findings(r, knowledge::builtin(), rules::FindingsOptions{});
  std::multiset<std::string> out;
  for (const auto& f : r.findings) out.insert(f.rule_id + "@" + f.entity);
  return out;
}

bool has(const std::multiset<std::string>& s, const std::string& v) { return s.count(v) > 0; }

const inventory::XidEvent* xid(const report::Report& r, int n) {
  for (const auto& e : r.inventory.driver.xid_events) {
    if (e.xid == n) return &e;
  }
  return nullptr;
}

TEST(ImportBugReport, DriverLibraryMismatch) {
  // Trourest186: module 515.65.01, user space 525.125.06; every nvidia-smi fails.
  auto r = bug_report("Trourest186__Serverless-Computing-Final");
  const auto& inv = r.inventory;
  EXPECT_EQ(inv.driver.kernel_module_version, "515.65.01");
  EXPECT_EQ(inv.driver.nvml.state, "driver_mismatch");
  EXPECT_EQ(inv.driver.nvidia_smi_error, "Failed to initialize NVML: Driver/library version mismatch");
  EXPECT_NE(inv.driver.nvml.detail.find("525.125.06"), std::string::npos) << inv.driver.nvml.detail;
  ASSERT_EQ(inv.gpus.size(), 1u);
  EXPECT_EQ(inv.gpus[0].name, "NVIDIA GeForce RTX 2080 Ti");
  EXPECT_EQ(inv.gpus[0].pci_bus_id, "0000:00:10.0");
  EXPECT_EQ(inv.host.kernel_release, "5.15.0-46-generic");
  EXPECT_EQ(inv.cpu.threads, 4);
  EXPECT_EQ(inv.memory.total_bytes, uint64_t{8140260} * 1024);
  EXPECT_TRUE(has(findings(r), "driver.library_mismatch@host"));
}

TEST(ImportBugReport, WholeMultiMemberLogGivesTheSameFacts) {
  auto whole = import({"nvidia-bug-report/Trourest186__Serverless-Computing-Final.whole.log.gz"});
  auto cut = bug_report("Trourest186__Serverless-Computing-Final");
  EXPECT_EQ(inventory_json_for_test(whole), inventory_json_for_test(cut));
}

TEST(ImportBugReport, GpuFellOffTheBus) {
  // blacksoil: Xid 79, "GPU is lost", lspci reads ff.
  auto r = bug_report("blacksoil__BashCommands");
  ASSERT_EQ(r.inventory.gpus.size(), 1u);
  EXPECT_EQ(r.inventory.gpus[0].pci_bus_id, "0000:04:00.0");
  EXPECT_EQ(r.inventory.gpus[0].lost, true);
  const auto* e = xid(r, 79);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->pci_bus_id, "0000:04:00.0");
  EXPECT_EQ(e->count, 1u);  // once in the running boot (dmesg, journalctl -b -0); Jun 25's is an earlier boot
  auto f = findings(r);
  EXPECT_TRUE(has(f, "gpu.lost@gpu0"));
  EXPECT_TRUE(has(f, "gpu.xid_event@gpu0"));
}

TEST(ImportBugReport, DriverNotLoaded) {
  // Tingyiwanyan: booted with nomodeset; no nvidia module, nvidia-smi cannot talk to the driver.
  auto r = bug_report("Tingyiwanyan__pre_nas");
  const auto& inv = r.inventory;
  EXPECT_EQ(inv.driver.loaded, false);
  EXPECT_EQ(inv.driver.module_nvidia, false);
  EXPECT_EQ(inv.driver.nvml.state, "driver_not_loaded");
  int pci_gpus = 0;
  for (const auto& d : inv.pci.devices) pci_gpus += d.is_gpu ? 1 : 0;
  EXPECT_EQ(pci_gpus, 2);
  EXPECT_TRUE(has(findings(r), "driver.not_loaded@host"));
}

TEST(ImportBugReport, XidStormOnOneGpu) {
  // duaneya: Xid 13, 31, 32, 45, 62 on 0000:03:00 in the kernel-log scan.
  auto r = bug_report("duaneya__tool_man");
  EXPECT_EQ(r.inventory.gpus.size(), 4u);
  EXPECT_EQ(r.inventory.driver.version, "440.31");
  EXPECT_EQ(r.inventory.driver.cuda_version, "10.2");
  for (int n : {13, 31, 32, 45, 62}) {
    const auto* e = xid(r, n);
    ASSERT_NE(e, nullptr) << n;
    EXPECT_EQ(e->pci_bus_id, "0000:03:00.0") << n;
  }
  EXPECT_GT(xid(r, 13)->count, 100u);
  auto f = findings(r);
  EXPECT_EQ(f.count("gpu.xid_event@gpu1"), 5u);  // 0000:03:00.0 is the second GPU by address
}

TEST(ImportBugReport, DowngradedLinks) {
  // Bekal: both RTX 3080s at x8 of x16 (nvidia-smi and lspci agree).
  auto bekal = bug_report("Bekal-Ramnath-Rao__MasterThesis_HybridCommFramework_FL");
  ASSERT_EQ(bekal.inventory.gpus.size(), 2u);
  for (const auto& g : bekal.inventory.gpus) {
    EXPECT_EQ(g.pcie_link_width_current, 8);
    EXPECT_EQ(g.pcie_link_width_max, 16);
  }
  auto f = findings(bekal);
  EXPECT_TRUE(has(f, "gpu.pcie_link_downgraded@gpu0"));
  EXPECT_TRUE(has(f, "gpu.pcie_link_downgraded@gpu1"));
  // Andrewp2: no nvidia-smi (--safe-mode); lspci LnkSta x8 (downgraded) of x16; Xid 56.
  auto andrew = bug_report("Andrewp2__laniusc");
  ASSERT_EQ(andrew.inventory.gpus.size(), 1u);
  EXPECT_EQ(andrew.inventory.gpus[0].pci_bus_id, "0000:0a:00.0");
  EXPECT_EQ(andrew.inventory.gpus[0].pcie_link_width_current, 8);
  EXPECT_EQ(andrew.inventory.driver.version, "580.173.02");
  EXPECT_EQ(andrew.inventory.host.os_version_id, "24.04");
  ASSERT_NE(xid(andrew, 56), nullptr);
  EXPECT_TRUE(has(findings(andrew), "gpu.pcie_link_downgraded@gpu0"));
}

TEST(ImportBugReport, HealthyServersAndDriverGenerations) {
  struct Want {
    const char* machine;
    size_t gpus;
    const char* driver;
    const char* cuda;  // "" = the driver prints none
  };
  for (const auto& w : {Want{"Young768__profiling", 8, "460.56", "11.2"},
                        Want{"pavana27__Lambda-Bug-report", 2, "535.113.01", "12.2"},
                        Want{"eler__git_examples", 4, "384.59", ""},
                        Want{"Shaydu__mondrian-macos", 1, "580.126.09", "13.0"},
                        Want{"mikhail99__PaperAntXGradio", 2, "560.35.03", "12.6"}}) {
    auto r = bug_report(w.machine);
    EXPECT_EQ(r.inventory.gpus.size(), w.gpus) << w.machine;
    EXPECT_EQ(r.inventory.driver.version, w.driver) << w.machine;
    EXPECT_EQ(r.inventory.driver.cuda_version.value_or(""), w.cuda) << w.machine;
    EXPECT_EQ(r.inventory.driver.nvml.state, "ok") << w.machine;
    for (const auto& g : r.inventory.gpus) {
      EXPECT_TRUE(g.name.has_value()) << w.machine;
      EXPECT_EQ(g.lost, false) << w.machine;
    }
  }
  EXPECT_EQ(bug_report("Shaydu__mondrian-macos").inventory.driver.kernel_module_flavor, "open");
  EXPECT_EQ(xid(bug_report("mikhail99__PaperAntXGradio"), 31)->pci_bus_id, "0000:01:00.0");
  EXPECT_TRUE(bug_report("Young768__profiling").inventory.driver.xid_events.empty());
  // pavana27: two RTX A6000s joined by an NVLink bridge (4 links each, nvlink --status and --remotelinkinfo).
  auto lambda = bug_report("pavana27__Lambda-Bug-report");
  ASSERT_EQ(lambda.inventory.gpus.size(), 2u);
  EXPECT_EQ(lambda.inventory.gpus[0].nvlinks.size(), 4u);
  EXPECT_EQ(lambda.inventory.gpus[0].nvlinks[0].remote_pci_bus_id, "0000:41:00.0");
  EXPECT_EQ(lambda.inventory.gpus[0].nvlinks[0].remote_kind, "gpu");
  ASSERT_EQ(lambda.inventory.gpu_topology.size(), 1u);
  EXPECT_EQ(lambda.inventory.gpu_topology[0].nvlink, true);
}

TEST(ImportBugReport, GpuTheDriverCouldNotInitialise) {
  // Randy-jun: "RmInitAdapter failed! (0x30:0xffff:1086)", no nvidia-smi (--safe-mode).
  auto r = bug_report("Randy-jun__myautoconfig");
  ASSERT_EQ(r.inventory.gpus.size(), 1u);
  ASSERT_TRUE(r.inventory.gpus[0].driver_problem.has_value());
  EXPECT_NE(r.inventory.gpus[0].driver_problem->find("RmInitAdapter failed"), std::string::npos);
  EXPECT_EQ(r.inventory.driver.kernel_module_version, "550.40.07");
  EXPECT_TRUE(has(findings(r), "gpu.init_failed@gpu0"));
  EXPECT_EQ(r.inventory.host.os_pretty_name.value_or("").rfind("Debian GNU/Linux 12", 0), 0u);
}

TEST(ImportFiles, SeveralFilesMergeIntoOneMachine) {
  // The nvidia-smi -q and lspci captures of Trourest186 plus a topo matrix.
  auto r = import({"nvidia-smi-text/cbtogu__nvidiabugreport.nvidia-smi-q.txt", "nvidia-smi-topo/2x1080Ti-PHB.topo-m.txt"});
  ASSERT_EQ(r.inventory.gpus.size(), 1u);
  EXPECT_EQ(r.inventory.driver.version, "430.40");
  EXPECT_EQ(r.inventory.gpus[0].cpu_affinity.size(), 12u);  // "0-11"
  auto lspci = import({"lspci/Trourest186__Serverless-Computing-Final.lspci-nnDvvvxxx.txt",
                       "nvidia-smi-text/Trourest186__Serverless-Computing-Final.nvidia-smi-q.txt"});
  ASSERT_EQ(lspci.inventory.gpus.size(), 1u);
  EXPECT_EQ(lspci.inventory.gpus[0].pcie_link_gen_current, 1);
  EXPECT_EQ(lspci.inventory.driver.nvml.state, "driver_mismatch");
  auto f = findings(lspci);
  EXPECT_TRUE(has(f, "driver.library_mismatch@host"));
  EXPECT_TRUE(has(f, "gpu.pcie_link_downgraded@gpu0"));
}

TEST(ImportFiles, UnknownKindIsAnErrorNamingTheFile) {
  auto r = importer::import_inputs({{"notes.txt", "hello\n"}});
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().to_string().find("notes.txt"), std::string::npos);
  auto bad_gz = importer::import_inputs({{"x.gz", std::string("\x1f\x8b\x08\x00garbage", 12)}});
  ASSERT_FALSE(bad_gz.has_value());
  EXPECT_NE(bad_gz.error().to_string().find("x.gz"), std::string::npos);
}

// ---- golden doctor findings, through the binary as a user runs it ----

std::string run_in_data(const std::string& args) {
  const std::string cmd = "cd '" + test::data_dir() + "' && '" + test::binary_path() + "' " + args + " 2>/dev/null";
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  ::pclose(p);
  return out;
}

class ImportGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(ImportGolden, DoctorFindings) {
  const std::string machine = GetParam();
  auto j = nlohmann::json::parse(run_in_data("doctor --format json --from nvidia-bug-report/" + machine + ".log.gz"),
                                 nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << machine;
  // What a reviewer checks against the log: the GPUs, the driver, the Xids and every finding.
  nlohmann::json part;
  part["source"] = j["source"];
  for (const auto& g : j["inventory"]["gpus"]) {
    part["gpus"].push_back({{"index", g["index"]}, {"name", g["name"]}, {"pci_bus_id", g["pci_bus_id"]},
                            {"link", {g["pcie_link_gen_current"], g["pcie_link_gen_max"], g["pcie_link_width_current"],
                                      g["pcie_link_width_max"]}},
                            {"lost", g["lost"]}, {"driver_problem", g["driver_problem"]}});
  }
  const auto& d = j["inventory"]["driver"];
  part["driver"] = {{"version", d["version"]}, {"cuda_version", d["cuda_version"]}, {"loaded", d["loaded"]},
                    {"kernel_module_version", d["kernel_module_version"]}, {"nvml_state", d["nvml"]["state"]},
                    {"nvidia_smi_error", d["nvidia_smi_error"]}};
  for (const auto& e : d["xid_events"]) {
    part["xids"].push_back({{"xid", e["xid"]}, {"pci_bus_id", e["pci_bus_id"]}, {"count", e["count"]}});
  }
  for (const auto& f : j["findings"]) {
    part["findings"].push_back({{"rule", f["rule_id"]}, {"entity", f["entity"]}, {"severity", f["severity"]},
                                {"message", f["message"]}});
  }
  part["summary"] = j["summary"];
  // The headline the machine's owner reads first, and what it rests on.
  part["verdict"] = j["verdict"];
  part["examined"] = j["examined"];
  part["not_examined"] = j["not_examined"];
  const std::string have = part.dump(1) + "\n";
  EXPECT_TRUE(test::matches_golden(test::golden_path("import/" + machine + ".json"), have));
}

INSTANTIATE_TEST_SUITE_P(
    Machines, ImportGolden,
    ::testing::Values("Andrewp2__laniusc", "Bekal-Ramnath-Rao__MasterThesis_HybridCommFramework_FL",
                      "Randy-jun__myautoconfig", "Shaydu__mondrian-macos", "Tingyiwanyan__pre_nas",
                      "Trourest186__Serverless-Computing-Final", "Young768__profiling", "blacksoil__BashCommands",
                      "duaneya__tool_man", "eler__git_examples", "mikhail99__PaperAntXGradio",
                      "pavana27__Lambda-Bug-report"),
    [](const ::testing::TestParamInfo<const char*>& param_info) {
      std::string name = param_info.param;
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

}  // namespace
}  // namespace tfrig

namespace tfrig {
namespace {

// The contract: `doctor --from FILE` judges the same document `import FILE -o S`
// followed by `doctor --snapshot S` does.
TEST(ImportCli, ImportThenSnapshotEqualsDoctorFrom) {
  test::TempDir tmp;
  const std::string log = test::data_dir() + "/nvidia-bug-report/blacksoil__BashCommands.log.gz";
  auto imported = test::run_tfrig({"import", log, "-o", tmp.file("snap.json")});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  auto from = test::run_tfrig({"doctor", "--format", "json", "--from", log});
  auto snap = test::run_tfrig({"doctor", "--format", "json", "--snapshot", tmp.file("snap.json")});
  EXPECT_EQ(from.exit_code, 2);  // errors: the lost GPU
  EXPECT_EQ(snap.exit_code, from.exit_code);
  auto a = nlohmann::json::parse(from.out);
  auto b = nlohmann::json::parse(snap.out);
  EXPECT_EQ(a["findings"], b["findings"]);
  EXPECT_EQ(a["inventory"], b["inventory"]);
  EXPECT_EQ(a["schema_version"], b["schema_version"]);
}

TEST(ImportCli, OutputToAFifoIsWrittenInPlaceNotReplaced) {
  // `-o /dev/null` must not rename a regular file over the device node; a FIFO
  // stands in for the device here.
  test::TempDir tmp;
  const std::string fifo = tmp.file("out.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = test::read_file(fifo); });
  auto r = test::run_tfrig({"import", test::data_dir() + "/nvidia-smi-text/cbtogu__nvidiabugreport.nvidia-smi-q.txt", "-o", fifo});
  reader.join();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_NE(got.find("\"import:"), std::string::npos);
}

TEST(ImportCli, UsageAndInputErrors) {
  EXPECT_EQ(test::run_tfrig({"import"}).exit_code, 64);
  test::TempDir tmp;
  test::write_file(tmp.file("notes.txt"), "hello\n");
  auto unknown = test::run_tfrig({"import", tmp.file("notes.txt")});
  EXPECT_EQ(unknown.exit_code, 65);
  EXPECT_NE(unknown.err.find("notes.txt"), std::string::npos) << unknown.err;
  EXPECT_EQ(test::run_tfrig({"import", tmp.file("missing.log")}).exit_code, 66);
  // The older spelling still works.
  auto xml = test::run_tfrig({"import", "nvidia-smi-xml", test::data_dir() + "/nvidia-smi-xml/telegraf/a10g.xml"});
  EXPECT_EQ(xml.exit_code, 0) << xml.err;
  EXPECT_NE(xml.out.find("\"nvidia-smi-xml\""), std::string::npos);
}

TEST(ImportCli, ProcFilesOnTheirOwn) {
  // Copies of /proc/driver/nvidia/{version,gpus/*/information} sent next to an lspci.
  const std::string dir = "proc-driver-nvidia/Trourest186__Serverless-Computing-Final/proc/driver/nvidia/";
  auto r = import({dir + "version", dir + "gpus/0000:00:10.0/information",
                   "lspci/Trourest186__Serverless-Computing-Final.lspci-nnDvvvxxx.txt"});
  EXPECT_EQ(r.inventory.driver.kernel_module_version, "515.65.01");
  ASSERT_EQ(r.inventory.gpus.size(), 1u);
  EXPECT_EQ(r.inventory.gpus[0].name, "NVIDIA GeForce RTX 2080 Ti");
  EXPECT_EQ(r.inventory.gpus[0].pcie_link_gen_current, 1);
}

}  // namespace
}  // namespace tfrig
