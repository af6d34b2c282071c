// The inventory: everything probed about one machine, as plain data.
// Every probed field is optional: unknown is null, never 0. Units are in the
// names (_bytes, _mhz, _gts). Serialised both ways (inventory/json.h), which
// is what makes a snapshot analysable on another machine.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/message.h"

namespace tfrig::inventory {

template <class T>
using Opt = std::optional<T>;

// A few texts tfrig writes into the inventory (NVML's detail, a GPU's driver
// problem and lost evidence, a data path's error) are English in the JSON,
// with their message (core/message.h) beside them, which the renderers show
// in their language (docs/snapshot.md). The JSON writes the message as
// "<field>_message" only when there is one (inventory/json.cpp), so these
// members are not in json_fields.h's lists. set_text keeps the two together.
inline void set_text(std::string& text, Opt<core::Message>& message, core::Message m) {
  text = core::english(m);
  message = std::move(m);
}
inline void set_text(Opt<std::string>& text, Opt<core::Message>& message, core::Message m) {
  text = core::english(m);
  message = std::move(m);
}

// Bumped when a field changes meaning or is removed; adding a field is not a
// bump (readers ignore unknown keys, missing keys are null).
constexpr int kSchemaVersion = 1;

struct HostInfo {
  Opt<std::string> hostname;
  Opt<std::string> os_id;           // os-release ID: "ubuntu", "debian"
  Opt<std::string> os_name;         // NAME
  Opt<std::string> os_version_id;   // VERSION_ID: "22.04"
  Opt<std::string> os_pretty_name;  // PRETTY_NAME
  Opt<std::string> os_codename;     // VERSION_CODENAME
  Opt<std::string> kernel_release;  // "6.1.0-18-amd64"
  Opt<std::string> kernel_version;  // the full /proc/version line
  Opt<std::string> architecture;    // "x86_64"
  Opt<std::string> virtualization;  // "kvm", "vmware", "xen", "hyperv", "none"
  Opt<std::string> container;       // "docker", "podman", "lxc", "kubernetes", "none"
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
  std::string name;       // "nvme0n1", "sda"
  Opt<std::string> kind;  // "nvme", "ssd", "hdd", "virtual", "unknown"
  Opt<bool> rotational;
  Opt<std::string> transport;  // "nvme", "sata", "sas", "usb", "virtio", ...
  Opt<std::string> model;
  Opt<uint64_t> size_bytes;
  Opt<bool> removable;
};

struct Mount {
  std::string device;  // the mount source: "/dev/nvme0n1p2", "server:/export"
  std::string mount_point;
  std::string fs_type;
  std::string options;
  bool network = false;           // nfs, cifs, fuse.* and friends: latency-bound for small files
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
  Opt<std::string> error;                           // why it could not be resolved
  Opt<core::Message> error_message = std::nullopt;  // error's message (see set_text), not in the field lists
};

struct StorageInfo {
  std::vector<BlockDevice> devices;
  std::vector<Mount> mounts;
  std::vector<DataPath> data_paths;
};

struct PciDevice {
  std::string address;  // "0000:3b:00.0"
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
  bool is_gpu = false;  // NVIDIA vendor with display or 3D class
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

// A download host a pip, apt or Docker configuration names.
struct ConfiguredSource {
  std::string file;  // "/etc/pip.conf"
  std::string kind;  // "pip", "apt", "docker"
  std::string host;  // "pypi.tuna.tsinghua.edu.cn"
};

// The system's locale and time zone and where its package tools download
// from: what tells a machine set up for mainland China (region.cpp in probe/).
struct RegionInfo {
  Opt<std::string> locale;     // LANG of /etc/default/locale or /etc/locale.conf: "zh_CN.UTF-8"
  Opt<std::string> time_zone;  // /etc/timezone, else the /etc/localtime link: "Asia/Shanghai"
  std::vector<ConfiguredSource> sources;
  bool empty() const { return !locale && !time_zone && sources.empty(); }
};

// ---- The NVIDIA and TensorFlow stack (filled by the GPU-stack probes) ----

// One NVLink link of a GPU.
struct NvLink {
  int link = 0;
  Opt<bool> active;
  Opt<std::string> remote_pci_bus_id;
  Opt<std::string> remote_kind;  // "gpu", "switch", "cpu" (nvmlIntNvLinkDeviceType)
  Opt<int> version;
};

struct Gpu {
  int index = 0;
  std::string source;     // "nvml", "proc", "pci", "nvidia-smi-xml"
  Opt<std::string> name;  // "NVIDIA A100-SXM4-80GB"
  Opt<std::string> uuid;
  Opt<std::string> serial;
  Opt<std::string> pci_bus_id;          // normalised "0000:3b:00.0"
  Opt<uint32_t> pci_device_id;          // 0x20b2
  Opt<std::string> architecture;        // "Ampere"
  Opt<std::string> compute_capability;  // "8.0"
  Opt<uint64_t> memory_total_bytes;
  Opt<uint64_t> memory_used_bytes;
  Opt<double> power_limit_watts;
  Opt<int> temperature_celsius;
  Opt<int> clock_sm_mhz;
  Opt<int> clock_memory_mhz;
  Opt<int> clock_sm_max_mhz;
  Opt<bool> persistence_mode;
  Opt<bool> ecc_mode_current;
  Opt<bool> ecc_mode_pending;
  Opt<uint64_t> ecc_errors_corrected_volatile;
  Opt<uint64_t> ecc_errors_uncorrected_volatile;
  Opt<uint64_t> ecc_errors_uncorrected_aggregate;
  Opt<uint64_t> retired_pages_count;
  Opt<bool> retired_pages_pending;
  Opt<uint64_t> remapped_rows_correctable;
  Opt<uint64_t> remapped_rows_uncorrectable;
  Opt<bool> remapped_rows_pending;
  Opt<bool> remapped_rows_failure;
  Opt<bool> mig_mode_current;
  Opt<bool> mig_mode_pending;
  Opt<int> pcie_link_gen_current;
  Opt<int> pcie_link_gen_max;  // min(GPU, slot) as NVML reports it
  Opt<int> pcie_link_width_current;
  Opt<int> pcie_link_width_max;
  Opt<int> numa_node;
  std::vector<int> cpu_affinity;  // CPUs close to this GPU
  Opt<std::string> compute_mode;  // "default", "exclusive_process", "prohibited"
  Opt<int> process_count;
  Opt<uint64_t> process_memory_bytes;  // held by processes other than tfrig
  std::vector<NvLink> nvlinks;
  Opt<std::string> driver_problem;  // why this GPU has no working driver, if so
  // Added by import (docs/import.md):
  Opt<bool> lost;                  // fell off the bus: nvidia-smi "GPU is lost", config space reads all 1s
  Opt<std::string> lost_evidence;  // the line that says so
  Opt<std::string> init_error;  // the kernel module could not initialise it: "RmInitAdapter failed! (0x30:0xffff:1086)"
  // The messages of driver_problem and lost_evidence (see set_text), where
  // tfrig wrote the text; a tool's line quoted verbatim has none.
  Opt<core::Message> driver_problem_message = std::nullopt;
  Opt<core::Message> lost_evidence_message = std::nullopt;
};

// Topology of one GPU pair (nvmlDeviceGetTopologyCommonAncestor, P2P status).
struct GpuPair {
  int gpu_a = 0;
  int gpu_b = 0;
  Opt<std::string>
      level;  // "same_board", "single_switch", "multiple_switches", "host_bridge", "same_cpu", "across_sockets"
  Opt<bool> p2p_read;
  Opt<bool> nvlink;  // an active NVLink joins them
};

struct DeviceNode {
  std::string path;    // "/dev/nvidia0"
  Opt<bool> readable;  // by the current user
  Opt<bool> writable;
};

// Why NVML could not be used, if it could not.
struct NvmlStatus {
  std::string state = "not_tried";  // "ok", "library_missing", "symbol_missing", "driver_mismatch",
                                    // "no_permission", "driver_not_loaded", "no_device", "error", "not_tried"
  std::string detail;
  Opt<std::string> library_path;
  Opt<double> init_seconds;
  Opt<core::Message> detail_message = std::nullopt;  // detail's message (see set_text)
};

// An NVML state key ("driver_not_loaded") as a message: the key itself in
// English, the catalog's words in another language; nullopt for a key tfrig
// does not know, which nvml_state_arg and nvml_state_message show as it is.
Opt<core::Message> known_nvml_state(const std::string& state);
core::MessageArg nvml_state_arg(const std::string& state);
core::Message nvml_state_message(const std::string& state);

// NVRM Xid messages of one Xid number on one GPU, from the kernel log
// ("NVRM: Xid (PCI:0000:03:00): 13, pid=..., <message>").
struct XidEvent {
  int xid = 0;
  Opt<std::string> pci_bus_id;  // normalised "0000:03:00.0"
  uint64_t count = 0;           // distinct kernel log lines
  Opt<std::string> first_time;  // the timestamp of the first line, as written
  Opt<std::string> last_time;
  std::string message;  // the text after the Xid number on the first line
  std::string source;   // where it was read: "dmesg", "kernel log"
};

struct DriverInfo {
  Opt<std::string> version;       // "535.104.05" (NVML, else the kernel module)
  Opt<std::string> cuda_version;  // the newest CUDA the driver supports: "12.2"
  Opt<std::string> nvml_version;
  Opt<bool> loaded;                        // the nvidia kernel module is loaded
  Opt<std::string> kernel_module_version;  // /proc/driver/nvidia/version
  Opt<std::string> kernel_module_flavor;   // "proprietary", "open"
  Opt<bool> module_nvidia;
  Opt<bool> module_nvidia_uvm;
  Opt<bool> module_nvidia_drm;
  Opt<bool> module_nouveau;
  std::vector<DeviceNode> device_nodes;
  NvmlStatus nvml;
  // Added by import (docs/import.md):
  Opt<std::string> nvidia_smi_error;  // what nvidia-smi printed instead of its report, verbatim (first line)
  std::vector<XidEvent> xid_events;   // NVRM Xid messages from the kernel log, one per (GPU, Xid)
};

struct CudaLibrary {
  std::string family;  // "cudart", "cublas", "cudnn", "cudnn_ops", "nccl", "libcuda", ...
  std::string soname;  // "libcudart.so.12"
  std::string path;
  Opt<std::string> version;  // "12.2.140"
  std::string
      found_via;  // "ld.so.cache", "LD_LIBRARY_PATH", "default_dir", "cuda_toolkit", "pip_wheel:<prefix>", "ld.so.conf"
  // Added by the GPU-stack probes:
  Opt<bool> resolved;               // dlopen(soname) would load this file (first on the loader's path)
  Opt<std::string> version_source;  // "file_name", "cudnn_version.h", "package:<dist>-<version>", "soname"
};

struct CudaToolkit {
  std::string path;          // "/usr/local/cuda-12.2"
  Opt<std::string> version;  // from version.json / version.txt
  // Added by the GPU-stack probes:
  Opt<std::string> version_source;  // "version.json", "version.txt", "dist-info", "directory_name"
  Opt<std::string> link_target;     // "/usr/local/cuda" -> "/usr/local/cuda-12.2"
};

struct CudaInfo {
  std::vector<CudaLibrary> libraries;
  std::vector<CudaToolkit> toolkits;
};

struct PackageVersion {
  std::string name;  // "nvidia-cudnn-cu12"
  std::string version;
};

struct TensorFlowInstall {
  std::string distribution;  // "tensorflow", "tensorflow-cpu", "tf-nightly", ...
  std::string version;
  Opt<std::string> built_cuda;  // from the wheel's build info
  Opt<std::string> built_cudnn;
  Opt<bool> is_cuda_build;
  std::vector<std::string> compute_capabilities;  // "sm_60", "compute_90"
  Opt<std::string> requires_python;               // "Requires-Python: >=3.9"
};

struct PythonEnvironment {
  std::string prefix;               // "/usr", "/opt/conda/envs/tf", "/home/u/.venv"
  std::string kind;                 // "system", "user", "venv", "conda", "given"
  Opt<std::string> python_version;  // "3.11"
  Opt<std::string> site_packages;
  Opt<TensorFlowInstall> tensorflow;
  Opt<std::string> keras_version;
  std::vector<PackageVersion> nvidia_wheels;
};

struct PythonInfo {
  std::vector<PythonEnvironment> environments;
};

struct ContainerInfo {
  Opt<std::string> docker_binary;
  Opt<std::string> podman_binary;
  Opt<bool> docker_daemon_json_present;
  std::vector<std::string> docker_runtimes;  // names under "runtimes" in daemon.json
  Opt<std::string> docker_default_runtime;
  Opt<std::string> nvidia_ctk;
  Opt<std::string> nvidia_container_runtime;
  Opt<std::string> nvidia_container_cli;
  Opt<std::string> libnvidia_container;
  std::vector<std::string> cdi_specs;  // files under /etc/cdi, /var/run/cdi
  Opt<bool> inside_container;
  Opt<std::string> visible_devices;  // NVIDIA_VISIBLE_DEVICES inside a container
};

struct Inventory {
  HostInfo host;
  CpuInfo cpu;
  MemoryInfo memory;
  StorageInfo storage;
  PciInfo pci;
  LimitsInfo limits;
  std::vector<Gpu> gpus;
  std::vector<GpuPair> gpu_topology;
  DriverInfo driver;
  CudaInfo cuda;
  PythonInfo python;
  ContainerInfo containers;
  RegionInfo region;
};

}  // namespace tfrig::inventory
