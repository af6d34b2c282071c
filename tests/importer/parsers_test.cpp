// The parsers only an import needs: lspci text, nvidia-smi -q
// text and its error outputs, kernel-log Xid lines, topo -m matrices, the
// bug-report splitter, each on real captures (tests/data/README.md).
#include <gtest/gtest.h>

#include "codec/gzip.h"
#include "importer/bug_report.h"
#include "importer/importer.h"
#include "importer/kernel_log.h"
#include "importer/lspci_text.h"
#include "importer/nvidia_smi_nvlink.h"
#include "importer/nvidia_smi_text.h"
#include "importer/nvidia_smi_topo.h"
#include "test_support.h"

namespace tfrig {
namespace {

std::string data(const std::string& rel) { return test::read_file(test::data_dir() + "/" + rel); }

std::string gunzipped(const std::string& rel) {
  auto out = codec::gunzip(data(rel), importer::kMaxTextBytes);
  EXPECT_TRUE(out.has_value()) << rel << ": " << (out ? "" : out.error().to_string());
  return out ? *out : std::string();
}

const importer::LspciDevice* device(const importer::Lspci& l, const std::string& addr) {
  for (const auto& d : l.devices) {
    if (d.address == addr) return &d;
  }
  return nullptr;
}

TEST(Lspci, NnDvvvWithDowngradedLinkAndDriver) {
  // Trourest186: an RTX 2080 Ti passed through to a KVM guest; lspci -nnDvvvxxx.
  auto l = importer::parse_lspci(data("lspci/Trourest186__Serverless-Computing-Final.lspci-nnDvvvxxx.txt"));
  ASSERT_TRUE(l.has_value()) << l.error().to_string();
  const auto* gpu = device(*l, "0000:00:10.0");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->vendor_id, 0x10deu);
  EXPECT_EQ(gpu->device_id, 0x1e07u);
  EXPECT_EQ(gpu->class_code.value_or(0) >> 8, 0x0300u);
  EXPECT_TRUE(importer::lspci_is_nvidia_gpu(*gpu));
  EXPECT_EQ(gpu->driver, "nvidia");
  // "LnkSta: Speed 2.5GT/s (downgraded), Width x16 (ok)" against "LnkCap: ... Speed 8GT/s, Width x16".
  EXPECT_DOUBLE_EQ(gpu->link_speed_gts.value_or(0), 2.5);
  EXPECT_TRUE(gpu->speed_downgraded);
  EXPECT_FALSE(gpu->width_downgraded);
  EXPECT_EQ(gpu->link_width, 16);
  EXPECT_EQ(gpu->link_width_cap, 16);
  EXPECT_FALSE(gpu->config_all_ones);
  EXPECT_EQ(importer::lspci_product_name(*gpu), "GeForce RTX 2080 Ti Rev. A");
}

TEST(Lspci, LostGpuReadsAllOnes) {
  // blacksoil: "04:00.0 3D controller: NVIDIA Corporation GM108M [GeForce 840M] (rev ff) (prog-if ff)".
  auto l = importer::parse_lspci(data("lspci/blacksoil__BashCommands.lspci-d_10de_v_xxx.txt"));
  ASSERT_TRUE(l.has_value());
  ASSERT_EQ(l->devices.size(), 1u);
  const auto& d = l->devices[0];
  EXPECT_EQ(d.address, "0000:04:00.0");
  EXPECT_TRUE(d.config_all_ones);
  EXPECT_EQ(d.vendor_id, 0x10deu);  // from the name: the dump reads ffff
  EXPECT_TRUE(importer::lspci_is_nvidia_gpu(d));
  EXPECT_EQ(d.driver, "nvidia");
}

TEST(Lspci, GzippedEightH100sAndPlainListings) {
  auto text = gunzipped("lspci/lspci-vvv.dell-8xH100-SXM.txt.gz");
  auto l = importer::parse_lspci(text);
  ASSERT_TRUE(l.has_value());
  int gpus = 0;
  for (const auto& d : l->devices) gpus += importer::lspci_is_nvidia_gpu(d) ? 1 : 0;
  EXPECT_EQ(gpus, 8);
  auto nn = importer::parse_lspci(data("lspci/lspci-nn.a10.txt"));
  ASSERT_TRUE(nn.has_value());
  gpus = 0;
  for (const auto& d : nn->devices) gpus += importer::lspci_is_nvidia_gpu(d) ? 1 : 0;
  EXPECT_EQ(gpus, 1);
  auto gb = importer::parse_lspci(data("lspci/lspci.gb200.txt"));
  ASSERT_TRUE(gb.has_value());
  EXPECT_FALSE(gb->devices.empty());
}

TEST(Lspci, RejectsOtherText) {
  EXPECT_FALSE(importer::parse_lspci("hello\nworld\n").has_value());
  EXPECT_FALSE(importer::parse_lspci("").has_value());
}

TEST(NvidiaSmiText, Driver384WithoutCudaLine) {
  auto q = importer::parse_nvidia_smi_text(data("nvidia-smi-text/eler__git_examples.nvidia-smi-q.txt"));
  ASSERT_TRUE(q.has_value()) << q.error().to_string();
  EXPECT_EQ(q->driver_version, "384.59");
  EXPECT_FALSE(q->cuda_version.has_value());
  ASSERT_EQ(q->gpus.size(), 4u);
  EXPECT_EQ(q->attached_gpus, 4);
  EXPECT_EQ(q->gpus[0].pci_bus_id, "0000:04:00.0");
  EXPECT_EQ(q->gpus[0].pci_device_id, 0x1b06u);
  EXPECT_FALSE(q->error.has_value());
}

TEST(NvidiaSmiText, Driver535LinkAndMemory) {
  auto q = importer::parse_nvidia_smi_text(
      data("nvidia-smi-text/Bekal-Ramnath-Rao__MasterThesis_HybridCommFramework_FL.nvidia-smi-q.txt"));
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->driver_version, "535.288.01");
  EXPECT_EQ(q->cuda_version, "12.2");
  ASSERT_EQ(q->gpus.size(), 2u);
  const auto& g = q->gpus[0];
  EXPECT_EQ(g.name, "NVIDIA GeForce RTX 3080");
  EXPECT_EQ(g.architecture, "Ampere");
  EXPECT_EQ(g.uuid, "GPU-235781ab-c147-4714-2126-c9f7cb317dee");
  EXPECT_EQ(g.pcie_link_width_current, 8);
  EXPECT_EQ(g.pcie_link_width_max, 16);
  EXPECT_EQ(g.pcie_link_gen_max, 4);
  EXPECT_EQ(g.persistence_mode, true);
  EXPECT_EQ(g.memory_total_bytes, uint64_t{10240} << 20);
  EXPECT_FALSE(g.mig_mode_current.has_value());  // "N/A"
}

TEST(NvidiaSmiText, EveryFixtureParses) {
  for (const auto& name : test::list_dir(test::data_dir() + "/nvidia-smi-text")) {
    auto q = importer::parse_nvidia_smi_text(data("nvidia-smi-text/" + name));
    ASSERT_TRUE(q.has_value()) << name << ": " << q.error().to_string();
    EXPECT_TRUE(!q->gpus.empty() || q->error.has_value()) << name;
    for (const auto& g : q->gpus) {
      EXPECT_TRUE(g.name.has_value()) << name;
      EXPECT_TRUE(g.pci_bus_id.has_value()) << name;
    }
  }
}

TEST(NvidiaSmiText, ErrorOutputsAreFacts) {
  auto mismatch = importer::parse_nvidia_smi_text(data("nvidia-smi-text/Trourest186__Serverless-Computing-Final.nvidia-smi-q.txt"));
  ASSERT_TRUE(mismatch.has_value());
  EXPECT_EQ(mismatch->error_kind, "driver_mismatch");
  EXPECT_EQ(mismatch->error, "Failed to initialize NVML: Driver/library version mismatch");

  auto lost = importer::parse_nvidia_smi_text(data("nvidia-smi-text/blacksoil__BashCommands.nvidia-smi-q.txt"));
  ASSERT_TRUE(lost.has_value());
  EXPECT_EQ(lost->error_kind, "gpu_lost");
  ASSERT_EQ(lost->handle_errors.size(), 1u);
  EXPECT_EQ(lost->handle_errors[0].pci_bus_id, "0000:04:00.0");
  EXPECT_TRUE(lost->handle_errors[0].lost);

  auto not_loaded = importer::parse_nvidia_smi_text(
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA "
      "driver is installed and running.\n\n");
  ASSERT_TRUE(not_loaded.has_value());
  EXPECT_EQ(not_loaded->error_kind, "driver_not_loaded");
  auto none = importer::parse_nvidia_smi_text("No devices were found\n");
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(none->error_kind, "no_device");
  EXPECT_FALSE(importer::parse_nvidia_smi_text("Sun Jan 25 12:37:40 2026\n+------+\n").has_value());
}

TEST(KernelLog, XidLinesWithEveryTimestampShape) {
  const std::string text =
      "Nov 15 12:43:10 host kernel: [ 7613.977841] NVRM: Xid (PCI:0000:03:00): 13, pid=10635, Graphics SM Warp "
      "Exception on (GPC 0, TPC 0, SM 0): Illegal Instruction Encoding\n"
      "2026-08-16T16:20:17.153449-05:00 host kernel: NVRM: Xid (PCI:0000:0a:00): 56, CMDre 00000000 00002888\n"
      "[ 1897.016345] NVRM: Xid (PCI:0000:04:00): 79, GPU has fallen off the bus.\n"
      "[ 1897.016348] NVRM: GPU at 00000000:04:00.0 has fallen off the bus.\n"
      "[  109.113591] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x30:0xffff:1086)\n"
      "[521526.650125] NVRM: API mismatch: the client has the version 525.125.06, but\n"
      "[521526.650126] NVRM: this kernel module has the version 515.65.01.  Please\n"
      "[ 1897.016345] NVRM: Xid (PCI:0000:04:00): 79, GPU has fallen off the bus.\n"
      "NVRM: Xid (PCI:zz): x\n";
  auto log = importer::parse_kernel_log(text);
  ASSERT_EQ(log.xids.size(), 3u);  // the repeated line counts once, the malformed one not at all
  EXPECT_EQ(log.xids[0].xid, 13);
  EXPECT_EQ(log.xids[0].pci_bus_id, "0000:03:00.0");
  EXPECT_EQ(log.xids[0].time, "Nov 15 12:43:10 [ 7613.977841]");
  EXPECT_EQ(log.xids[1].time, "2026-08-16T16:20:17.153449-05:00");
  EXPECT_EQ(log.xids[1].message, "CMDre 00000000 00002888");
  EXPECT_EQ(log.xids[2].xid, 79);
  ASSERT_EQ(log.fallen_off_bus.size(), 1u);
  EXPECT_EQ(log.fallen_off_bus[0], "0000:04:00.0");
  ASSERT_EQ(log.init_failed.size(), 1u);
  EXPECT_EQ(log.init_failed[0].first, "0000:01:00.0");
  EXPECT_EQ(log.api_mismatch_client, "525.125.06");
  EXPECT_EQ(log.api_mismatch_module, "515.65.01");
}

TEST(Topo, NvlinkNicsAndAffinity) {
  auto m = importer::parse_nvidia_smi_topo(data("nvidia-smi-topo/8xA100-NV12-10NIC.topo-m.txt"));
  ASSERT_TRUE(m.has_value()) << m.error().to_string();
  EXPECT_EQ(m->devices.size(), 8u + 17u);
  ASSERT_GE(m->rows.size(), 8u);
  EXPECT_EQ(m->rows[0].cells[1], "NV12");
  EXPECT_EQ(m->rows[0].cpu_affinity, "0-103");
  EXPECT_EQ(m->rows[0].numa_affinity, "0");
  inventory::Inventory inv;
  for (int i = 0; i < 8; ++i) {
    inventory::Gpu g;
    g.index = i;
    inv.gpus.push_back(g);
  }
  importer::apply_nvidia_smi_topo(*m, inv);
  EXPECT_EQ(inv.gpu_topology.size(), 28u);
  EXPECT_EQ(inv.gpu_topology[0].nvlink, true);
  EXPECT_EQ(inv.gpus[3].cpu_affinity.size(), 104u);
  EXPECT_EQ(inv.gpus[3].numa_node, 0);
}

TEST(Topo, EveryFixtureParses) {
  for (const auto& name : test::list_dir(test::data_dir() + "/nvidia-smi-topo")) {
    const std::string text = data("nvidia-smi-topo/" + name);
    EXPECT_TRUE(importer::looks_like_nvidia_smi_topo(text)) << name;
    auto m = importer::parse_nvidia_smi_topo(text);
    ASSERT_TRUE(m.has_value()) << name << ": " << m.error().to_string();
    EXPECT_FALSE(m->rows.empty()) << name;
    EXPECT_EQ(importer::detect_kind(text), importer::FileKind::kTopo) << name;
  }
  auto phb = importer::parse_nvidia_smi_topo(data("nvidia-smi-topo/2x1080Ti-PHB.topo-m.txt"));
  ASSERT_TRUE(phb.has_value());
  EXPECT_EQ(importer::topo_level(phb->rows[0].cells[1]), "host_bridge");
}

TEST(Nvlink, StatusWithInactiveLinks) {
  // azhpc-diagnostics' "bad" 8xV100 capture: 36 links at 25.781 GB/s, 6 <inactive>.
  std::vector<importer::NvlinkGpu> gpus;
  const std::string text = data("nvidia-smi-nvlink/azhpc.nvlink-s.bad.8xV100.out");
  EXPECT_TRUE(importer::looks_like_nvidia_smi_nvlink(text));
  EXPECT_EQ(importer::detect_kind(text), importer::FileKind::kNvlink);
  importer::parse_nvidia_smi_nvlink(text, gpus);
  ASSERT_EQ(gpus.size(), 7u);  // the capture lists 7 of the 8 GPUs
  int active = 0, inactive = 0;
  for (const auto& g : gpus) {
    EXPECT_TRUE(g.uuid.has_value());
    for (const auto& l : g.links) (l.active == true ? active : inactive) += 1;
  }
  EXPECT_EQ(active, 36);
  EXPECT_EQ(inactive, 6);
}

TEST(Nvlink, RemoteLinkInfoMergesWithStatus) {
  std::vector<importer::NvlinkGpu> gpus;
  importer::parse_nvidia_smi_nvlink("GPU 0: NVIDIA RTX A6000 (UUID: GPU-a662c2a9-6ad4-e58c-431d-6bff0f73e2ba)\n"
                                 "\t Link 0: 14.062 GB/s\n", gpus);
  importer::parse_nvidia_smi_nvlink("GPU 0: NVIDIA RTX A6000 (UUID: GPU-a662c2a9-6ad4-e58c-431d-6bff0f73e2ba)\n"
                                 "\t Link 0: Remote Device 00000000:41:00.0: Link 0\n", gpus);
  ASSERT_EQ(gpus.size(), 1u);
  ASSERT_EQ(gpus[0].links.size(), 1u);
  EXPECT_EQ(gpus[0].links[0].active, true);
  EXPECT_EQ(gpus[0].links[0].remote_pci_bus_id, "0000:41:00.0");
  EXPECT_EQ(gpus[0].uuid, "GPU-a662c2a9-6ad4-e58c-431d-6bff0f73e2ba");
}

TEST(BugReport, SplitsSectionsOfTheOldestAndNewestScripts) {
  for (const char* name : {"eler__git_examples", "Andrewp2__laniusc"}) {
    auto text = gunzipped(std::string("nvidia-bug-report/") + name + ".log.gz");
    auto r = importer::split_bug_report(text);
    ASSERT_TRUE(r.has_value()) << name;
    EXPECT_TRUE(r->uname.has_value()) << name;
    EXPECT_TRUE(r->script_version.has_value()) << name;
    EXPECT_EQ(importer::sections_for_path(*r, "/proc/cpuinfo").size(), 1u) << name;
    EXPECT_EQ(importer::sections_for_path(*r, "/proc/driver/nvidia/version").size(), 1u) << name;  // "/./" folded
    EXPECT_EQ(importer::sections_for_command(*r, "dmesg:").size(), 1u) << name;
  }
  auto ting = importer::split_bug_report(gunzipped("nvidia-bug-report/Tingyiwanyan__pre_nas.log.gz"));
  ASSERT_TRUE(ting.has_value());
  auto v = importer::sections_for_path(*ting, "/proc/driver/nvidia/version");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(v[0]->missing);
  EXPECT_FALSE(importer::split_bug_report("just text\n").has_value());
}

TEST(Detect, KindsFromContent) {
  EXPECT_EQ(importer::detect_kind(gunzipped("nvidia-bug-report/blacksoil__BashCommands.log.gz")), importer::FileKind::kBugReport);
  EXPECT_EQ(importer::detect_kind(data("nvidia-smi-text/cbtogu__nvidiabugreport.nvidia-smi-q.txt")),
            importer::FileKind::kNvidiaSmiText);
  EXPECT_EQ(importer::detect_kind(data("nvidia-smi-text/Trourest186__Serverless-Computing-Final.nvidia-smi-q.txt")),
            importer::FileKind::kNvidiaSmiText);
  EXPECT_EQ(importer::detect_kind(data("lspci/lspci.gb200.txt")), importer::FileKind::kLspci);
  EXPECT_EQ(importer::detect_kind(data("nvidia-smi-xml/telegraf/a10g.xml")),
            importer::FileKind::kNvidiaSmiXml);
  EXPECT_EQ(importer::detect_kind("just some text\n"), importer::FileKind::kUnknown);
}

}  // namespace
}  // namespace tfrig
