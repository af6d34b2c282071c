// Judgement on partial and broken evidence (real captures, tests/data/README.md):
// every error text nvidia-smi prints instead of its report is a fact that
// fires the rule explaining it with the exact line as evidence; a GPU
// nvidia-smi could not open is never counted usable, whatever other files
// say; the verdict names what was read and what was not; cut captures say
// what they lack; rules whose facts are unknown skip.
#include <algorithm>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "codec/gzip.h"
#include "importer/importer.h"
#include "importer/kernel_log.h"
#include "inventory/kernel_events.h"
#include "knowledge/knowledge.h"
#include "probe/parse/proc_driver_nvidia.h"
#include "verdict/coverage.h"
#include "rules/judge.h"
#include "test_support.h"

namespace tfrig {
namespace {

report::Report judged(const std::vector<importer::Input>& inputs, std::optional<std::string> tf = std::nullopt) {
  auto r = importer::import_inputs(inputs);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().to_string());
  report::Report rep = r ? *r : report::Report{};
  rules::FindingsOptions options;
  options.tf = std::move(tf);
  rules::attach_findings(rep, knowledge::builtin(), options);
  return rep;
}

report::Report judged_files(const std::vector<std::string>& rels) {
  std::vector<importer::Input> inputs;
  for (const auto& rel : rels) inputs.push_back({rel, test::read_file(test::data_dir() + "/" + rel)});
  return judged(inputs);
}

const rules::Finding* finding(const report::Report& r, const std::string& rule) {
  for (const auto& f : r.findings) {
    if (f.rule_id == rule) return &f;
  }
  return nullptr;
}

bool has_evidence_value(const rules::Finding& f, const std::string& value) {
  for (const auto& e : f.evidence) {
    if (e.value == value) return true;
  }
  return false;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// ---- 1. Every error text nvidia-smi prints, and the rule that explains it ----

struct ErrorCase {
  const char* file;   // under tests/data
  const char* state;  // DriverInfo::nvml.state it leaves
  const char* rule;   // the rule that fires
  const char* line;   // the exact line, as evidence
};

const ErrorCase kErrorCases[] = {
    {"nvidia-smi-errors/driver-not-loaded.Tingyiwanyan__pre_nas.txt", "driver_not_loaded", "driver.not_loaded",
     "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA "
     "driver is installed and running."},
    {"nvidia-smi-text/Trourest186__Serverless-Computing-Final.nvidia-smi-q.txt", "driver_mismatch",
     "driver.library_mismatch", "Failed to initialize NVML: Driver/library version mismatch"},
    {"nvidia-smi-errors/libnvidia-ml-not-found.txt", "library_missing", "driver.library_unresolvable",
     "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA Display "
     "Driver is properly installed and present in your system."},
    {"nvidia-smi-errors/no-devices-were-found.txt", "no_device", "driver.no_devices", "No devices were found"},
    {"nvidia-smi-errors/handle-unknown-error.txt", "error", "gpu.unreachable",
     "Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error"},
    {"nvidia-smi-errors/handle-unknown-error-nospace.txt", "error", "gpu.unreachable",
     "Unable to determine the device handle for GPU0000:07:00.0: Unknown Error"},
    {"nvidia-smi-text/blacksoil__BashCommands.nvidia-smi-q.txt", "error", "gpu.lost", nullptr},
};

TEST(NvidiaSmiErrors, EachErrorTextFiresTheRuleThatExplainsIt) {
  for (const auto& c : kErrorCases) {
    SCOPED_TRACE(c.file);
    const auto r = judged_files({c.file});
    EXPECT_EQ(r.inventory.driver.nvml.state, c.state);
    EXPECT_TRUE(r.inventory.driver.nvidia_smi_error.has_value());
    const auto* f = finding(r, c.rule);
    ASSERT_NE(f, nullptr) << "no " << c.rule << "; verdict: " << r.verdict.english;
    EXPECT_EQ(f->severity, rules::Severity::kError);
    if (c.line != nullptr) {
      EXPECT_TRUE(has_evidence_value(*f, c.line)) << f->evidence.size() << " evidence rows";
    }
    // Never "no problems found", never a GPU counted as usable.
    EXPECT_EQ(r.verdict.english.find("no problems found"), std::string::npos) << r.verdict.english;
    EXPECT_EQ(r.verdict.english.find(" will use "), std::string::npos) << r.verdict.english;
    EXPECT_NE(r.verdict.english.find("will not use"), std::string::npos) << r.verdict.english;
  }
}

TEST(NvidiaSmiErrors, HandleErrorNamesTheGpuByItsAddress) {
  const auto r = judged_files({"nvidia-smi-errors/handle-unknown-error-nospace.txt"});
  ASSERT_EQ(r.inventory.gpus.size(), 1u);
  EXPECT_EQ(r.inventory.gpus[0].pci_bus_id, "0000:07:00.0");
  EXPECT_FALSE(r.inventory.gpus[0].lost.value_or(false));  // Unknown Error is not "GPU is lost"
  const auto* f = finding(r, "gpu.unreachable");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("0000:07:00.0"), std::string::npos) << f->message;
  EXPECT_NE(f->evidence[0].source.find("handle-unknown-error-nospace.txt"), std::string::npos) << f->evidence[0].source;
}

// A GPU nvidia-smi could not open keeps its finding when another file of the
// same machine lists the others: the line in the form of the public reports
// (NVIDIA/nvidia-docker#1553), naming the third GPU of a real 4-GPU capture.
TEST(NvidiaSmiErrors, UnopenedGpuStaysUnusableAcrossMerges) {
  const std::string q = test::read_file(test::data_dir() + "/nvidia-smi-text/duaneya__tool_man.nvidia-smi-q.txt");
  const std::string err = "Unable to determine the device handle for GPU 0000:83:00.0: Unknown Error\n";
  for (bool error_first : {true, false}) {
    SCOPED_TRACE(error_first ? "error file first" : "error file last");
    std::vector<importer::Input> in{{"q.txt", q}, {"err.txt", err}};
    if (error_first) std::swap(in[0], in[1]);
    // TF 2.3 (CUDA 10.1), which this machine's driver 440.31 runs: only the unopened GPU is in the way.
    const auto r = judged(in, "2.3");
    ASSERT_EQ(r.inventory.gpus.size(), 4u);
    const auto* f = finding(r, "gpu.unreachable");
    ASSERT_NE(f, nullptr) << r.verdict.english;
    EXPECT_EQ(f->entity, "gpu2");
    EXPECT_TRUE(has_evidence_value(*f, "Unable to determine the device handle for GPU 0000:83:00.0: Unknown Error"));
    EXPECT_NE(r.verdict.english.find("will use 3 of 4 GPUs"), std::string::npos) << r.verdict.english;
  }
}

// A GT 1030 passed through to a VM (kata-containers/runtime#2546): lspci lists it
// bound to nvidia, nvidia-smi cannot open it, /proc calls its model "Unknown".
TEST(NvidiaSmiErrors, PassedThroughGpuThatNvidiaSmiCannotOpen) {
  const auto r = judged_files({"nvidia-smi-errors/kata-gt1030.lspci-vnn.txt", "nvidia-smi-errors/kata-gt1030.nvidia-smi.txt"});
  ASSERT_EQ(r.inventory.gpus.size(), 1u);
  EXPECT_EQ(r.inventory.gpus[0].pci_bus_id, "0000:00:08.0");
  EXPECT_EQ(r.inventory.gpus[0].name.value_or(""), "GeForce GT 1030");  // from lspci
  const auto* f = finding(r, "gpu.unreachable");
  ASSERT_NE(f, nullptr) << r.verdict.english;
  EXPECT_TRUE(has_evidence_value(*f, "Unable to determine the device handle for GPU 0000:00:08.0: Unknown Error"));
  EXPECT_NE(r.verdict.english.find("will not use the GPU"), std::string::npos) << r.verdict.english;
  // "Model: Unknown" is no name: null, so lspci's or the catalog's name stands.
  auto info = probe::parse::parse_nvidia_gpu_information(
      test::read_file(test::data_dir() + "/nvidia-smi-errors/kata-gt1030.information-head.txt"));
  ASSERT_TRUE(info.has_value());
  EXPECT_FALSE(info->model.has_value());
}

// ---- 2. The verdict says what was examined ----

TEST(Coverage, PartialInputsNameWhatWasReadAndWhatNot) {
  struct Case {
    const char* file;
    std::vector<std::string> examined;
  };
  const Case cases[] = {
      {"nvidia-smi-topo/2x1080Ti-PHB.topo-m.txt", {"GPU topology"}},
      {"lspci/lspci-nn.a10.txt", {"GPUs"}},
      {"nvidia-smi-text/cbtogu__nvidiabugreport.nvidia-smi-q.txt", {"GPUs", "driver"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const auto r = judged_files({c.file});
    const auto cov = report::coverage_of(r);
    for (const auto& e : c.examined) EXPECT_TRUE(contains(cov.examined, e)) << e;
    for (const char* n : {"CUDA libraries", "TensorFlow", "CPU", "memory"}) EXPECT_TRUE(contains(cov.not_examined, n)) << n;
    EXPECT_NE(r.verdict.english.find("not examined: "), std::string::npos) << r.verdict.english;
    EXPECT_EQ(r.verdict.english.find(": no problems found\n"), std::string::npos);
    // What was not read is not judged: no rule claims the libraries or TF missing.
    for (const char* rule : {"cuda.library_missing", "driver.library_unresolvable", "tf.not_installed"}) {
      EXPECT_EQ(finding(r, rule), nullptr) << rule;
    }
    // JSON carries the same.
    const auto j = report::findings_to_json(r);
    EXPECT_EQ(j["examined"].get<std::vector<std::string>>(), cov.examined);
    EXPECT_EQ(j["not_examined"].get<std::vector<std::string>>(), cov.not_examined);
  }
  // A topology matrix alone: the driver was not examined, so no claim the GPUs work.
  const auto topo = judged_files({"nvidia-smi-topo/2x1080Ti-PHB.topo-m.txt"});
  EXPECT_TRUE(contains(report::coverage_of(topo).not_examined, "driver"));
  EXPECT_EQ(topo.inventory.gpus.size(), 2u);  // the matrix names GPU0 and GPU1
  EXPECT_EQ(topo.verdict.english.find(" will use "), std::string::npos) << topo.verdict.english;
}

TEST(Coverage, CapturedTreeWithoutLibraryFoldersDoesNotClaimThemMissing) {
  // /proc and /sys of a real machine (Prometheus procfs fixtures): no /etc, no /usr.
  auto run = test::run_tfrig({"doctor", "--format", "json", "--root", test::root_dir("procfs-fixtures")});
  const auto j = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << run.err;
  for (const auto& f : j["findings"]) {
    const std::string id = f["rule_id"];
    EXPECT_NE(id, "cuda.library_missing");
    EXPECT_NE(id, "driver.library_unresolvable");
    EXPECT_NE(id, "tf.not_installed");
  }
  const auto ne = j["not_examined"].get<std::vector<std::string>>();
  EXPECT_TRUE(contains(ne, "CUDA libraries"));
  EXPECT_TRUE(contains(ne, "TensorFlow"));
  EXPECT_NE(j["verdict"].get<std::string>().find("not examined: "), std::string::npos);
}

// ---- 6. A link judged against the GPU's own width ----

TEST(PcieWidth, NarrowByDesignIsNotASlotProblem) {
  // Two GT 1030 (GP108, x4 by design) report "Max : 4x": nothing says the slot took lanes away.
  const auto narrow = judged_files({"nvidia-smi-text/paVVin__fileDrop.nvidia-smi-q.txt"});
  EXPECT_EQ(finding(narrow, "hardware.pcie_below_x16"), nullptr) << narrow.verdict.english;
  for (const auto& g : narrow.inventory.gpus) EXPECT_EQ(g.pcie_link_width_max, 4) << g.index;
  // An RTX 3080 (x16 in the catalog) whose maximum, GPU and slot together, is x8: a synthetic
  // edit of a real capture ("Max : 16x" -> "Max : 8x" for its first GPU).
  std::string q = test::read_file(test::data_dir() +
                                  "/nvidia-smi-text/Bekal-Ramnath-Rao__MasterThesis_HybridCommFramework_FL.nvidia-smi-q.txt");
  const size_t at = q.find(": 16x");
  ASSERT_NE(at, std::string::npos);
  q.replace(at, 5, ": 8x");
  const auto slot = judged({{"q.txt", q}});
  const auto* f = finding(slot, "hardware.pcie_below_x16");
  ASSERT_NE(f, nullptr) << slot.verdict.english;
  EXPECT_EQ(f->entity, "gpu0");
  EXPECT_EQ(f->evidence[0].source, "nvidia-smi -q (text)");                       // not "NVML"
  EXPECT_EQ(f->evidence[1].source.rfind("knowledge gpus.json:", 0), 0u) << f->evidence[1].source;
}

// ---- 3. Cut captures say so ----

TEST(CutCaptures, QueryTextWithFewerGpusThanItsHeaderWarnsAndCountsTheHeader) {
  // The first of the 8 GPU blocks of a real capture (a synthetic cut).
  std::string q = test::read_file(test::data_dir() + "/nvidia-smi-text/Young768__profiling.nvidia-smi-q.txt");
  q = q.substr(0, q.find("\nGPU 00000000:1C:00.0"));
  const auto r = judged({{"cut.txt", q}});
  // The one in the file, and 7 the header counts that nothing else is known of.
  ASSERT_EQ(r.inventory.gpus.size(), 8u);
  EXPECT_EQ(r.inventory.gpus[0].pci_bus_id, "0000:1a:00.0");
  EXPECT_FALSE(r.inventory.gpus[7].pci_bus_id.has_value());
  EXPECT_TRUE(contains(report::coverage_of(r).not_examined, "7 of 8 GPUs not in the file")) << r.verdict.english;
  bool warned = false;
  for (const auto& s : r.probes) {
    for (const auto& p : s.problems) warned = warned || p.find("1 of 8 GPUs in cut.txt") != std::string::npos;
  }
  EXPECT_TRUE(warned);
  EXPECT_NE(r.verdict.english.find("8 GPUs"), std::string::npos) << r.verdict.english;
}

TEST(CutCaptures, GzipWithABadLastMemberKeepsWhatCameBefore) {
  // The whole multi-member log, its last 200 bytes cut off.
  std::string gz = test::read_file(test::data_dir() + "/nvidia-bug-report/Trourest186__Serverless-Computing-Final.whole.log.gz");
  ASSERT_GT(gz.size(), 1000u);
  gz.resize(gz.size() - 200);
  std::string partial;
  EXPECT_FALSE(codec::gunzip(gz, importer::kMaxTextBytes, &partial).has_value());
  EXPECT_GT(partial.size(), 1000u);
  const auto r = judged({{"cut.log.gz", gz}});
  EXPECT_TRUE(contains(report::coverage_of(r).not_examined, "the end of cut.log.gz")) << r.verdict.english;
  // What came before is still judged: the mismatch that machine has.
  EXPECT_NE(finding(r, "driver.library_mismatch"), nullptr) << r.verdict.english;
}

// ---- 4. Both wordings of the lost-GPU kernel message, and the three-line one ----

TEST(KernelLogLostGpu, EveryWordingNamesTheGpu) {
  // blacksoil__BashCommands (dmesg); the newer "GPU <bus>: GPU has fallen off the bus." of the issue;
  // RmInitAdapter's three lines (open-gpu-kernel-modules src/nvidia/arch/nvalloc/unix/src/osinit.c).
  const std::pair<const char*, const char*> cases[] = {
      {"[ 1897.016348] NVRM: GPU at 00000000:04:00.0 has fallen off the bus.\n", "0000:04:00.0"},
      {"[  412.102311] NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.\n", "0000:01:00.0"},
      {"[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
       "[ 1843.308150] NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
       "[ 1843.308152] NVRM: fallen off the bus and is not responding to commands.\n",
       "0000:b3:00.0"},
  };
  for (const auto& [text, bus] : cases) {
    const auto log = importer::parse_kernel_log(text);
    ASSERT_EQ(log.fallen_off_bus.size(), 1u) << text;
    EXPECT_EQ(log.fallen_off_bus[0], bus);
  }
  // "The NVIDIA GPU ..." without the lost lines is not a lost GPU.
  EXPECT_TRUE(importer::parse_kernel_log("NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:1e04)\nNVRM: installed in "
                                             "this system is not supported by the\nNVRM: NVIDIA 520.56.06 driver release.\n")
                  .fallen_off_bus.empty());
}

// ---- 5. Read all of what is there ----

TEST(CaptureSections, TopologyAndNvlinkInsideAMultiCommandCapture) {
  // nvidia_gpu_exporter's H100 capture: -q, topo -m and nvlink -s in one file.
  const auto r = judged_files({"nvidia-smi-text/linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt"});
  ASSERT_EQ(r.inventory.gpus.size(), 1u);
  const auto& g = r.inventory.gpus[0];
  EXPECT_EQ(g.numa_node, 0);                 // topo -m's NUMA Affinity
  EXPECT_FALSE(g.cpu_affinity.empty());      // topo -m's CPU Affinity
  ASSERT_EQ(g.nvlinks.size(), 18u);          // nvlink -s: 18 links at 26.562 GB/s
  for (const auto& l : g.nvlinks) EXPECT_EQ(l.active, true) << l.link;
  EXPECT_TRUE(contains(report::coverage_of(r).examined, "GPU topology"));
}

// ---- 4. Which boot: the running one says lost now, earlier ones are history ----

TEST(KernelLogBoots, EarlierBootEventsAreHistory) {
  // blacksoil's log: the GPU fell off the bus in this boot (dmesg at 1897 s,
  // journalctl -b -0 at Jun 26 11:17:25) and on an earlier one (journalctl -b -2, Jun 25).
  const auto whole = judged_files({"nvidia-bug-report/blacksoil__BashCommands.log.gz"});
  ASSERT_EQ(whole.inventory.driver.xid_events.size(), 1u);
  EXPECT_FALSE(inventory::from_earlier_boot(whole.inventory.driver.xid_events[0].source));
  EXPECT_EQ(whole.inventory.driver.xid_events[0].count, 1u);  // once in the running boot, not summed
  EXPECT_TRUE(whole.inventory.gpus[0].lost.value_or(false));
  // A synthetic cut: the running boot's lost lines (and nvidia-smi's) removed; Jun 25 stays.
  std::string log;
  {
    const std::string gz = test::read_file(test::data_dir() + "/nvidia-bug-report/blacksoil__BashCommands.log.gz");
    auto text = codec::gunzip(gz, importer::kMaxTextBytes);
    ASSERT_TRUE(text.has_value());
    for (std::string_view rest = *text; !rest.empty();) {
      const size_t nl = rest.find('\n');
      const std::string_view line = rest.substr(0, nl == std::string_view::npos ? rest.size() : nl + 1);
      rest.remove_prefix(line.size());
      const bool now = line.find("[ 1897.0163") != std::string_view::npos ||
                       line.find("Jun 26 11:17:25 aharijanto-S3 kernel: NVRM") != std::string_view::npos ||
                       line.find("Unable to determine the device handle") != std::string_view::npos;
      if (!now) log += line;
    }
  }
  const auto cut = judged({{"earlier.log", log}});
  ASSERT_EQ(cut.inventory.driver.xid_events.size(), 1u);
  EXPECT_TRUE(inventory::from_earlier_boot(cut.inventory.driver.xid_events[0].source))
      << cut.inventory.driver.xid_events[0].source;
  const auto* f = finding(cut, "gpu.xid_event");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, rules::Severity::kWarning);
  EXPECT_NE(f->message.find("earlier boot"), std::string::npos) << f->message;
  for (const auto& g : cut.inventory.gpus) {
    EXPECT_EQ(g.lost_evidence.value_or("").find("kernel:"), std::string::npos) << *g.lost_evidence;
  }
}

}  // namespace
}  // namespace tfrig
