// GPU health rules from what the driver logged and what nvidia-smi met:
// Xid events in the kernel log and GPUs that fell off the bus. Their facts
// come from an imported nvidia-bug-report (src/importer/) or from
// any source that fills DriverInfo::xid_events and Gpu::lost.
#include <fmt/format.h>

#include "core/i18n.h"
#include "inventory/kernel_events.h"
#include "knowledge/xid_catalog.h"
#include "rules/areas.h"
#include "rules/util.h"

namespace tfrig::rules {

namespace {

namespace u = util;

// The inventory GPU at a PCI address, if any.
const inventory::Gpu* gpu_at(const Context& ctx, const std::optional<std::string>& bus) {
  if (!bus) return nullptr;
  for (const auto& g : ctx.inv.gpus) {
    if (g.pci_bus_id == bus) return &g;
  }
  return nullptr;
}

// Where an Xid was read: the importer's file location ("kernel log" in
// words), with " (an earlier boot)" after it when only an earlier boot's log
// has it (merge.cpp).
Text xid_source(const std::string& source) {
  const auto place = [](const std::string& where) -> core::MessageArg {
    if (where == "kernel log") return core::Message(N_("kernel log"));
    return where;
  };
  if (!inventory::from_earlier_boot(source)) {
    if (source == "kernel log") return core::Message(N_("kernel log"));
    return source;
  }
  const std::string where = source.substr(0, source.size() - inventory::kEarlierBoot.size());
  if (where.size() < 2 || where.back() != ' ') return source;
  return core::Message(N_("{} (an earlier boot)"), place(where.substr(0, where.size() - 1)));
}

Check xid_events(const Context& ctx) {
  const auto& events = ctx.inv.driver.xid_events;
  if (events.empty() && !ctx.probed("kernel_log")) {
    return Check::skip(
        core::Message(N_("kernel messages (read from an imported nvidia-bug-report: `tfrig doctor --from FILE`)")));
  }
  Check c;
  for (const auto& e : events) {
    const auto* g = gpu_at(ctx, e.pci_bus_id);
    const core::MessageArg who = g != nullptr   ? core::MessageArg(u::gpu_label(*g))
                                 : e.pci_bus_id ? core::MessageArg(core::Message(N_("The GPU at {}"), *e.pci_bus_id))
                                                : core::MessageArg(core::Message(N_("The GPU at an unknown address")));
    const auto info = knowledge::xid_info_english(e.xid);
    // The Xid table's texts are marked N_ (knowledge/xid_catalog.cpp): messages of the catalog.
    const core::Message meaning = info ? core::Message(std::string(info->meaning))
                                       : core::Message(N_("not in tfrig's table; see NVIDIA's Xid catalog"));
    core::MessageArg when("");
    if (e.first_time && e.last_time && *e.first_time != *e.last_time) {
      when = core::Message(N_(", first {} last {}"), *e.first_time, *e.last_time);
    } else if (e.first_time) {
      when = core::Message(N_(", at {}"), *e.first_time);
    }
    std::vector<Evidence> ev{
        {"Xid",
         info ? core::Message(N_("{0} ({1}, {2})"), e.xid, meaning, knowledge::xid_class_message(info->cls))
              : core::Message(N_("{0} ({1})"), e.xid, meaning),
         std::string(knowledge::kXidSource)},
        {core::Message(N_("kernel message")),
         "NVRM: Xid (PCI:" + e.pci_bus_id.value_or("?") + "): " + std::to_string(e.xid) + ", " + e.message,
         xid_source(e.source)},
        // TRANSLATORS: how many kernel log lines (then ", first TIME last TIME").
        {core::Message(N_("lines")),
         // TRANSLATORS: a count of log lines ({0}), then when they were logged ({1}: ", first TIME last TIME", or nothing).
         core::Message(N_("{0}{1}"), e.count, when), xid_source(e.source)},
    };
    Hit h;
    h.entity = g != nullptr ? u::gpu_entity(*g) : e.pci_bus_id.value_or("host");
    h.message = core::Message::plural(NP_("{0} logged Xid {1} {2} time: {3}.", "{0} logged Xid {1} {2} times: {3}."),
                                      e.count, who, e.xid, e.count, meaning);
    h.evidence = std::move(ev);
    h.fix = info ? core::Message(std::string(info->action))
                 : core::Message(N_("Look the Xid up in NVIDIA's Xid catalog ({}) and follow its resolution."),
                                 "https://docs.nvidia.com/deploy/xid-errors/index.html");
    h.severity = info && info->severe ? Severity::kError : Severity::kWarning;
    if (inventory::from_earlier_boot(e.source)) {
      // The running boot's log does not have it: history, not the state now.
      h.message = core::Message::plural(
          NP_("{0} logged Xid {1} {2} time on an earlier boot, not in this boot's log: {3}. Watch for it.",
              "{0} logged Xid {1} {2} times on an earlier boot, not in this boot's log: {3}. Watch for it."),
          e.count, who, e.xid, e.count, meaning);
      h.severity = Severity::kWarning;
    }
    c.add(std::move(h));
  }
  return c;
}

Check gpu_lost(const Context& ctx) {
  bool known = false;
  Check c;
  for (const auto& g : ctx.inv.gpus) {
    if (!g.lost) continue;
    known = true;
    if (!*g.lost) continue;
    std::vector<Evidence> ev;
    // The capture's English line, with its message where tfrig wrote it (a tool's line has none).
    Text lost = g.lost_evidence ? text_of(*g.lost_evidence, g.lost_evidence_message) : Text(core::Message(N_("yes")));
    ev.push_back({core::Message(N_("GPU lost")), std::move(lost), core::Message(N_("nvidia-smi, kernel log, lspci"))});
    if (g.pci_bus_id) ev.push_back({core::Message(N_("PCI address")), *g.pci_bus_id, "nvidia-smi, lspci"});
    c.add(Hit{u::gpu_entity(g),
              core::Message(N_("{} has fallen off the bus: it no longer answers on PCIe, so no program can use it "
                               "until the machine is rebooted."),
                            u::gpu_label(g)),
              ev,
              "",
              {}});
  }
  if (known) return c;
  // NVML opened every GPU it listed: none of them is lost.
  if (!ctx.inv.gpus.empty() && ctx.inv.driver.nvml.state == "ok") return Check::pass();
  if (!u::gpu_presence_known(ctx)) return Check::skip(core::Message(N_("an NVIDIA GPU (none found)")));
  return Check::skip(core::Message(N_("whether each GPU still answers (nvidia-smi or NVML, kernel messages)")));
}

Check init_failed(const Context& ctx) {
  Check c;
  for (const auto& g : ctx.inv.gpus) {
    if (!g.init_error) continue;
    std::vector<Evidence> ev{{core::Message(N_("kernel message")),
                              "NVRM: GPU " + g.pci_bus_id.value_or("?") + ": " + *g.init_error,
                              core::Message(N_("kernel log"))}};
    if (ctx.inv.driver.module_nouveau == true)
      ev.push_back({core::Message(N_("nouveau module loaded")), core::Message(N_("yes")), "/proc/modules"});
    c.add(Hit{
        u::gpu_entity(g),
        core::Message(N_("{} was found but the nvidia kernel module could not initialise it (RmInitAdapter failed): "
                         "CUDA and nvidia-smi do not see it."),
                      u::gpu_label(g)),
        ev,
        "",
        {}});
  }
  if (!c.hits.empty()) return c;
  if (!ctx.inv.gpus.empty() && ctx.inv.driver.nvml.state == "ok") return Check::pass();
  if (ctx.probed("kernel_log") && u::gpu_presence_known(ctx)) return Check::pass();
  if (!u::gpu_presence_known(ctx)) return Check::skip(core::Message(N_("an NVIDIA GPU (none found)")));
  return Check::skip(core::Message(N_("kernel messages of the nvidia module (an imported nvidia-bug-report) or NVML")));
}

// nvidia-smi could not open a GPU it knows of ("Unable to determine the
// device handle for GPU 0000:01:00.0: Unknown Error"), not the lost case.
Check unreachable(const Context& ctx) {
  Check c;
  // The importer keeps nvidia-smi's line verbatim; the NVML probe says it in its own words.
  const std::string kSmi = "Unable to determine the device handle";
  const std::string kNvml = "NVML could not open GPU";
  const auto& d = ctx.inv.driver;
  for (const auto& g : ctx.inv.gpus) {
    if (!g.driver_problem) continue;
    const bool smi = g.driver_problem->rfind(kSmi, 0) == 0;
    if (!smi && g.driver_problem->rfind(kNvml, 0) != 0) continue;
    c.add(Hit{
        u::gpu_entity(g),
        core::Message(N_("{} could not open {} at {}: no program can use it, and it is not counted as a usable GPU."),
                      smi ? "nvidia-smi" : "NVML", u::gpu_label(g),
                      u::or_arg(g.pci_bus_id, core::Message(N_("an unknown address")))),
        {{smi ? Text(core::Message(N_("nvidia-smi printed"))) : Text("NVML"),
          text_of(*g.driver_problem, g.driver_problem_message),
          smi ? u::nvidia_smi_source(d).value_or("nvidia-smi -q") : "nvmlDeviceGetHandleByIndex"}},
        "",
        {}});
  }
  // An error naming no bus address ("... for GPU 0: Unknown Error").
  if (c.hits.empty() && d.nvidia_smi_error && d.nvidia_smi_error->rfind(kSmi, 0) == 0 &&
      d.nvidia_smi_error->find("GPU is lost") == std::string::npos) {
    bool named = false;
    for (const auto& g : ctx.inv.gpus) named = named || g.driver_problem == d.nvidia_smi_error;
    if (!named) {
      c.add(Hit{"host",
                core::Message(N_("nvidia-smi could not open a GPU: no program can use it.")),
                {{core::Message(N_("nvidia-smi printed")), *d.nvidia_smi_error,
                  u::nvidia_smi_source(d).value_or("nvidia-smi")}},
                "",
                {}});
    }
  }
  if (!c.hits.empty()) return c;
  if (!ctx.inv.gpus.empty() && d.nvml.state == "ok") return Check::pass();
  if (!u::gpu_presence_known(ctx)) return Check::skip(core::Message(N_("an NVIDIA GPU (none found)")));
  return Check::skip(core::Message(N_("whether nvidia-smi or NVML could open each GPU")));
}

}  // namespace

std::vector<Rule> gpu_health_rules() {
  return {
      {"gpu.xid_event",
       "gpu",
       Severity::kWarning,
       N_("The driver logged Xid errors"),
       N_("NVRM Xid messages in the kernel log (dmesg, journal, kern.log of an imported nvidia-bug-report), one finding per "
          "GPU and Xid, with NVIDIA's meaning and action."),
       N_("An Xid is the driver reporting a GPU error: 13/31/43 are program faults, 48/63/64/92-95 GPU memory (ECC, row "
          "remapping), 79 a GPU that left the bus, 61/62/119/120 firmware (NVIDIA Xid documentation)."),
       N_("Follow the action for the Xid (NVIDIA's Xid catalog); reset the GPU or reboot for memory, bus and firmware "
          "Xids, and RMA a card whose memory or bus errors repeat."),
       {"https://docs.nvidia.com/deploy/xid-errors/index.html",
        "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html"},
       xid_events},
      {"gpu.lost",
       "gpu",
       Severity::kError,
       N_("GPU has fallen off the bus"),
       N_("nvidia-smi's \"Unable to determine the device handle ... GPU is lost\", the kernel's \"GPU at ... has fallen "
          "off the bus\", and lspci reading the device's config space as all 1s."),
       N_("A lost GPU does not answer on PCIe: every CUDA call on it fails until a reboot (Xid 79, NVIDIA Xid "
          "documentation)."),
       N_("Reboot to recover the GPU; then reseat it, check its power cables, riser and slot, the PSU and the "
          "temperatures; if it keeps falling off the bus, RMA the card."),
       {"https://docs.nvidia.com/deploy/xid-errors/index.html"},
       gpu_lost},
      {"gpu.unreachable",
       "gpu",
       Severity::kError,
       N_("nvidia-smi could not open a GPU"),
       N_("nvidia-smi's \"Unable to determine the device handle for GPU <address>: Unknown Error\" (any reason but "
          "\"GPU is lost\", which gpu.lost covers)."),
       N_("NVML has no handle for the GPU, so CUDA cannot use it either; seen after a GPU fault (Xid), with a "
          "GPU the driver half-initialised, and with Above 4G decoding / resizable BAR off for large-memory GPUs "
          "(ASSUMED: causes from public bug reports and NVIDIA forum threads)."),
       N_("Read the kernel log around it (`sudo dmesg | grep -e NVRM -e Xid`); reset the GPU (`sudo nvidia-smi -r -i "
          "<address>`) or reboot; check its power cables and riser, and Above 4G decoding in the BIOS."),
       {"https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html"},
       unreachable},
      {"gpu.init_failed",
       "gpu",
       Severity::kError,
       N_("The driver could not initialise a GPU"),
       N_("The kernel log's \"NVRM: GPU <address>: RmInitAdapter failed!\" for a GPU on the bus."),
       N_("The module is loaded and bound but the GPU never came up, so it is invisible to CUDA; seen with nouveau "
          "loaded next to nvidia, GPUs passed through to VMs, missing PCIe power and a driver built for another "
          "kernel (ASSUMED: causes from NVIDIA forum and open-gpu-kernel-modules reports)."),
       N_("Read the NVRM lines around it (`sudo dmesg | grep NVRM`); blacklist nouveau, check the GPU's power cables "
          "and, for passthrough, that the whole GPU (and its audio function) is given to the VM; reinstall the driver "
          "for the running kernel; reboot."),
       {"https://github.com/NVIDIA/open-gpu-kernel-modules/issues"},
       init_failed},
  };
}

}  // namespace tfrig::rules
