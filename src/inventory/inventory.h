// The inventory: everything probed about one machine, as plain data.
// Every probed field is optional: unknown is null, never 0. Units are in the
// names (_bytes, _mhz, _gts). Serialised both ways (inventory/json.h), which
// is what makes a snapshot analysable on another machine.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace tfrig::inventory {

template <class T>
using Opt = std::optional<T>;

// Bumped when a field changes meaning or is removed; adding a field is not a
// bump (readers ignore unknown keys, missing keys are null).
constexpr int kSchemaVersion = 1;

struct HostInfo {
  Opt<std::string> hostname;
  Opt<std::string> os_id;            // os-release ID: "ubuntu", "debian"
  Opt<std::string> os_name;          // NAME
  Opt<std::string> os_version_id;    // VERSION_ID: "22.04"
  Opt<std::string> os_pretty_name;   // PRETTY_NAME
  Opt<std::string> os_codename;      // VERSION_CODENAME
  Opt<std::string> kernel_release;   // "6.1.0-18-amd64"
  Opt<std::string> kernel_version;   // the full /proc/version line
  Opt<std::string> architecture;     // "x86_64"
  Opt<std::string> virtualization;   // "kvm", "vmware", "xen", "hyperv", "none"
  Opt<std::string> container;        // "docker", "podman", "lxc", "kubernetes", "none"
  Opt<bool> wsl;
};

struct NumaNode {
  int id = 0;
  std::vector<int> cpus;
  Opt<uint64_t> memory_total_bytes;
};

struct CpuFlags {
  Opt<bool> avx;
  Opt<bool> avx2;
  Opt<bool> fma;
  Opt<bool> avx512f;
  Opt<bool> amx;  // amx_tile: Sapphire Rapids and later
};

struct CpuInfo {
  Opt<std::string> vendor;
  Opt<std::string> model_name;
  Opt<int> sockets;
  Opt<int> physical_cores;
  Opt<int> threads;
  std::vector<NumaNode> numa_nodes;
  CpuFlags flags;
  Opt<std::string> governor;
  Opt<double> base_mhz;
  Opt<double> max_mhz;
};

struct MemoryInfo {
  Opt<uint64_t> total_bytes;
  Opt<uint64_t> available_bytes;
  Opt<uint64_t> swap_total_bytes;
  Opt<uint64_t> swap_used_bytes;
  Opt<int> swappiness;
  Opt<std::string> thp_enabled;  // the bracketed choice: "always", "madvise", "never"
  Opt<std::string> thp_defrag;
  Opt<uint64_t> hugepages_total;
  Opt<uint64_t> hugepage_size_bytes;
};

struct BlockDevice {
  std::string name;             // "nvme0n1", "sda"
  Opt<std::string> kind;        // "nvme", "ssd", "hdd", "virtual", "unknown"
  Opt<bool> rotational;
  Opt<std::string> transport;   // "nvme", "sata", "sas", "usb", "virtio", ...
  Opt<std::string> model;
  Opt<uint64_t> size_bytes;
  Opt<bool> removable;
};

struct Mount {
  std::string device;        // the mount source: "/dev/nvme0n1p2", "server:/export"
  std::string mount_point;
  std::string fs_type;
  std::string options;
  bool network = false;      // nfs, cifs, fuse.* and friends: latency-bound for small files
  Opt<std::string> block_device;  // the disk under it ("nvme0n1"), when there is one
};

struct DataPath {
  std::string path;
  Opt<std::string> mount_point;
  Opt<std::string> fs_type;
  Opt<std::string> device;
  Opt<std::string> block_device;
  Opt<std::string> device_kind;  // kind of block_device
  bool network = false;
  Opt<std::string> error;        // why it could not be resolved
};

struct StorageInfo {
  std::vector<BlockDevice> devices;
  std::vector<Mount> mounts;
  std::vector<DataPath> data_paths;
};

struct PciDevice {
  std::string address;           // "0000:3b:00.0"
  Opt<uint32_t> vendor_id;
  Opt<uint32_t> device_id;
  Opt<uint32_t> subsystem_vendor_id;
  Opt<uint32_t> subsystem_device_id;
  Opt<uint32_t> class_code;      // 24-bit class: 0x030200 = 3D controller
  Opt<std::string> class_name;   // "3D controller"
  Opt<std::string> vendor_name;  // for the vendors we care about
  Opt<std::string> driver;       // bound driver: "nvidia", "nouveau", "vfio-pci"; null = none
  Opt<int> numa_node;
  Opt<double> link_speed_current_gts;
  Opt<double> link_speed_max_gts;
  Opt<int> link_width_current;
  Opt<int> link_width_max;
  bool is_gpu = false;           // NVIDIA vendor with display or 3D class
};

struct PciInfo {
  std::vector<PciDevice> devices;
};

// A resource limit; kUnlimited stands for RLIM_INFINITY ("unlimited" in JSON).
struct Limit {
  static constexpr uint64_t kUnlimited = std::numeric_limits<uint64_t>::max();
  Opt<uint64_t> soft;
  Opt<uint64_t> hard;
};

// One line of /etc/security/limits.conf or limits.d/*.conf.
struct LimitsConfEntry {
  std::string file;
  int line = 0;
  std::string domain;  // "*", "@group", "user"
  std::string type;    // "soft", "hard", "-"
  std::string item;    // "nofile", "memlock"
  std::string value;   // number or "unlimited"
};

struct LimitsInfo {
  Limit nofile;
  Limit memlock;  // bytes
  std::vector<LimitsConfEntry> configured;
};

struct Inventory {
  HostInfo host;
  CpuInfo cpu;
  MemoryInfo memory;
  StorageInfo storage;
  PciInfo pci;
  LimitsInfo limits;
};

}  // namespace tfrig::inventory
