// `nvidia-smi topo -m` -> the GPU (and NIC) connection matrix with each GPU's
// CPU and NUMA affinity. Cells, from the legend nvidia-smi prints under the
// matrix: X self, NV# a bonded set of # NVLinks, PIX at most one PCIe bridge,
// PXB several bridges, PHB through a PCIe host bridge, NODE between host
// bridges within a NUMA node, SYS across the SMP interconnect (SOC in drivers
// before 396). Columns are tab-separated in the real output; copies pasted
// from web pages use spaces, and the header may carry ANSI underline codes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "inventory/inventory.h"

namespace tfrig::importer {

struct TopoRow {
  std::string name;                          // "GPU0", "NIC3"
  std::vector<std::string> cells;            // one per column device, "X" on the diagonal
  std::optional<std::string> cpu_affinity;   // "0-15,32-47"
  std::optional<std::string> numa_affinity;  // "0"
};

struct TopoMatrix {
  std::vector<std::string> devices;  // the column devices in order
  std::vector<TopoRow> rows;
  std::vector<std::pair<std::string, std::string>> nic_names;  // ("NIC0", "mlx5_0") from the NIC Legend
};

core::Result<TopoMatrix> parse_nvidia_smi_topo(std::string_view text);

// True when the text holds a topo -m header line ("GPU0 ... CPU Affinity").
bool looks_like_nvidia_smi_topo(std::string_view text);

// The inventory's pair level for a cell: PIX "single_switch", PXB
// "multiple_switches", PHB "host_bridge", NODE "same_cpu", SYS/SOC
// "across_sockets"; nullopt for NV# and anything else.
std::optional<std::string> topo_level(std::string_view cell);
// The number of NVLinks in an "NV#" cell; nullopt otherwise.
std::optional<int> topo_nvlinks(std::string_view cell);

// Sets gpu_topology (every GPU pair) and each GPU's CPU affinity and NUMA
// node, matching GPUn to the inventory GPU with index n.
void apply_nvidia_smi_topo(const TopoMatrix& m, inventory::Inventory& inv);

}  // namespace tfrig::importer
