// `lspci` text output -> devices with their bound driver and PCIe link.
// Accepts every layout seen in real captures (tests/data/lspci/): -v, -vv,
// -vvv, with or without -nn ([class] and [vendor:device] ids), -D (domain),
// and -x / -xxx / -xxxx hex dumps. Per device: address, class, vendor and
// device ids (from -nn, else the hex dump, else the vendor and class names),
// "Kernel driver in use", NUMA node, and the Express capability's LnkCap /
// LnkSta speed and width with lspci's "(downgraded)" marks (pciutils
// ls-caps.c prints them since 3.6 when the status is below the capability).
// A device whose config space reads all 1s ("(rev ff)", "!!! Unknown header
// type 7f", a dump of ff bytes) has fallen off the bus.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace tfrig::importer {

struct LspciDevice {
  std::string address;                 // normalised "0000:01:00.0"
  std::string class_name;              // "VGA compatible controller"
  std::optional<uint32_t> class_code;  // 24-bit (base, sub, prog-if): 0x030000
  std::string description;             // the header line after the class
  std::optional<uint32_t> vendor_id;
  std::optional<uint32_t> device_id;
  std::optional<uint32_t> subsystem_vendor_id;
  std::optional<uint32_t> subsystem_device_id;
  std::optional<std::string> revision;       // "a1"; "ff" when config space reads all 1s
  std::optional<std::string> driver;         // "Kernel driver in use:"
  std::vector<std::string> modules;          // "Kernel modules:"
  std::optional<int> numa_node;              // "NUMA node:"
  std::optional<double> link_speed_cap_gts;  // LnkCap
  std::optional<int> link_width_cap;
  std::optional<double> link_speed_gts;  // LnkSta
  std::optional<int> link_width;
  bool speed_downgraded = false;  // LnkSta "Speed ... (downgraded)"
  bool width_downgraded = false;  // LnkSta "Width ... (downgraded)"
  bool config_all_ones = false;   // the device does not answer config reads
  int line = 0;                   // 1-based line of the device header
};

struct Lspci {
  std::vector<LspciDevice> devices;
  std::vector<core::Message> problems;  // "line N: what was expected"
};

// Errors only when no device header is found at all.
core::Result<Lspci> parse_lspci(std::string_view text);

// True when the line is an lspci device header ("01:00.0 VGA ..." or
// "0000:01:00.0 3D controller [0302]: ...").
bool is_lspci_device_header(std::string_view line);

// True for an NVIDIA display-class device (vendor 0x10de, base class 0x03).
bool lspci_is_nvidia_gpu(const LspciDevice& d);

// The product name lspci printed from pci.ids: "GA102 [GeForce RTX 3090] [10de:2204]"
// -> "GeForce RTX 3090"; nullopt when pci.ids had none ("Device 2204").
std::optional<std::string> lspci_product_name(const LspciDevice& d);

// PCIe generation from a link speed in GT/s (2.5, 5, 8, 16, 32, 64 = gen 1..6,
// PCIe base specification); nullopt for any other value.
std::optional<int> pcie_generation_from_gts(double gts);

}  // namespace tfrig::importer
