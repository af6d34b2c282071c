// Each probe on each fixture root (tests/data/roots, README.md there),
// asserting the values the files hold; the broken root; --data resolution;
// the runner's deadline.
#include <algorithm>
#include <filesystem>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <stdexcept>
#include <unistd.h>

#include <gtest/gtest.h>

#include "core/units.h"
#include "probe/probe.h"
#include "test_support.h"

namespace tfrig::probe {
namespace {

using tfrig::test::root_dir;
using tfrig::test::TempDir;

bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

Context context_for(const std::string& root, std::vector<std::string> data_paths = {}) {
  // A generous deadline: these tests assert values, never timings.
  return Context{core::SysRoot(root, {}), std::move(data_paths), std::chrono::milliseconds(60000), {}};
}

RunResult run_root(std::string_view name, std::vector<std::string> data_paths = {}) {
  return run_probes(context_for(root_dir(name), std::move(data_paths)), all_probes());
}

const ProbeStatus& status_of(const RunResult& r, std::string_view id) {
  for (const auto& s : r.statuses) {
    if (s.id == id) return s;
  }
  static ProbeStatus none;
  ADD_FAILURE() << "no status for probe " << id;
  return none;
}

// The problems of one probe joined, for "contains" checks with a readable failure.
std::string problems_of(const RunResult& r, std::string_view id) {
  std::string out;
  for (const auto& p : status_of(r, id).problems) out += p + "\n";
  return out;
}

std::vector<int> range(int first, int last, int step = 1) {
  std::vector<int> out;
  for (int i = first; i <= last; i += step) out.push_back(i);
  return out;
}

std::vector<int> concat(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const inventory::PciDevice* pci(const inventory::Inventory& inv, std::string_view address) {
  for (const auto& d : inv.pci.devices) {
    if (d.address == address) return &d;
  }
  return nullptr;
}

const inventory::BlockDevice* block(const inventory::Inventory& inv, std::string_view name) {
  for (const auto& d : inv.storage.devices) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

const inventory::Mount* mount(const inventory::Inventory& inv, std::string_view mount_point, std::string_view fs_type) {
  for (const auto& m : inv.storage.mounts) {
    if (m.mount_point == mount_point && m.fs_type == fs_type) return &m;
  }
  return nullptr;
}

// ------------------------------------------------------------ the probe table

TEST(Probes, TableOrder) {
  std::vector<std::string> ids;
  for (const auto& p : all_probes()) ids.emplace_back(p->id());
  EXPECT_EQ(ids, (std::vector<std::string>{"host", "cpu", "memory", "storage", "pci", "limits", "nvidia_driver", "nvml",
                                           "cuda_libs", "python", "containers"}));
}

TEST(Probes, EveryRootGivesEveryStatusAndProblemsNameFullPaths) {
  for (const auto& name : tfrig::test::root_names()) {
    SCOPED_TRACE(name);
    auto r = run_root(name);
    ASSERT_EQ(r.statuses.size(), all_probes().size());
    std::vector<std::string> ids;
    for (const auto& s : r.statuses) {
      ids.push_back(s.id);
      EXPECT_FALSE(s.detail.empty()) << s.id;
      EXPECT_FALSE(contains(s.detail, "deadline")) << s.id << ": " << s.detail;
      for (const auto& p : s.problems) {
        // "<root>/<path>: reason" or "<root>/<path>:<line>: reason".
        EXPECT_EQ(p.rfind(root_dir(name) + "/", 0), 0u) << s.id << ": " << p;
        EXPECT_TRUE(contains(p, ": ")) << s.id << ": " << p;
      }
    }
    std::vector<std::string> table;
    for (const auto& p : all_probes()) table.emplace_back(p->id());
    EXPECT_EQ(ids, table);
  }
}

// ----------------------------------------------------------------------- cpu

struct Topology {
  const char* root;
  int sockets, cores, threads;
};

TEST(CpuProbe, TopologyOfTheCapturedMachines) {
  // sysfs cpu*/topology of the online CPUs agrees with cpuinfo on these.
  const Topology cases[] = {
      {"hwloc-32intel64-2p8co2t+8ve", 2, 16, 32}, {"hwloc-40intel64-2g2n4c+pcilocality", 4, 40, 40},
      {"hwloc-64amd64-4s2n4ca2co", 4, 32, 64},    {"hwloc-96em64t-4no4pa3ca2co", 16, 96, 96},
      {"debian12-vm", 1, 2, 2},                   {"procfs-fixtures", 1, 4, 8},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.root);
    auto r = run_root(c.root);
    EXPECT_EQ(status_of(r, "cpu").state, State::kOk);
    EXPECT_EQ(r.inventory.cpu.sockets, c.sockets);
    EXPECT_EQ(r.inventory.cpu.physical_cores, c.cores);
    EXPECT_EQ(r.inventory.cpu.threads, c.threads);
  }
}

TEST(CpuProbe, ThreadsComeFromTheSameCpusAsCores) {
  // hwloc-nvidiagpunumanodes: cpu/online is "0-15,88-103" (32 CPUs, SMT4:
  // 8 cores on 2 packages by cpu*/topology) while proc/cpuinfo lists 176
  // processors. Cores and sockets come from the 32 online CPUs; threads must
  // too, or the report says "8 cores, 176 threads".
  auto r = run_root("hwloc-nvidiagpunumanodes");
  EXPECT_EQ(r.inventory.cpu.sockets, 2);
  EXPECT_EQ(r.inventory.cpu.physical_cores, 8);
  EXPECT_EQ(r.inventory.cpu.threads, 32);
}

TEST(CpuProbe, ModelFlagsAndClocks) {
  auto xeon = run_root("hwloc-32intel64-2p8co2t+8ve").inventory.cpu;
  EXPECT_EQ(xeon.vendor, "GenuineIntel");
  EXPECT_EQ(xeon.model_name, "Intel(R) Xeon(R) Silver 4108 CPU @ 1.80GHz");
  EXPECT_EQ(xeon.flags.avx512f, true);
  EXPECT_EQ(xeon.flags.amx, false);
  EXPECT_EQ(xeon.base_mhz, 1800.0);  // from "@ 1.80GHz"
  auto westmere = run_root("hwloc-40intel64-2g2n4c+pcilocality").inventory.cpu;
  EXPECT_EQ(westmere.flags.avx, false);
  EXPECT_EQ(westmere.flags.avx2, false);
  auto laptop = run_root("procfs-fixtures").inventory.cpu;
  EXPECT_EQ(laptop.governor, "powersave");
  EXPECT_EQ(laptop.max_mhz, 2400.0);     // cpufreq/cpuinfo_max_freq 2400000 kHz
  EXPECT_EQ(laptop.base_mhz, 1900.0);
  EXPECT_EQ(laptop.flags.avx2, true);
  auto power = run_root("hwloc-nvidiagpunumanodes").inventory.cpu;
  // Not x86: AVX is unknown, not "no".
  EXPECT_FALSE(power.flags.avx.has_value());
  EXPECT_FALSE(power.flags.avx512f.has_value());
}

struct Node {
  int id;
  std::vector<int> cpus;
  uint64_t mem_kb;
};

void expect_nodes(std::string_view root, const std::vector<Node>& expected, bool check_cpus = true) {
  SCOPED_TRACE(root);
  auto r = run_root(root);
  std::map<int, const inventory::NumaNode*> by_id;
  for (const auto& n : r.inventory.cpu.numa_nodes) by_id[n.id] = &n;
  ASSERT_EQ(by_id.size(), expected.size());
  for (const auto& e : expected) {
    SCOPED_TRACE("node" + std::to_string(e.id));
    ASSERT_TRUE(by_id.count(e.id));
    if (check_cpus) {
      EXPECT_EQ(by_id[e.id]->cpus, e.cpus);
    }
    EXPECT_EQ(by_id[e.id]->memory_total_bytes, e.mem_kb * 1024);
  }
}

// Node CPUs: sys/devices/system/node/node*/cpulist; memory: MemTotal of node*/meminfo (kB).
TEST(CpuProbe, NumaNodes32Intel) {
  expect_nodes("hwloc-32intel64-2p8co2t+8ve",
               {{0, concat(range(0, 7), range(16, 23)), 47925628}, {1, concat(range(8, 15), range(24, 31)), 49519964}});
}

TEST(CpuProbe, NumaNodes40IntelInterleaved) {
  expect_nodes("hwloc-40intel64-2g2n4c+pcilocality", {{0, range(0, 36, 4), 134204252},
                                                      {1, range(1, 37, 4), 134217728},
                                                      {2, range(2, 38, 4), 134217728},
                                                      {3, range(3, 39, 4), 134217728}});
}

TEST(CpuProbe, NumaNodes64Amd) {
  const uint64_t mem[] = {16769836, 16777216, 16777216, 16777216, 16777216, 8388608, 16777216, 16760832};
  std::vector<Node> nodes;
  for (int k = 0; k < 8; ++k) nodes.push_back({k, range(8 * k, 8 * k + 7), mem[k]});
  expect_nodes("hwloc-64amd64-4s2n4ca2co", nodes);
}

TEST(CpuProbe, NumaNodesNvidiaGpuMemoryNodes) {
  std::vector<Node> nodes = {{0, range(0, 87), 129839104}, {8, range(88, 175), 133952000}};
  for (int k = 250; k <= 255; ++k) nodes.push_back({k, {}, 15728640});  // GPU memory, no CPUs
  expect_nodes("hwloc-nvidiagpunumanodes", nodes);
}

TEST(CpuProbe, NumaNodesAreInNumericOrder) {
  // Directory order is "node0 node250 ... node255 node8"; the report must
  // list node 8 before the GPU-memory nodes 250-255 (and node2 before node10).
  auto r = run_root("hwloc-nvidiagpunumanodes");
  std::vector<int> ids;
  for (const auto& n : r.inventory.cpu.numa_nodes) ids.push_back(n.id);
  EXPECT_EQ(ids, (std::vector<int>{0, 8, 250, 251, 252, 253, 254, 255}));
}

TEST(CpuProbe, NumaNodeMemory96WithoutCpulist) {
  expect_nodes("hwloc-96em64t-4no4pa3ca2co",
               {{0, {}, 132101504}, {1, {}, 132124160}, {2, {}, 132124160}, {3, {}, 132124160}},
               /*check_cpus=*/false);
}

TEST(CpuProbe, NumaNodeCpusFromCpumapWhenThereIsNoCpulist) {
  // hwloc-96em64t-*: node*/ has only cpumap (older kernels), e.g. node0
  // "...,00000000,00ffffff" = CPUs 0-23, node1 "...,0000ffff,ff000000" = 24-47.
  expect_nodes("hwloc-96em64t-4no4pa3ca2co", {{0, range(0, 23), 132101504},
                                              {1, range(24, 47), 132124160},
                                              {2, range(48, 71), 132124160},
                                              {3, range(72, 95), 132124160}});
}

TEST(CpuProbe, NodeExporterNodes) {
  // node2/cpulist is an empty line; MemTotal of node0/1/2 meminfo in kB.
  expect_nodes("node-exporter",
               {{0, {0, 1}, 134182340}, {1, {2, 3}, 134217728}, {2, {}, 134217728}});
}

// -------------------------------------------------------------------- memory

TEST(MemoryProbe, CapturedValues) {
  auto hw = run_root("hwloc-32intel64-2p8co2t+8ve");
  EXPECT_EQ(status_of(hw, "memory").state, State::kOk);
  EXPECT_EQ(hw.inventory.memory.total_bytes, 97445600ull * 1024);
  EXPECT_EQ(hw.inventory.memory.available_bytes, 83337000ull * 1024);
  EXPECT_EQ(hw.inventory.memory.swap_total_bytes, 8388604ull * 1024);
  EXPECT_EQ(hw.inventory.memory.swap_used_bytes, 0u);
  EXPECT_EQ(hw.inventory.memory.hugepages_total, 4096u);
  EXPECT_EQ(hw.inventory.memory.hugepage_size_bytes, 2048u * 1024);

  auto ne = run_root("node-exporter").inventory.memory;
  EXPECT_EQ(ne.swap_used_bytes, (4194300ull - 3155360ull) * 1024);  // SwapTotal - SwapFree
  EXPECT_FALSE(ne.available_bytes.has_value());                    // no MemAvailable line
  EXPECT_FALSE(ne.swappiness.has_value());

  auto vm = run_root("debian12-vm").inventory.memory;
  EXPECT_EQ(vm.total_bytes, 24683620ull * 1024);
  EXPECT_EQ(vm.swappiness, 60);
  EXPECT_EQ(vm.thp_enabled, "madvise");
  EXPECT_EQ(vm.thp_defrag, "madvise");

  EXPECT_EQ(run_root("procfs-fixtures").inventory.memory.swappiness, 60);
}

// ------------------------------------------------------------------------ pci

TEST(PciProbe, NodeExporterDowngradedNvme) {
  auto r = run_root("node-exporter");
  EXPECT_EQ(status_of(r, "pci").state, State::kOk);
  ASSERT_EQ(r.inventory.pci.devices.size(), 3u);
  const auto* nvme = pci(r.inventory, "0000:01:00.0");
  ASSERT_NE(nvme, nullptr);
  EXPECT_EQ(nvme->vendor_id, 0xc0a9u);
  EXPECT_EQ(nvme->device_id, 0x540au);
  EXPECT_EQ(nvme->class_code, 0x010802u);
  EXPECT_EQ(nvme->class_name, "NVMe controller");
  EXPECT_EQ(nvme->driver, "nvme");
  // "8.0 GT/s PCIe" now, "16.0 GT/s PCIe" possible: a downgraded link.
  EXPECT_EQ(nvme->link_speed_current_gts, 8.0);
  EXPECT_EQ(nvme->link_speed_max_gts, 16.0);
  EXPECT_EQ(nvme->link_width_current, 4);
  EXPECT_EQ(nvme->link_width_max, 4);
  EXPECT_FALSE(nvme->is_gpu);
  const auto* nic = pci(r.inventory, "0000:45:00.0");
  ASSERT_NE(nic, nullptr);
  EXPECT_EQ(nic->vendor_name, "Intel");
  EXPECT_EQ(nic->driver, "igb");
  EXPECT_EQ(nic->numa_node, 0);
  EXPECT_EQ(nic->link_speed_current_gts, 5.0);
  const auto* bridge = pci(r.inventory, "0000:00:02.1");
  ASSERT_NE(bridge, nullptr);
  EXPECT_EQ(bridge->class_name, "PCI bridge");
  EXPECT_EQ(bridge->link_width_current, 4);
  EXPECT_EQ(bridge->link_width_max, 8);
  EXPECT_FALSE(bridge->numa_node.has_value());  // numa_node -1
}

TEST(PciProbe, ProcfsFixturesNic) {
  auto r = run_root("procfs-fixtures");
  const auto* nic = pci(r.inventory, "0000:a2:00.0");
  ASSERT_NE(nic, nullptr);
  EXPECT_EQ(nic->numa_node, 1);
  EXPECT_EQ(nic->link_speed_current_gts, 16.0);
  EXPECT_EQ(nic->link_width_current, 8);
  EXPECT_FALSE(nic->driver.has_value());  // its driver link was dropped (escaped the root)
}

TEST(PciProbe, OldKernelLinkFormatAndVectorEngines) {
  auto r = run_root("hwloc-32intel64-2p8co2t+8ve");
  EXPECT_EQ(r.inventory.pci.devices.size(), 28u);
  int engines = 0;
  for (const auto& d : r.inventory.pci.devices) engines += d.vendor_id == 0x1bcfu && d.device_id == 0x001cu;
  EXPECT_EQ(engines, 8);  // NEC SX-Aurora
  const auto* ib = pci(r.inventory, "0000:1a:00.0");
  ASSERT_NE(ib, nullptr);
  EXPECT_EQ(ib->vendor_name, "Mellanox");
  EXPECT_EQ(ib->class_name, "InfiniBand controller");
  EXPECT_EQ(ib->driver, "mlx5_core");
  EXPECT_EQ(ib->numa_node, 0);
  EXPECT_EQ(ib->link_speed_current_gts, 8.0);  // "8 GT/s"
  EXPECT_EQ(ib->link_width_current, 16);
  const auto* nic = pci(r.inventory, "0000:60:00.0");
  ASSERT_NE(nic, nullptr);
  EXPECT_EQ(nic->link_speed_current_gts, 2.5);
  EXPECT_EQ(nic->link_speed_max_gts, 8.0);
}

TEST(PciProbe, PciLocality) {
  auto r = run_root("hwloc-40intel64-2g2n4c+pcilocality");
  EXPECT_EQ(r.inventory.pci.devices.size(), 37u);
  const auto* qib = pci(r.inventory, "0000:43:00.0");
  ASSERT_NE(qib, nullptr);
  EXPECT_EQ(qib->vendor_id, 0x1077u);  // QLogic
  EXPECT_EQ(qib->driver, "ib_qib");
  EXPECT_EQ(qib->numa_node, 2);
  EXPECT_EQ(qib->link_speed_current_gts, 8.0);
  EXPECT_EQ(qib->link_width_current, 4);
}

TEST(PciProbe, DirectoriesWithOnlyAClass) {
  // hwloc-nvidiagpunumanodes: 6 plain directories holding class 0x030000 and local_cpus.
  auto r = run_root("hwloc-nvidiagpunumanodes");
  EXPECT_EQ(status_of(r, "pci").state, State::kOk);
  ASSERT_EQ(r.inventory.pci.devices.size(), 6u);
  for (const auto& d : r.inventory.pci.devices) {
    EXPECT_EQ(d.class_code, 0x030000u) << d.address;
    EXPECT_FALSE(d.vendor_id.has_value()) << d.address;
    EXPECT_FALSE(d.driver.has_value()) << d.address;
    EXPECT_FALSE(d.link_speed_current_gts.has_value()) << d.address;
  }
  EXPECT_TRUE(status_of(r, "pci").problems.empty()) << problems_of(r, "pci");
}

TEST(PciProbe, VirtioWithoutLinkFiles) {
  auto r = run_root("debian12-vm");
  ASSERT_EQ(r.inventory.pci.devices.size(), 6u);
  const auto* disk = pci(r.inventory, "0000:00:02.0");
  ASSERT_NE(disk, nullptr);
  EXPECT_EQ(disk->vendor_name, "Red Hat (virtio)");
  EXPECT_EQ(disk->driver, "virtio-pci");  // from a dangling driver link
  EXPECT_FALSE(disk->link_speed_current_gts.has_value());
  EXPECT_FALSE(disk->numa_node.has_value());
}

TEST(PciProbe, AbsentWithoutAPciBus) {
  for (const char* root : {"hwloc-64amd64-4s2n4ca2co", "hwloc-96em64t-4no4pa3ca2co", "broken"}) {
    SCOPED_TRACE(root);
    auto r = run_root(root);
    EXPECT_EQ(status_of(r, "pci").state, State::kAbsent);
    EXPECT_TRUE(contains(status_of(r, "pci").detail, root_dir(root) + "/sys/bus/pci/devices"))
        << status_of(r, "pci").detail;
    EXPECT_TRUE(r.inventory.pci.devices.empty());
  }
}

// -------------------------------------------------------------------- storage

TEST(StorageProbe, BlockDeviceKinds) {
  auto pf = run_root("procfs-fixtures").inventory;
  ASSERT_NE(block(pf, "sda"), nullptr);
  EXPECT_EQ(block(pf, "sda")->kind, "hdd");
  EXPECT_EQ(block(pf, "sda")->rotational, true);
  EXPECT_EQ(block(pf, "sda")->size_bytes, 1920383410176u);
  ASSERT_NE(block(pf, "dm-1"), nullptr);
  EXPECT_EQ(block(pf, "dm-1")->kind, "virtual");
  EXPECT_EQ(block(pf, "dm-1")->size_bytes, 53687091200u);
  ASSERT_NE(block(pf, "md0"), nullptr);
  EXPECT_EQ(block(pf, "md0")->kind, "virtual");
  ASSERT_NE(block(pf, "sdb"), nullptr);
  EXPECT_EQ(block(pf, "sdb")->kind, "unknown");
  EXPECT_EQ(pf.storage.devices.size(), 16u);

  auto vm = run_root("debian12-vm").inventory;
  EXPECT_EQ(vm.storage.devices.size(), 10u);  // loop0-7, vda, zram0
  ASSERT_NE(block(vm, "vda"), nullptr);
  EXPECT_EQ(block(vm, "vda")->transport, "virtio");
  EXPECT_EQ(block(vm, "vda")->kind, "virtual");  // rotational=1 but paravirtual
  EXPECT_EQ(block(vm, "vda")->size_bytes, 274877906944u);
  ASSERT_NE(block(vm, "zram0"), nullptr);
  EXPECT_EQ(block(vm, "zram0")->kind, "virtual");

  auto hw = run_root("hwloc-40intel64-2g2n4c+pcilocality").inventory;
  ASSERT_NE(block(hw, "sda"), nullptr);
  EXPECT_EQ(block(hw, "sda")->kind, "hdd");
  EXPECT_EQ(block(hw, "sda")->transport, "scsi");
  EXPECT_EQ(block(hw, "sda")->model, "PERC H700");
  EXPECT_EQ(block(hw, "sda")->size_bytes, 1798651772928u);
}

TEST(StorageProbe, MountsFromMountinfo) {
  auto r = run_root("procfs-fixtures");
  const auto& inv = r.inventory;
  EXPECT_EQ(inv.storage.mounts.size(), 8u);
  const auto* root = mount(inv, "/", "ext4");
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->device, "/dev/sda1");
  EXPECT_EQ(root->block_device, "sda");
  EXPECT_FALSE(root->network);
  const auto* nfs4 = mount(inv, "/mnt/nfs/test", "nfs4");
  ASSERT_NE(nfs4, nullptr);
  EXPECT_TRUE(nfs4->network);
  EXPECT_EQ(nfs4->device, "192.168.1.1:/srv/test");
  EXPECT_FALSE(nfs4->block_device.has_value());
  ASSERT_NE(mount(inv, "/mnt/nfs/test", "nfs"), nullptr);
  EXPECT_TRUE(mount(inv, "/mnt/nfs/test", "nfs")->network);
  ASSERT_NE(mount(inv, "/proc", "proc"), nullptr);
  EXPECT_FALSE(mount(inv, "/proc", "proc")->network);

  auto ne = run_root("node-exporter").inventory;
  EXPECT_EQ(ne.storage.mounts.size(), 7u);
  ASSERT_NE(mount(ne, "/mnt/nfs/test-dupe", "nfs"), nullptr);
  EXPECT_TRUE(mount(ne, "/mnt/nfs/test-dupe", "nfs")->network);
}

TEST(StorageProbe, MountsFromProcMountsFallback) {
  // The hwloc roots have proc/mounts but no proc/self/mountinfo.
  auto r = run_root("hwloc-32intel64-2p8co2t+8ve");
  const auto& mounts = r.inventory.storage.mounts;
  EXPECT_EQ(mounts.size(), 89u);
  EXPECT_EQ(std::count_if(mounts.begin(), mounts.end(), [](const auto& m) { return m.network; }), 53);  // 51 nfs + 2 lustre
  const auto* lustre = mount(r.inventory, "/lustre16", "lustre");
  ASSERT_NE(lustre, nullptr);
  EXPECT_TRUE(lustre->network);
  EXPECT_EQ(status_of(r, "storage").state, State::kOk);

  auto hw40 = run_root("hwloc-40intel64-2g2n4c+pcilocality").inventory;
  EXPECT_EQ(hw40.storage.mounts.size(), 20u);
  const auto* local = mount(hw40, "/local", "ext3");
  ASSERT_NE(local, nullptr);
  EXPECT_EQ(local->device, "/dev/sda6");
  EXPECT_EQ(local->block_device, "sda");
  ASSERT_NE(mount(hw40, "/home", "nfs"), nullptr);
  EXPECT_TRUE(mount(hw40, "/home", "nfs")->network);
}

TEST(StorageProbe, FhgfsScratchIsANetworkMount) {
  auto hw40 = run_root("hwloc-40intel64-2g2n4c+pcilocality").inventory;
  const auto* scratch = mount(hw40, "/scratch", "fhgfs");
  ASSERT_NE(scratch, nullptr);
  EXPECT_TRUE(scratch->network);
}

TEST(StorageProbe, NoBlockDevicesNorMountsIsAnError) {
  auto r = run_root("hwloc-96em64t-4no4pa3ca2co");
  EXPECT_EQ(status_of(r, "storage").state, State::kError);
  EXPECT_TRUE(contains(problems_of(r, "storage"), root_dir("hwloc-96em64t-4no4pa3ca2co") + "/sys/block: "));
}

TEST(StorageProbe, DataPathResolvedToItsMount) {
  auto r = run_root("debian12-vm", {"/", "/proc", "/etc/os-release", "/usr/lib", "/no/such/dir"});
  const auto& dps = r.inventory.storage.data_paths;
  ASSERT_EQ(dps.size(), 5u);
  for (size_t i : {0u, 2u, 3u}) {
    SCOPED_TRACE(dps[i].path);
    EXPECT_FALSE(dps[i].error.has_value()) << dps[i].error.value_or("");
    EXPECT_EQ(dps[i].mount_point, "/");
    EXPECT_EQ(dps[i].fs_type, "ext4");
    EXPECT_EQ(dps[i].device, "/dev/vda");
    EXPECT_EQ(dps[i].block_device, "vda");
    EXPECT_EQ(dps[i].device_kind, "virtual");
    EXPECT_FALSE(dps[i].network);
  }
  EXPECT_EQ(dps[2].path, "/etc/os-release");  // as given, though it is a symlink
  EXPECT_EQ(dps[1].mount_point, "/proc");
  EXPECT_EQ(dps[1].fs_type, "proc");
  EXPECT_FALSE(dps[1].block_device.has_value());
  ASSERT_TRUE(dps[4].error.has_value());
  EXPECT_TRUE(contains(*dps[4].error, root_dir("debian12-vm") + "/no/such/dir")) << *dps[4].error;
  EXPECT_TRUE(contains(*dps[4].error, "No such file")) << *dps[4].error;
}

TEST(StorageProbe, DataPathOnANetworkMount) {
  // procfs-fixtures has no mnt/ directory: make a root with the same
  // mountinfo and the mount point present.
  TempDir dir;
  const std::string root = dir.path() + "/root";
  std::filesystem::create_directories(root + "/proc/self");
  std::filesystem::create_directories(root + "/mnt/nfs/test/train");
  std::filesystem::create_directories(root + "/sys/block");
  std::filesystem::copy_file(root_dir("procfs-fixtures") + "/proc/26231/mountinfo", root + "/proc/self/mountinfo");
  auto r = run_probes(context_for(root, {"/mnt/nfs/test/train"}), all_probes());
  ASSERT_EQ(r.inventory.storage.data_paths.size(), 1u);
  const auto& dp = r.inventory.storage.data_paths[0];
  EXPECT_FALSE(dp.error.has_value()) << dp.error.value_or("");
  EXPECT_EQ(dp.mount_point, "/mnt/nfs/test");
  EXPECT_TRUE(dp.network);
  EXPECT_EQ(dp.device, "192.168.1.1:/srv/test");
  EXPECT_EQ(dp.fs_type, "nfs");  // the last of the three mounts there shadows the others
}

TEST(StorageProbe, DataPathWithARootGivenThroughASymlink) {
  // --root given as a symlink (or a relative path) to the same tree must
  // resolve --data the same way: realpath() of the data path is canonical,
  // the root string is not, so stripping the root prefix must use the
  // canonical root too.
  TempDir dir;
  const std::string link = dir.path() + "/vm";
  ASSERT_EQ(::symlink(root_dir("debian12-vm").c_str(), link.c_str()), 0);
  auto r = run_probes(context_for(link, {"/proc"}), all_probes());
  ASSERT_EQ(r.inventory.storage.data_paths.size(), 1u);
  const auto& dp = r.inventory.storage.data_paths[0];
  EXPECT_FALSE(dp.error.has_value()) << dp.error.value_or("");
  EXPECT_EQ(dp.mount_point, "/proc");
  EXPECT_EQ(dp.fs_type, "proc");
}

// --------------------------------------------------------------------- limits

TEST(LimitsProbe, ProcessLimits) {
  auto pf = run_root("procfs-fixtures");
  EXPECT_EQ(status_of(pf, "limits").state, State::kOk);
  EXPECT_EQ(pf.inventory.limits.nofile.soft, 2048u);
  EXPECT_EQ(pf.inventory.limits.nofile.hard, 4096u);
  EXPECT_EQ(pf.inventory.limits.memlock.soft, 18446744073708503040ull);
  auto vm = run_root("debian12-vm");
  EXPECT_EQ(status_of(vm, "limits").state, State::kOk);
  EXPECT_EQ(vm.inventory.limits.nofile.soft, 20000u);
  EXPECT_EQ(vm.inventory.limits.memlock.hard, 8388608u);
  EXPECT_TRUE(vm.inventory.limits.configured.empty());  // limits.conf: comments only
  auto ne = run_root("node-exporter");  // proc/self -> 10 has no limits file
  EXPECT_EQ(status_of(ne, "limits").state, State::kError);
  EXPECT_TRUE(contains(problems_of(ne, "limits"), root_dir("node-exporter") + "/proc/self/limits: "));
}

// --------------------------------------------------------------------- broken

class BrokenRoot : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { run_ = new RunResult(run_root("broken")); }
  static void TearDownTestSuite() {
    delete run_;
    run_ = nullptr;
  }
  static const RunResult& run() { return *run_; }
  static std::string path(std::string_view rel) { return root_dir("broken") + "/" + std::string(rel); }
  static RunResult* run_;
};
RunResult* BrokenRoot::run_ = nullptr;

TEST_F(BrokenRoot, EveryProbeReturnsAStatus) {
  ASSERT_EQ(run().statuses.size(), all_probes().size());
  for (const auto& s : run().statuses) EXPECT_FALSE(s.detail.empty()) << s.id;
  // host: os-release is garbage and osrelease binary; whether that is "ok"
  // with a kernel from proc/version or "error" is the probe's call.
  EXPECT_EQ(status_of(run(), "cpu").state, State::kOk);
  EXPECT_EQ(status_of(run(), "memory").state, State::kError);
  EXPECT_EQ(status_of(run(), "storage").state, State::kOk);
  EXPECT_EQ(status_of(run(), "pci").state, State::kAbsent);
  EXPECT_EQ(status_of(run(), "limits").state, State::kError);
}

TEST_F(BrokenRoot, ProblemsNameTheFullPathAndTheReason) {
  const std::string host = problems_of(run(), "host");
  EXPECT_TRUE(contains(host, path("etc/os-release") + ": binary data")) << host;
  const std::string cpu = problems_of(run(), "cpu");
  EXPECT_TRUE(contains(cpu, path("sys/devices/system/cpu/online") + ": bad CPU range '7-'")) << cpu;
  EXPECT_TRUE(contains(cpu, path("sys/devices/system/node/node0/cpulist") + ": bad CPU range '3-0'")) << cpu;
  EXPECT_TRUE(contains(cpu, path("sys/devices/system/node/node0/meminfo") + ": ")) << cpu;
  const std::string mem = problems_of(run(), "memory");
  EXPECT_TRUE(contains(mem, path("proc/meminfo") + ": empty")) << mem;
  EXPECT_TRUE(contains(mem, path("proc/sys/vm/swappiness") + ": expected a number 0-200, got 'sixty'")) << mem;
  const std::string storage = problems_of(run(), "storage");
  for (const char* dev : {"loop0", "loop1", "selfloop"}) {
    EXPECT_TRUE(contains(storage, path(std::string("sys/block/") + dev + "/size") + ": open failed")) << storage;
  }
  EXPECT_TRUE(contains(storage, "(symlink loop)")) << storage;
  EXPECT_TRUE(contains(storage, path("proc/self/mountinfo") + ": open failed: No such file")) << storage;
  EXPECT_TRUE(contains(storage, path("proc/mounts") + ": open failed: No such file")) << storage;
  const std::string limits = problems_of(run(), "limits");
  EXPECT_TRUE(contains(limits, path("proc/self/limits") + ": open failed")) << limits;
  EXPECT_TRUE(contains(limits, path("etc/security/limits.conf") + ":4: expected '<domain> <type> <item> <value>'"))
      << limits;
}

TEST_F(BrokenRoot, TheRestOfTheReportStillComesOut) {
  const auto& inv = run().inventory;
  EXPECT_EQ(inv.cpu.threads, 2);
  EXPECT_EQ(inv.cpu.model_name, "AMD EPYC");
  EXPECT_EQ(inv.host.virtualization, "unknown hypervisor");  // hypervisor flag of processor 0
  ASSERT_EQ(inv.cpu.numa_nodes.size(), 1u);
  EXPECT_TRUE(inv.cpu.numa_nodes[0].cpus.empty());
  EXPECT_EQ(inv.storage.devices.size(), 3u);
  EXPECT_TRUE(inv.storage.mounts.empty());
  std::vector<int> lines;
  for (const auto& e : inv.limits.configured) lines.push_back(e.line);
  EXPECT_NE(std::find(lines.begin(), lines.end(), 2), lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), 5), lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), 7), lines.end());
  for (const auto& e : inv.limits.configured) EXPECT_EQ(e.file, path("etc/security/limits.conf"));
}

TEST_F(BrokenRoot, KernelReleaseWithAnEmbeddedNul) {
  // proc/sys/kernel/osrelease is "6.1.0-18-amd64\0garbage": the NUL must not
  // reach the inventory (JSON "\u0000", raw NUL on the terminal); cut at the
  // NUL or reject the value, and say so.
  const auto& rel = run().inventory.host.kernel_release;
  if (rel) {
    EXPECT_EQ(rel->find('\0'), std::string::npos) << tfrig::test::replace_all(*rel, std::string_view("\0", 1), "\\0");
  }
  EXPECT_TRUE(contains(problems_of(run(), "host"), path("proc/sys/kernel/osrelease") + ": "))
      << problems_of(run(), "host");
}

TEST_F(BrokenRoot, ProcVersionThatIsADirectoryIsAProblem) {
  const std::string host = problems_of(run(), "host");
  EXPECT_TRUE(contains(host, path("proc/version") + ": is a directory")) << host;
}

TEST_F(BrokenRoot, TruncatedCpuinfoIsAProblem) {
  // processor 1 is cut inside its flags line, with no final newline.
  const std::string cpu = problems_of(run(), "cpu");
  EXPECT_TRUE(contains(cpu, path("proc/cpuinfo") + ": ")) << cpu;
}

TEST_F(BrokenRoot, TransparentHugepagesWithoutASelectionIsAProblem) {
  // "always madvise never" has no [selected] value.
  const std::string mem = problems_of(run(), "memory");
  EXPECT_TRUE(contains(mem, path("sys/kernel/mm/transparent_hugepage/enabled") + ": ")) << mem;
}

TEST_F(BrokenRoot, NodeMeminfoProblemSaysWhichLine) {
  // node0/meminfo line 1 is "Node 0 MemTotal:       lots kB".
  const std::string cpu = problems_of(run(), "cpu");
  EXPECT_TRUE(contains(cpu, path("sys/devices/system/node/node0/meminfo") + ": line 1: ")) << cpu;
}

// --------------------------------------------------------------------- runner

// A probe for the runner tests: fills host.hostname with its id, optionally
// blocks until released or throws.
class FakeProbe final : public Probe {
 public:
  struct Gate {
    std::mutex mutex;
    std::condition_variable cv;
    bool open = false;
    std::atomic<bool> finished{false};
    void release() {
      std::lock_guard<std::mutex> lock(mutex);
      open = true;
      cv.notify_all();
    }
  };
  enum class Mode { kFast, kHang, kThrow };

  FakeProbe(std::string id, Mode mode, std::shared_ptr<Gate> gate = nullptr)
      : id_(std::move(id)), mode_(mode), gate_(std::move(gate)) {}
  std::string_view id() const override { return id_; }
  ProbeStatus run(const Context&, inventory::Inventory& out) const override {
    if (mode_ == Mode::kThrow) throw std::runtime_error("boom");
    if (mode_ == Mode::kHang) {
      // Sleeps far past any deadline until the test releases it (bounded, so
      // a broken test cannot keep the process alive forever).
      std::unique_lock<std::mutex> lock(gate_->mutex);
      gate_->cv.wait_for(lock, std::chrono::seconds(60), [&] { return gate_->open; });
    }
    out.host.hostname = id_;
    out.cpu.model_name = id_;
    if (gate_) gate_->finished = true;
    ProbeStatus s;
    s.state = State::kOk;
    s.detail = "fine";
    return s;
  }
  void merge(inventory::Inventory& into, inventory::Inventory&& from) const override {
    // Each fake writes its own field, so merging shows which ones were merged.
    if (id_ == "slow") into.cpu.model_name = std::move(from.cpu.model_name);
    else into.host.hostname = std::move(from.host.hostname);
  }

 private:
  std::string id_;
  Mode mode_;
  std::shared_ptr<Gate> gate_;
};

TEST(Runner, AHangingProbeIsRecordedAsErrorAndTheOthersComplete) {
  auto gate = std::make_shared<FakeProbe::Gate>();
  std::vector<std::shared_ptr<const Probe>> probes = {
      std::make_shared<FakeProbe>("first", FakeProbe::Mode::kFast),
      std::make_shared<FakeProbe>("slow", FakeProbe::Mode::kHang, gate),
      std::make_shared<FakeProbe>("last", FakeProbe::Mode::kFast),
  };
  Context ctx{core::SysRoot("/nonexistent-root", {}), {}, std::chrono::milliseconds(50), {}};
  auto r = run_probes(ctx, probes);
  const bool slow_finished = gate->finished;
  const int left_running = probe_threads_running();
  gate->release();  // let the left-behind thread end
  // Not a timing assertion: only lets the thread finish before the process
  // may exit (sanitizer builds), bounded at 60 s.
  for (int i = 0; i < 6000 && probe_threads_running() > 0; ++i) ::usleep(10000);
  ASSERT_FALSE(slow_finished) << "the hanging probe was released early";
  // The late thread is counted (main ends with _Exit while it runs) until it
  // has finished and let go of its state.
  EXPECT_GE(left_running, 1);
  EXPECT_TRUE(gate->finished);
  EXPECT_EQ(probe_threads_running(), 0);
  ASSERT_EQ(r.statuses.size(), 3u);
  EXPECT_EQ(r.statuses[0].id, "first");
  EXPECT_EQ(r.statuses[0].state, State::kOk);
  EXPECT_EQ(r.statuses[1].id, "slow");
  EXPECT_EQ(r.statuses[1].state, State::kError);
  EXPECT_TRUE(contains(r.statuses[1].detail, "deadline")) << r.statuses[1].detail;
  EXPECT_TRUE(contains(r.statuses[1].detail, "50.0 ms")) << r.statuses[1].detail;
  // Its message renders the time in the reader's units (no English thread flag needed).
  ASSERT_TRUE(r.statuses[1].detail_message.has_value());
  const std::string zh = core::render(*r.statuses[1].detail_message, "zh_CN");
  EXPECT_TRUE(contains(zh, core::render(core::seconds_message(0.05), "zh_CN"))) << zh;
  EXPECT_FALSE(contains(zh, "ms")) << zh;
  EXPECT_EQ(r.statuses[2].id, "last");
  EXPECT_EQ(r.statuses[2].state, State::kOk);
  // The late probe's section is not merged; the others are.
  EXPECT_FALSE(r.inventory.cpu.model_name.has_value());
  EXPECT_TRUE(r.inventory.host.hostname.has_value());
}

TEST(Runner, AThrowingProbeIsRecordedAsError) {
  std::vector<std::shared_ptr<const Probe>> probes = {
      std::make_shared<FakeProbe>("bad", FakeProbe::Mode::kThrow),
      std::make_shared<FakeProbe>("good", FakeProbe::Mode::kFast),
  };
  Context ctx{core::SysRoot("/nonexistent-root", {}), {}, std::chrono::milliseconds(60000), {}};
  auto r = run_probes(ctx, probes);
  ASSERT_EQ(r.statuses.size(), 2u);
  EXPECT_EQ(r.statuses[0].id, "bad");
  EXPECT_EQ(r.statuses[0].state, State::kError);
  EXPECT_TRUE(contains(r.statuses[0].detail, "internal error: boom")) << r.statuses[0].detail;
  EXPECT_EQ(r.statuses[1].state, State::kOk);
  EXPECT_EQ(r.inventory.host.hostname, "good");
}

TEST(Runner, StateNamesRoundTrip) {
  for (State s : {State::kOk, State::kAbsent, State::kError, State::kSkipped}) {
    EXPECT_EQ(state_from_name(state_name(s)), s);
  }
  EXPECT_FALSE(state_from_name("fine").has_value());
}

}  // namespace
}  // namespace tfrig::probe
