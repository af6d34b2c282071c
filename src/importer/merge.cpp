#include "importer/merge.h"

#include <algorithm>

#include "core/clock.h"
#include "core/i18n.h"
#include "core/text.h"
#include "inventory/kernel_events.h"
#include "verdict/coverage.h"

namespace tfrig::importer {

using inventory::Gpu;

void note(Facts& f, const std::string& id, core::Message detail, probe::State state) {
  for (auto& s : f.statuses) {
    if (s.id != id) continue;
    if (s.detail_message) {
      s.set_detail(core::Message(N_("{0}; {1}"), std::move(*s.detail_message), std::move(detail)));
    } else {
      s.detail += "; " + core::english(detail);
    }
    if (state == probe::State::kOk) s.state = state;
    return;
  }
  probe::ProbeStatus s;
  s.id = id;
  s.state = state;
  s.set_detail(std::move(detail));
  f.statuses.push_back(std::move(s));
}

core::Message from(core::Message detail, const std::string& source) {
  return core::Message(N_("{0} ({1})"), std::move(detail), source);
}

void problem(Facts& f, const std::string& id, core::Message text) {
  note(f, id, core::Message(N_("with problems")), probe::State::kOk);
  for (auto& s : f.statuses) {
    if (s.id == id) s.add_problem(text);
  }
  f.warnings.push_back(core::render(text, core::i18n::language()));
}

void problem(Facts& f, const std::string& id, const std::string& source, const core::Error& error) {
  if (auto m = core::error_message(source, error)) return problem(f, id, std::move(*m));
  // An error built from a plain string: as it is, in its own words.
  note(f, id, core::Message(N_("with problems")), probe::State::kOk);
  for (auto& s : f.statuses) {
    if (s.id == id) s.problems.push_back(source + ": " + error.to_string());
  }
  f.warnings.push_back(source + ": " + error.to_string());
}

namespace {

Gpu& gpu_for(std::vector<Gpu>& gpus, const std::string& bus, const std::string& source) {
  for (auto& g : gpus) {
    if (g.pci_bus_id == bus) return g;
  }
  Gpu g;
  g.source = source;
  g.pci_bus_id = bus;
  gpus.push_back(std::move(g));
  return gpus.back();
}

template <class T>
void fill(std::optional<T>& into, const std::optional<T>& from) {
  if (!into && from) into = from;
}

// nvidia-smi's GPUs first (NVML's view, the richest): the XML's, then those
// of the text report at an address the XML did not list.
std::vector<Gpu> gpus_of_nvidia_smi(const Facts& f) {
  std::vector<Gpu> gpus;
  if (f.xml) {
    for (const auto& g : f.xml->gpus) {
      gpus.push_back(g);
      gpus.back().lost = false;  // nvidia-smi opened it
    }
  }
  if (f.smi) {
    for (const auto& s : f.smi->gpus) {
      const bool known = s.pci_bus_id && std::any_of(gpus.begin(), gpus.end(),
                                                     [&](const Gpu& g) { return g.pci_bus_id == s.pci_bus_id; });
      if (known) continue;
      gpus.push_back(s);
      gpus.back().lost = false;  // nvidia-smi opened it
    }
  }
  return gpus;
}

// Then /proc/driver/nvidia/gpus: the model and UUID where nvidia-smi did not say.
void add_proc_gpus(const Facts& f, std::vector<Gpu>& gpus) {
  for (const auto& [bus, info] : f.proc_gpus) {
    Gpu& g = gpu_for(gpus, bus, "proc");
    fill(g.name, info.model);
    if (info.uuid && info.uuid->find('?') == std::string::npos) fill(g.uuid, info.uuid);
  }
}

// Then the PCI bus: ids, NUMA node, the link, and a config space of all 1s (a lost GPU).
void add_lspci_gpus(const Facts& f, std::vector<Gpu>& gpus) {
  for (const auto& [addr, d] : f.lspci) {
    if (!lspci_is_nvidia_gpu(d)) continue;
    Gpu& g = gpu_for(gpus, addr, "pci");
    fill(g.pci_device_id, d.device_id && *d.device_id != 0xffff ? d.device_id : std::nullopt);
    fill(g.numa_node, d.numa_node);
    fill(g.name, lspci_product_name(d));
    // The link as lspci saw it, where nvidia-smi did not say.
    if (!g.pcie_link_width_current && !g.pcie_link_gen_current) {
      if (d.link_speed_gts) g.pcie_link_gen_current = pcie_generation_from_gts(*d.link_speed_gts);
      if (d.link_speed_cap_gts) g.pcie_link_gen_max = pcie_generation_from_gts(*d.link_speed_cap_gts);
      g.pcie_link_width_current = d.link_width;
      g.pcie_link_width_max = d.link_width_cap;
    }
    if (d.config_all_ones) {
      g.lost = true;
      if (!g.lost_evidence) {
        inventory::set_text(
            g.lost_evidence, g.lost_evidence_message,
            from(core::Message(N_("lspci: the device's config space reads all 1s (rev ff)")), f.lspci_source));
      }
    }
  }
}

// What nvidia-smi said about GPUs it could not use. Kept whatever another
// input said about the same GPU: a GPU nvidia-smi could not open is never
// counted usable.
void add_handle_errors(const Facts& f, std::vector<Gpu>& gpus) {
  for (const auto& [he, src] : f.handle_errors) {
    if (he.pci_bus_id.empty()) continue;
    Gpu& g = gpu_for(gpus, he.pci_bus_id, "nvidia-smi-q");
    const std::string& line = he.line;
    if (he.lost) {
      g.lost = true;
      g.lost_evidence = "nvidia-smi: " + line + " (" + src + ")";  // nvidia-smi's line: no message
      g.lost_evidence_message.reset();
    } else {
      g.driver_problem = line;  // verbatim: the evidence gpu.unreachable shows
      g.driver_problem_message.reset();
    }
  }
}

// What the kernel said: GPUs fallen off the bus, GPUs the driver could not
// initialise. Only the running boot says a GPU is lost now (a log spanning
// boots does when nothing of the running boot was captured); earlier boots
// are history, which gpu.xid_event reports as such.
void add_kernel_log_gpus(const Facts& f, std::vector<Gpu>& gpus) {
  const bool have_current = std::any_of(f.kernel_logs.begin(), f.kernel_logs.end(),
                                        [](const KernelLogPart& p) { return p.boot == Boot::kCurrent; });
  for (const auto& [src, log, boot] : f.kernel_logs) {
    if (boot == Boot::kEarlier || (boot == Boot::kMixed && have_current)) continue;
    for (const auto& bus : log.fallen_off_bus) {
      Gpu& g = gpu_for(gpus, bus, "pci");
      g.lost = true;
      if (!g.lost_evidence) g.lost_evidence = "kernel: NVRM: GPU at " + bus + " has fallen off the bus (" + src + ")";
    }
    for (const auto& [bus, what] : log.init_failed) {
      Gpu& g = gpu_for(gpus, bus, "pci");
      if (!g.driver_problem) {
        inventory::set_text(g.driver_problem, g.driver_problem_message,
                            from(core::Message(N_("the driver could not initialise it: {}"), "NVRM " + what), src));
      }
      fill(g.init_error, std::optional<std::string>(what));
    }
  }
}

// A cut capture: its header counts GPUs the file does not hold. They exist
// (counted, never judged); "cut short" in the problems names them.
void add_uncaptured_gpus(const Facts& f, std::vector<Gpu>& gpus) {
  if (!f.attached_gpus || gpus.size() >= static_cast<size_t>(*f.attached_gpus)) return;
  const size_t missing = static_cast<size_t>(*f.attached_gpus) - gpus.size();
  for (size_t i = 0; i < missing; ++i) {
    Gpu g;
    g.source = "nvidia-smi-header";  // not in the file: nothing but its existence is known
    gpus.push_back(std::move(g));
  }
}

void merge_gpus(Facts& f) {
  std::vector<Gpu> gpus = gpus_of_nvidia_smi(f);
  add_proc_gpus(f, gpus);
  add_lspci_gpus(f, gpus);
  add_handle_errors(f, gpus);
  add_kernel_log_gpus(f, gpus);
  add_uncaptured_gpus(f, gpus);
  // PCI address order, as nvidia-smi and CUDA number them by default.
  std::stable_sort(gpus.begin(), gpus.end(),
                   [](const Gpu& a, const Gpu& b) { return a.pci_bus_id.value_or("~") < b.pci_bus_id.value_or("~"); });
  for (size_t i = 0; i < gpus.size(); ++i) gpus[i].index = static_cast<int>(i);
  f.inv.gpus = std::move(gpus);
}

void merge_pci(Facts& f) {
  if (f.lspci.empty()) return;
  for (const auto& [addr, d] : f.lspci) {
    inventory::PciDevice p;
    p.address = addr;
    if (!d.config_all_ones) {
      p.vendor_id = d.vendor_id;
      p.device_id = d.device_id;
      p.subsystem_vendor_id = d.subsystem_vendor_id;
      p.subsystem_device_id = d.subsystem_device_id;
    } else {
      p.vendor_id = d.vendor_id;  // from the name lspci printed from its cache
    }
    p.class_code = d.class_code;
    if (!d.class_name.empty()) p.class_name = d.class_name;
    if (d.vendor_id == 0x10deu) p.vendor_name = "NVIDIA";
    p.driver = d.driver;
    p.numa_node = d.numa_node;
    p.link_speed_current_gts = d.link_speed_gts;
    p.link_speed_max_gts = d.link_speed_cap_gts;
    p.link_width_current = d.link_width;
    p.link_width_max = d.link_width_cap;
    p.is_gpu = lspci_is_nvidia_gpu(d);
    f.inv.pci.devices.push_back(std::move(p));
  }
  int gpus = 0;
  for (const auto& d : f.inv.pci.devices) gpus += d.is_gpu ? 1 : 0;
  note(f, "pci",
       from(core::Message(N_("{0} PCI devices, {1} NVIDIA GPUs"), f.inv.pci.devices.size(), gpus), f.lspci_source));
}

void merge_driver(Facts& f) {
  auto& d = f.inv.driver;
  if (!d.loaded) {
    if (d.module_nvidia == true) {
      d.loaded = true;
    } else if (d.module_nvidia == false && (f.version_file_missing || !d.kernel_module_version)) {
      d.loaded = false;
    }
  }
  if (f.xml) {
    fill(d.version, f.xml->driver_version);
    fill(d.cuda_version, f.xml->cuda_version);
  }
  if (f.smi) {
    fill(d.version, f.smi->driver_version);
    fill(d.cuda_version, f.smi->cuda_version);
  }
  if (!d.version) d.version = d.kernel_module_version;

  // nvidia-smi's error, from any input: the one that says most about the
  // whole driver (a GPU-level "error" only when nothing else was printed).
  const Facts::SmiError* err = nullptr;
  for (const auto& e : f.smi_errors) {
    if (err == nullptr || (err->kind == "error" && e.kind != "error")) err = &e;
  }
  if (err != nullptr) d.nvidia_smi_error = err->line;

  // NVML's state as nvidia-smi (an NVML program) met it. An error about the
  // whole driver wins over another input's list of GPUs: the machine's
  // nvidia-smi failed, so no GPU is counted usable.
  const std::string src = f.smi ? f.smi_source : f.xml_source;
  const bool listed = (f.smi && !f.smi->gpus.empty()) || (f.xml && !f.xml->gpus.empty());
  const bool whole_driver = err != nullptr && err->kind != "error" && err->kind != "gpu_lost";
  if (err != nullptr && (!listed || whole_driver)) {
    const std::string& kind = err->kind;
    d.nvml.state = kind == "gpu_lost" ? "error" : kind;
    d.nvml.detail = "nvidia-smi: " + err->line + " (" + err->source + ")";
    note(f, "nvml", from(core::Message(N_("nvidia-smi failed: {}"), err->line), err->source), probe::State::kError);
  } else if (listed) {
    d.nvml.state = "ok";
    inventory::set_text(d.nvml.detail, d.nvml.detail_message, core::Message(N_("imported from {}"), src));
    const size_t n = f.smi ? f.smi->gpus.size() : f.xml->gpus.size();
    const core::MessageArg unknown = core::Message(N_("unknown"));
    note(f, "nvml",
         from(core::Message(N_("{0} GPU(s), driver {1}, CUDA {2}"), n,
                            d.version ? core::MessageArg(*d.version) : unknown,
                            d.cuda_version ? core::MessageArg(*d.cuda_version) : unknown),
              src));
  } else if (f.smi || f.xml) {
    d.nvml.state = "no_device";
    inventory::set_text(d.nvml.detail, d.nvml.detail_message, core::Message(N_("imported from {}"), src));
    note(f, "nvml", from(core::Message(N_("no GPU listed")), src), probe::State::kAbsent);
  }
  // The kernel's side of a mismatch, as evidence.
  for (const auto& [ksrc, log, boot] : f.kernel_logs) {
    if (d.nvml.state == "driver_mismatch" && log.api_mismatch_client) {
      // nvidia-smi's line stays as it printed it; the kernel's side is tfrig's words.
      const core::MessageArg before = d.nvml.detail_message ? core::MessageArg(*d.nvml.detail_message) : d.nvml.detail;
      inventory::set_text(
          d.nvml.detail, d.nvml.detail_message,
          core::Message(N_("{0}; {1}"), before,
                        from(core::Message(N_("kernel log: NVRM API mismatch, client {0} vs kernel module {1}"),
                                           *log.api_mismatch_client, log.api_mismatch_module.value_or("?")),
                             ksrc)));
      break;
    }
  }
}

void merge_xids(Facts& f) {
  // The same message appears in dmesg, the journal and kern.log: count each
  // (GPU, Xid) in the source that has the most of it, not the sum, preferring
  // the running boot's logs; one seen only in earlier boots is history.
  auto rank = [](Boot b) { return b == Boot::kCurrent ? 2 : b == Boot::kMixed ? 1 : 0; };
  const bool have_current = std::any_of(f.kernel_logs.begin(), f.kernel_logs.end(),
                                        [](const KernelLogPart& p) { return p.boot == Boot::kCurrent; });
  std::map<std::pair<std::string, int>, std::pair<int, inventory::XidEvent>> best;  // (rank, event)
  for (const auto& [src, log, boot] : f.kernel_logs) {
    std::map<std::pair<std::string, int>, inventory::XidEvent> here;
    for (const auto& x : log.xids) {
      auto& e = here[{x.pci_bus_id, x.xid}];
      if (e.count == 0) {
        e.xid = x.xid;
        e.pci_bus_id = x.pci_bus_id;
        e.first_time = x.time;
        e.message = x.message;
        e.source = src;
      }
      ++e.count;
      e.last_time = x.time;
    }
    for (auto& [key, e] : here) {
      auto it = best.find(key);
      const int r = rank(boot);
      if (it == best.end() || r > it->second.first || (r == it->second.first && e.count > it->second.second.count)) {
        best[key] = {r, std::move(e)};
      }
    }
  }
  for (auto& [key, re] : best) {
    auto& [r, e] = re;
    if (have_current && r < 2) e.source += std::string(" ") + std::string(inventory::kEarlierBoot);
    f.inv.driver.xid_events.push_back(std::move(e));
  }
}

// NVLink links onto the GPUs (by UUID, else nvidia-smi's index), and a
// topology pair with nvlink set for every two GPUs an active link joins.
void merge_nvlink(Facts& f) {
  auto& gpus = f.inv.gpus;
  for (const auto& n : f.nvlink) {
    inventory::Gpu* g = nullptr;
    for (auto& c : gpus) {
      if (n.uuid && c.uuid == n.uuid) g = &c;
    }
    if (g == nullptr) {
      for (auto& c : gpus) g = (g == nullptr && c.index == n.index) ? &c : g;
    }
    if (g == nullptr) continue;
    g->nvlinks = n.links;
    for (auto& l : g->nvlinks) {
      if (!l.remote_pci_bus_id) continue;
      for (const auto& c : gpus) {
        if (c.pci_bus_id == l.remote_pci_bus_id) l.remote_kind = "gpu";
      }
    }
  }
  for (const auto& a : gpus) {
    for (const auto& l : a.nvlinks) {
      if (l.active == false || !l.remote_pci_bus_id) continue;
      for (const auto& b : gpus) {
        if (b.pci_bus_id != l.remote_pci_bus_id || b.index <= a.index) continue;
        bool found = false;
        for (auto& p : f.inv.gpu_topology) {
          if (p.gpu_a == a.index && p.gpu_b == b.index) {
            p.nvlink = true;
            found = true;
          }
        }
        if (!found)
          f.inv.gpu_topology.push_back(inventory::GpuPair{a.index, b.index, std::nullopt, std::nullopt, true});
      }
    }
  }
}

}  // namespace

report::Report merge_facts(Facts& f, const std::vector<std::string>& names, double seconds) {
  merge_pci(f);
  merge_gpus(f);
  merge_driver(f);
  merge_xids(f);
  if (f.topo && f.inv.gpus.empty()) {
    // A matrix alone still names the GPUs (GPU0..GPUn, in CUDA's order):
    // they exist, with their CPU affinity and NUMA node, nothing more known.
    for (const auto& row : f.topo->rows) {
      if (row.name.size() < 4 || row.name.compare(0, 3, "GPU") != 0) continue;
      auto n = core::parse_u64(std::string_view(row.name).substr(3));
      if (!n || *n > 4096) continue;
      Gpu g;
      g.index = static_cast<int>(*n);
      g.source = "nvidia-smi-topo";
      f.inv.gpus.push_back(std::move(g));
    }
  }
  if (f.topo) apply_nvidia_smi_topo(*f.topo, f.inv);
  if (f.inv.gpus.empty()) {
    // nvidia-smi nvlink alone: "GPU 0: Tesla V100-SXM2-32GB (UUID: ...)" names each GPU.
    for (const auto& n : f.nvlink) {
      Gpu g;
      g.index = n.index;
      g.source = "nvidia-smi-nvlink";
      if (!n.name.empty()) g.name = n.name;
      g.uuid = n.uuid;
      f.inv.gpus.push_back(std::move(g));
    }
  }
  merge_nvlink(f);
  report::Report r;
  r.tool_version = TFRIG_VERSION;
  r.generated_at = core::utc_timestamp();
  r.root = "";
  std::string joined;
  for (const auto& n : names) joined += (joined.empty() ? "" : ",") + n;
  r.source = "import:" + joined;
  r.inventory = std::move(f.inv);
  for (auto& s : f.statuses) s.seconds = seconds;
  r.probes = std::move(f.statuses);
  return r;
}

}  // namespace tfrig::importer
