// Pure parsers for what the NVIDIA kernel module publishes under
// /proc/driver/nvidia, and for /proc/modules. They work with no NVML and no
// nvidia-smi, which is the point: they still answer when the user-space
// driver is broken or mismatched.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "core/pci_address.h"
#include "core/result.h"

namespace tfrig::probe::parse {

// /proc/driver/nvidia/version. Two layouts seen in real captures:
//   "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.113.01  Tue Sep 12 ..."
//   "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.126.09  Release Build ..."
// (tests/data/proc-driver-nvidia/ has both).
struct NvidiaVersionFile {
  std::string version;                     // "535.113.01"
  std::string flavor;                      // "proprietary" or "open"
  std::optional<std::string> arch;         // "x86_64", "aarch64"
  std::optional<std::string> gcc_version;  // the "GCC version:" line, as written
};
core::Result<NvidiaVersionFile> parse_nvidia_version(std::string_view text);

// /proc/driver/nvidia/gpus/<bus id>/information: "Key: <tabs> value" lines.
struct NvidiaGpuInformation {
  std::optional<std::string> model;         // "Model:"
  std::optional<std::string> uuid;          // "GPU UUID:" ("GPU-..."; "GPU-????..." when unknown)
  std::optional<std::string> bus_location;  // "Bus Location:" normalised to "0000:3b:00.0"
  std::optional<int> device_minor;          // "Device Minor:" -> /dev/nvidia<minor>
  std::optional<std::string> video_bios;
  std::optional<std::string> bus_type;  // "PCIe"
  std::optional<std::string> firmware;  // "GPU Firmware:" (GSP builds)
  std::optional<bool> excluded;         // "GPU Excluded:" / older "Blacklisted:"
};
core::Result<NvidiaGpuInformation> parse_nvidia_gpu_information(std::string_view text);

// /proc/modules (proc(5)): the names of the loaded modules.
std::set<std::string, std::less<>> parse_proc_modules(std::string_view text);

}  // namespace tfrig::probe::parse
