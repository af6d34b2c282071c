#include "importer/nvidia_smi_csv.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/pci_address.h"
#include "core/text.h"
#include "core/units.h"

namespace tfrig::importer {

namespace {

// --help-query-gpu lists these as other names of the same field.
constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
    {"gpu_name", "name"},
    {"gpu_serial", "serial"},
    {"gpu_uuid", "uuid"},
    {"gpu_bus_id", "pci.bus_id"},
    {"clocks.sm", "clocks.current.sm"},
    {"clocks.mem", "clocks.current.memory"},
    {"clocks.max.mem", "clocks.max.memory"},
    {"retired_pages.single_bit_ecc.count", "retired_pages.sbe"},
    {"retired_pages.double_bit.count", "retired_pages.dbe"},
};

// Fields that tell one GPU from another: a header without any is some other CSV.
constexpr std::string_view kIdentity[] = {"name", "uuid", "pci.bus_id", "index", "serial"};
// --query-compute-apps (and --query-accounted-apps) name GPUs too, but one
// line is a process: not a GPU list.
constexpr std::string_view kProcessFields[] = {"pid", "process_name", "used_memory", "used_gpu_memory"};

struct Column {
  size_t index = 0;
  std::string unit;  // "MiB" from "memory.total [MiB]"; empty without
};

// "memory.total [MiB]" -> ("memory.total", "MiB"); nullopt when the name is
// not a query field name.
std::optional<std::pair<std::string, std::string>> header_field(std::string_view token) {
  token = core::trim(token);
  std::string unit;
  if (const size_t open = token.find(" ["); open != std::string_view::npos && core::ends_with(token, "]")) {
    unit = std::string(token.substr(open + 2, token.size() - open - 3));
    token = token.substr(0, open);
  }
  if (token.empty() || !std::isalpha(static_cast<unsigned char>(token[0]))) return std::nullopt;
  for (char c : token) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') return std::nullopt;
  }
  std::string name(token);
  for (const auto& [alias, canonical] : kAliases) {
    if (name == alias) name = canonical;
  }
  return std::make_pair(name, unit);
}

std::vector<std::string_view> csv_fields(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  auto fields = core::split(line, ',');
  for (auto& f : fields) f = core::trim(f);
  return fields;
}

std::string_view first_line(std::string_view text, size_t& next) {
  const size_t nl = text.find('\n');
  next = nl == std::string_view::npos ? text.size() : nl + 1;
  return text.substr(0, nl);
}

using Columns = std::map<std::string, Column, std::less<>>;

std::optional<Columns> header_columns(std::string_view line) {
  if (core::starts_with(line, "\xEF\xBB\xBF")) line.remove_prefix(3);  // a BOM from an editor
  const auto tokens = csv_fields(line);
  if (tokens.size() < 2 && (tokens.empty() || tokens[0].empty())) return std::nullopt;
  Columns columns;
  for (size_t i = 0; i < tokens.size(); ++i) {
    auto field = header_field(tokens[i]);
    if (!field) return std::nullopt;
    columns.emplace(field->first, Column{i, field->second});  // the first column of a name wins
  }
  auto has = [&](std::string_view f) { return columns.count(f) > 0; };
  if (!std::any_of(std::begin(kIdentity), std::end(kIdentity), has)) return std::nullopt;
  if (std::any_of(std::begin(kProcessFields), std::end(kProcessFields), has)) return std::nullopt;
  return columns;
}

// One CSV line's values by field name.
class CsvRow {
 public:
  CsvRow(const Columns& columns, std::vector<std::string_view> values)
      : columns_(columns), values_(std::move(values)) {}

  std::optional<std::string> text(std::string_view field) const {
    auto v = raw(field);
    if (!v) return std::nullopt;
    return std::string(*v);
  }
  // "1410 MHz" (the unit in the value) or "1410" under "clocks.sm [MHz]":
  // the number when the unit, where one is written, is the expected one.
  std::optional<double> number(std::string_view field, std::string_view unit) const {
    auto v = raw(field);
    if (!v) return std::nullopt;
    std::string_view s = *v;
    std::string_view written = columns_.find(field)->second.unit;
    if (const size_t space = s.find(' '); space != std::string_view::npos) {
      written = core::trim(s.substr(space + 1));
      s = s.substr(0, space);
    }
    if (!written.empty() && written != unit) return std::nullopt;
    auto d = core::parse_double(s);
    if (!d || !std::isfinite(*d) || *d < 0 || *d > 1e12) return std::nullopt;
    return d;
  }
  std::optional<int> whole(std::string_view field, std::string_view unit, int max) const {
    auto d = number(field, unit);
    if (!d || *d > max) return std::nullopt;
    return static_cast<int>(std::lround(*d));
  }
  std::optional<uint64_t> count(std::string_view field) const {
    auto v = raw(field);
    if (!v) return std::nullopt;
    return core::parse_u64(*v);
  }
  std::optional<bool> flag(std::string_view field) const {
    auto v = raw(field);
    if (!v) return std::nullopt;
    if (*v == "Enabled" || *v == "Yes" || *v == "Active") return true;
    if (*v == "Disabled" || *v == "No" || *v == "Not Active") return false;
    return std::nullopt;
  }
  std::optional<uint64_t> mib(std::string_view field) const {
    auto d = number(field, "MiB");
    if (!d || *d > 1e9) return std::nullopt;
    return static_cast<uint64_t>(std::llround(*d)) * core::kMiB;
  }

 private:
  std::optional<std::string_view> raw(std::string_view field) const {
    auto it = columns_.find(field);
    if (it == columns_.end() || it->second.index >= values_.size()) return std::nullopt;
    const std::string_view v = values_[it->second.index];
    if (nvidia_smi_unknown_value(v)) return std::nullopt;
    return v;
  }

  const Columns& columns_;
  std::vector<std::string_view> values_;
};

std::optional<uint64_t> added(std::optional<uint64_t> a, std::optional<uint64_t> b) {
  if (!a && !b) return std::nullopt;
  constexpr uint64_t kCap = uint64_t{1} << 48;
  return std::min(a.value_or(0), kCap) + std::min(b.value_or(0), kCap);
}

inventory::Gpu gpu_of(const CsvRow& r, int order) {
  inventory::Gpu g;
  g.index = r.whole("index", "", 1 << 16).value_or(order);
  g.source = "nvidia-smi-csv";
  g.name = r.text("name");
  g.uuid = r.text("uuid");
  g.serial = r.text("serial");
  if (auto bus = r.text("pci.bus_id")) g.pci_bus_id = core::normalize_pci_bus_id(*bus);
  // "0x1E8110DE": device in the upper 16 bits, vendor below.
  if (auto id = r.text("pci.device_id")) {
    if (auto n = core::parse_hex(*id); n && *n <= 0xffffffffu && (*n & 0xffffu) == 0x10de)
      g.pci_device_id = static_cast<uint32_t>(*n >> 16);
  }
  g.compute_capability = r.text("compute_cap");
  g.memory_total_bytes = r.mib("memory.total");
  g.memory_used_bytes = r.mib("memory.used");
  g.power_limit_watts = r.number("enforced.power.limit", "W");
  if (!g.power_limit_watts) g.power_limit_watts = r.number("power.limit", "W");
  g.temperature_celsius = r.whole("temperature.gpu", "", 300);
  g.clock_sm_mhz = r.whole("clocks.current.sm", "MHz", 100000);
  g.clock_memory_mhz = r.whole("clocks.current.memory", "MHz", 100000);
  g.clock_sm_max_mhz = r.whole("clocks.max.sm", "MHz", 100000);
  g.persistence_mode = r.flag("persistence_mode");
  g.ecc_mode_current = r.flag("ecc.mode.current");
  g.ecc_mode_pending = r.flag("ecc.mode.pending");
  g.ecc_errors_corrected_volatile = r.count("ecc.errors.corrected.volatile.total");
  g.ecc_errors_uncorrected_volatile = r.count("ecc.errors.uncorrected.volatile.total");
  g.ecc_errors_uncorrected_aggregate = r.count("ecc.errors.uncorrected.aggregate.total");
  g.retired_pages_count = added(r.count("retired_pages.sbe"), r.count("retired_pages.dbe"));
  g.retired_pages_pending = r.flag("retired_pages.pending");
  g.remapped_rows_correctable = r.count("remapped_rows.correctable");
  g.remapped_rows_uncorrectable = r.count("remapped_rows.uncorrectable");
  g.remapped_rows_pending = r.flag("remapped_rows.pending");
  g.remapped_rows_failure = r.flag("remapped_rows.failure");
  g.mig_mode_current = r.flag("mig.mode.current");
  g.mig_mode_pending = r.flag("mig.mode.pending");
  // pcie.link.gen.current is the deprecated name of gpucurrent (the GPU's
  // side of the link); .max is what GPU and slot both do.
  g.pcie_link_gen_current = r.whole("pcie.link.gen.gpucurrent", "", 16);
  if (!g.pcie_link_gen_current) g.pcie_link_gen_current = r.whole("pcie.link.gen.current", "", 16);
  g.pcie_link_gen_max = r.whole("pcie.link.gen.max", "", 16);
  g.pcie_link_width_current = r.whole("pcie.link.width.current", "", 32);
  g.pcie_link_width_max = r.whole("pcie.link.width.max", "", 32);
  for (auto* field :
       {&g.pcie_link_gen_current, &g.pcie_link_gen_max, &g.pcie_link_width_current, &g.pcie_link_width_max}) {
    if (*field && **field == 0) field->reset();
  }
  if (auto mode = r.text("compute_mode")) g.compute_mode = core::to_lower(*mode);
  return g;
}

// What tells one GPU's lines from another's when sampled with -l.
std::string identity_of(const inventory::Gpu& g, size_t line) {
  if (g.uuid) return "uuid:" + *g.uuid;
  if (g.pci_bus_id) return "bus:" + *g.pci_bus_id;
  if (g.index >= 0) return "index:" + std::to_string(g.index);
  return "line:" + std::to_string(line);
}

}  // namespace

core::Message csv_problem(const NvidiaSmiCsv& csv, size_t index) {
  if (index < csv.bad_lines.size()) {
    const auto& b = csv.bad_lines[index];
    // TRANSLATORS: {0} the line number, {1} and {2} counts of comma-separated fields.
    return core::Message(N_("line {0}: {1} fields, the header has {2}"), b.line, b.fields, csv.header_fields);
  }
  // TRANSLATORS: {0} how many lines were not listed one by one.
  return core::Message(N_("{0} more lines with another number of fields than the header"),
                       csv.bad_line_count - csv.bad_lines.size());
}

bool looks_like_nvidia_smi_csv(std::string_view text) {
  size_t next = 0;
  const auto columns = header_columns(first_line(text.substr(0, 64 * 1024), next));
  if (!columns) return false;
  const size_t width = csv_fields(first_line(text, next)).size();
  for (auto rest = text.substr(next); !rest.empty();) {
    const std::string_view line = first_line(rest, next);
    rest = rest.substr(next);
    if (core::trim(line).empty()) continue;
    return csv_fields(line).size() == width;
  }
  return false;
}

core::Result<NvidiaSmiCsv> parse_nvidia_smi_csv(std::string_view text) {
  size_t next = 0;
  const std::string_view header = first_line(text, next);
  const auto columns = header_columns(header);
  if (!columns) {
    return core::fail(
        core::ErrorCode::kParse, core::Message(N_("line {}"), 1),
        core::Message(N_(
            "expected an 'nvidia-smi --query-gpu=... --format=csv' header naming name, uuid, pci.bus_id, index or serial")));
  }
  const size_t width = csv_fields(header).size();
  NvidiaSmiCsv out;
  out.header_fields = width;
  std::map<std::string, size_t> seen;  // identity -> position in out.smi.gpus
  size_t line_no = 1;
  for (auto rest = text.substr(next); !rest.empty();) {
    const std::string_view line = first_line(rest, next);
    rest = rest.substr(next);
    ++line_no;
    if (core::trim(line).empty()) continue;
    auto values = csv_fields(line);
    if (values.size() != width) {
      if (out.bad_lines.size() < NvidiaSmiCsv::kMaxBadLines) out.bad_lines.push_back({line_no, values.size()});
      ++out.bad_line_count;
      continue;
    }
    const CsvRow row(*columns, std::move(values));
    inventory::Gpu g = gpu_of(row, static_cast<int>(out.smi.gpus.size()));
    if (auto v = row.text("driver_version")) out.smi.driver_version = v;
    if (auto n = row.whole("count", "", 1 << 16)) out.smi.attached_gpus = n;
    const std::string id = identity_of(g, line_no);
    if (auto it = seen.find(id); it != seen.end()) {
      out.smi.gpus[it->second] = std::move(g);  // a later sample of the same GPU
    } else {
      seen.emplace(id, out.smi.gpus.size());
      out.smi.gpus.push_back(std::move(g));
    }
  }
  const size_t texts = out.bad_lines.size() + (out.bad_line_count > out.bad_lines.size() ? 1 : 0);
  for (size_t k = 0; k < texts; ++k) out.problems.push_back(csv_problem(out, k));
  if (out.smi.gpus.empty()) {
    return core::fail(core::ErrorCode::kParse, core::Message(N_("line {}"), line_no),
                      core::Message(N_("no GPU line after the header (expected one line of values per GPU)")));
  }
  return out;
}

}  // namespace tfrig::importer
