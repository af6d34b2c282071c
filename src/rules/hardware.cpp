// Hardware balance rules (the barrel of docs/guide.md): PCIe lanes per GPU and NUMA
// placement of the GPUs against the CPUs that feed them.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/i18n.h"
#include "rules/areas.h"
#include "rules/util.h"

namespace tfrig::rules {

namespace {

namespace u = util;

// The widest link the GPU itself has: its own link capability on the PCI
// bus (lspci LnkCap, sysfs max_link_width: the endpoint's, not the slot's),
// else the catalog's lane count. Unknown for a GPU neither names (a GT 1030
// is x4 by design, a laptop GPU often x8): then the GPU is not judged.
struct OwnLanes {
  int lanes;
  Text source;
};
std::optional<OwnLanes> own_lanes(const Context& ctx, const inventory::Gpu& g) {
  for (const auto& d : ctx.inv.pci.devices) {
    if (g.pci_bus_id && d.address == *g.pci_bus_id && d.link_width_max) {
      return OwnLanes{*d.link_width_max,
                      core::Message(N_("the GPU's link capability (lspci LnkCap / sysfs max_link_width)"))};
    }
  }
  auto m = u::gpu_catalog(ctx, g);
  if (m && m->spec && m->spec->pcie_lanes)
    return OwnLanes{*m->spec->pcie_lanes, core::Message(N_("knowledge {}"), m->source)};
  return std::nullopt;
}

Check pcie_below_x16(const Context& ctx) {
  Check c;
  bool known = false;
  const int want = static_cast<int>(ctx.k.number("pcie_lanes_per_gpu", 16));
  for (const auto& g : u::gpus(ctx)) {
    const std::string src = u::reported_by(g);
    // lspci and sysfs give the GPU's own maximum (LnkCap, max_link_width):
    // a narrow slot shows there as a downgraded link (gpu.pcie_link_downgraded).
    // NVML and nvidia-smi give the smaller of GPU and slot as the maximum.
    if (g.source == "pci" || g.source == "proc") continue;
    const auto have = g.pcie_link_width_max;
    if (!have) continue;
    const auto own = own_lanes(ctx, g);
    if (!own) continue;  // nothing says how wide the GPU itself is
    known = true;
    const int goal = std::min(own->lanes, want);
    if (*have >= goal) continue;
    std::vector<Evidence> ev{
        {core::Message(N_("maximum link width (the smaller of GPU and slot)")), fmt::format("x{}", *have), src},
        {core::Message(N_("the GPU's own width")), fmt::format("x{}", own->lanes), own->source}};
    if (goal == want)
      ev.push_back({core::Message(N_("wanted per GPU")), fmt::format("x{}", want),
                    u::knowledge_source("thresholds.json", "guide")});
    c.add(Hit{u::gpu_entity(g),
              core::Message(N_("{} can use at most x{} (slot, riser or bifurcation) although it is built for x{}: "
                               "host-to-GPU copies get {}% of its bandwidth."),
                            u::gpu_label(g), *have, goal, 100 * *have / goal),
              ev,
              "",
              {}});
  }
  if (u::gpus(ctx).empty()) {
    for (const auto* d : u::pci_gpus(ctx)) {
      // sysfs: max_link_width is the GPU's own, current_link_width what the slot gave it.
      if (!d->link_width_current || !d->link_width_max) continue;
      known = true;
      const int goal = std::min(*d->link_width_max, want);
      if (*d->link_width_current >= goal) continue;
      c.add(Hit{d->address,
                core::Message(N_("The GPU at {} runs at x{} although it is built for x{}."), d->address,
                              *d->link_width_current, goal),
                {{core::Message(N_("negotiated link width")), fmt::format("x{}", *d->link_width_current),
                  core::Message(N_("lspci LnkSta / sysfs current_link_width of {}"), d->address)},
                 {core::Message(N_("the GPU's own width")), fmt::format("x{}", *d->link_width_max),
                  core::Message(N_("lspci LnkCap / sysfs max_link_width of {}"), d->address)}},
                "",
                {}});
    }
  }
  if (!known)
    return Check::skip(u::gpu_count(ctx) ? core::Message(N_("PCIe link width of the GPUs"))
                                         : core::Message(N_("an NVIDIA GPU (none found)")));
  return c;
}

Check gpu_numa(const Context& ctx) {
  if (u::gpu_count(ctx) == 0) return Check::skip(core::Message(N_("an NVIDIA GPU (none found)")));
  const auto& nodes = ctx.inv.cpu.numa_nodes;
  if (nodes.empty()) return Check::skip(core::Message(N_("NUMA topology (/sys/devices/system/node)")));
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
    c.add(Hit{
        "host",
        core::Message(N_("{} NUMA nodes but the firmware reports no NUMA node for the GPUs (-1): processes "
                         "cannot be bound to the CPUs near their GPU."),
                      nodes.size()),
        {{core::Message(N_("GPU numa_node")), "-1", "/sys/bus/pci/devices/*/numa_node"}},
        core::Message(N_(
            "Enable the NUMA/SRAT (_PXM) setting in the BIOS; meanwhile use `nvidia-smi topo -m` to see CPU affinity.")),
        Severity::kWarning});
    return c;
  }
  std::optional<core::Message> placement;
  std::optional<core::Message> cmd;
  for (const auto& [node, list] : by_node) {
    core::Message here(N_("node {}: {}"), node, u::listed(list));
    core::Message run(N_("`numactl --cpunodebind={} --membind={} python train.py` for {}"), node, node,
                      u::listed(list));
    // TRANSLATORS: two items of a list separated by a semicolon ("node 0: ...; node 1: ...").
    placement = placement ? core::Message(N_("{0}; {1}"), std::move(*placement), std::move(here)) : std::move(here);
    // TRANSLATORS: two commands one after the other, two spaces apart.
    cmd = cmd ? core::Message(N_("{0}  {1}"), std::move(*cmd), std::move(run)) : std::move(run);
  }
  c.add(Hit{"host",
            core::Message(N_("{} NUMA nodes; the GPUs sit on {}. A process fed from the far node crosses the socket "
                             "interconnect for every batch."),
                          nodes.size(), *placement),
            {{core::Message(N_("GPU NUMA nodes")), *placement, "/sys/bus/pci/devices/*/numa_node"},
             {core::Message(N_("NUMA nodes")), std::to_string(nodes.size()), "/sys/devices/system/node"}},
            core::Message(N_("Run one process per GPU bound to its node: {}."), *cmd),
            {}});
  return c;
}

}  // namespace

std::vector<Rule> hardware_rules() {
  return {
      {"hardware.pcie_below_x16",
       "hardware",
       Severity::kWarning,
       N_("GPU on fewer than x16 PCIe lanes"),
       N_("Each GPU's maximum link as NVML or nvidia-smi report it (the smaller of GPU and slot) against the GPU's own "
          "width (its PCIe link capability from lspci/sysfs, else the catalog's lanes): x16 only for cards built for "
          "x16; a GPU whose own width is unknown is not judged."),
       N_("The configuration guide (docs/guide.md): at least x16 PCIe per GPU (or a switch that keeps enough bandwidth); a CPU with enough lanes."),
       N_("Move the GPU to a CPU-attached x16 slot; avoid x8/x4 bifurcation for training GPUs; pick a CPU platform "
          "with enough lanes (Xeon, EPYC)."),
       {},
       pcie_below_x16},
      {"hardware.gpu_numa_binding",
       "hardware",
       Severity::kInfo,
       N_("GPUs on several NUMA nodes: bind processes"),
       N_("NUMA nodes of the GPUs on a multi-node machine."),
       N_("Data crossing the socket interconnect slows host-to-GPU copies (nvidia-smi topo 'SYS'; "
          "numactl(8); NVIDIA/DCGM nvvs/plugin_src/pcie/PcieMain.cpp binds its buffers the same way)."),
       N_("`numactl --cpunodebind=N --membind=N` per GPU process (or `taskset -c` with the GPU's local_cpulist)."),
       {"https://docs.nvidia.com/deploy/nvidia-smi/index.html"},
       gpu_numa},
  };
}

}  // namespace tfrig::rules
