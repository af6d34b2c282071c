// Hardware balance rules (the barrel of docs/guide.md): PCIe lanes per GPU and NUMA
// placement of the GPUs against the CPUs that feed them.
#include <map>

#include <fmt/format.h>

#include "rules/areas.h"
#include "rules/util.h"

namespace tfrig::rules {

namespace {

namespace u = util;

Check pcie_below_x16(const Context& ctx) {
  Check c;
  bool known = false;
  const int want = static_cast<int>(ctx.k.number("pcie_lanes_per_gpu", 16));
  for (const auto& g : u::gpus(ctx)) {
    if (!g.pcie_link_width_max) continue;
    known = true;
    if (*g.pcie_link_width_max >= want) continue;
    // Some cards are narrower by design (RTX 4060 Ti: x8); then the slot is not the limit.
    auto m = u::gpu_catalog(ctx, g);
    if (m && m->spec && m->spec->pcie_lanes && *m->spec->pcie_lanes <= *g.pcie_link_width_max) continue;
    c.add(Hit{u::gpu_entity(g),
              fmt::format("{} can use at most x{} (slot or bifurcation), not x{}: host-to-GPU copies get {}% of the "
                          "bandwidth.",
                          u::gpu_label(g), *g.pcie_link_width_max, want, 100 * *g.pcie_link_width_max / want),
              {{"maximum link width", fmt::format("x{}", *g.pcie_link_width_max), "NVML (min of GPU and slot)"},
               {"wanted per GPU", fmt::format("x{}", want), u::knowledge_source("thresholds.json", "guide")}},
              "", {}});
  }
  if (u::gpus(ctx).empty()) {
    for (const auto* d : u::pci_gpus(ctx)) {
      if (!d->link_width_max) continue;
      known = true;
      if (*d->link_width_max >= want) continue;
      c.add(Hit{d->address, fmt::format("The GPU at {} has at most x{} lanes, not x{}.", d->address, *d->link_width_max, want),
                {{"maximum link width", fmt::format("x{}", *d->link_width_max), "/sys/bus/pci/devices/" + d->address + "/max_link_width"}},
                "", {}});
    }
  }
  if (!known) return Check::skip(u::gpu_count(ctx) ? "PCIe link width of the GPUs" : "an NVIDIA GPU (none found)");
  return c;
}

Check gpu_numa(const Context& ctx) {
  if (u::gpu_count(ctx) == 0) return Check::skip("an NVIDIA GPU (none found)");
  const auto& nodes = ctx.inv.cpu.numa_nodes;
  if (nodes.empty()) return Check::skip("NUMA topology (/sys/devices/system/node)");
  if (nodes.size() < 2) return Check::pass();
  std::map<int, std::vector<std::string>> by_node;
  bool unknown = false;
  for (const auto& g : u::gpus(ctx)) {
    if (!g.numa_node || *g.numa_node < 0) {
      unknown = true;
      continue;
    }
    by_node[*g.numa_node].push_back(u::gpu_entity(g));
  }
  if (u::gpus(ctx).empty()) {
    for (const auto* d : u::pci_gpus(ctx)) {
      if (!d->numa_node || *d->numa_node < 0) {
        unknown = true;
        continue;
      }
      by_node[*d->numa_node].push_back(d->address);
    }
  }
  Check c;
  if (by_node.empty() && unknown) {
    c.add(Hit{"host", fmt::format("{} NUMA nodes but the firmware reports no NUMA node for the GPUs (-1): processes "
                                  "cannot be bound to the CPUs near their GPU.", nodes.size()),
              {{"GPU numa_node", "-1", "/sys/bus/pci/devices/*/numa_node"}},
              "Enable the NUMA/SRAT (_PXM) setting in the BIOS; meanwhile use `nvidia-smi topo -m` to see CPU affinity.",
              Severity::kWarning});
    return c;
  }
  std::string placement;
  std::string cmd;
  for (const auto& [node, list] : by_node) {
    placement += (placement.empty() ? "" : "; ") + fmt::format("node {}: {}", node, u::join(list, ", "));
    cmd += (cmd.empty() ? "" : "  ") + fmt::format("`numactl --cpunodebind={} --membind={} python train.py` for {}", node, node, u::join(list, ", "));
  }
  c.add(Hit{"host",
            fmt::format("{} NUMA nodes; the GPUs sit on {}. A process fed from the far node crosses the socket "
                        "interconnect for every batch.", nodes.size(), placement),
            {{"GPU NUMA nodes", placement, "/sys/bus/pci/devices/*/numa_node"},
             {"NUMA nodes", std::to_string(nodes.size()), "/sys/devices/system/node"}},
            "Run one process per GPU bound to its node: " + cmd + ".",
            {}});
  return c;
}

}  // namespace

std::vector<Rule> hardware_rules() {
  return {
      {"hardware.pcie_below_x16", "hardware", Severity::kWarning, "GPU on fewer than x16 PCIe lanes",
       "The maximum link width of each GPU (the smaller of GPU and slot), unless the card itself is narrower.",
       "The configuration guide (docs/guide.md): at least x16 PCIe per GPU (or a switch that keeps enough bandwidth); a CPU with enough lanes.",
       "Move the GPU to a CPU-attached x16 slot; avoid x8/x4 bifurcation for training GPUs; pick a CPU platform "
       "with enough lanes (Xeon, EPYC).",
       {},
       pcie_below_x16},
      {"hardware.gpu_numa_binding", "hardware", Severity::kInfo, "GPUs on several NUMA nodes: bind processes",
       "NUMA nodes of the GPUs on a multi-node machine.",
       "Data crossing the socket interconnect slows host-to-GPU copies (nvidia-smi topo 'SYS'; "
       "numactl(8); NVIDIA/DCGM nvvs/plugin_src/pcie/PcieMain.cpp binds its buffers the same way).",
       "`numactl --cpunodebind=N --membind=N` per GPU process (or `taskset -c` with the GPU's local_cpulist).",
       {"https://docs.nvidia.com/deploy/nvidia-smi/index.html"},
       gpu_numa},
  };
}

}  // namespace tfrig::rules
