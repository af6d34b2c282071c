// `nvidia-smi nvlink --status` / `--remotelinkinfo` text -> each GPU's NVLink
// links. Layout (drivers 410 to 590 in tests/data/nvidia-smi-text/):
//   GPU 0: NVIDIA RTX A6000 (UUID: GPU-a662c2a9-...)
//   	 Link 0: 14.062 GB/s                              (--status; "<inactive>" when down)
//   	 Link 0: Remote Device 00000000:41:00.0: Link 0   (--remotelinkinfo)
// Both outputs of one machine merge link by link.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/inventory.h"

namespace tfrig::importer {

struct NvlinkGpu {
  int index = 0;
  std::string name;
  std::optional<std::string> uuid;
  std::vector<inventory::NvLink> links;  // active from --status, remote_pci_bus_id from --remotelinkinfo
};

// Adds what the text says to `gpus` (matched by GPU index); lines that are
// not GPU or Link lines are ignored.
void parse_nvidia_smi_nvlink(std::string_view text, std::vector<NvlinkGpu>& gpus);

// True when the text starts like nvlink --status / --remotelinkinfo output.
bool looks_like_nvidia_smi_nvlink(std::string_view text);

}  // namespace tfrig::importer
