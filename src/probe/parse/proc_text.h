// Pure parsers for the text files of /proc, /sys and /etc that the base
// probes read. Each takes the file's text and returns values, so each is
// tested on captures from real machines and fuzzed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "inventory/inventory.h"

namespace tfrig::probe::parse {

// os-release(5): KEY=value lines, values optionally quoted with shell-style
// escapes. Lines that are not assignments are skipped and reported.
struct OsRelease {
  std::map<std::string, std::string, std::less<>> values;
  std::vector<int> bad_lines;  // 1-based
};
OsRelease parse_os_release(std::string_view text);

// /proc/cpuinfo (x86 and arm64 layouts).
struct CpuinfoSummary {
  std::optional<std::string> vendor;         // vendor_id or "CPU implementer"
  std::optional<std::string> model_name;     // "model name" (x86) or "Hardware"/"CPU part"
  int logical_cpus = 0;                      // "processor" entries
  std::optional<int> sockets;                // distinct "physical id"
  std::optional<int> physical_cores;         // distinct (physical id, core id), else cpu cores x sockets
  std::set<std::string, std::less<>> flags;  // of the first processor ("flags" or "Features")
  std::optional<double> mhz;                 // "cpu MHz" of the first processor
  bool has_hypervisor_flag = false;
  // The text ends mid-entry (no final newline, or the last processor has
  // fewer fields than the first): a cut capture; counts may be low.
  bool truncated = false;
};
core::Result<CpuinfoSummary> parse_cpuinfo(std::string_view text);

// The inventory fields each file fills, shared by the live probes and the
// importer (a bug report's sections) so both read a file the same way.
void apply_os_release(const OsRelease& os, inventory::HostInfo& host);
// Counts, names and, on x86 only, the vector flags (arm64 lists "Features"
// without AVX: unknown there is not "false").
void apply_cpuinfo(const CpuinfoSummary& info, inventory::CpuInfo& cpu);

// /proc/meminfo and /sys/devices/system/node/nodeN/meminfo ("Node 0 MemTotal:").
// Values in bytes (the kernel's "kB" is KiB); counts (HugePages_*) as is.
core::Result<std::map<std::string, uint64_t, std::less<>>> parse_meminfo(std::string_view text);
// RAM, swap and huge pages from meminfo's fields (the memory probe and the importer).
void apply_meminfo(const std::map<std::string, uint64_t, std::less<>>& info, inventory::MemoryInfo& mem);

// The kernel's cpulist format: "0-3,8,10-11" (also the empty list "").
core::Result<std::vector<int>> parse_cpulist(std::string_view text);

// The kernel's cpumask format: comma-separated 32-bit hex words, most
// significant first ("00000000,0000ff00" = CPUs 8-15).
core::Result<std::vector<int>> parse_cpumask(std::string_view text);

// "always [madvise] never" -> "madvise".
std::optional<std::string> parse_bracket_choice(std::string_view text);

// /proc/self/mountinfo (proc(5)); octal escapes (\040) decoded.
struct MountInfoEntry {
  int mount_id = 0;
  int parent_id = 0;
  unsigned major = 0;
  unsigned minor = 0;
  std::string root;
  std::string mount_point;
  std::string options;
  std::string fs_type;
  std::string source;
  std::string super_options;
};
struct MountInfo {
  std::vector<MountInfoEntry> entries;
  std::vector<int> bad_lines;
};
MountInfo parse_mountinfo(std::string_view text);
// /proc/mounts (fstab layout) as a fallback when mountinfo is missing.
MountInfo parse_proc_mounts(std::string_view text);

// Filesystems whose reads cross a network (or a userspace daemon): small-file
// reads there are latency-bound, the small-file case study of docs/guide.md.
bool is_network_filesystem(std::string_view fs_type);

// /proc/<pid>/limits: "Max open files  1024  524288  files".
struct ProcLimit {
  std::optional<uint64_t> soft;  // kUnlimited for "unlimited"
  std::optional<uint64_t> hard;
};
core::Result<std::map<std::string, ProcLimit, std::less<>>> parse_proc_limits(std::string_view text);

// limits.conf(5): "<domain> <type> <item> <value>", '#' comments.
struct LimitsConf {
  std::vector<inventory::LimitsConfEntry> entries;
  std::vector<std::string> problems;                 // "file:line: what was expected" (English)
  std::vector<core::Message> problem_messages = {};  // the same, as messages (one each)
};
LimitsConf parse_limits_conf(std::string_view text, const std::string& file_name);

// sysfs PCIe link speed: "8.0 GT/s PCIe", "16 GT/s", "2.5 GT/s" -> GT/s.
// "Unknown" (no link, or a virtual function) -> nullopt.
std::optional<double> parse_link_speed(std::string_view text);

}  // namespace tfrig::probe::parse
