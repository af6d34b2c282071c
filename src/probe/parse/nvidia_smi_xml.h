// `nvidia-smi -q -x` (the nvsmi_device_v9 .. v13 DTDs seen in
// tests/data/nvidia-smi-xml/) -> the GPU part of an inventory. Lets a user
// diagnose a colleague's machine from that one file. Every field a driver
// version does not print, or prints as "N/A" / "[N/A]" / "Not Supported" /
// "Requested functionality has been deprecated", is null.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "inventory/inventory.h"

namespace tfrig::probe::parse {

struct NvidiaSmiXml {
  std::optional<std::string> dtd;             // "nvsmi_device_v12.dtd"
  std::optional<std::string> timestamp;       // as written
  std::optional<std::string> driver_version;  // "535.86.05"
  std::optional<std::string> cuda_version;    // "12.2": what the driver supports
  std::optional<int> attached_gpus;           // may exceed gpus.size() in trimmed files
  std::vector<inventory::Gpu> gpus;           // source "nvidia-smi-xml", index = order in the file
};

core::Result<NvidiaSmiXml> parse_nvidia_smi_xml(std::string_view text);

// Applies an import to an inventory: replaces gpus, sets the driver fields
// the file carries and records where they came from in driver.nvml.
void apply_nvidia_smi_xml(const NvidiaSmiXml& xml, const std::string& file, inventory::Inventory& inv);

}  // namespace tfrig::probe::parse
