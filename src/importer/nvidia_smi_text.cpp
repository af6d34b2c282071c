#include "importer/nvidia_smi_text.h"

#include <cmath>
#include <map>

#include "core/i18n.h"
#include "core/pci_address.h"
#include "core/text.h"
#include "core/units.h"

namespace tfrig::importer {

namespace {

constexpr std::string_view kLogMarker = "==============NVSMI LOG==============";

// nvidia-smi's error messages (seen in the bug-report fixtures and printed by
// every driver from 384 to 595) and what each says about the machine.
struct KnownError {
  std::string_view text;
  std::string_view kind;
};
// The first match wins, so the specific texts come before the generic ones.
constexpr KnownError kErrors[] = {
    {"couldn't communicate with the NVIDIA driver", "driver_not_loaded"},
    {"Driver/library version mismatch", "driver_mismatch"},
    {"couldn't find libnvidia-ml.so", "library_missing"},
    {"No devices were found", "no_device"},
    {"Insufficient Permissions", "no_permission"},
    {"GPU is lost", "gpu_lost"},
    {"Failed to initialize NVML", "error"},
    {"Unable to determine the device handle", "error"},
};

std::optional<std::string_view> error_kind_of(std::string_view line) {
  for (const auto& e : kErrors) {
    if (line.find(e.text) != std::string_view::npos) return e.kind;
  }
  return std::nullopt;
}

// One GPU's "path -> value" (paths join the keys with '/'; first one wins).
using Values = std::map<std::string, std::string, std::less<>>;

std::optional<std::string> text_of(const Values& v, std::string_view path) {
  auto it = v.find(path);
  if (it == v.end() || nvidia_smi_unknown_value(it->second)) return std::nullopt;
  return it->second;
}

// "11177 MiB" -> 11177 (the unit must match); "16x" with unit "x".
std::optional<double> number_of(const Values& v, std::string_view path, std::string_view unit) {
  auto t = text_of(v, path);
  if (!t) return std::nullopt;
  std::string_view s = core::trim(*t);
  if (!unit.empty()) {
    if (!core::ends_with(s, unit)) return std::nullopt;
    s = core::trim(s.substr(0, s.size() - unit.size()));
  }
  auto d = core::parse_double(s);
  if (!d || !std::isfinite(*d) || *d < 0 || *d > 1e12) return std::nullopt;
  return *d;
}

std::optional<int> int_of(const Values& v, std::string_view path, std::string_view unit, int max) {
  auto d = number_of(v, path, unit);
  if (!d || *d > max) return std::nullopt;
  return static_cast<int>(std::lround(*d));
}

std::optional<uint64_t> count_of(const Values& v, std::string_view path) {
  auto t = text_of(v, path);
  if (!t) return std::nullopt;
  return core::parse_u64(core::trim(*t));
}

std::optional<uint64_t> sum_of(const Values& v, std::initializer_list<std::string_view> paths) {
  std::optional<uint64_t> total;
  for (auto p : paths) {
    if (auto c = count_of(v, p)) total = total.value_or(0) + std::min<uint64_t>(*c, uint64_t{1} << 48);
  }
  return total;
}

std::optional<bool> flag_of(const Values& v, std::string_view path) {
  auto t = text_of(v, path);
  if (!t) return std::nullopt;
  if (*t == "Enabled" || *t == "Yes" || *t == "Active") return true;
  if (*t == "Disabled" || *t == "No" || *t == "Not Active") return false;
  return std::nullopt;
}

std::optional<uint64_t> mib_of(const Values& v, std::string_view path) {
  auto d = number_of(v, path, "MiB");
  if (!d || *d > 1e9) return std::nullopt;
  return static_cast<uint64_t>(std::llround(*d)) * core::kMiB;
}

inventory::Gpu gpu_from(const Values& v, const std::string& header_bus, int index, int process_count,
                        std::optional<uint64_t> process_mem) {
  inventory::Gpu g;
  g.index = index;
  g.source = "nvidia-smi-q";
  g.name = text_of(v, "Product Name");
  g.architecture = text_of(v, "Product Architecture");
  g.uuid = text_of(v, "GPU UUID");
  g.serial = text_of(v, "Serial Number");
  if (auto bus = text_of(v, "PCI/Bus Id")) g.pci_bus_id = core::normalize_pci_bus_id(*bus);
  if (!g.pci_bus_id) g.pci_bus_id = core::normalize_pci_bus_id(header_bus);
  // "Device Id : 0x1B0610DE": device in the upper 16 bits, vendor below.
  if (auto id = text_of(v, "PCI/Device Id")) {
    if (auto n = core::parse_hex(*id); n && *n <= 0xffffffffu && (*n & 0xffffu) == 0x10de) {
      g.pci_device_id = static_cast<uint32_t>(*n >> 16);
    }
  }
  g.memory_total_bytes = mib_of(v, "FB Memory Usage/Total");
  g.memory_used_bytes = mib_of(v, "FB Memory Usage/Used");
  // 535 renamed "Power Readings/Power Limit" to "GPU Power Readings/Current Power Limit".
  auto watts = number_of(v, "GPU Power Readings/Current Power Limit", "W");
  if (!watts) watts = number_of(v, "Power Readings/Power Limit", "W");
  if (!watts) watts = number_of(v, "Power Readings/Enforced Power Limit", "W");
  g.power_limit_watts = watts;
  g.temperature_celsius = int_of(v, "Temperature/GPU Current Temp", "C", 300);
  g.clock_sm_mhz = int_of(v, "Clocks/SM", "MHz", 100000);
  g.clock_memory_mhz = int_of(v, "Clocks/Memory", "MHz", 100000);
  g.clock_sm_max_mhz = int_of(v, "Max Clocks/SM", "MHz", 100000);
  g.persistence_mode = flag_of(v, "Persistence Mode");
  g.ecc_mode_current = flag_of(v, "Ecc Mode/Current");
  g.ecc_mode_pending = flag_of(v, "Ecc Mode/Pending");
  g.ecc_errors_corrected_volatile =
      sum_of(v, {"ECC Errors/Volatile/Single Bit/Total", "ECC Errors/Volatile/SRAM Correctable",
                 "ECC Errors/Volatile/DRAM Correctable"});
  g.ecc_errors_uncorrected_volatile =
      sum_of(v, {"ECC Errors/Volatile/Double Bit/Total", "ECC Errors/Volatile/SRAM Uncorrectable",
                 "ECC Errors/Volatile/SRAM Uncorrectable Parity", "ECC Errors/Volatile/SRAM Uncorrectable SEC-DED",
                 "ECC Errors/Volatile/DRAM Uncorrectable"});
  g.ecc_errors_uncorrected_aggregate =
      sum_of(v, {"ECC Errors/Aggregate/Double Bit/Total", "ECC Errors/Aggregate/SRAM Uncorrectable",
                 "ECC Errors/Aggregate/SRAM Uncorrectable Parity", "ECC Errors/Aggregate/SRAM Uncorrectable SEC-DED",
                 "ECC Errors/Aggregate/DRAM Uncorrectable"});
  g.retired_pages_count = sum_of(v, {"Retired Pages/Single Bit ECC", "Retired Pages/Double Bit ECC"});
  g.retired_pages_pending = flag_of(v, "Retired Pages/Pending Page Blacklist");
  if (!g.retired_pages_pending) g.retired_pages_pending = flag_of(v, "Retired Pages/Pending Page Retirement");
  g.remapped_rows_correctable = count_of(v, "Remapped Rows/Correctable Error");
  g.remapped_rows_uncorrectable = count_of(v, "Remapped Rows/Uncorrectable Error");
  g.remapped_rows_pending = flag_of(v, "Remapped Rows/Pending");
  g.remapped_rows_failure = flag_of(v, "Remapped Rows/Remapping Failure Occurred");
  g.mig_mode_current = flag_of(v, "MIG Mode/Current");
  g.mig_mode_pending = flag_of(v, "MIG Mode/Pending");
  g.pcie_link_gen_current = int_of(v, "PCI/GPU Link Info/PCIe Generation/Current", "", 16);
  g.pcie_link_gen_max = int_of(v, "PCI/GPU Link Info/PCIe Generation/Max", "", 16);
  g.pcie_link_width_current = int_of(v, "PCI/GPU Link Info/Link Width/Current", "x", 32);
  g.pcie_link_width_max = int_of(v, "PCI/GPU Link Info/Link Width/Max", "x", 32);
  for (auto* field :
       {&g.pcie_link_gen_current, &g.pcie_link_gen_max, &g.pcie_link_width_current, &g.pcie_link_width_max}) {
    if (*field && **field == 0) field->reset();
  }
  if (auto mode = text_of(v, "Compute Mode")) g.compute_mode = core::to_lower(*mode);
  if (process_count >= 0) {
    g.process_count = process_count;
    g.process_memory_bytes = process_mem;
  }
  return g;
}

struct Line {
  int indent = 0;
  std::string_view key;
  std::optional<std::string_view> value;  // nullopt: a section header
};

Line split_line(std::string_view raw) {
  Line l;
  size_t i = 0;
  while (i < raw.size() && raw[i] == ' ') ++i;
  l.indent = static_cast<int>(i);
  std::string_view rest = raw.substr(i);
  if (const size_t sep = rest.find(" : "); sep != std::string_view::npos) {
    l.key = core::trim(rest.substr(0, sep));
    l.value = core::trim(rest.substr(sep + 3));
  } else if (core::ends_with(core::trim(rest), " :") || core::trim(rest) == ":") {
    std::string_view t = core::trim(rest);
    l.key = core::trim(t.substr(0, t.size() - 1));
    l.value = std::string_view();
  } else {
    l.key = core::trim(rest);
  }
  return l;
}

}  // namespace

bool nvidia_smi_unknown_value(std::string_view v) {
  return v.empty() || v == "N/A" || v == "[N/A]" || v == "Not Supported" || v == "[Not Supported]" ||
         v == "Unknown Error" || v == "[Unknown Error]" || v == "Requested functionality has been deprecated" ||
         v == "[Requested functionality has been deprecated]" || v == "Unknown" || v == "Not Found" ||
         v == "[Not Found]";
}

bool looks_like_nvidia_smi_text(std::string_view text) {
  if (text.find(kLogMarker) != std::string_view::npos) return true;
  // An error output is short: look at its first lines only.
  int n = 0;
  for (auto line : core::split_lines(text)) {
    if (++n > 8) break;
    if (error_kind_of(line)) return true;
  }
  return false;
}

namespace {

constexpr std::string_view kHandleErrorPrefix = "Unable to determine the device handle for GPU";

// "Unable to determine the device handle for GPU 0000:04:00.0: GPU is lost.  Reboot ..."
// Drivers print "GPU 0000:04:00.0: ...", "GPU0000:CB:00.0: ..." or,
// newer ones, "GPU1: 0000:34:00.0: ..." (the index first).
NvidiaSmiText::HandleError handle_error_of(std::string_view t, std::string_view kind) {
  std::string_view rest = core::trim(t.substr(kHandleErrorPrefix.size()));
  NvidiaSmiText::HandleError he;
  size_t sep = rest.find(": ");
  if (sep != std::string_view::npos && core::parse_u64(rest.substr(0, sep))) {
    const std::string_view after = rest.substr(sep + 2);
    const size_t next = after.find(": ");
    if (next != std::string_view::npos && core::normalize_pci_bus_id(after.substr(0, next))) {
      rest = after;
      sep = next;
    }
  }
  if (sep != std::string_view::npos && core::normalize_pci_bus_id(rest.substr(0, sep))) {
    he.pci_bus_id = *core::normalize_pci_bus_id(rest.substr(0, sep));
    he.reason = std::string(core::trim(rest.substr(sep + 2)));
  } else {
    he.reason = std::string(sep == std::string_view::npos ? rest : core::trim(rest.substr(sep + 2)));
  }
  he.lost = kind == "gpu_lost";
  he.line = std::string(t);
  return he;
}

// Error lines can come before, instead of, or after the report: every line
// is looked at. The first error is kept, unless a specific one follows a
// generic "error".
void read_error_lines(std::string_view text, NvidiaSmiText& out) {
  for (auto line : core::split_lines(text)) {
    const std::string_view t = core::trim(line);
    auto kind = error_kind_of(t);
    if (!kind) continue;
    if (core::starts_with(t, kHandleErrorPrefix)) out.handle_errors.push_back(handle_error_of(t, *kind));
    if (!out.error || (out.error_kind == "error" && *kind != "error")) {
      out.error = std::string(t);
      out.error_kind = std::string(*kind);
    }
  }
}

// A line of the report's first level: "Driver Version : 535.288.01".
void read_header_value(std::string_view key, std::string_view value, NvidiaSmiText& out) {
  if (key == "Timestamp") out.timestamp = std::string(value);
  if (key == "Driver Version" && !nvidia_smi_unknown_value(value)) out.driver_version = std::string(value);
  if (key == "CUDA Version" && !nvidia_smi_unknown_value(value)) out.cuda_version = std::string(value);
  if (key == "Attached GPUs") {
    if (auto n = core::parse_u64(value); n && *n < 4096) out.attached_gpus = static_cast<int>(*n);
  }
}

// One "GPU 00000000:03:00.0" section while its lines are read.
struct GpuSection {
  Values values;
  std::string header_bus;
  std::vector<std::pair<int, std::string>> stack;  // (indent, key) of the open subsections
  int process_count = -1;                          // -1: no "Processes" section seen
  std::optional<uint64_t> process_mem;
};

// The "Processes" section: one "Process ID" entry per process, each with its
// "Used GPU Memory" ("Processes : None" = 0).
void count_processes(const Line& l, GpuSection& gpu) {
  const bool in_processes = !gpu.stack.empty() && gpu.stack.front().second == "Processes";
  if (in_processes && l.key == "Process ID") gpu.process_count = std::max(gpu.process_count, 0) + 1;
  if (in_processes && l.key == "Used GPU Memory" && l.value) {
    std::string_view mv = *l.value;
    if (core::ends_with(mv, "MiB")) {
      if (auto d = core::parse_double(core::trim(mv.substr(0, mv.size() - 3)));
          d && std::isfinite(*d) && *d >= 0 && *d < 1e9) {
        gpu.process_mem = gpu.process_mem.value_or(0) + static_cast<uint64_t>(std::llround(*d)) * core::kMiB;
      }
    }
  }
  if (gpu.stack.empty() && l.key == "Processes") {
    if (l.value && (*l.value == "None" || l.value->empty())) {
      gpu.process_count = 0;
      gpu.process_mem = 0;
    } else if (!l.value) {
      gpu.process_count = 0;
    }
  }
}

// An indented line of a GPU section: a value stored under its path
// ("FB Memory Usage/Total"), or a subsection header opening a level.
void read_gpu_line(const Line& l, GpuSection& gpu) {
  while (!gpu.stack.empty() && gpu.stack.back().first >= l.indent) gpu.stack.pop_back();
  std::string path;
  for (const auto& s : gpu.stack) path += s.second + "/";
  path += std::string(l.key);
  count_processes(l, gpu);
  if (l.value) {
    gpu.values.emplace(std::move(path), std::string(*l.value));
  } else {
    gpu.stack.emplace_back(l.indent, std::string(l.key));
  }
}

// The lines after the "NVSMI LOG" marker, up to the next report (a capture
// holding several runs) or the next section of a capture or bug report.
void read_report_body(std::string_view body, NvidiaSmiText& out) {
  std::optional<GpuSection> gpu;
  auto finish_gpu = [&] {
    if (!gpu) return;
    out.gpus.push_back(gpu_from(gpu->values, gpu->header_bus, static_cast<int>(out.gpus.size()), gpu->process_count,
                                gpu->process_mem));
    gpu.reset();
  };
  for (auto raw : core::split_lines(body)) {
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    if (core::trim(raw).empty()) continue;
    if (raw.front() == '#') break;  // a capture file's next section
    if (raw.front() == '/') break;  // a bug report's next command ("/usr/bin/nvidia-smi nvlink --status")
    const Line l = split_line(raw);
    if (l.indent == 0) {
      if (!l.value && core::starts_with(l.key, "GPU ")) {
        finish_gpu();
        gpu.emplace();
        gpu->header_bus = std::string(l.key.substr(4));
      } else if (l.value) {
        finish_gpu();
        read_header_value(l.key, *l.value, out);
      }
      continue;
    }
    if (gpu) read_gpu_line(l, *gpu);
  }
  finish_gpu();
}

}  // namespace

core::Result<NvidiaSmiText> parse_nvidia_smi_text(std::string_view text) {
  NvidiaSmiText out;
  read_error_lines(text, out);
  const size_t start = text.find(kLogMarker);
  if (start == std::string_view::npos) {
    if (out.error) return out;
    return core::fail(core::ErrorCode::kParse, core::Message(N_("line {}"), 1),
                      core::Message(N_("neither an 'NVSMI LOG' report nor a known nvidia-smi error message")));
  }
  std::string_view body = text.substr(start + kLogMarker.size());
  // A second report (a capture holding several runs) ends this one.
  if (const size_t next = body.find(kLogMarker); next != std::string_view::npos) body = body.substr(0, next);
  read_report_body(body, out);
  if (out.gpus.empty() && !out.driver_version && !out.error) {
    return core::fail(core::ErrorCode::kParse, core::Message(N_("offset {}"), start),
                      core::Message(N_("an 'NVSMI LOG' header without a driver version or any GPU")));
  }
  return out;
}

}  // namespace tfrig::importer
