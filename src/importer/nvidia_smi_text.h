// `nvidia-smi -q` (the human-readable query) -> the GPU part of an inventory,
// and its error outputs as facts. The text is an indented tree of
// "Key : value" lines (4 spaces a level) under one "GPU 00000000:03:00.0"
// header per GPU; its layout changed across drivers (384 to 595 in
// tests/data/nvidia-smi-text/): PCIe "Device Current"/"Host Max" (535+),
// "GPU Power Readings" (535+), SRAM/DRAM ECC counters (535+). Every value
// printed as "N/A", "[N/A]", "Not Supported" or "Unknown Error" is null.
//
// When nvidia-smi cannot run, what it printed instead is the fact: the
// kernel driver is not loaded, NVML and the kernel module differ, no device,
// a GPU that fell off the bus. Those lines are classified in `error_kind`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "inventory/inventory.h"

namespace tfrig::importer {

struct NvidiaSmiText {
  std::optional<std::string> timestamp;       // as written
  std::optional<std::string> driver_version;  // "535.288.01"
  std::optional<std::string> cuda_version;    // "12.2" (absent before driver 410)
  std::optional<int> attached_gpus;
  std::vector<inventory::Gpu> gpus;  // source "nvidia-smi-q", index = order in the text

  // The first error line nvidia-smi printed, verbatim, and its class:
  // "driver_not_loaded", "driver_mismatch", "library_missing", "no_device",
  // "gpu_lost", "no_permission", "error". Empty when the query ran.
  std::optional<std::string> error;
  std::optional<std::string> error_kind;
  // "Unable to determine the device handle for GPU 0000:04:00.0: GPU is lost":
  // the GPUs nvidia-smi could not open, with the reason it gave.
  struct HandleError {
    std::string pci_bus_id;  // normalised
    std::string reason;      // "GPU is lost.  Reboot the system to recover this GPU"
    bool lost = false;
    std::string line;  // the whole line, verbatim (the evidence)
  };
  std::vector<HandleError> handle_errors;
};

// Errors when the text holds neither an "NVSMI LOG" report nor one of
// nvidia-smi's known error messages.
core::Result<NvidiaSmiText> parse_nvidia_smi_text(std::string_view text);

// nvidia-smi's words for "no value" ("N/A", "[Not Supported]", "[Requested
// functionality has been deprecated]", ...), in its -q text and its CSV.
bool nvidia_smi_unknown_value(std::string_view v);

// True when the text looks like `nvidia-smi -q` output or one of its errors.
bool looks_like_nvidia_smi_text(std::string_view text);

}  // namespace tfrig::importer
