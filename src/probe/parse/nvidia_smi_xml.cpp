#include "probe/parse/nvidia_smi_xml.h"

#include <pugixml.hpp>

#include <cmath>

#include "core/i18n.h"
#include "core/pci_address.h"
#include "core/text.h"
#include "core/units.h"

namespace tfrig::probe::parse {

namespace {

using inventory::Gpu;

// The placeholders nvidia-smi prints instead of a value (seen across the
// fixtures from driver 384 to 590): all mean "unknown" to tfrig.
bool is_placeholder(std::string_view v) {
  if (v.empty()) return true;
  if (v.front() == '[' && v.back() == ']') v = v.substr(1, v.size() - 2);
  return v == "N/A" || v == "Not Supported" || v == "Unknown Error" || v == "Insufficient Permissions" ||
         v == "Requested functionality has been deprecated" || v == "GPU access blocked by the operating system" ||
         v == "Unknown" || v == "None" || v == "Not Found";
}

// Text of the element at `path` (slash-separated) under `node`, trimmed;
// nullopt when absent or a placeholder.
std::optional<std::string> text_at(const pugi::xml_node& node, const char* path) {
  const pugi::xml_node el = node.first_element_by_path(path);
  if (!el) return std::nullopt;
  const std::string_view v = core::trim(el.child_value());
  if (is_placeholder(v)) return std::nullopt;
  return std::string(v);
}

// "24576 MiB" -> its leading number (the unit checked by the caller).
std::optional<double> number_with_unit(const std::optional<std::string>& text, std::string_view unit) {
  if (!text) return std::nullopt;
  auto words = core::split_ws(*text);
  if (words.empty()) return std::nullopt;
  if (!unit.empty() && (words.size() < 2 || words[1] != unit)) return std::nullopt;
  auto v = core::parse_double(words[0]);
  if (!v || !std::isfinite(*v) || *v < 0 || *v > 1e15) return std::nullopt;
  return v;
}

std::optional<uint64_t> mib_bytes(const pugi::xml_node& gpu, const char* path) {
  auto v = number_with_unit(text_at(gpu, path), "MiB");
  if (!v) return std::nullopt;
  return static_cast<uint64_t>(std::llround(*v)) * core::kMiB;
}

std::optional<int> int_with_unit(const pugi::xml_node& gpu, const char* path, std::string_view unit) {
  auto v = number_with_unit(text_at(gpu, path), unit);
  if (!v || *v > 1e9) return std::nullopt;
  return static_cast<int>(std::lround(*v));
}

std::optional<uint64_t> count_at(const pugi::xml_node& gpu, const char* path) {
  auto t = text_at(gpu, path);
  if (!t) return std::nullopt;
  return core::parse_u64(*t);
}

// Adds up counters that may be missing; nullopt only when all are.
std::optional<uint64_t> sum_counts(const pugi::xml_node& gpu, std::initializer_list<const char*> paths) {
  std::optional<uint64_t> total;
  for (const char* p : paths) {
    if (auto v = count_at(gpu, p)) total = total.value_or(0) + *v;
  }
  return total;
}

// "Enabled"/"Disabled", "Yes"/"No" -> bool.
std::optional<bool> flag_at(const pugi::xml_node& gpu, const char* path) {
  auto t = text_at(gpu, path);
  if (!t) return std::nullopt;
  if (*t == "Enabled" || *t == "Yes") return true;
  if (*t == "Disabled" || *t == "No") return false;
  return std::nullopt;
}

// "16x" -> 16.
std::optional<int> link_width(const pugi::xml_node& gpu, const char* path) {
  auto t = text_at(gpu, path);
  if (!t) return std::nullopt;
  std::string_view s = *t;
  if (core::ends_with(s, "x")) s.remove_suffix(1);
  auto v = core::parse_u64(s);
  if (!v || *v == 0 || *v > 32) return std::nullopt;
  return static_cast<int>(*v);
}

std::optional<int> link_gen(const pugi::xml_node& gpu, const char* path) {
  auto v = count_at(gpu, path);
  if (!v || *v == 0 || *v > 16) return std::nullopt;
  return static_cast<int>(*v);
}

// nvidia-smi prints compute modes as "Default", "Exclusive_Process",
// "Prohibited" (and "Exclusive_Thread" before CUDA 8 removed it).
std::optional<std::string> compute_mode(const pugi::xml_node& gpu) {
  auto t = text_at(gpu, "compute_mode");
  if (!t) return std::nullopt;
  return core::to_lower(*t);
}

Gpu parse_gpu(const pugi::xml_node& node, int index) {
  Gpu g;
  g.index = index;
  g.source = "nvidia-smi-xml";
  g.name = text_at(node, "product_name");
  g.uuid = text_at(node, "uuid");
  g.serial = text_at(node, "serial");
  if (auto id = text_at(node, "pci/pci_bus_id")) {
    g.pci_bus_id = core::normalize_pci_bus_id(*id);
  }
  if (!g.pci_bus_id) {
    if (const char* id = node.attribute("id").value(); id[0] != '\0') g.pci_bus_id = core::normalize_pci_bus_id(id);
  }
  // pci_device_id "220410DE": device id in the upper 16 bits, vendor below.
  if (auto id = text_at(node, "pci/pci_device_id")) {
    if (auto v = core::parse_hex(*id); v && *v <= 0xffffffffu && (*v & 0xffffu) == 0x10de) {
      g.pci_device_id = static_cast<uint32_t>(*v >> 16);
    }
  }
  g.architecture = text_at(node, "product_architecture");
  g.memory_total_bytes = mib_bytes(node, "fb_memory_usage/total");
  g.memory_used_bytes = mib_bytes(node, "fb_memory_usage/used");
  // The power section was renamed in DTD v12 (driver 535): power_readings
  // /power_limit became gpu_power_readings/current_power_limit.
  auto watts = number_with_unit(text_at(node, "gpu_power_readings/current_power_limit"), "W");
  if (!watts) watts = number_with_unit(text_at(node, "power_readings/power_limit"), "W");
  if (!watts) watts = number_with_unit(text_at(node, "power_readings/enforced_power_limit"), "W");
  g.power_limit_watts = watts;
  g.temperature_celsius = int_with_unit(node, "temperature/gpu_temp", "C");
  g.clock_sm_mhz = int_with_unit(node, "clocks/sm_clock", "MHz");
  g.clock_memory_mhz = int_with_unit(node, "clocks/mem_clock", "MHz");
  g.clock_sm_max_mhz = int_with_unit(node, "max_clocks/sm_clock", "MHz");
  g.persistence_mode = flag_at(node, "persistence_mode");
  g.ecc_mode_current = flag_at(node, "ecc_mode/current_ecc");
  g.ecc_mode_pending = flag_at(node, "ecc_mode/pending_ecc");
  // ECC counters: up to DTD v11 single_bit/double_bit totals; from v12
  // split into sram/dram (v13 splits sram uncorrectable into parity/secded).
  g.ecc_errors_corrected_volatile =
      sum_counts(node, {"ecc_errors/volatile/single_bit/total", "ecc_errors/volatile/sram_correctable",
                        "ecc_errors/volatile/dram_correctable"});
  g.ecc_errors_uncorrected_volatile =
      sum_counts(node, {"ecc_errors/volatile/double_bit/total", "ecc_errors/volatile/sram_uncorrectable",
                        "ecc_errors/volatile/sram_uncorrectable_parity",
                        "ecc_errors/volatile/sram_uncorrectable_secded", "ecc_errors/volatile/dram_uncorrectable"});
  g.ecc_errors_uncorrected_aggregate =
      sum_counts(node, {"ecc_errors/aggregate/double_bit/total", "ecc_errors/aggregate/sram_uncorrectable",
                        "ecc_errors/aggregate/sram_uncorrectable_parity",
                        "ecc_errors/aggregate/sram_uncorrectable_secded", "ecc_errors/aggregate/dram_uncorrectable"});
  g.retired_pages_count = sum_counts(node, {"retired_pages/multiple_single_bit_retirement/retired_count",
                                            "retired_pages/double_bit_retirement/retired_count"});
  g.retired_pages_pending = flag_at(node, "retired_pages/pending_retirement");
  g.remapped_rows_correctable = count_at(node, "remapped_rows/remapped_row_corr");
  g.remapped_rows_uncorrectable = count_at(node, "remapped_rows/remapped_row_unc");
  g.remapped_rows_pending = flag_at(node, "remapped_rows/remapped_row_pending");
  g.remapped_rows_failure = flag_at(node, "remapped_rows/remapped_row_failure");
  g.mig_mode_current = flag_at(node, "mig_mode/current_mig");
  g.mig_mode_pending = flag_at(node, "mig_mode/pending_mig");
  g.pcie_link_gen_current = link_gen(node, "pci/pci_gpu_link_info/pcie_gen/current_link_gen");
  g.pcie_link_gen_max = link_gen(node, "pci/pci_gpu_link_info/pcie_gen/max_link_gen");
  g.pcie_link_width_current = link_width(node, "pci/pci_gpu_link_info/link_widths/current_link_width");
  g.pcie_link_width_max = link_width(node, "pci/pci_gpu_link_info/link_widths/max_link_width");
  g.compute_mode = compute_mode(node);
  // <processes> lists compute and graphics processes; an absent element
  // (the trimmed gtx-1070-ti capture) leaves the count unknown.
  if (const pugi::xml_node procs = node.child("processes")) {
    int count = 0;
    uint64_t mem = 0;
    bool mem_known = false;
    for (const pugi::xml_node p : procs.children("process_info")) {
      ++count;
      if (auto v = number_with_unit(text_at(p, "used_memory"), "MiB")) {
        mem += static_cast<uint64_t>(std::llround(*v)) * core::kMiB;
        mem_known = true;
      }
    }
    g.process_count = count;
    if (mem_known || count == 0) g.process_memory_bytes = mem;
  }
  return g;
}

}  // namespace

core::Result<NvidiaSmiXml> parse_nvidia_smi_xml(std::string_view text) {
  pugi::xml_document doc;
  // parse_default without DOCTYPE validation: pugixml never fetches the DTD.
  const pugi::xml_parse_result parsed =
      doc.load_buffer(text.data(), text.size(), pugi::parse_default | pugi::parse_doctype);
  if (!parsed) {
    return core::fail(core::ErrorCode::kParse, core::Message(N_("offset {}"), static_cast<int64_t>(parsed.offset)),
                      core::Message(N_("not well-formed XML: {}"), std::string(parsed.description())));
  }
  const pugi::xml_node root = doc.child("nvidia_smi_log");
  if (!root) {
    return core::fail(core::ErrorCode::kParse, "/",
                      core::Message(N_("expected the root element <nvidia_smi_log> of 'nvidia-smi -q -x'")));
  }
  NvidiaSmiXml out;
  for (const pugi::xml_node n : doc.children()) {
    if (n.type() == pugi::node_doctype) {
      // "nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd""
      const std::string_view v = n.value();
      const auto q1 = v.find('"');
      const auto q2 = q1 == std::string_view::npos ? q1 : v.find('"', q1 + 1);
      if (q2 != std::string_view::npos) out.dtd = std::string(v.substr(q1 + 1, q2 - q1 - 1));
    }
  }
  out.timestamp = text_at(root, "timestamp");
  out.driver_version = text_at(root, "driver_version");
  out.cuda_version = text_at(root, "cuda_version");
  if (auto n = count_at(root, "attached_gpus"); n && *n < 4096) out.attached_gpus = static_cast<int>(*n);
  int index = 0;
  for (const pugi::xml_node gpu : root.children("gpu")) {
    out.gpus.push_back(parse_gpu(gpu, index++));
  }
  return out;
}

void apply_nvidia_smi_xml(const NvidiaSmiXml& xml, const std::string& file, inventory::Inventory& inv) {
  inv.gpus = xml.gpus;
  inv.gpu_topology.clear();
  inv.driver.version = xml.driver_version;
  inv.driver.cuda_version = xml.cuda_version;
  // A GPU listed by nvidia-smi means the kernel module was loaded there.
  if (!xml.gpus.empty()) inv.driver.loaded = true;
  inv.driver.nvml.state = xml.gpus.empty() ? "no_device" : "ok";
  inv.driver.nvml.detail = "imported from " + file + (xml.dtd ? " (" + *xml.dtd + ")" : std::string()) +
                           (xml.attached_gpus && *xml.attached_gpus != static_cast<int>(xml.gpus.size())
                                ? "; attached_gpus says " + std::to_string(*xml.attached_gpus) +
                                      " but the file lists " + std::to_string(xml.gpus.size())
                                : std::string());
  inv.driver.nvml.library_path.reset();
  inv.driver.nvml.init_seconds.reset();
}

}  // namespace tfrig::probe::parse
