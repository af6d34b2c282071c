#include "knowledge/knowledge.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <span>
#include <variant>
#include <sstream>

#include "core/i18n.h"
#include "core/message.h"
#include "core/name_table.h"
#include "core/text.h"
#include "core/try.h"
#include "knowledge/setup_facts.h"
#include "knowledge_data.h"

namespace tfrig::knowledge {

namespace {

using core::ErrorCode;
using core::Version;
using nlohmann::json;

// The files the loader understands; any other *.json is ignored.
constexpr std::string_view kFileNames[] = {"tf_builds.json",    "tf_pip_extras.json", "cuda_drivers.json",
                                           "tf_libraries.json", "tf_compute.json",    "gpus.json",
                                           "thresholds.json",   "setup.json",         "plan_measurements.json"};

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}

std::optional<std::string> opt_str(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}

std::optional<int> opt_int(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return static_cast<int>(it->get<double>());
}

std::vector<std::string> str_list(const json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& v : *it) out.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  return out;
}

const json& rows_of(const json& doc, const char* key) {
  static const json kEmpty = json::array();
  auto it = doc.find(key);
  if (it == doc.end() || !it->is_array()) return kEmpty;
  return *it;
}

}  // namespace

bool release_matches(std::string_view listed, const Version& tf) {
  if (core::ends_with(listed, ".x")) {
    auto major = core::parse_u64(listed.substr(0, listed.size() - 2));
    return major && *major == tf.major();
  }
  auto v = Version::parse(listed);
  if (!v) return false;
  return v->major() == tf.major() && v->minor() == tf.minor();
}

std::vector<std::string> gpu_name_tokens(std::string_view name) {
  std::string lowered = core::to_lower(name);
  for (char& c : lowered) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = ' ';
  }
  std::vector<std::string> out;
  for (auto t : core::split_ws(lowered)) {
    // Vendor and brand words NVML sometimes prints and sometimes not
    // ("GeForce RTX 2080 Ti" on old drivers, "NVIDIA GeForce RTX 2080 Ti" on new).
    if (t == "nvidia" || t == "geforce" || t == "tesla") continue;
    out.emplace_back(t);
  }
  return out;
}

bool TfBuild::supports_python(const Version& v) const {
  for (const auto& p : python) {
    auto pv = Version::parse(p);
    if (pv && pv->major() == v.major() && pv->minor() == v.minor()) return true;
  }
  return false;
}

std::string LibraryFamily::soname(std::string_view family) const {
  for (const auto& [f, s] : libraries) {
    if (f == family) return s;
  }
  return "";
}

constexpr core::NameTable<KernelSupport, 5> kKernelSupportNames{{{
    {KernelSupport::kSass, "sass"},
    {KernelSupport::kPtxJit, "ptx_jit"},
    {KernelSupport::kNone, "none"},
    {KernelSupport::kBelowMinimum, "below_minimum"},
    {KernelSupport::kUnknown, "unknown"},
}}};
static_assert(kKernelSupportNames.unique());

std::string_view kernel_support_name(KernelSupport s) { return kKernelSupportNames.name(s, "unknown"); }

// A source's `verified.method` in plan_measurements.json, both ways.
constexpr core::NameTable<Verification, 4> kVerificationNames{{{
    {Verification::kRawLogs, "raw_logs"},
    {Verification::kScript, "script"},
    {Verification::kReadme, "readme"},
    {Verification::kNone, "none"},
}}};
static_assert(kVerificationNames.unique());

namespace {

// ---- validation at load: every version and number is checked once here, so
// code that reads the tables later may parse them without checking again. ----

// "tf_builds.json: rows[3].tf" (the row's position and field, for the error).
std::string field_at(const std::string& where, std::string_view array, size_t row, std::string_view key) {
  std::string at = where + ": " + std::string(array) + "[" + std::to_string(row) + "]";
  return key.empty() ? at : at + "." + std::string(key);
}

core::Status bad(const std::string& at, std::string_view expected, const json& got) {
  // TRANSLATORS: {0} is what the field must be ("a number or null"), {1} the JSON value found.
  return core::fail(ErrorCode::kParse, at, trf("expected {0}, got {1}", _(expected), got.dump()));
}

constexpr std::string_view kVersionWanted = N_("a version string of digits and dots (e.g. \"12.4\")");

// What a field must be. A missing field and null are the same: allowed but for
// kVersion and kReleases.
enum class Expect {
  kText,             // anything: the readers keep a non-string as its JSON text
  kVersion,          // a version string of digits and dots
  kOptionalVersion,  // the same, or missing
  kVersions,         // a list of version strings
  kReleases,         // a non-empty list of versions, "2.x" (any 2.y) allowed
  kNumber,           // a number
  kBool,             // true or false
};

// The field's value; a dotted key ("nvlink.supported") looks inside an object,
// and a parent that is not one leaves the field missing. nullptr when missing.
const json* field_value(const json& row, std::string_view key) {
  const json* at = &row;
  for (size_t start = 0;;) {
    const size_t dot = key.find('.', start);
    const std::string part(key.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (!at->is_object()) return nullptr;
    auto it = at->find(part);
    if (it == at->end()) return nullptr;
    at = &*it;
    if (dot == std::string_view::npos) return at;
    start = dot + 1;
  }
}

// A list of version strings; with releases, "2.x" (any 2.y) is allowed too.
core::Status check_version_list(const json& list, const std::string& at, bool releases) {
  if (!list.is_array()) return bad(at, N_("a list of version strings"), list);
  for (size_t i = 0; i < list.size(); ++i) {
    const json& v = list[i];
    const std::string item_at = at + "[" + std::to_string(i) + "]";
    if (!v.is_string()) return bad(item_at, kVersionWanted, v);
    const auto text = v.get<std::string>();
    const bool any_minor = releases && core::ends_with(text, ".x") && core::parse_u64(text.substr(0, text.size() - 2));
    if (!any_minor && !Version::parse(text)) return bad(item_at, kVersionWanted, v);
  }
  return {};
}

// One field checked against what it must be; the error names `at` (file,
// array, row and field) and what was expected, with the value found.
core::Status check_value(const json* v, Expect expect, const std::string& at) {
  const bool absent = v == nullptr || v->is_null();
  switch (expect) {
    case Expect::kText: return {};
    case Expect::kVersion:
      if (absent) return core::fail(ErrorCode::kParse, at, trf("missing; expected {}", _(kVersionWanted)));
      [[fallthrough]];
    case Expect::kOptionalVersion:
      if (absent) return {};
      if (!v->is_string() || !Version::parse(v->get<std::string>())) return bad(at, kVersionWanted, *v);
      return {};
    case Expect::kVersions: return absent ? core::Status{} : check_version_list(*v, at, false);
    case Expect::kReleases:
      if (!absent) TFRIG_TRY(check_version_list(*v, at, true));
      if (absent || v->empty())
        return core::fail(ErrorCode::kParse, at, _("missing or empty; expected a list of releases"));
      return {};
    case Expect::kNumber: return absent || v->is_number() ? core::Status{} : bad(at, N_("a number or null"), *v);
    case Expect::kBool: return absent || v->is_boolean() ? core::Status{} : bad(at, N_("true, false or null"), *v);
  }
  return {};
}

// A required (or, with optional, a null-or-missing allowed) version string.
core::Status need_version(const json& row, const char* key, const std::string& at, bool optional = false) {
  return check_value(field_value(row, key), optional ? Expect::kOptionalVersion : Expect::kVersion, at);
}

core::Status need_bool(const json& row, const char* key, const std::string& at) {
  return check_value(field_value(row, key), Expect::kBool, at);
}

core::Status need_number(const json& row, const char* key, const std::string& at) {
  return check_value(field_value(row, key), Expect::kNumber, at);
}

core::Status need_object(const json& row, const std::string& at) {
  if (row.is_object()) return {};
  return bad(at, N_("an object"), row);
}

// ---- descriptor-driven rows: one table of fields per record says what each
// field must be (Expect) and which member it fills; read_row checks every field
// of a row first, so an error names the file, row and field and what was
// expected, then fills the record. ----

template <class Row>
using Member =
    std::variant<std::string Row::*, std::optional<std::string> Row::*, std::vector<std::string> Row::*,
                 std::optional<double> Row::*, std::optional<int> Row::*, std::optional<bool> Row::*, bool Row::*>;

template <class Row>
struct Field {
  const char* key;  // "min_linux", or "nvlink.total_gbs" inside an object
  Expect expect;
  Member<Row> member;
  bool fallback = false;  // a bool member's value when the field is missing or null
};

// The readers, one per member type: a missing field or null leaves the member
// as it is (empty), a string list keeps non-strings as their JSON text.
void read_into(std::string& out, const json* v, bool) {
  if (v != nullptr && !v->is_null()) out = v->is_string() ? v->get<std::string>() : v->dump();
}
void read_into(std::optional<std::string>& out, const json* v, bool) {
  if (v != nullptr && !v->is_null()) out = v->is_string() ? v->get<std::string>() : v->dump();
}
void read_into(std::vector<std::string>& out, const json* v, bool) {
  if (v == nullptr || !v->is_array()) return;
  for (const auto& item : *v) out.push_back(item.is_string() ? item.get<std::string>() : item.dump());
}
void read_into(std::optional<double>& out, const json* v, bool) {
  if (v != nullptr && v->is_number()) out = v->get<double>();
}
void read_into(std::optional<int>& out, const json* v, bool) {
  if (v != nullptr && v->is_number()) out = static_cast<int>(v->get<double>());
}
void read_into(std::optional<bool>& out, const json* v, bool) {
  if (v != nullptr && v->is_boolean()) out = v->get<bool>();
}
void read_into(bool& out, const json* v, bool fallback) {
  out = v != nullptr && v->is_boolean() ? v->get<bool>() : fallback;
}

// One row: an object, each field checked in the table's order (errors name
// `at` + "." + the field), then read into a fresh record.
template <class Row>
core::Result<Row> read_row(const json& r, const std::string& at, std::span<const Field<Row>> fields) {
  TFRIG_TRY(need_object(r, at));
  for (const Field<Row>& f : fields) TFRIG_TRY(check_value(field_value(r, f.key), f.expect, at + "." + f.key));
  Row row{};
  for (const Field<Row>& f : fields) {
    std::visit([&](auto member) { read_into(row.*member, field_value(r, f.key), f.fallback); }, f.member);
  }
  return row;
}

// "tf_builds.json: rows[3]": where a row's fields are named from.
std::string row_at(const std::string& where, std::string_view array, size_t row) {
  return field_at(where, array, row, "");
}

#define TFRIG_CHECK(expr)          \
  do {                             \
    if (auto st_ = (expr); !st_) { \
      return st_;                  \
    }                              \
  } while (0)

// Newest first; a row whose version does not parse (rejected at load, but the
// order must stay a strict weak order whatever the input) sorts last.
bool newer_build_first(const TfBuild& a, const TfBuild& b) {
  auto va = Version::parse(a.tf), vb = Version::parse(b.tf);
  if (va && vb) return *va > *vb;
  return va.has_value() && !vb.has_value();
}

}  // namespace

// ---- one parser per file (like setup.json's parse_setup_facts): each checks
// every version and number of its rows, then fills its own members ----

core::Status Knowledge::parse_tf_builds(const json& doc, const std::string& where, DataFile& file) {
  static const Field<TfBuild> kFields[] = {
      {"tf", Expect::kVersion, &TfBuild::tf},        {"cuda", Expect::kVersion, &TfBuild::cuda},
      {"cudnn", Expect::kVersion, &TfBuild::cudnn},  {"python", Expect::kVersions, &TfBuild::python},
      {"package", Expect::kText, &TfBuild::package}, {"compiler", Expect::kText, &TfBuild::compiler},
      {"source", Expect::kText, &TfBuild::source},
  };
  const json& rows = rows_of(doc, "rows");
  for (size_t i = 0; i < rows.size(); ++i)
    tf_builds_.push_back(TFRIG_TRY(read_row<TfBuild>(rows[i], row_at(where, "rows", i), kFields)));
  if (tf_builds_.empty()) return core::fail(ErrorCode::kParse, where + ": rows", _("no rows; expected at least one"));
  // Newest first, whatever order the file has.
  std::stable_sort(tf_builds_.begin(), tf_builds_.end(), newer_build_first);
  file.rows = tf_builds_.size();
  return {};
}

core::Status Knowledge::parse_tf_pip_extras(const json& doc, const std::string& where, DataFile& file) {
  static const Field<PipExtra> kFields[] = {
      {"tf", Expect::kVersion, &PipExtra::tf},
      {"uncertain", Expect::kBool, &PipExtra::uncertain, true},
      {"confidence", Expect::kText, &PipExtra::confidence},
      {"flavor", Expect::kText, &PipExtra::flavor},
      {"source", Expect::kText, &PipExtra::source},
  };
  const json& rows = rows_of(doc, "rows");
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& r = rows[i];
    PipExtra p = TFRIG_TRY(read_row<PipExtra>(r, row_at(where, "rows", i), kFields));
    if (r.contains("packages") && r["packages"].is_object()) {
      for (const auto& [pkg, pin] : r["packages"].items()) {
        if (!pin.is_string())
          return bad(field_at(where, "rows", i, "packages." + pkg), N_("a pin string like \"==12.5.82\""), pin);
        p.packages.emplace_back(pkg, pin.get<std::string>());
      }
    }
    pip_extras_.push_back(std::move(p));
  }
  file.rows = pip_extras_.size();
  return {};
}

core::Status Knowledge::parse_cuda_drivers(const json& doc, const std::string& where, DataFile& file) {
  static const Field<DriverMinimum> kMinimumFields[] = {
      {"cuda", Expect::kVersion, &DriverMinimum::cuda},
      {"min_linux", Expect::kOptionalVersion, &DriverMinimum::min_linux},
      {"min_windows", Expect::kOptionalVersion, &DriverMinimum::min_windows},
      {"minor_version_compatibility", Expect::kBool, &DriverMinimum::minor_version_compatibility, false},
      {"uncertain", Expect::kBool, &DriverMinimum::uncertain, false},
      {"source", Expect::kText, &DriverMinimum::source},
      {"note", Expect::kText, &DriverMinimum::note},
  };
  static const Field<ToolkitDriver> kToolkitFields[] = {
      {"cuda", Expect::kVersion, &ToolkitDriver::cuda},
      {"min_linux", Expect::kVersion, &ToolkitDriver::min_linux},
      {"min_windows", Expect::kOptionalVersion, &ToolkitDriver::min_windows},
      {"release", Expect::kText, &ToolkitDriver::release},
  };
  const json& compat = rows_of(doc, "minor_version_compatibility");
  for (size_t i = 0; i < compat.size(); ++i) {
    driver_minimums_.push_back(
        TFRIG_TRY(read_row<DriverMinimum>(compat[i], row_at(where, "minor_version_compatibility", i), kMinimumFields)));
  }
  const json& toolkits = rows_of(doc, "toolkits");
  for (size_t i = 0; i < toolkits.size(); ++i) {
    toolkit_drivers_.push_back(
        TFRIG_TRY(read_row<ToolkitDriver>(toolkits[i], row_at(where, "toolkits", i), kToolkitFields)));
  }
  file.rows = driver_minimums_.size() + toolkit_drivers_.size();
  return {};
}

core::Status Knowledge::parse_tf_libraries(const json& doc, const std::string& where, DataFile& file) {
  // "cuda" is shown as text only ("12.2 (2.15) / 12.3 (2.16-2.17)"): not a version.
  static const Field<LibraryFamily> kFields[] = {
      {"tf_versions", Expect::kReleases, &LibraryFamily::tf_versions},
      {"uncertain", Expect::kBool, &LibraryFamily::uncertain, true},
      {"cuda", Expect::kText, &LibraryFamily::cuda},
      {"confidence", Expect::kText, &LibraryFamily::confidence},
  };
  gate_current_ = str_list(doc, "gate_required");
  gate_before_2_14_ = str_list(doc, "gate_required_before_2_14");
  const json& rows = rows_of(doc, "families");
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& r = rows[i];
    LibraryFamily f = TFRIG_TRY(read_row<LibraryFamily>(r, row_at(where, "families", i), kFields));
    if (r.contains("libraries") && r["libraries"].is_object()) {
      for (const auto& [fam, so] : r["libraries"].items()) {
        if (!so.is_string()) return bad(field_at(where, "families", i, "libraries." + fam), N_("a soname string"), so);
        f.libraries.emplace_back(fam, so.get<std::string>());
      }
    }
    library_families_.push_back(std::move(f));
  }
  file.rows = library_families_.size();
  std::vector<const std::vector<std::string>*> lists;
  for (const auto& f : library_families_) lists.push_back(&f.tf_versions);
  library_releases_ = index_releases(lists);
  return {};
}

core::Status Knowledge::parse_tf_compute(const json& doc, const std::string& where, DataFile& file) {
  TFRIG_CHECK(need_version(doc, "tf_min_capability", where + ": tf_min_capability", true));
  if (doc.contains("tf_min_capability")) tf_min_capability_ = str(doc, "tf_min_capability");
  static const Field<TfCompute> kFields[] = {
      {"tf_versions", Expect::kReleases, &TfCompute::tf_versions},
      {"sass", Expect::kVersions, &TfCompute::sass},
      {"ptx", Expect::kVersions, &TfCompute::ptx},
      {"documented_minimum", Expect::kOptionalVersion, &TfCompute::documented_minimum},
      {"uncertain", Expect::kBool, &TfCompute::uncertain, true},
      {"confidence", Expect::kText, &TfCompute::confidence},
  };
  static const Field<KernelList> kAlternativeFields[] = {
      {"sass", Expect::kVersions, &KernelList::sass},
      {"ptx", Expect::kVersions, &KernelList::ptx},
      {"applies_if", Expect::kText, &KernelList::applies_if},
  };
  const json& rows = rows_of(doc, "rows");
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& r = rows[i];
    TfCompute row = TFRIG_TRY(read_row<TfCompute>(r, row_at(where, "rows", i), kFields));
    const json& alts = rows_of(r, "alternatives");
    for (size_t a = 0; a < alts.size(); ++a) {
      const std::string at = field_at(where, "rows", i, "alternatives") + "[" + std::to_string(a) + "]";
      row.alternatives.push_back(TFRIG_TRY(read_row<KernelList>(alts[a], at, kAlternativeFields)));
    }
    // Two candidate lists are a guess between them: the row cannot be certain.
    if (!row.alternatives.empty() && !row.uncertain) {
      return core::fail(ErrorCode::kParse, field_at(where, "rows", i, "uncertain"),
                        _("a row with alternatives must be marked \"uncertain\": true"));
    }
    compute_.push_back(std::move(row));
  }
  file.rows = compute_.size();
  std::vector<const std::vector<std::string>*> lists;
  for (const auto& r : compute_) lists.push_back(&r.tf_versions);
  compute_releases_ = index_releases(lists);
  tf_min_cc_ = Version::parse(tf_min_capability_);
  return {};
}

core::Status Knowledge::parse_gpus(const json& doc, const std::string& where, DataFile& file) {
  // The numbers and flags of a catalog GPU, checked in this order.
  static const Field<GpuSpec> kFields[] = {
      {"compute_capability", Expect::kOptionalVersion, &GpuSpec::compute_capability},
      {"vram_gib", Expect::kNumber, &GpuSpec::vram_gib},
      {"memory_bandwidth_gbs", Expect::kNumber, &GpuSpec::memory_bandwidth_gbs},
      {"fp32_tflops", Expect::kNumber, &GpuSpec::fp32_tflops},
      {"fp16_tensor_tflops_dense", Expect::kNumber, &GpuSpec::fp16_tensor_tflops_dense},
      {"bf16_tensor_tflops_dense", Expect::kNumber, &GpuSpec::bf16_tensor_tflops_dense},
      {"tf32_tensor_tflops_dense", Expect::kNumber, &GpuSpec::tf32_tensor_tflops_dense},
      {"int8_tops_dense", Expect::kNumber, &GpuSpec::int8_tops_dense},
      {"pcie_gen", Expect::kNumber, &GpuSpec::pcie_gen},
      {"pcie_lanes", Expect::kNumber, &GpuSpec::pcie_lanes},
      {"tdp_w", Expect::kNumber, &GpuSpec::tdp_w},
      {"launch_year", Expect::kNumber, &GpuSpec::launch_year},
      {"launch_price_usd", Expect::kNumber, &GpuSpec::launch_price_usd},
      {"tensor_cores", Expect::kBool, &GpuSpec::tensor_cores},
      {"ecc", Expect::kBool, &GpuSpec::ecc},
      {"nvlink.supported", Expect::kBool, &GpuSpec::nvlink_supported},
      {"nvlink.total_gbs", Expect::kNumber, &GpuSpec::nvlink_total_gbs},
      {"mig.supported", Expect::kBool, &GpuSpec::mig_supported},
      {"mig.max_instances", Expect::kNumber, &GpuSpec::mig_max_instances},
      {"id", Expect::kText, &GpuSpec::id},
      {"name", Expect::kText, &GpuSpec::name},
      {"aliases", Expect::kText, &GpuSpec::aliases},
      {"architecture", Expect::kText, &GpuSpec::architecture},
      {"segment", Expect::kText, &GpuSpec::segment},
      {"confidence", Expect::kText, &GpuSpec::confidence},
      {"unverified_fields", Expect::kText, &GpuSpec::unverified_fields},
      {"sources", Expect::kText, &GpuSpec::sources},
  };
  static const Field<CcRow> kCcFields[] = {
      {"compute_capability", Expect::kVersion, &CcRow::cc},
      {"uncertain", Expect::kBool, &CcRow::uncertain, false},
      {"names", Expect::kText, &CcRow::names},
      {"architecture", Expect::kText, &CcRow::architecture},
      {"source", Expect::kText, &CcRow::source},
  };
  const json& rows = rows_of(doc, "gpus");
  for (size_t i = 0; i < rows.size(); ++i) {
    GpuSpec s = TFRIG_TRY(read_row<GpuSpec>(rows[i], row_at(where, "gpus", i), kFields));
    // PCI device ids: 4 hexadecimal digits each ("20B2").
    const auto ids = str_list(rows[i], "pci_device_ids");
    for (size_t j = 0; j < ids.size(); ++j) {
      auto v = core::parse_hex(ids[j]);
      if (!v || *v > 0xffff) {
        return bad(field_at(where, "gpus", i, "pci_device_ids[" + std::to_string(j) + "]"),
                   N_("a 4-digit hexadecimal PCI device id (e.g. \"20B2\")"), json(ids[j]));
      }
      s.pci_device_ids.push_back(static_cast<uint32_t>(*v));
    }
    gpus_.push_back(std::move(s));
  }
  const json& table = rows_of(doc, "compute_capabilities");
  for (size_t i = 0; i < table.size(); ++i) {
    cc_rows_.push_back(TFRIG_TRY(read_row<CcRow>(table[i], row_at(where, "compute_capabilities", i), kCcFields)));
  }
  file.rows = gpus_.size() + cc_rows_.size();
  // find_gpu compares token lists: the catalog's are made once here, not per query
  // (fleet asks for every GPU of every node under every rule).
  gpu_tokens_.clear();
  for (const auto& g : gpus_) {
    auto& t = gpu_tokens_.emplace_back();
    t.push_back(gpu_name_tokens(g.name));
    for (const auto& a : g.aliases) t.push_back(gpu_name_tokens(a));
  }
  cc_tokens_.clear();
  for (const auto& r : cc_rows_) {
    auto& t = cc_tokens_.emplace_back();
    for (const auto& n : r.names) t.push_back(gpu_name_tokens(n));
  }
  return {};
}

namespace {

// Facts read as versions by rules and setup (a "seven" here once crashed
// them), and facts read with number(): a wrong type is an error at load,
// not a silent fallback later.
constexpr std::string_view kVersionFacts[] = {"mixed_float16_min_cc", "mixed_bfloat16_min_cc",
                                              "cuda_malloc_async_min_cuda", "windows_native_last_gpu_tf",
                                              "pip_cuda_extra_first_tf"};
constexpr std::string_view kNumberFacts[] = {
    "ram_to_vram_ratio", "multi_gpu_min_cores", "multi_gpu_min_threads", "cores_per_gpu_min", "pcie_lanes_per_gpu",
    "nofile_min",        "nofile_recommended",  "memlock_min_bytes",     "swappiness_max",    "retired_pages_max"};

bool listed(std::span<const std::string_view> names, std::string_view key) {
  return std::find(names.begin(), names.end(), key) != names.end();
}

}  // namespace

core::Status Knowledge::parse_thresholds(const json& doc, const std::string& where, DataFile& file) {
  if (doc.contains("facts")) {
    if (!doc["facts"].is_object()) return bad(where + ": facts", N_("an object of named facts"), doc["facts"]);
    for (const auto& [key, f] : doc["facts"].items()) {
      const std::string at = where + ": facts." + key;
      TFRIG_CHECK(need_object(f, at));
      if (!f.contains("value")) return core::fail(ErrorCode::kParse, at + ".value", _("missing"));
      const json& value = f["value"];
      if (listed(kVersionFacts, key)) TFRIG_CHECK(need_version(f, "value", at + ".value"));
      if (listed(kNumberFacts, key) && !value.is_number()) return bad(at + ".value", N_("a number"), value);
      TFRIG_CHECK(need_bool(f, "uncertain", at + ".uncertain"));
      facts_[key] = Fact{value, str(f, "source"), f.value("uncertain", false), str(f, "note")};
    }
  }
  const json& archs = rows_of(doc, "architectures");
  for (size_t i = 0; i < archs.size(); ++i) {
    const json& a = archs[i];
    TFRIG_CHECK(need_object(a, field_at(where, "architectures", i, "")));
    TFRIG_CHECK(need_number(a, "cc_major", field_at(where, "architectures", i, "cc_major")));
    TFRIG_CHECK(need_number(a, "last_driver_branch", field_at(where, "architectures", i, "last_driver_branch")));
    TFRIG_CHECK(need_version(a, "last_cuda_major", field_at(where, "architectures", i, "last_cuda_major"), true));
    TFRIG_CHECK(need_bool(a, "uncertain", field_at(where, "architectures", i, "uncertain")));
    architectures_.push_back(ArchitectureSupport{str(a, "name"), a.value("cc_major", 0),
                                                 opt_int(a, "last_driver_branch"), opt_str(a, "last_cuda_major"),
                                                 str(a, "source"), a.value("uncertain", false)});
  }
  file.rows = facts_.size() + architectures_.size();
  return {};
}

core::Status Knowledge::parse_setup(const json& doc, const std::string&, DataFile& file) {
  auto facts = std::make_shared<SetupFacts>(parse_setup_facts(doc));
  file.rows = facts->os_targets.size() + facts->ngc_releases.size() + facts->gpu_branch_limits.size();
  setup_ = std::move(facts);
  return {};
}

// Listed and counted here; the planner parses and checks the rows
// (plan/measurements.cpp owns their meaning and names a bad row's field).
// Each source says how its rows were checked (docs/knowledge-audit.md); a
// source without "verified" counts as not verified.
core::Status Knowledge::parse_plan_measurements(const json& doc, const std::string& where, DataFile& file) {
  file.rows = rows_of(doc, "throughput").size() + rows_of(doc, "batch_limits").size();
  auto sources = TFRIG_TRY(parse_measurement_sources(doc, where));
  measurement_sources_ = std::move(sources);
  return {};
}

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A GitHub login: letters, digits and single hyphens, not at either end.
bool github_login(std::string_view s) {
  if (s.empty() || s.size() > 39 || s.front() == '-' || s.back() == '-') return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; });
}

// A source that is an issue or pull-request comment: which thread, whose
// comment, when, and the quoted line(s). `at` is "...: sources[i]".
core::Status check_thread_source(const json& s, const MeasurementSource& m, const std::string& at) {
  const size_t slash = m.thread.find('/');
  const std::string_view kind = std::string_view(m.thread).substr(0, slash);
  if (slash == std::string::npos || (kind != "issues" && kind != "pull") || !all_digits(m.thread.substr(slash + 1)))
    return bad(at + ".thread", N_("\"issues/N\" or \"pull/N\" (the thread's number)"), s["thread"]);
  if (m.repo.find('/') == std::string::npos)
    return bad(at + ".repo", N_("the thread's repository as owner/name"), s.value("repo", json()));
  if (!m.path.empty() || !m.commit.empty())
    return bad(at + ".commit", N_("no path or commit in a thread source"), s.value("commit", s.value("path", json())));
  if (!github_login(m.author))
    return bad(at + ".author", N_("the GitHub login of the comment's author"), s.value("author", json()));
  if (!m.comment.empty() && (m.comment.rfind("issuecomment-", 0) != 0 && m.comment.rfind("discussion_r", 0) != 0 &&
                             m.comment.rfind("pullrequestreview-", 0) != 0))
    return bad(at + ".comment", N_("the comment's anchor (issuecomment-N, discussion_rN or pullrequestreview-N)"),
               s["comment"]);
  const bool iso_date = m.date.size() == 10 && all_digits(m.date.substr(0, 4)) && m.date[4] == '-' &&
                        all_digits(m.date.substr(5, 2)) && m.date[7] == '-' && all_digits(m.date.substr(8, 2));
  if (!iso_date) return bad(at + ".date", N_("the comment's date as YYYY-MM-DD"), s.value("date", json()));
  if (m.quote.empty())
    return bad(at + ".quote", N_("the quoted log line(s) holding the figures"), s.value("quote", json()));
  return {};
}

}  // namespace

core::Result<std::vector<MeasurementSource>> parse_measurement_sources(const json& doc, const std::string& where) {
  std::vector<MeasurementSource> out;
  const json& sources = rows_of(doc, "sources");
  for (size_t i = 0; i < sources.size(); ++i) {
    const json& s = sources[i];
    TFRIG_TRY(need_object(s, field_at(where, "sources", i, "")));
    MeasurementSource m;
    m.id = str(s, "id");
    m.repo = str(s, "repo");
    m.path = str(s, "path");
    m.commit = str(s, "commit");
    m.url = str(s, "url");
    m.thread = str(s, "thread");
    m.comment = str(s, "comment");
    m.author = str(s, "author");
    m.date = str(s, "date");
    m.quote = str(s, "quote");
    if (s.contains("thread")) TFRIG_TRY(check_thread_source(s, m, field_at(where, "sources", i, "")));
    if (auto v = s.find("verified"); v != s.end() && !v->is_null()) {
      const std::string at = field_at(where, "sources", i, "verified");
      if (!v->is_object())
        return tl::unexpected(bad(at, N_("an object {method, note, rows_checked, rows_changed}"), *v).error());
      const std::string method = str(*v, "method");
      if (auto known = kVerificationNames.value(method)) {
        m.verified = *known;
      } else {
        return tl::unexpected(
            bad(at + ".method", N_("one of raw_logs, script, readme, none"), v->value("method", json())).error());
      }
      for (const char* key : {"rows_checked", "rows_changed"}) {
        auto n = v->find(key);
        if (n == v->end() || n->is_null()) continue;
        if (!n->is_number_unsigned()) return tl::unexpected(bad(at + "." + key, N_("a count (0 or more)"), *n).error());
      }
      m.verified_note = str(*v, "note");
      m.rows_checked = v->value("rows_checked", size_t{0});
      m.rows_changed = v->value("rows_changed", size_t{0});
    }
    out.push_back(std::move(m));
  }
  return out;
}

#undef TFRIG_CHECK

core::Result<Knowledge> Knowledge::from_texts(const std::map<std::string, std::string>& texts,
                                              const std::map<std::string, std::string>& origins) {
  using Parser = core::Status (Knowledge::*)(const json&, const std::string&, DataFile&);
  static const std::pair<std::string_view, Parser> kParsers[] = {
      {"tf_builds.json", &Knowledge::parse_tf_builds},
      {"tf_pip_extras.json", &Knowledge::parse_tf_pip_extras},
      {"cuda_drivers.json", &Knowledge::parse_cuda_drivers},
      {"tf_libraries.json", &Knowledge::parse_tf_libraries},
      {"tf_compute.json", &Knowledge::parse_tf_compute},
      {"gpus.json", &Knowledge::parse_gpus},
      {"thresholds.json", &Knowledge::parse_thresholds},
      {"setup.json", &Knowledge::parse_setup},
      {"plan_measurements.json", &Knowledge::parse_plan_measurements}};
  Knowledge k;
  for (const auto& [name, parser] : kParsers) {
    auto it = texts.find(std::string(name));
    if (it == texts.end()) {
      return core::fail(ErrorCode::kNotFound, std::string(name), _("knowledge file missing"));
    }
    const std::string origin = origins.count(it->first) ? origins.at(it->first) : "embedded";
    const std::string where = origin == "embedded" ? std::string(name) : origin;
    json doc;
    try {
      doc = json::parse(it->second);
    } catch (const json::parse_error& e) {
      return core::fail(ErrorCode::kParse, where + ": byte " + std::to_string(e.byte), e.what());
    } catch (const json::exception& e) {  // out_of_range.406: a number beyond a double (1e400)
      return core::fail(ErrorCode::kParse, where, e.what());
    }
    if (!doc.is_object() || !doc.contains("schema")) {
      return core::fail(ErrorCode::kParse, where, _("expected an object with a \"schema\" key"));
    }
    DataFile file;
    file.name = std::string(name);
    file.schema = str(doc, "schema");
    file.data_version = str(doc, "data_version");
    file.origin = origin;
    for (const auto& s : rows_of(doc, "sources")) {
      if (!s.is_object())
        return tl::unexpected(bad(where + ": sources", N_("a list of objects {id, url, note}"), s).error());
      SourceRef ref{str(s, "id"), str(s, "url"), str(s, "note")};
      if (ref.url.empty() && s.contains("repo")) {
        ref.url = str(s, "repo") + (s.contains("path") ? ":" + str(s, "path") : "") +
                  (s.contains("commit") ? "@" + str(s, "commit").substr(0, 12) : "");
      } else if (ref.url.empty() && s.contains("path")) {
        ref.url = str(s, "path");
      }
      file.sources.push_back(std::move(ref));
    }
    try {
      TFRIG_TRY((k.*parser)(doc, where, file));
    } catch (const json::exception& e) {
      return core::fail(ErrorCode::kParse, where, e.what());
    }
    k.files_.push_back(std::move(file));
  }
  return k;
}

core::Result<Knowledge> Knowledge::embedded() {
  std::map<std::string, std::string> texts;
  for (const auto& f : embedded::kFiles) texts[std::string(f.name)] = std::string(f.text);
  return from_texts(texts);
}

core::Result<Knowledge> Knowledge::with_overrides(const std::string& dir) {
  std::map<std::string, std::string> texts;
  std::map<std::string, std::string> origins;
  for (const auto& f : embedded::kFiles) texts[std::string(f.name)] = std::string(f.text);
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return core::fail(ErrorCode::kNotFound, dir, _("--knowledge must be a directory of knowledge *.json files"));
  }
  int replaced = 0;
  for (auto name : kFileNames) {
    const std::string path = (std::filesystem::path(dir) / std::string(name)).string();
    if (!std::filesystem::exists(path, ec)) continue;
    std::ifstream in(path, std::ios::binary);
    if (!in) return core::fail(ErrorCode::kIo, path, _("cannot open"));
    std::stringstream ss;
    ss << in.rdbuf();
    texts[std::string(name)] = ss.str();
    origins[std::string(name)] = path;
    ++replaced;
  }
  // log_signatures.json is read by explain (explain/signatures.h), not here:
  // a folder that ships only new signatures is a valid --knowledge DIR.
  if (replaced == 0 && !std::filesystem::exists(std::filesystem::path(dir) / "log_signatures.json", ec)) {
    return core::fail(ErrorCode::kNotFound, dir, _("no knowledge file (tf_builds.json, gpus.json, ...) in it"));
  }
  return from_texts(texts, origins);
}

const Knowledge& builtin() {
  static const Knowledge kBuiltin = [] {
    auto k = Knowledge::embedded();
    return k ? std::move(*k) : Knowledge();
  }();
  return kBuiltin;
}

core::Result<Knowledge> load(const std::string& override_dir) {
  if (override_dir.empty()) return Knowledge::embedded();
  return Knowledge::with_overrides(override_dir);
}

const std::vector<SourceRef>& Knowledge::sources_of(std::string_view file) const {
  static const std::vector<SourceRef> kNone;
  for (const auto& f : files_) {
    if (f.name == file) return f.sources;
  }
  return kNone;
}

const TfBuild* Knowledge::find_tf_build(const Version& tf) const {
  const TfBuild* same_minor = nullptr;
  for (const auto& b : tf_builds_) {
    auto v = Version::parse(b.tf);
    if (!v) continue;
    if (*v == tf) return &b;
    if (!same_minor && v->major() == tf.major() && v->minor() == tf.minor()) same_minor = &b;
  }
  return same_minor;
}

const TfBuild* Knowledge::newest_tf() const { return tf_builds_.empty() ? nullptr : &tf_builds_.front(); }

const PipExtra* Knowledge::pip_extra_for(const Version& tf) const {
  const PipExtra* best = nullptr;
  for (const auto& p : pip_extras_) {
    auto v = Version::parse(p.tf);
    if (!v || v->major() != tf.major() || v->minor() != tf.minor()) continue;
    if (*v == tf && !p.packages.empty()) return &p;
    if (!p.packages.empty() && !best) best = &p;
  }
  return best;
}

Knowledge::ReleaseIndex Knowledge::index_releases(const std::vector<const std::vector<std::string>*>& rows) {
  ReleaseIndex index;
  for (const auto* list : rows) {
    auto& keys = index.rows.emplace_back();
    for (const auto& listed : *list) {
      ReleaseKey key;
      // The two readings of release_matches, once.
      if (core::ends_with(listed, ".x")) {
        auto major = core::parse_u64(std::string_view(listed).substr(0, listed.size() - 2));
        key.valid = major.has_value();
        key.major_only = true;
        key.major = major.value_or(0);
      } else if (auto v = Version::parse(listed)) {
        key.valid = true;
        key.major = v->major();
        key.minor = v->minor();
      }
      keys.push_back(key);
    }
  }
  if (!rows.empty() && !rows.back()->empty()) index.newest = Version::parse(rows.back()->back());
  return index;
}

bool Knowledge::ReleaseIndex::matches(size_t row, const Version& tf) const {
  if (row >= rows.size()) return false;
  for (const auto& key : rows[row]) {
    if (key.valid && key.major == tf.major() && (key.major_only || key.minor == tf.minor())) return true;
  }
  return false;
}

const LibraryFamily* Knowledge::libraries_for(const Version& tf) const {
  for (size_t i = 0; i < library_families_.size(); ++i) {
    if (library_releases_.matches(i, tf)) return &library_families_[i];
  }
  // Releases newer than the table: the newest family (same hermetic CUDA 12
  // layout) is the best guess; callers mark it uncertain.
  if (!library_families_.empty()) {
    const auto& newest = library_releases_.newest;
    if (newest && tf > *newest) return &library_families_.back();
  }
  return nullptr;
}

const std::vector<std::string>& Knowledge::registration_libraries(const Version& tf) const {
  // curand left the gate on 2023-06-29, before the r2.14 branch (tf_libraries.json).
  static const Version k214 = *Version::parse("2.14");
  return tf < k214 ? gate_before_2_14_ : gate_current_;
}

const TfCompute* Knowledge::compute_for(const Version& tf) const {
  for (size_t i = 0; i < compute_.size(); ++i) {
    if (compute_releases_.matches(i, tf)) return &compute_[i];
  }
  if (!compute_.empty()) {
    const auto& newest = compute_releases_.newest;
    if (newest && tf > *newest) return &compute_.back();
  }
  return nullptr;
}

namespace {

std::string cc_digits(const std::string& text) {
  std::string d;
  for (char ch : text) {
    if (ch != '.') d += ch;
  }
  return d;
}

// "sm_50, sm_60, compute_90": the list as build_info.py and the .bazelrc name it
// (compute_XY stands for both its SASS and its PTX, so that SASS is not repeated).
std::string targets_text(const std::vector<std::string>& sass, const std::vector<std::string>& ptx) {
  std::string list;
  for (const auto& s : sass) {
    if (std::find(ptx.begin(), ptx.end(), s) != ptx.end()) continue;
    list += (list.empty() ? "" : ", ") + ("sm_" + cc_digits(s));
  }
  for (const auto& p : ptx) list += (list.empty() ? "" : ", ") + ("compute_" + cc_digits(p));
  return list;
}

// How one list of SASS and PTX targets runs a GPU of this capability.
void judge_list(const std::vector<std::string>& sass, const std::vector<std::string>& ptx, const Version& cc,
                KernelSupport& support, std::string& detail, core::MessageArg& detail_message) {
  // SASS sm_XY runs on the same major with minor >= Y (tf_compute.json notes).
  // The newest matching SASS is what the CUDA runtime picks (sm_89 over sm_80 on 8.9).
  std::optional<Version> best;
  for (const auto& s : sass) {
    auto v = Version::parse(s);
    if (v && v->major() == cc.major() && v->minor() <= cc.minor() && (!best || *v > *best)) best = v;
  }
  if (best) {
    support = KernelSupport::kSass;
    detail = "sm_" + std::to_string(best->major()) + std::to_string(best->minor()) + " SASS";
    detail_message = detail;  // no words to translate
    return;
  }
  // PTX compute_XY is JIT-compiled for any CC >= X.Y.
  for (const auto& p : ptx) {
    auto v = Version::parse(p);
    if (v && cc >= *v) {
      support = KernelSupport::kPtxJit;
      // TRANSLATORS: {} is a PTX target ("compute_90").
      core::Message m(N_("PTX {} only (JIT)"), "compute_" + std::to_string(v->major()) + std::to_string(v->minor()));
      detail = core::render(m, core::i18n::language());
      detail_message = std::move(m);
      return;
    }
  }
  support = KernelSupport::kNone;
  // TRANSLATORS: {0} is a list of kernel targets ("sm_60, sm_70, compute_90"), {1} a compute capability ("3.7").
  core::Message m(N_("the wheel has {0} and nothing for {1}"), targets_text(sass, ptx), cc.text());
  detail = core::render(m, core::i18n::language());
  detail_message = std::move(m);
}

}  // namespace

std::optional<KernelVerdict> kernel_support_from_targets(const std::vector<std::string>& targets, const Version& cc) {
  std::vector<std::string> sass, ptx;
  for (const auto& t : targets) {
    const bool is_sass = core::starts_with(t, "sm_");
    const bool is_ptx = core::starts_with(t, "compute_");
    if (!is_sass && !is_ptx) continue;
    std::string digits = t.substr(is_sass ? 3 : 8);
    // "sm_89" -> "8.9", "sm_100" -> "10.0": the last digit is the minor.
    if (digits.size() < 2 || !std::all_of(digits.begin(), digits.end(),
                                          [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; })) {
      continue;
    }
    const std::string version = digits.substr(0, digits.size() - 1) + "." + digits.substr(digits.size() - 1);
    // compute_XY builds sm_XY SASS as well as PTX (TF's cuda_configure.bzl,
    // _compute_cuda_extra_copts; data/reference/tf_compute_capabilities.yaml notes).
    sass.push_back(version);
    if (is_ptx) ptx.push_back(version);
  }
  if (sass.empty() && ptx.empty()) return std::nullopt;
  KernelVerdict out;
  judge_list(sass, ptx, cc, out.support, out.detail, out.detail_message);
  out.uncertain = false;
  out.from_build_info = true;
  out.targets = targets_text(sass, ptx);
  return out;
}

core::Message kernel_list_check_hint_message() {
  return core::Message(N_(
      // TRANSLATORS: keep the command and the file path in English.
      "check on the machine: `python3 -c \"import tensorflow as tf; print(tf.sysconfig.get_build_info()['cuda_compute_capabilities'])\"`, "
      "or run `tfrig doctor`, which reads the installed wheel's tensorflow/python/platform/build_info.py (authoritative)"));
}

std::string kernel_list_check_hint() { return core::render(kernel_list_check_hint_message(), core::i18n::language()); }

KernelVerdict Knowledge::kernel_support(const Version& tf, const Version& cc) const {
  KernelVerdict out;
  const auto& min_cc = tf_min_cc_;
  if (min_cc && cc < *min_cc) {
    out.support = KernelSupport::kBelowMinimum;
    core::Message m(N_("below TensorFlow's minimum compute capability {}"), tf_min_capability_);
    out.detail = core::render(m, core::i18n::language());
    out.detail_message = std::move(m);
    out.uncertain = false;
    return out;
  }
  const TfCompute* row = compute_for(tf);
  out.row = row;
  if (!row || (row->sass.empty() && row->ptx.empty())) {
    out.support = KernelSupport::kUnknown;
    core::Message m = row && row->documented_minimum
                          ? core::Message(N_("documented minimum {}"), *row->documented_minimum)
                          : core::Message(N_("the compiled list of this release is not known"));
    out.detail = core::render(m, core::i18n::language());
    out.detail_message = std::move(m);
    return out;
  }
  out.uncertain = row->uncertain;
  out.targets = targets_text(row->sass, row->ptx);
  judge_list(row->sass, row->ptx, cc, out.support, out.detail, out.detail_message);
  // An uncertain row's other candidates: the first one that answers
  // differently is kept, so every output can name both outcomes.
  for (const auto& alt : row->alternatives) {
    KernelSupport s = KernelSupport::kUnknown;
    std::string d;
    core::MessageArg dm = std::string();
    judge_list(alt.sass, alt.ptx, cc, s, d, dm);
    if (s != out.support || d != out.detail) {
      out.alternative = s;
      out.alternative_detail = d;
      out.alternative_detail_message = std::move(dm);
      out.alternative_targets = targets_text(alt.sass, alt.ptx);
      break;
    }
  }
  return out;
}

std::string_view verification_name(Verification v) { return kVerificationNames.name(v, "none"); }

bool MeasurementSource::cites(std::string_view row_source) const {
  if (is_thread()) {
    // https://github.com/OWNER/REPO/issues/N, then "#<comment>" or a note naming "@<author>".
    const std::string thread_url = "https://github.com/" + repo + "/" + thread;
    if (row_source.substr(0, thread_url.size()) != thread_url) return false;
    const std::string_view rest = row_source.substr(thread_url.size());
    if (!rest.empty() && rest.front() != '#' && rest.front() != ' ') return false;  // issues/67 is not issues/671
    if (!comment.empty()) {
      const std::string anchor = "#" + comment;
      if (rest.substr(0, anchor.size()) != anchor) return false;
      const std::string_view after = rest.substr(anchor.size());
      return after.empty() || after.front() == ' ';
    }
    if (!rest.empty() && rest.front() == '#') return false;
    const std::string by = "@" + author;
    for (size_t at = rest.find(by); at != std::string_view::npos; at = rest.find(by, at + 1)) {
      const size_t end = at + by.size();
      if (end == rest.size() || !(std::isalnum(static_cast<unsigned char>(rest[end])) || rest[end] == '-')) return true;
    }
    return false;
  }
  if (path.empty() || commit.size() < 8) return false;
  if (row_source.find(commit.substr(0, 8)) == std::string_view::npos) return false;
  // The path as written, or as a URL writes it (a space is %20); it must be a
  // whole path: after "/", ":" or at the start, and not followed by more of a name.
  std::string encoded;
  for (char ch : path) encoded += ch == ' ' ? std::string("%20") : std::string(1, ch);
  for (const std::string& p : {path, encoded}) {
    for (size_t at = row_source.find(p); at != std::string_view::npos; at = row_source.find(p, at + 1)) {
      const bool starts = at == 0 || row_source[at - 1] == '/' || row_source[at - 1] == ':';
      const size_t end = at + p.size();
      const bool ends = end == row_source.size() || row_source[end] == ' ' || row_source[end] == '#' ||
                        row_source[end] == '@' || row_source[end] == '?';
      if (starts && ends) return true;
    }
  }
  return false;
}

const MeasurementSource* find_measurement_source(const std::vector<MeasurementSource>& sources,
                                                 std::string_view row_source) {
  for (const auto& s : sources) {
    if (s.cites(row_source)) return &s;
  }
  return nullptr;
}

const MeasurementSource* Knowledge::measurement_source_for(std::string_view row_source) const {
  return find_measurement_source(measurement_sources_, row_source);
}

std::optional<DriverMinimum> Knowledge::min_driver_for_cuda(const Version& cuda) const {
  // 10.x: per minor; 11+: the major's minor-version-compatibility minimum.
  for (const auto& d : driver_minimums_) {
    if (d.minor_version_compatibility) continue;
    auto v = Version::parse(d.cuda);
    if (v && v->major() == cuda.major() && v->minor() == cuda.minor()) return d;
  }
  for (const auto& d : driver_minimums_) {
    if (!d.minor_version_compatibility) continue;
    auto v = Version::parse(d.cuda);
    if (v && v->major() == cuda.major()) return d;
  }
  return std::nullopt;
}

std::optional<std::string> Knowledge::newest_cuda_major_for_driver(const Version& driver) const {
  std::optional<Version> best;
  for (const auto& d : driver_minimums_) {
    if (!d.min_linux) continue;
    auto min = Version::parse(*d.min_linux);
    auto c = Version::parse(d.cuda);
    if (!min || !c || driver < *min) continue;
    if (!best || *c > *best) best = c;
  }
  if (!best) return std::nullopt;
  return best->text();
}

const ArchitectureSupport* Knowledge::architecture_support(int cc_major) const {
  for (const auto& a : architectures_) {
    if (a.cc_major == cc_major) return &a;
  }
  return nullptr;
}

namespace {

bool same_tokens(const std::vector<std::string>& a, const std::vector<std::string>& b) { return a == b; }

// Every token of `part` appears in `whole`.
bool subset(const std::vector<std::string>& part, const std::vector<std::string>& whole) {
  if (part.empty()) return false;
  for (const auto& t : part) {
    if (std::find(whole.begin(), whole.end(), t) == whole.end()) return false;
  }
  return true;
}

}  // namespace

std::optional<GpuMatch> Knowledge::find_gpu_by_pci_id(uint32_t device_id) const {
  for (const auto& g : gpus_) {
    if (std::find(g.pci_device_ids.begin(), g.pci_device_ids.end(), device_id) != g.pci_device_ids.end()) {
      return GpuMatch{&g, g.name, g.architecture, g.compute_capability, g.confidence == "low", "gpus.json:" + g.id};
    }
  }
  return std::nullopt;
}

std::optional<GpuMatch> Knowledge::find_gpu(std::string_view query) const {
  const std::string q(core::trim(query));
  if (q.empty()) return std::nullopt;
  // "10de:20b2" or "0x20b2": a PCI device id.
  if (auto colon = q.find(':'); colon != std::string::npos) {
    if (auto id = core::parse_hex(q.substr(colon + 1))) return find_gpu_by_pci_id(static_cast<uint32_t>(*id));
    return std::nullopt;
  }
  if (core::starts_with(q, "0x") || core::starts_with(q, "0X")) {
    if (auto id = core::parse_hex(q)) return find_gpu_by_pci_id(static_cast<uint32_t>(*id));
    return std::nullopt;
  }
  const auto tokens = gpu_name_tokens(q);
  auto catalog_match = [](const GpuSpec& g) {
    return GpuMatch{&g, g.name, g.architecture, g.compute_capability, g.confidence == "low", "gpus.json:" + g.id};
  };
  auto cc_match = [](const CcRow& r, const std::string& name) {
    return GpuMatch{nullptr, name,        r.architecture,
                    r.cc,    r.uncertain, "gpus.json:compute_capabilities (" + r.source + ")"};
  };
  // The token lists made at load: [gpu][0] its name, [gpu][1..] its aliases; [row][k] the row's k-th name.
  const auto& gt = gpu_tokens_;
  const auto& ct = cc_tokens_;
  // 1. The exact name or an NVML alias.
  for (size_t i = 0; i < gpus_.size(); ++i) {
    for (const auto& t : gt[i]) {
      if (same_tokens(t, tokens)) return catalog_match(gpus_[i]);
    }
  }
  for (size_t i = 0; i < cc_rows_.size(); ++i) {
    for (size_t k = 0; k < cc_rows_[i].names.size(); ++k) {
      if (same_tokens(ct[i][k], tokens)) return cc_match(cc_rows_[i], cc_rows_[i].names[k]);
    }
  }
  // 2. A longer name that contains a known one ("NVIDIA RTX 6000 Ada Generation"):
  //    the most specific known name wins.
  const GpuSpec* best_spec = nullptr;
  size_t best_len = 0;
  for (size_t i = 0; i < gpus_.size(); ++i) {
    for (size_t k = 1; k < gt[i].size(); ++k) {  // the aliases
      const auto& at = gt[i][k];
      if (at.size() > best_len && subset(at, tokens)) {
        best_spec = &gpus_[i];
        best_len = at.size();
      }
    }
  }
  if (best_spec) return catalog_match(*best_spec);
  const CcRow* best_row = nullptr;
  std::string best_name;
  for (size_t i = 0; i < cc_rows_.size(); ++i) {
    for (size_t k = 0; k < cc_rows_[i].names.size(); ++k) {
      const auto& nt = ct[i][k];
      if (nt.size() > best_len && subset(nt, tokens)) {
        best_row = &cc_rows_[i];
        best_name = cc_rows_[i].names[k];
        best_len = nt.size();
      }
    }
  }
  if (best_row) return cc_match(*best_row, best_name);
  // 3. A short query ("A100", "rtx 4090"): the first known name containing it.
  for (size_t i = 0; i < gpus_.size(); ++i) {
    for (const auto& t : gt[i]) {
      if (subset(tokens, t)) return catalog_match(gpus_[i]);
    }
  }
  for (size_t i = 0; i < cc_rows_.size(); ++i) {
    for (size_t k = 0; k < cc_rows_[i].names.size(); ++k) {
      if (subset(tokens, ct[i][k])) return cc_match(cc_rows_[i], cc_rows_[i].names[k]);
    }
  }
  // 4. A bare PCI device id ("20b2").
  if (q.size() == 4) {
    if (auto id = core::parse_hex(q)) return find_gpu_by_pci_id(static_cast<uint32_t>(*id));
  }
  return std::nullopt;
}

const Fact* Knowledge::fact(std::string_view key) const {
  auto it = facts_.find(key);
  return it == facts_.end() ? nullptr : &it->second;
}

const SetupFacts& Knowledge::setup() const {
  static const SetupFacts kNone;
  return setup_ ? *setup_ : kNone;
}

double Knowledge::number(std::string_view key, double fallback) const {
  const Fact* f = fact(key);
  return f && f->value.is_number() ? f->value.get<double>() : fallback;
}

std::string Knowledge::text(std::string_view key, std::string fallback) const {
  const Fact* f = fact(key);
  return f && f->value.is_string() ? f->value.get<std::string>() : fallback;
}

}  // namespace tfrig::knowledge
