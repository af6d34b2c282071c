// The pure parsers of probe/parse/proc_text.h, on literal text and on the
// real files of the fixture roots (tests/data/roots, see its README.md).
#include "probe/parse/proc_text.h"

#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "test_support.h"

namespace tfrig::probe::parse {
namespace {

using tfrig::test::read_file;
using tfrig::test::root_dir;

std::string fixture(std::string_view root, std::string_view rel) {
  return read_file(root_dir(root) + "/" + std::string(rel));
}

bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }
bool starts_with_helper(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<int> range(int first, int last) {
  std::vector<int> out;
  for (int i = first; i <= last; ++i) out.push_back(i);
  return out;
}

// ---------------------------------------------------------------- os-release

TEST(ParseOsRelease, QuotingEscapesCommentsAndBadLines) {
  auto os = parse_os_release(
      "NAME=\"Ubuntu\"\n"                                  // 1
      "VERSION_ID=\"22.04\"\n"                             // 2
      "ID=ubuntu\n"                                        // 3
      "PRETTY_NAME='Ubuntu 22.04.3 LTS'\n"                 // 4
      "# a comment\n"                                      // 5
      "\n"                                                 // 6
      "NOT AN ASSIGNMENT\n"                                // 7
      "=value\n"                                           // 8
      "ESCAPED=\"say \\\"hi\\\" for \\$5 \\\\ \\`x\\`\"\n"  // 9
      "EMPTY=\n"                                           // 10
      "  SPACED = \"x\"  \r\n"                             // 11
      "BAD-KEY=1\n");                                      // 12
  EXPECT_EQ(os.values.at("NAME"), "Ubuntu");
  EXPECT_EQ(os.values.at("VERSION_ID"), "22.04");
  EXPECT_EQ(os.values.at("ID"), "ubuntu");
  EXPECT_EQ(os.values.at("PRETTY_NAME"), "Ubuntu 22.04.3 LTS");
  EXPECT_EQ(os.values.at("ESCAPED"), "say \"hi\" for $5 \\ `x`");
  EXPECT_EQ(os.values.at("EMPTY"), "");
  EXPECT_EQ(os.bad_lines, (std::vector<int>{7, 8, 11, 12}));
}

TEST(ParseOsRelease, DebianCapture) {
  auto os = parse_os_release(fixture("debian12-vm", "usr/lib/os-release"));
  EXPECT_TRUE(os.bad_lines.empty());
  EXPECT_EQ(os.values.at("ID"), "debian");
  EXPECT_EQ(os.values.at("VERSION_ID"), "12");
  EXPECT_EQ(os.values.at("VERSION_CODENAME"), "bookworm");
  EXPECT_EQ(os.values.at("PRETTY_NAME"), "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(os.values.at("HOME_URL"), "https://www.debian.org/");
  // etc/os-release is a relative symlink to it.
  EXPECT_EQ(fixture("debian12-vm", "etc/os-release"), fixture("debian12-vm", "usr/lib/os-release"));
}

TEST(ParseOsRelease, BinaryGarbageDoesNotCrash) {
  // 512 random bytes: whatever comes out, parsing must return.
  auto os = parse_os_release(fixture("broken", "etc/os-release"));
  EXPECT_LE(os.values.size() + os.bad_lines.size(), 512u);
}

// ------------------------------------------------------------------- cpuinfo

const char* kX86Cpuinfo =
    "processor\t: 0\n"
    "vendor_id\t: GenuineIntel\n"
    "model name\t: Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz\n"
    "cpu MHz\t\t: 2100.000\n"
    "physical id\t: 0\n"
    "core id\t\t: 0\n"
    "cpu cores\t: 2\n"
    "flags\t\t: fpu sse2 avx avx2 fma avx512f hypervisor\n"
    "\n"
    "processor\t: 1\n"
    "vendor_id\t: GenuineIntel\n"
    "model name\t: Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz\n"
    "cpu MHz\t\t: 1000.000\n"
    "physical id\t: 0\n"
    "core id\t\t: 1\n"
    "cpu cores\t: 2\n"
    "flags\t\t: fpu sse2 only_on_the_second\n"
    "\n"
    "processor\t: 2\n"
    "physical id\t: 1\n"
    "core id\t\t: 0\n"
    "\n"
    "processor\t: 3\n"
    "physical id\t: 1\n"
    "core id\t\t: 0\n";

TEST(ParseCpuinfo, X86Layout) {
  auto info = parse_cpuinfo(kX86Cpuinfo);
  ASSERT_TRUE(info.has_value()) << info.error().to_string();
  EXPECT_EQ(info->vendor, "GenuineIntel");
  EXPECT_EQ(info->model_name, "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz");
  EXPECT_EQ(info->logical_cpus, 4);
  EXPECT_EQ(info->sockets, 2);
  EXPECT_EQ(info->physical_cores, 3);  // (0,0) (0,1) (1,0)
  EXPECT_EQ(info->mhz, 2100.0);        // the first processor's
  EXPECT_TRUE(info->flags.count("avx512f"));
  EXPECT_FALSE(info->flags.count("only_on_the_second"));
  EXPECT_TRUE(info->has_hypervisor_flag);
}

TEST(ParseCpuinfo, Arm64Layout) {
  auto info = parse_cpuinfo(
      "processor\t: 0\n"
      "BogoMIPS\t: 50.00\n"
      "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics\n"
      "CPU implementer\t: 0x41\n"
      "CPU architecture: 8\n"
      "CPU part\t: 0xd0c\n"
      "\n"
      "processor\t: 1\n"
      "Features\t: fp asimd\n"
      "CPU implementer\t: 0x41\n"
      "CPU part\t: 0xd0c\n");
  ASSERT_TRUE(info.has_value()) << info.error().to_string();
  EXPECT_EQ(info->logical_cpus, 2);
  EXPECT_EQ(info->vendor, "arm implementer 0x41");
  EXPECT_EQ(info->model_name, "ARM CPU part 0xd0c");
  EXPECT_FALSE(info->sockets.has_value());
  EXPECT_FALSE(info->physical_cores.has_value());
  EXPECT_TRUE(info->flags.count("asimd"));
  EXPECT_FALSE(info->has_hypervisor_flag);
}

TEST(ParseCpuinfo, CoresFromCpuCoresWhenThereAreNoCoreIds) {
  auto info = parse_cpuinfo(
      "processor : 0\nphysical id : 0\ncpu cores : 4\n\n"
      "processor : 1\nphysical id : 1\ncpu cores : 4\n");
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->sockets, 2);
  EXPECT_EQ(info->physical_cores, 8);
}

TEST(ParseCpuinfo, RejectsBinaryAndTextWithoutProcessors) {
  auto bin = parse_cpuinfo(std::string("processor : 0\n\0\x01\x02", 17));
  ASSERT_FALSE(bin.has_value());
  EXPECT_EQ(bin.error().code, core::ErrorCode::kParse);
  auto none = parse_cpuinfo("vendor_id : GenuineIntel\n");
  ASSERT_FALSE(none.has_value());
  EXPECT_TRUE(contains(none.error().message, "processor")) << none.error().message;
  EXPECT_FALSE(parse_cpuinfo("").has_value());
}

struct CpuinfoCase {
  const char* root;
  int threads;
  std::optional<int> sockets;
  std::optional<int> cores;
  const char* vendor;
  const char* model_part;
};

// Counted from each root's proc/cpuinfo with
//   grep -c '^processor'                                      -> threads
//   grep '^physical id' | sort -u | wc -l                     -> sockets
//   awk -F: '/^processor/{p=""} /^physical id/{p=$2}
//            /^core id/{print p"/"$2}' | sort -u | wc -l     -> cores
// and cross-checked against "cpu cores" x sockets.
const CpuinfoCase kCpuinfoCases[] = {
    // 2x Xeon Silver 4108: 8 cores each, HT on (cpu cores 8, siblings 16).
    {"hwloc-32intel64-2p8co2t+8ve", 32, 2, 16, "GenuineIntel", "Xeon(R) Silver 4108"},
    // 4x Xeon E7-4870: 10 cores each, HT off.
    {"hwloc-40intel64-2g2n4c+pcilocality", 40, 4, 40, "GenuineIntel", "E7- 4870"},
    // 4x Opteron 6276: cpuinfo reports 8 "cpu cores" (compute units) per socket, 2 threads each.
    {"hwloc-64amd64-4s2n4ca2co", 64, 4, 32, "AuthenticAMD", "Opteron(TM) Processor 6276"},
    // 16 packages x 6 cores ("cpu cores: 6"), no HT: 96 distinct (physical id, core id).
    {"hwloc-96em64t-4no4pa3ca2co", 96, 16, 96, "GenuineIntel", "Genuine Intel(R) CPU"},
    // POWER9: 176 "processor" entries, no physical id / core id lines at all.
    {"hwloc-nvidiagpunumanodes", 176, std::nullopt, std::nullopt, nullptr, nullptr},
    // i7-8650U: 1 socket, 4 cores, 8 threads.
    {"procfs-fixtures", 8, 1, 4, "GenuineIntel", "i7-8650U"},
    {"node-exporter", 8, 1, 4, "GenuineIntel", "i7-8650U"},
    // 2 vCPUs, physical id 0, core ids 0 and 1.
    {"debian12-vm", 2, 1, 2, "AuthenticAMD", "AMD EPYC"},
};

TEST(ParseCpuinfo, RealCapturesMatchHandCounts) {
  for (const auto& c : kCpuinfoCases) {
    SCOPED_TRACE(c.root);
    auto info = parse_cpuinfo(fixture(c.root, "proc/cpuinfo"));
    ASSERT_TRUE(info.has_value()) << info.error().to_string();
    EXPECT_EQ(info->logical_cpus, c.threads);
    EXPECT_EQ(info->sockets, c.sockets);
    EXPECT_EQ(info->physical_cores, c.cores);
    if (c.vendor) {
      EXPECT_EQ(info->vendor, std::string(c.vendor));
    }
    if (c.model_part) {
      ASSERT_TRUE(info->model_name.has_value());
      EXPECT_TRUE(contains(*info->model_name, c.model_part)) << *info->model_name;
    }
  }
}

TEST(ParseCpuinfo, RealCaptureDetails) {
  auto xeon = parse_cpuinfo(fixture("hwloc-32intel64-2p8co2t+8ve", "proc/cpuinfo"));
  ASSERT_TRUE(xeon.has_value());
  EXPECT_EQ(xeon->mhz, 802.990);
  EXPECT_TRUE(xeon->flags.count("avx512f"));
  EXPECT_FALSE(xeon->has_hypervisor_flag);
  auto westmere = parse_cpuinfo(fixture("hwloc-40intel64-2g2n4c+pcilocality", "proc/cpuinfo"));
  ASSERT_TRUE(westmere.has_value());
  EXPECT_FALSE(westmere->flags.count("avx"));
  EXPECT_TRUE(westmere->flags.count("sse2"));
  auto vm = parse_cpuinfo(fixture("debian12-vm", "proc/cpuinfo"));
  ASSERT_TRUE(vm.has_value());
  EXPECT_TRUE(vm->has_hypervisor_flag);
}

TEST(ParseCpuinfo, Power9ModelIsRead) {
  // ppc64le cpuinfo: "cpu : POWER9, altivec supported" per processor and
  // "model : 8335-GTW" at the end. The GPU NUMA machine is an IBM AC922.
  auto info = parse_cpuinfo(fixture("hwloc-nvidiagpunumanodes", "proc/cpuinfo"));
  ASSERT_TRUE(info.has_value());
  ASSERT_TRUE(info->model_name.has_value());
  EXPECT_TRUE(contains(*info->model_name, "POWER9")) << *info->model_name;
}

TEST(ParseCpuinfo, TruncatedCaptureDoesNotUndercountCores) {
  // broken/proc/cpuinfo: processor 0 complete, processor 1 cut inside its
  // flags line, before its "core id". Two logical CPUs on two cores
  // (debian12-vm, where it comes from, has core ids 0 and 1). Counting the
  // one (physical id, core id) pair seen gives "1 core, 2 threads": wrong.
  auto info = parse_cpuinfo(fixture("broken", "proc/cpuinfo"));
  ASSERT_TRUE(info.has_value()) << info.error().to_string();
  EXPECT_EQ(info->logical_cpus, 2);
  EXPECT_NE(info->physical_cores, std::optional<int>(1));
}

// ------------------------------------------------------------------- meminfo

TEST(ParseMeminfo, KiloBytesBecomeBytesAndCountsStayCounts) {
  auto m = parse_meminfo(
      "MemTotal:       16 kB\n"
      "HugePages_Total:       4\n"
      "Hugepagesize:       2048 kB\n"
      "DirectMap1G:     1 KB\n"
      "\n");
  ASSERT_TRUE(m.has_value()) << m.error().to_string();
  EXPECT_EQ(m->at("MemTotal"), 16u * 1024);
  EXPECT_EQ(m->at("HugePages_Total"), 4u);
  EXPECT_EQ(m->at("Hugepagesize"), 2048u * 1024);
  EXPECT_EQ(m->at("DirectMap1G"), 1024u);
}

TEST(ParseMeminfo, PerNodePrefixIsDropped) {
  auto m = parse_meminfo("Node 0 MemTotal:       47925628 kB\nNode 0 MemFree:  1 kB\n");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->at("MemTotal"), 47925628ull * 1024);
  EXPECT_EQ(m->at("MemFree"), 1024u);
}

TEST(ParseMeminfo, ErrorsNameTheLine) {
  auto bad = parse_meminfo("MemTotal: 1 kB\nMemFree: lots kB\n");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().where, "line 2");
  EXPECT_TRUE(contains(bad.error().message, "MemFree")) << bad.error().message;
  auto colon = parse_meminfo("MemTotal: 1 kB\nno colon here\n");
  ASSERT_FALSE(colon.has_value());
  EXPECT_EQ(colon.error().where, "line 2");
  auto overflow = parse_meminfo("MemTotal: 18446744073709551615 kB\n");
  ASSERT_FALSE(overflow.has_value());
  EXPECT_TRUE(contains(overflow.error().message, "too large")) << overflow.error().message;
  auto empty = parse_meminfo("");
  ASSERT_FALSE(empty.has_value());
  EXPECT_TRUE(contains(empty.error().message, "MemTotal")) << empty.error().message;
}

TEST(ParseMeminfo, RealCaptures) {
  // MemTotal lines of each root's proc/meminfo, in kB.
  const std::pair<const char*, uint64_t> totals[] = {
      {"debian12-vm", 24683620},         {"hwloc-32intel64-2p8co2t+8ve", 97445600},
      {"hwloc-40intel64-2g2n4c+pcilocality", 529428392}, {"hwloc-64amd64-4s2n4ca2co", 123994388},
      {"hwloc-96em64t-4no4pa3ca2co", 527617788},  {"hwloc-nvidiagpunumanodes", 358162944},
      {"node-exporter", 3742148},        {"procfs-fixtures", 15666184},
  };
  for (const auto& [root, kb] : totals) {
    SCOPED_TRACE(root);
    auto m = parse_meminfo(fixture(root, "proc/meminfo"));
    ASSERT_TRUE(m.has_value()) << m.error().to_string();
    EXPECT_EQ(m->at("MemTotal"), kb * 1024);
    EXPECT_EQ(m->at("Hugepagesize"), 2048u * 1024);
  }
  auto hw = parse_meminfo(fixture("hwloc-32intel64-2p8co2t+8ve", "proc/meminfo"));
  ASSERT_TRUE(hw.has_value());
  EXPECT_EQ(hw->at("HugePages_Total"), 4096u);
  EXPECT_EQ(hw->at("SwapTotal"), 8388604ull * 1024);
  auto node5 = parse_meminfo(fixture("hwloc-64amd64-4s2n4ca2co", "sys/devices/system/node/node5/meminfo"));
  ASSERT_TRUE(node5.has_value());
  EXPECT_EQ(node5->at("MemTotal"), 8ull * 1024 * 1024 * 1024);
}

TEST(ParseMeminfo, BrokenCaptures) {
  auto empty = parse_meminfo(fixture("broken", "proc/meminfo"));
  EXPECT_FALSE(empty.has_value());
  auto node = parse_meminfo(fixture("broken", "sys/devices/system/node/node0/meminfo"));
  ASSERT_FALSE(node.has_value());
  EXPECT_EQ(node.error().where, "line 1");  // "Node 0 MemTotal:       lots kB"
}

// ------------------------------------------------------------------- cpulist

TEST(ParseCpulist, RangesListsAndEmpty) {
  EXPECT_EQ(parse_cpulist("0-3,8,10-11").value(), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpulist("5").value(), (std::vector<int>{5}));
  EXPECT_EQ(parse_cpulist("3,1,1-2\n").value(), (std::vector<int>{1, 2, 3}));
  EXPECT_TRUE(parse_cpulist("").value().empty());
  EXPECT_TRUE(parse_cpulist("\n").value().empty());
}

TEST(ParseCpulist, RejectsMalformed) {
  for (const char* bad : {"3-0", "0-3,7-,x", "x", "1,,2", "-1", "0-65536", "99999999999999999999", "1 2"}) {
    auto r = parse_cpulist(bad);
    ASSERT_FALSE(r.has_value()) << "should reject: '" << bad << "'";
    EXPECT_EQ(r.error().code, core::ErrorCode::kParse);
    EXPECT_TRUE(contains(r.error().message, "expected N or N-M")) << r.error().message;
  }
  auto broken = parse_cpulist(fixture("broken", "sys/devices/system/cpu/online"));
  ASSERT_FALSE(broken.has_value());
  EXPECT_TRUE(contains(broken.error().message, "'7-'")) << broken.error().message;
  EXPECT_FALSE(parse_cpulist(fixture("broken", "sys/devices/system/node/node0/cpulist")).has_value());
  EXPECT_TRUE(parse_cpulist(fixture("broken", "sys/devices/system/cpu/possible")).value().empty());
}

TEST(ParseCpulist, RealNodeLists) {
  EXPECT_EQ(parse_cpulist(fixture("hwloc-32intel64-2p8co2t+8ve", "sys/devices/system/node/node0/cpulist")).value(),
            [] { auto v = range(0, 7); auto w = range(16, 23); v.insert(v.end(), w.begin(), w.end()); return v; }());
  EXPECT_EQ(parse_cpulist(fixture("hwloc-nvidiagpunumanodes", "sys/devices/system/node/node8/cpulist")).value(),
            range(88, 175));
  EXPECT_TRUE(parse_cpulist(fixture("hwloc-nvidiagpunumanodes", "sys/devices/system/node/node250/cpulist")).value().empty());
  EXPECT_EQ(parse_cpulist(fixture("hwloc-40intel64-2g2n4c+pcilocality", "sys/devices/system/node/node2/cpulist")).value(),
            (std::vector<int>{2, 6, 10, 14, 18, 22, 26, 30, 34, 38}));
  EXPECT_EQ(parse_cpulist(fixture("hwloc-nvidiagpunumanodes", "sys/devices/system/cpu/online")).value(),
            [] { auto v = range(0, 15); auto w = range(88, 103); v.insert(v.end(), w.begin(), w.end()); return v; }());
}

TEST(ParseCpulist, FilesWithATrailingNul) {
  // Some kernels leave a NUL in these masks: "0-3\n\0" (node/online,
  // possible, has_cpu, has_normal_memory) and "\0\n" (cpu/nohz_full, empty).
  // The parser gets the file's text; the NUL is not part of the list.
  const std::string online40 = fixture("hwloc-40intel64-2g2n4c+pcilocality", "sys/devices/system/node/online");
  ASSERT_EQ(online40, std::string("0-3\n\0", 5));
  auto a = parse_cpulist(online40);
  ASSERT_TRUE(a.has_value()) << a.error().to_string();
  EXPECT_EQ(*a, range(0, 3));
  auto b = parse_cpulist(fixture("hwloc-64amd64-4s2n4ca2co", "sys/devices/system/node/has_cpu"));
  ASSERT_TRUE(b.has_value()) << b.error().to_string();
  EXPECT_EQ(*b, range(0, 7));
  const std::string nohz = fixture("hwloc-32intel64-2p8co2t+8ve", "sys/devices/system/cpu/nohz_full");
  ASSERT_EQ(nohz, std::string("\0\n", 2));
  auto c = parse_cpulist(nohz);
  ASSERT_TRUE(c.has_value()) << c.error().to_string();
  EXPECT_TRUE(c->empty());
}

// --------------------------------------------------------------- bracket choice

TEST(ParseBracketChoice, SelectedValue) {
  EXPECT_EQ(parse_bracket_choice("always [madvise] never\n"), "madvise");
  EXPECT_EQ(parse_bracket_choice("[always] madvise never"), "always");
  EXPECT_EQ(parse_bracket_choice("never"), "never");  // single value without brackets
  EXPECT_FALSE(parse_bracket_choice("always madvise never").has_value());
  EXPECT_FALSE(parse_bracket_choice("always [] never").has_value());
  EXPECT_FALSE(parse_bracket_choice("").has_value());
  EXPECT_EQ(parse_bracket_choice(fixture("debian12-vm", "sys/kernel/mm/transparent_hugepage/enabled")), "madvise");
  EXPECT_FALSE(parse_bracket_choice(fixture("broken", "sys/kernel/mm/transparent_hugepage/enabled")).has_value());
}

// ----------------------------------------------------------------- mountinfo

TEST(ParseMountinfo, FieldsOptionalFieldsAndEscapes) {
  auto mi = parse_mountinfo(
      "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n"
      "37 35 0:44 / /data\\040set rw shared:3 master:4 - nfs4 srv:/ex\\134port rw,vers=4.2\n"
      "38 35 259:3 / /no/optional rw - xfs /dev/nvme0n1p3 rw\n"
      "39 35 0:50 / /no/super rw - tmpfs tmpfs\n"
      "\n"
      "40 35 0:51 / /short rw - tmpfs\n"            // line 6: no source
      "41 35 0:52 / /nosep rw shared:1 tmpfs tmpfs rw\n"  // line 7: no "-"
      "x 35 0:53 / /badid rw - tmpfs tmpfs rw\n"    // line 8
      "42 35 053 / /baddev rw - tmpfs tmpfs rw\n");  // line 9
  ASSERT_EQ(mi.entries.size(), 4u);
  const auto& a = mi.entries[0];
  EXPECT_EQ(a.mount_id, 36);
  EXPECT_EQ(a.parent_id, 35);
  EXPECT_EQ(a.major, 98u);
  EXPECT_EQ(a.minor, 0u);
  EXPECT_EQ(a.root, "/mnt1");
  EXPECT_EQ(a.mount_point, "/mnt2");
  EXPECT_EQ(a.options, "rw,noatime");
  EXPECT_EQ(a.fs_type, "ext3");
  EXPECT_EQ(a.source, "/dev/root");
  EXPECT_EQ(a.super_options, "rw,errors=continue");
  EXPECT_EQ(mi.entries[1].mount_point, "/data set");
  EXPECT_EQ(mi.entries[1].source, "srv:/ex\\port");
  EXPECT_EQ(mi.entries[1].fs_type, "nfs4");
  EXPECT_EQ(mi.entries[2].major, 259u);
  EXPECT_EQ(mi.entries[2].minor, 3u);
  EXPECT_EQ(mi.entries[3].super_options, "");
  EXPECT_EQ(mi.bad_lines, (std::vector<int>{6, 7, 8, 9}));
}

TEST(ParseMountinfo, EscapeAtTheEndOfAField) {
  // A mount point ending in a space is written "/mnt/end\040": the escape is
  // the last four characters of the field and must be decoded too.
  auto mi = parse_mountinfo("43 35 0:54 / /mnt/end\\040 rw - tmpfs src\\011 rw\n");
  ASSERT_EQ(mi.entries.size(), 1u);
  EXPECT_EQ(mi.entries[0].mount_point, "/mnt/end ");
  EXPECT_EQ(mi.entries[0].source, "src\t");
  auto pm = parse_proc_mounts("src /mnt/end\\040 tmpfs rw 0 0\n");
  ASSERT_EQ(pm.entries.size(), 1u);
  EXPECT_EQ(pm.entries[0].mount_point, "/mnt/end ");
}

TEST(ParseMountinfo, OctalEscapesInARealCapture) {
  // node-exporter/proc/1/mountinfo: 32 lines; line 30 has "\040" (space) and
  // line 31 "\011" (tab) in a kubelet volume path.
  auto mi = parse_mountinfo(fixture("node-exporter", "proc/1/mountinfo"));
  EXPECT_TRUE(mi.bad_lines.empty());
  ASSERT_EQ(mi.entries.size(), 32u);
  const std::string prefix = "/var/lib/kubelet/plugins/kubernetes.io/vsphere-volume/mounts/[vsanDatastore]";
  EXPECT_EQ(mi.entries[29].mount_point.substr(0, prefix.size() + 9), prefix + " bafb9e5a");
  EXPECT_EQ(mi.entries[30].mount_point.substr(0, prefix.size() + 9), prefix + "\tbafb9e5a");
  EXPECT_EQ(mi.entries[29].fs_type, "ext4");
  EXPECT_EQ(mi.entries[29].source, "/dev/sda");
  EXPECT_EQ(mi.entries[29].major, 260u);
}

TEST(ParseMountinfo, ProcfsFixturesCapture) {
  auto mi = parse_mountinfo(fixture("procfs-fixtures", "proc/26231/mountinfo"));
  EXPECT_TRUE(mi.bad_lines.empty());
  ASSERT_EQ(mi.entries.size(), 8u);
  EXPECT_EQ(mi.entries[0].mount_point, "/root");  // "/  /root": two spaces
  EXPECT_EQ(mi.entries[3].mount_point, "/");
  EXPECT_EQ(mi.entries[3].fs_type, "ext4");
  EXPECT_EQ(mi.entries[3].source, "/dev/sda1");
  EXPECT_EQ(mi.entries[3].major, 8u);
  EXPECT_EQ(mi.entries[3].minor, 1u);
  EXPECT_EQ(mi.entries[4].fs_type, "nfs4");
  EXPECT_EQ(mi.entries[4].source, "192.168.1.1:/srv/test");
  EXPECT_TRUE(starts_with_helper(mi.entries[4].super_options, "rw,vers=4.0,"));
  EXPECT_EQ(mi.entries[7].mount_point, "/var/lib/containers/storage/overlay");
  EXPECT_EQ(mi.entries[7].major, 253u);
}

TEST(ParseProcMounts, FstabLayoutAndBadLines) {
  auto m = parse_proc_mounts(
      "/dev/sda1 / ext4 rw,relatime 0 0\n"
      "server:/export /mnt/my\\040data nfs rw 0 0\n"
      "too few\n");
  ASSERT_EQ(m.entries.size(), 2u);
  EXPECT_EQ(m.entries[0].source, "/dev/sda1");
  EXPECT_EQ(m.entries[0].mount_point, "/");
  EXPECT_EQ(m.entries[0].fs_type, "ext4");
  EXPECT_EQ(m.entries[0].options, "rw,relatime");
  EXPECT_EQ(m.entries[1].mount_point, "/mnt/my data");
  EXPECT_EQ(m.bad_lines, (std::vector<int>{3}));

  // Counted with awk '{print $3}' on each proc/mounts.
  auto hw = parse_proc_mounts(fixture("hwloc-32intel64-2p8co2t+8ve", "proc/mounts"));
  EXPECT_TRUE(hw.bad_lines.empty());
  EXPECT_EQ(hw.entries.size(), 89u);
  size_t nfs = 0, lustre = 0;
  for (const auto& e : hw.entries) {
    nfs += e.fs_type == "nfs";
    lustre += e.fs_type == "lustre";
  }
  EXPECT_EQ(nfs, 51u);
  EXPECT_EQ(lustre, 2u);
}

TEST(NetworkFilesystem, KnownTypes) {
  for (const char* t : {"nfs", "nfs4", "cifs", "smb3", "ceph", "lustre", "gpfs", "beegfs", "glusterfs", "9p",
                        "fuse.sshfs", "fuse.s3fs", "fuse.gcsfuse", "fuse.juicefs"}) {
    EXPECT_TRUE(is_network_filesystem(t)) << t;
  }
  for (const char* t : {"ext4", "xfs", "btrfs", "tmpfs", "overlay", "proc", "nfsd", "autofs", "fuse.lxcfs",
                        "fuse.portal", "zfs", ""}) {
    EXPECT_FALSE(is_network_filesystem(t)) << t;
  }
}

TEST(NetworkFilesystem, FhgfsIsBeeGfs) {
  // hwloc-40intel64-*/proc/mounts: "fhgfs_nodev /scratch fhgfs": FhGFS is
  // BeeGFS under its name before 2014, a parallel network filesystem.
  EXPECT_TRUE(is_network_filesystem("fhgfs"));
}

// ---------------------------------------------------------------- proc limits

TEST(ParseProcLimits, LiteralTable) {
  auto l = parse_proc_limits(
      "Limit                     Soft Limit           Hard Limit           Units     \n"
      "Max open files            1024                 524288               files     \n"
      "Max locked memory         unlimited            unlimited            bytes     \n"
      "Max nice priority         0                    0                    \n"
      "\n");
  ASSERT_TRUE(l.has_value()) << l.error().to_string();
  EXPECT_EQ(l->at("Max open files").soft, 1024u);
  EXPECT_EQ(l->at("Max open files").hard, 524288u);
  EXPECT_EQ(l->at("Max locked memory").soft, inventory::Limit::kUnlimited);
  EXPECT_EQ(l->at("Max nice priority").hard, 0u);
}

TEST(ParseProcLimits, Errors) {
  auto header = parse_proc_limits("Max open files 1 2 files\n");
  ASSERT_FALSE(header.has_value());
  EXPECT_EQ(header.error().where, "line 1");
  EXPECT_FALSE(parse_proc_limits("").has_value());
  auto row = parse_proc_limits("Limit Soft Limit Hard Limit Units\nMax open files lots\n");
  ASSERT_FALSE(row.has_value());
  EXPECT_EQ(row.error().where, "line 2");
}

TEST(ParseProcLimits, RealCaptures) {
  auto p = parse_proc_limits(fixture("procfs-fixtures", "proc/26231/limits"));
  ASSERT_TRUE(p.has_value()) << p.error().to_string();
  EXPECT_EQ(p->size(), 16u);
  EXPECT_EQ(p->at("Max open files").soft, 2048u);
  EXPECT_EQ(p->at("Max open files").hard, 4096u);
  EXPECT_EQ(p->at("Max locked memory").soft, 18446744073708503040ull);
  EXPECT_EQ(p->at("Max cpu time").hard, inventory::Limit::kUnlimited);
  EXPECT_EQ(p->at("Max realtime timeout").soft, inventory::Limit::kUnlimited);
  auto d = parse_proc_limits(fixture("debian12-vm", "proc/17596/limits"));  // trailing spaces
  ASSERT_TRUE(d.has_value()) << d.error().to_string();
  EXPECT_EQ(d->at("Max open files").soft, 20000u);
  EXPECT_EQ(d->at("Max locked memory").hard, 8388608u);
}

// --------------------------------------------------------------- limits.conf

TEST(ParseLimitsConf, EntriesCommentsCrlfAndProblems) {
  auto conf = parse_limits_conf(
      "# comment\r\n"                          // 1
      "*  soft  nofile  65536\r\n"             // 2
      "@gpu hard memlock unlimited # inline\r\n"  // 3
      "\r\n"                                   // 4
      "alice maybe nofile 10\r\n"              // 5
      "bob soft nofile\r\n"                    // 6
      "carol - nproc 100",                     // 7, no final newline
      "/etc/security/limits.conf");
  ASSERT_EQ(conf.entries.size(), 3u);
  EXPECT_EQ(conf.entries[0].file, "/etc/security/limits.conf");
  EXPECT_EQ(conf.entries[0].line, 2);
  EXPECT_EQ(conf.entries[0].domain, "*");
  EXPECT_EQ(conf.entries[0].type, "soft");
  EXPECT_EQ(conf.entries[0].item, "nofile");
  EXPECT_EQ(conf.entries[0].value, "65536");
  EXPECT_EQ(conf.entries[1].domain, "@gpu");
  EXPECT_EQ(conf.entries[1].value, "unlimited");
  EXPECT_EQ(conf.entries[2].line, 7);
  EXPECT_EQ(conf.entries[2].type, "-");
  ASSERT_EQ(conf.problems.size(), 2u);
  EXPECT_TRUE(starts_with_helper(conf.problems[0], "/etc/security/limits.conf:5: ")) << conf.problems[0];
  EXPECT_TRUE(contains(conf.problems[0], "maybe")) << conf.problems[0];
  EXPECT_TRUE(starts_with_helper(conf.problems[1], "/etc/security/limits.conf:6: ")) << conf.problems[1];
}

TEST(ParseLimitsConf, BrokenCapture) {
  // broken/etc/security/limits.conf (CRLF, no final newline):
  //  1 comment, 2 "* soft nofile 1024", 3 "* hard nofile lots",
  //  4 "@gpu hard", 5 "root soft memlock unlimited", 6 an 8 KiB comment,
  //  7 "* hard stack -1".
  const std::string file = root_dir("broken") + "/etc/security/limits.conf";
  auto conf = parse_limits_conf(read_file(file), file);
  std::vector<int> lines;
  for (const auto& e : conf.entries) lines.push_back(e.line);
  for (int expected : {2, 5, 7}) {
    EXPECT_NE(std::find(lines.begin(), lines.end(), expected), lines.end()) << "line " << expected;
  }
  for (const auto& e : conf.entries) {
    EXPECT_EQ(e.value.find('\r'), std::string::npos) << "CR left in line " << e.line;
  }
  bool line4 = false;
  for (const auto& p : conf.problems) line4 |= starts_with_helper(p, file + ":4: ");
  EXPECT_TRUE(line4);
}

TEST(ParseLimitsConf, NonNumericValueIsAProblem) {
  // "* hard nofile lots": pam_limits rejects it; it must not become an entry
  // that a rule would read as a limit.
  auto conf = parse_limits_conf("* hard nofile lots\n* soft nofile unlimited\n* soft nice -5\n* hard stack -1\n",
                                "limits.conf");
  for (const auto& e : conf.entries) EXPECT_NE(e.value, "lots");
  ASSERT_EQ(conf.problems.size(), 1u);
  EXPECT_TRUE(starts_with_helper(conf.problems[0], "limits.conf:1: ")) << conf.problems[0];
  EXPECT_TRUE(contains(conf.problems[0], "lots")) << conf.problems[0];
  EXPECT_EQ(conf.entries.size(), 3u);
}

// ---------------------------------------------------------------- link speed

TEST(ParseLinkSpeed, OldAndNewKernelFormats) {
  EXPECT_EQ(parse_link_speed("8.0 GT/s PCIe\n"), 8.0);
  EXPECT_EQ(parse_link_speed("8 GT/s"), 8.0);
  EXPECT_EQ(parse_link_speed("2.5 GT/s"), 2.5);
  EXPECT_EQ(parse_link_speed("16.0 GT/s PCIe"), 16.0);
  EXPECT_EQ(parse_link_speed("32.0 GT/s PCIe"), 32.0);
  EXPECT_FALSE(parse_link_speed("Unknown").has_value());
  EXPECT_FALSE(parse_link_speed("Unknown speed").has_value());
  EXPECT_FALSE(parse_link_speed("").has_value());
  EXPECT_FALSE(parse_link_speed("0 GT/s").has_value());
  EXPECT_FALSE(parse_link_speed("fast GT/s").has_value());
  EXPECT_FALSE(parse_link_speed("8 MB/s").has_value());
}

TEST(ParseLinkSpeed, EveryLinkFileInTheRootsParses) {
  // The roots hold "2.5 GT/s", "5 GT/s", "8 GT/s" (old kernels) and
  // "5.0 GT/s PCIe", "8.0 GT/s PCIe", "16.0 GT/s PCIe" (new kernels).
  namespace fs = std::filesystem;
  size_t files = 0;
  for (const auto& root : tfrig::test::root_names()) {
    for (auto it = fs::recursive_directory_iterator(root_dir(root), fs::directory_options::skip_permission_denied);
         it != fs::recursive_directory_iterator(); ++it) {
      const std::string name = it->path().filename().string();
      if (it->is_symlink() || !it->is_regular_file()) continue;
      if (name != "current_link_speed" && name != "max_link_speed") continue;
      ++files;
      auto text = read_file(it->path().string());
      auto v = parse_link_speed(text);
      ASSERT_TRUE(v.has_value()) << it->path() << ": " << text;
      EXPECT_TRUE(*v == 2.5 || *v == 5.0 || *v == 8.0 || *v == 16.0) << it->path() << ": " << *v;
    }
  }
  EXPECT_GE(files, 70u);
  // The downgraded NVMe of node-exporter: 8.0 of 16.0 GT/s.
  const std::string nvme = "sys/devices/pci0000:00/0000:00:02.1/0000:01:00.0/";
  EXPECT_EQ(parse_link_speed(fixture("node-exporter", nvme + "current_link_speed")), 8.0);
  EXPECT_EQ(parse_link_speed(fixture("node-exporter", nvme + "max_link_speed")), 16.0);
}

}  // namespace
}  // namespace tfrig::probe::parse
