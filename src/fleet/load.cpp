#include "fleet/load.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "core/i18n.h"
#include "core/input_file.h"
#include "core/sysroot.h"
#include "core/text.h"
#include "codec/gzip.h"
#include "importer/importer.h"
#include "inventory/json_fields.h"
#include "probe/probe.h"

namespace tfrig::fleet {

namespace fs = std::filesystem;

// ---- The fast snapshot reader (read_snapshot_fast, load.h) ----

namespace {

namespace od = simdjson::ondemand;

// nlohmann-json has no depth limit of its own (its parser keeps a stack on
// the heap); this walk recurses, so deeper documents go to nlohmann instead.
constexpr int kMaxWalkDepth = 256;

// A value fleet does not use (a doctor report's findings, a field a newer
// tfrig added): walked to the end, so that the document is known to be
// valid JSON as nlohmann-json would read it. On-Demand alone skips such a
// value by counting brackets and would take `[1 2]` or `tru` inside it.
bool walk_checked(od::value v, int depth) {
  if (depth > kMaxWalkDepth) return false;
  od::json_type type;
  if (v.type().get(type) != simdjson::SUCCESS) return false;
  switch (type) {
    case od::json_type::object: {
      od::object obj;
      if (v.get_object().get(obj) != simdjson::SUCCESS) return false;
      for (auto item : obj) {
        od::field f;
        std::string_view key;
        if (std::move(item).get(f) != simdjson::SUCCESS || f.unescaped_key().get(key) != simdjson::SUCCESS)
          return false;
        if (!walk_checked(f.value(), depth + 1)) return false;
      }
      return true;
    }
    case od::json_type::array: {
      od::array arr;
      if (v.get_array().get(arr) != simdjson::SUCCESS) return false;
      for (auto item : arr) {
        od::value element;
        // NOLINTNEXTLINE(performance-move-const-arg): get() is &&-qualified; the move is what calls it.
        if (std::move(item).get(element) != simdjson::SUCCESS || !walk_checked(element, depth + 1)) return false;
      }
      return true;
    }
    case od::json_type::number: {
      // A number beyond a double (1e400) fails here as in nlohmann-json; an
      // integer beyond 64 bits fails here only (nlohmann reads it as a double).
      od::number n;
      return v.get_number().get(n) == simdjson::SUCCESS;
    }
    case od::json_type::string: {
      std::string_view s;
      return v.get_string().get(s) == simdjson::SUCCESS;
    }
    case od::json_type::boolean: {
      bool b = false;
      return v.get_bool().get(b) == simdjson::SUCCESS;
    }
    case od::json_type::null: {
      bool is_null = false;
      return v.is_null().get(is_null) == simdjson::SUCCESS && is_null;
    }
  }
  return false;
}

// Scalars, with the checks of inventory/json_optional.h: a whole number from
// 0 to the type's maximum, a finite double from 0. Anything nlohmann would
// read differently (a bool read as 0/1, 3.0 as an int, -0) is refused here
// and left to it.
bool read_value(od::value v, std::string& out) {
  std::string_view s;
  if (v.get_string().get(s) != simdjson::SUCCESS) return false;
  out.assign(s);
  return true;
}

bool read_value(od::value v, bool& out) { return v.get_bool().get(out) == simdjson::SUCCESS; }

template <class T>
bool read_whole(od::value v, T& out) {
  uint64_t u = 0;
  if (v.get_uint64().get(u) != simdjson::SUCCESS) return false;
  if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) return false;
  out = static_cast<T>(u);
  return true;
}

bool read_value(od::value v, int& out) { return read_whole(v, out); }
bool read_value(od::value v, uint32_t& out) { return read_whole(v, out); }
bool read_value(od::value v, uint64_t& out) { return read_whole(v, out); }

bool read_value(od::value v, double& out) {
  double d = 0;
  if (v.get_double().get(d) != simdjson::SUCCESS) return false;
  // signbit: -0 is 0 to nlohmann when written as an integer, -0.0 when not.
  if (!std::isfinite(d) || std::signbit(d)) return false;
  out = d;
  return true;
}

// Every struct reader is declared before the templates that call them.
#define TFRIG_FLEET_DECLARE_READER(Type) bool read_value(od::value v, inventory::Type& out);
TFRIG_FLEET_DECLARE_READER(HostInfo)
TFRIG_FLEET_DECLARE_READER(NumaNode)
TFRIG_FLEET_DECLARE_READER(CpuFlags)
TFRIG_FLEET_DECLARE_READER(CpuInfo)
TFRIG_FLEET_DECLARE_READER(MemoryInfo)
TFRIG_FLEET_DECLARE_READER(BlockDevice)
TFRIG_FLEET_DECLARE_READER(Mount)
TFRIG_FLEET_DECLARE_READER(DataPath)
TFRIG_FLEET_DECLARE_READER(StorageInfo)
TFRIG_FLEET_DECLARE_READER(PciDevice)
TFRIG_FLEET_DECLARE_READER(PciInfo)
TFRIG_FLEET_DECLARE_READER(Limit)
TFRIG_FLEET_DECLARE_READER(LimitsConfEntry)
TFRIG_FLEET_DECLARE_READER(LimitsInfo)
TFRIG_FLEET_DECLARE_READER(ConfiguredSource)
TFRIG_FLEET_DECLARE_READER(RegionInfo)
TFRIG_FLEET_DECLARE_READER(NvLink)
TFRIG_FLEET_DECLARE_READER(Gpu)
TFRIG_FLEET_DECLARE_READER(GpuPair)
TFRIG_FLEET_DECLARE_READER(DeviceNode)
TFRIG_FLEET_DECLARE_READER(NvmlStatus)
TFRIG_FLEET_DECLARE_READER(XidEvent)
TFRIG_FLEET_DECLARE_READER(DriverInfo)
TFRIG_FLEET_DECLARE_READER(CudaLibrary)
TFRIG_FLEET_DECLARE_READER(CudaToolkit)
TFRIG_FLEET_DECLARE_READER(CudaInfo)
TFRIG_FLEET_DECLARE_READER(PackageVersion)
TFRIG_FLEET_DECLARE_READER(TensorFlowInstall)
TFRIG_FLEET_DECLARE_READER(PythonEnvironment)
TFRIG_FLEET_DECLARE_READER(PythonInfo)
TFRIG_FLEET_DECLARE_READER(ContainerInfo)
TFRIG_FLEET_DECLARE_READER(Inventory)
#undef TFRIG_FLEET_DECLARE_READER

// null is unknown; anything else is read as T.
template <class T>
bool read_value(od::value v, std::optional<T>& out) {
  od::json_type type;
  if (v.type().get(type) != simdjson::SUCCESS) return false;
  if (type == od::json_type::null) {
    bool is_null = false;
    if (v.is_null().get(is_null) != simdjson::SUCCESS || !is_null) return false;
    out.reset();
    return true;
  }
  T value{};
  if (!read_value(v, value)) return false;
  out = std::move(value);
  return true;
}

template <class T>
bool read_value(od::value v, std::vector<T>& out) {
  od::array arr;
  if (v.get_array().get(arr) != simdjson::SUCCESS) return false;
  out.clear();  // a key given twice: the last one counts, as in nlohmann-json
  for (auto item : arr) {
    od::value element;
    // NOLINTNEXTLINE(performance-move-const-arg): get() is &&-qualified; the move is what calls it.
    if (std::move(item).get(element) != simdjson::SUCCESS) return false;
    T value{};
    if (!read_value(element, value)) return false;
    out.push_back(std::move(value));
  }
  return true;
}

// One object into a struct: its known keys into their members, every other
// key walked and checked. The struct starts from its defaults, like
// nlohmann's _WITH_DEFAULT reading (a key given twice: the last one counts).
// A key against a member's name: sizes first, then a memcmp of a constant
// length the compiler inlines (string_view's == went through an out-of-line
// compare for every field of every key: 4% of `tfrig fleet`).
#define TFRIG_FLEET_READ_FIELD(member)                                                                   \
  if (key.size() == sizeof(#member) - 1 && std::memcmp(key.data(), #member, sizeof(#member) - 1) == 0) { \
    if (!read_value(f.value(), out.member)) return false;                                                \
    continue;                                                                                            \
  }
#define TFRIG_FLEET_DEFINE_READER(Type, FIELDS)                                                           \
  bool read_value(od::value v, inventory::Type& out) {                                                    \
    od::object obj;                                                                                       \
    if (v.get_object().get(obj) != simdjson::SUCCESS) return false;                                       \
    out = inventory::Type{};                                                                              \
    for (auto item : obj) {                                                                               \
      od::field f;                                                                                        \
      std::string_view key;                                                                               \
      if (std::move(item).get(f) != simdjson::SUCCESS || f.unescaped_key().get(key) != simdjson::SUCCESS) \
        return false;                                                                                     \
      NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(TFRIG_FLEET_READ_FIELD, FIELDS))                           \
      if (!walk_checked(f.value(), 1)) return false;                                                      \
    }                                                                                                     \
    return true;                                                                                          \
  }

TFRIG_FLEET_DEFINE_READER(HostInfo, TFRIG_INVENTORY_FIELDS_HostInfo)
TFRIG_FLEET_DEFINE_READER(NumaNode, TFRIG_INVENTORY_FIELDS_NumaNode)
TFRIG_FLEET_DEFINE_READER(CpuFlags, TFRIG_INVENTORY_FIELDS_CpuFlags)
TFRIG_FLEET_DEFINE_READER(CpuInfo, TFRIG_INVENTORY_FIELDS_CpuInfo)
TFRIG_FLEET_DEFINE_READER(MemoryInfo, TFRIG_INVENTORY_FIELDS_MemoryInfo)
TFRIG_FLEET_DEFINE_READER(BlockDevice, TFRIG_INVENTORY_FIELDS_BlockDevice)
TFRIG_FLEET_DEFINE_READER(Mount, TFRIG_INVENTORY_FIELDS_Mount)
TFRIG_FLEET_DEFINE_READER(DataPath, TFRIG_INVENTORY_FIELDS_DataPath)
TFRIG_FLEET_DEFINE_READER(StorageInfo, TFRIG_INVENTORY_FIELDS_StorageInfo)
TFRIG_FLEET_DEFINE_READER(PciDevice, TFRIG_INVENTORY_FIELDS_PciDevice)
TFRIG_FLEET_DEFINE_READER(PciInfo, TFRIG_INVENTORY_FIELDS_PciInfo)
TFRIG_FLEET_DEFINE_READER(LimitsConfEntry, TFRIG_INVENTORY_FIELDS_LimitsConfEntry)
TFRIG_FLEET_DEFINE_READER(LimitsInfo, TFRIG_INVENTORY_FIELDS_LimitsInfo)
TFRIG_FLEET_DEFINE_READER(ConfiguredSource, TFRIG_INVENTORY_FIELDS_ConfiguredSource)
TFRIG_FLEET_DEFINE_READER(RegionInfo, TFRIG_INVENTORY_FIELDS_RegionInfo)
TFRIG_FLEET_DEFINE_READER(NvLink, TFRIG_INVENTORY_FIELDS_NvLink)
TFRIG_FLEET_DEFINE_READER(Gpu, TFRIG_INVENTORY_FIELDS_Gpu)
TFRIG_FLEET_DEFINE_READER(GpuPair, TFRIG_INVENTORY_FIELDS_GpuPair)
TFRIG_FLEET_DEFINE_READER(DeviceNode, TFRIG_INVENTORY_FIELDS_DeviceNode)
TFRIG_FLEET_DEFINE_READER(NvmlStatus, TFRIG_INVENTORY_FIELDS_NvmlStatus)
TFRIG_FLEET_DEFINE_READER(XidEvent, TFRIG_INVENTORY_FIELDS_XidEvent)
TFRIG_FLEET_DEFINE_READER(DriverInfo, TFRIG_INVENTORY_FIELDS_DriverInfo)
TFRIG_FLEET_DEFINE_READER(CudaLibrary, TFRIG_INVENTORY_FIELDS_CudaLibrary)
TFRIG_FLEET_DEFINE_READER(CudaToolkit, TFRIG_INVENTORY_FIELDS_CudaToolkit)
TFRIG_FLEET_DEFINE_READER(CudaInfo, TFRIG_INVENTORY_FIELDS_CudaInfo)
TFRIG_FLEET_DEFINE_READER(PackageVersion, TFRIG_INVENTORY_FIELDS_PackageVersion)
TFRIG_FLEET_DEFINE_READER(TensorFlowInstall, TFRIG_INVENTORY_FIELDS_TensorFlowInstall)
TFRIG_FLEET_DEFINE_READER(PythonEnvironment, TFRIG_INVENTORY_FIELDS_PythonEnvironment)
TFRIG_FLEET_DEFINE_READER(PythonInfo, TFRIG_INVENTORY_FIELDS_PythonInfo)
TFRIG_FLEET_DEFINE_READER(ContainerInfo, TFRIG_INVENTORY_FIELDS_ContainerInfo)
TFRIG_FLEET_DEFINE_READER(Inventory, TFRIG_INVENTORY_FIELDS_Inventory)
#undef TFRIG_FLEET_DEFINE_READER
#undef TFRIG_FLEET_READ_FIELD

// A limit's value (inventory/json.cpp): null, "unlimited" or a whole number.
bool read_limit_value(od::value v, std::optional<uint64_t>& out) {
  od::json_type type;
  if (v.type().get(type) != simdjson::SUCCESS) return false;
  if (type == od::json_type::string) {
    std::string_view s;
    if (v.get_string().get(s) != simdjson::SUCCESS || s != "unlimited") return false;
    out = inventory::Limit::kUnlimited;
    return true;
  }
  return read_value(v, out);
}

bool read_value(od::value v, inventory::Limit& out) {
  od::object obj;
  if (v.get_object().get(obj) != simdjson::SUCCESS) return false;
  out = inventory::Limit{};
  for (auto item : obj) {
    od::field f;
    std::string_view key;
    if (std::move(item).get(f) != simdjson::SUCCESS || f.unescaped_key().get(key) != simdjson::SUCCESS) return false;
    if (key == "soft") {
      if (!read_limit_value(f.value(), out.soft)) return false;
    } else if (key == "hard") {
      if (!read_limit_value(f.value(), out.hard)) return false;
    } else if (!walk_checked(f.value(), 1)) {
      return false;
    }
  }
  return true;
}

// One entry of "probes", as report_from_json reads it.
bool read_probe(od::value v, probe::ProbeStatus& out) {
  od::object obj;
  if (v.get_object().get(obj) != simdjson::SUCCESS) return false;
  out = probe::ProbeStatus{};
  std::string state;  // report_from_json: a missing state is "", which is no state
  for (auto item : obj) {
    od::field f;
    std::string_view key;
    if (std::move(item).get(f) != simdjson::SUCCESS || f.unescaped_key().get(key) != simdjson::SUCCESS) return false;
    bool ok = true;
    if (key == "id") {
      ok = read_value(f.value(), out.id);
    } else if (key == "state") {
      ok = read_value(f.value(), state);
    } else if (key == "detail") {
      ok = read_value(f.value(), out.detail);
    } else if (key == "seconds") {
      // Read without a range check by report_from_json (a plain double).
      double d = 0;
      ok = f.value().get_double().get(d) == simdjson::SUCCESS && std::isfinite(d) && !(d == 0 && std::signbit(d));
      out.seconds = d;
    } else if (key == "problems") {
      ok = read_value(f.value(), out.problems);
    } else {
      ok = walk_checked(f.value(), 1);
    }
    if (!ok) return false;
  }
  const auto parsed = probe::state_from_name(state);
  if (!parsed) return false;
  out.state = *parsed;
  return true;
}

bool read_probes(od::value v, std::vector<probe::ProbeStatus>& out) {
  od::array arr;
  if (v.get_array().get(arr) != simdjson::SUCCESS) return false;
  out.clear();
  for (auto item : arr) {
    od::value element;
    // NOLINTNEXTLINE(performance-move-const-arg): get() is &&-qualified; the move is what calls it.
    if (std::move(item).get(element) != simdjson::SUCCESS) return false;
    probe::ProbeStatus s;
    if (!read_probe(element, s)) return false;
    out.push_back(std::move(s));
  }
  return true;
}

// Documents up to this size share one parser per thread (its buffers stay,
// about 6 bytes per byte); larger ones get a parser of their own, freed after.
constexpr size_t kSharedParserBytes = size_t{1} << 20;

std::optional<report::Report> read_document(od::parser& parser, const std::string& text, size_t size) {
  od::document doc;
  if (parser.iterate(simdjson::padded_string_view(text.data(), size, text.size())).get(doc) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  od::object root;
  if (doc.get_object().get(root) != simdjson::SUCCESS) return std::nullopt;
  report::Report r;
  std::optional<int64_t> schema;
  bool have_inventory = false;
  for (auto item : root) {
    od::field f;
    std::string_view key;
    if (std::move(item).get(f) != simdjson::SUCCESS || f.unescaped_key().get(key) != simdjson::SUCCESS)
      return std::nullopt;
    bool ok = true;
    if (key == "schema_version") {
      int64_t s = 0;
      ok = f.value().get_int64().get(s) == simdjson::SUCCESS;
      schema = s;
    } else if (key == "tool_version") {
      ok = read_value(f.value(), r.tool_version);
    } else if (key == "generated_at") {
      ok = read_value(f.value(), r.generated_at);
    } else if (key == "root") {
      ok = read_value(f.value(), r.root);
    } else if (key == "source") {
      ok = read_value(f.value(), r.source);
    } else if (key == "inventory") {
      ok = read_value(f.value(), r.inventory);
      have_inventory = true;
    } else if (key == "probes") {
      ok = read_probes(f.value(), r.probes);
    } else {
      ok = walk_checked(f.value(), 1);
    }
    if (!ok) return std::nullopt;
  }
  // Nothing may follow the object ("{...} x" is not JSON to nlohmann either).
  if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS) return std::nullopt;
  // report_from_json's checks; it names what is wrong.
  if (!schema || *schema < 1 || *schema > 1'000'000 || !have_inventory) return std::nullopt;
  r.schema_version = static_cast<int>(*schema);
  return r;
}

}  // namespace

std::optional<report::Report> read_snapshot_fast(std::string& text) {
  const size_t size = text.size();
  if (size > kMaxFastBytes) return std::nullopt;
  // simdjson reads up to SIMDJSON_PADDING bytes past the end; zeros, given
  // back when done.
  text.append(simdjson::SIMDJSON_PADDING, '\0');
  std::optional<report::Report> r;
  if (size <= kSharedParserBytes) {
    thread_local od::parser shared;
    r = read_document(shared, text, size);
  } else {
    od::parser own;
    r = read_document(own, text, size);
  }
  text.resize(size);
  return r;
}

// ---- Reading the inputs ----

namespace {

// The suffixes a directory's files are taken by, longest first (so that
// node_name strips ".log.gz" whole).
const std::vector<std::string_view> kSuffixes = {".json.gz", ".log.gz", ".json", ".log", ".xml", ".txt", ".gz"};

// A snapshot is tens of kB; the largest real bug report in tests/data is
// 17.6 MB of text, which the importer's own limit covers.
constexpr size_t kMaxFileBytes = importer::kMaxTextBytes;

// Through core::read_input_file: a device is refused and a FIFO without a
// writer reads as empty (an ifstream blocked on one, and read 256 MiB of
// /dev/zero before giving up).
// Room for simdjson's padding after the text (read_snapshot_fast), so that
// appending it does not copy the whole document to a larger buffer.
core::Result<std::string> read_bytes(const std::string& path) {
  return core::read_input_file(path, kMaxFileBytes, simdjson::SIMDJSON_PADDING);
}

bool looks_like_json(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    return c == '{';
  }
  return false;
}

core::Message newer_schema_note(int schema) {
  return core::Message(N_("schema {0} is newer than this tfrig's ({1}): read the fields it knows"), schema,
                       inventory::kSchemaVersion);
}

// simdjson first (fleet/snapshot_reader.h); a document it does not take,
// above all a broken one, is read by nlohmann-json, whose errors say where
// and what was expected.
core::Result<report::Report> snapshot_from_text(const std::string& file, std::string& text,
                                                std::vector<core::Message>& notes) {
  if (auto fast = read_snapshot_fast(text)) {
    if (fast->schema_version > inventory::kSchemaVersion) notes.push_back(newer_schema_note(fast->schema_version));
    return std::move(*fast);
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return core::fail(core::ErrorCode::kParse,
                      core::Message(N_("{0}: {1}"), file, core::Message(N_("byte {}"), e.byte)),
                      core::Message(N_("not valid JSON: {}"), e.what()));
  } catch (const nlohmann::json::exception& e) {  // out_of_range.406: a number beyond a double (1e400)
    return core::fail(core::ErrorCode::kParse, file, core::Message(N_("not valid JSON: {}"), e.what()));
  }
  // A newer tfrig's snapshot still compares on the fields this one knows:
  // adding fields is not a schema bump (inventory.h), so what a newer schema
  // changed is at most a few facts, which then show as drift or unknown.
  std::optional<int> newer_schema;
  if (j.is_object() && j.contains("schema_version") && j["schema_version"].is_number_unsigned() &&
      j["schema_version"].get<uint64_t>() > static_cast<uint64_t>(inventory::kSchemaVersion) &&
      j["schema_version"].get<uint64_t>() <= 1'000'000) {  // the range report_from_json reads
    newer_schema = j["schema_version"].get<int>();
    notes.push_back(newer_schema_note(*newer_schema));
    j["schema_version"] = inventory::kSchemaVersion;
  }
  auto r = report::report_from_json(j);
  if (!r) {
    core::Error err = r.error();
    err.where = file + (err.where.empty() ? "" : ": " + err.where);
    if (!err.place.empty()) err.place = core::Message(N_("{0}: {1}"), file, err.place);
    return tl::unexpected(err);
  }
  if (newer_schema) r->schema_version = *newer_schema;
  return r;
}

}  // namespace

core::Result<std::vector<std::string>> list_inputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const auto& in : inputs) {
    std::error_code ec;
    const auto st = fs::status(in, ec);
    if (ec || !fs::exists(st)) return core::fail(core::ErrorCode::kNotFound, in, _("no such file or directory"));
    if (!fs::is_directory(st)) {
      files.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(in, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.empty() || name[0] == '.') continue;
      std::error_code ec2;
      // A subdirectory is one machine described by several files (a bug
      // report with a `topo -m` matrix, a capture's outputs): one node.
      if (entry.is_directory(ec2)) {
        found.push_back(entry.path().string());
        continue;
      }
      if (!entry.is_regular_file(ec2)) continue;
      const bool taken =
          std::any_of(kSuffixes.begin(), kSuffixes.end(), [&](std::string_view s) { return core::ends_with(name, s); });
      if (taken) found.push_back(entry.path().string());
    }
    if (ec) return tl::unexpected(core::errno_error(ec.value(), in, "list"));
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

std::string node_name(const std::string& file) {
  std::string name = fs::path(file).filename().string();
  for (auto s : kSuffixes) {
    if (name.size() > s.size() && core::ends_with(name, s)) {
      name.resize(name.size() - s.size());
      break;
    }
  }
  return name;
}

core::Result<report::Report> read_report(const std::string& file, std::vector<core::Message>& notes) {
  std::error_code ec;
  if (fs::is_directory(file, ec)) {
    std::vector<std::string> parts;
    for (const auto& entry : fs::directory_iterator(file, ec)) {
      const std::string name = entry.path().filename().string();
      std::error_code ec2;
      if (!name.empty() && name[0] != '.' && entry.is_regular_file(ec2)) parts.push_back(entry.path().string());
    }
    if (ec) return tl::unexpected(core::errno_error(ec.value(), file, "list"));
    if (parts.empty())
      return core::fail(core::ErrorCode::kNotFound, file,
                        core::Message(N_("an empty directory (expected one machine's files)")));
    std::sort(parts.begin(), parts.end());
    notes.push_back(
        core::Message::plural(NP_("imported from {} file", "imported from {} files"), parts.size(), parts.size()));
    return importer::import_files(parts);
  }
  auto bytes = read_bytes(file);
  if (!bytes) return tl::unexpected(bytes.error());
  std::string text;
  if (codec::is_gzip(*bytes)) {
    auto plain = codec::gunzip(*bytes, kMaxFileBytes);
    if (!plain && !plain.error().text.empty()) {
      return core::fail(plain.error().code, file + ": " + plain.error().where, plain.error().text);
    }
    if (!plain) return core::fail(plain.error().code, file + ": " + plain.error().where, plain.error().message);
    text = std::move(*plain);
  } else {
    text = std::move(*bytes);
  }
  if (looks_like_json(text)) {
    auto r = snapshot_from_text(file, text, notes);
    if (r) r->source = "snapshot:" + file;
    return r;
  }
  const auto kind = importer::detect_kind(text);
  auto r = importer::import_inputs({importer::Input{file, std::move(text)}});
  if (r) notes.push_back(core::Message(N_("imported from {} output"), importer::kind_name(kind)));
  return r;
}

core::Result<Node> load_node(const std::string& file, const knowledge::Knowledge& k, const LoadOptions& options) {
  std::vector<core::Message> notes;
  auto r = read_report(file, notes);
  if (!r) return tl::unexpected(r.error());
  Node n = summarize_node(*r, k, options.tf);
  n.name = node_name(file);
  n.file = file;
  n.source = core::starts_with(r->source, "snapshot:") ? "snapshot" : "import";
  n.notes = std::move(notes);
  return n;
}

Loaded load_nodes(const std::vector<std::string>& files, const knowledge::Knowledge& k, const LoadOptions& options) {
  std::vector<std::optional<Node>> nodes(files.size());
  std::vector<std::optional<core::Error>> errors(files.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < files.size(); i = next++) {
      auto n = load_node(files[i], k, options);
      if (n) {
        nodes[i] = std::move(*n);
      } else {
        errors[i] = n.error();
      }
    }
  };
  // Reading is CPU-bound (JSON parsing, the rules): more threads than cores
  // only add memory, one document each.
  constexpr unsigned kMaxJobs = 256;
  unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<size_t>({jobs, kMaxJobs, std::max<size_t>(files.size(), 1)}));
  {
    // The caller is worker 0; the others join when this scope ends (also
    // when a worker throws, where std::thread would call std::terminate).
    std::vector<std::jthread> threads;
    for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
    worker();
  }

  // Two files with one name (a/node1.json, b/node1.json): name both by path.
  std::map<std::string, int> seen;
  for (const auto& f : files) ++seen[node_name(f)];
  Loaded out;
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string name = seen[node_name(files[i])] > 1 ? files[i] : node_name(files[i]);
    if (nodes[i]) {
      nodes[i]->name = name;
      out.nodes.push_back(std::move(*nodes[i]));
    } else {
      const core::Error& e = *errors[i];
      out.unreadable.push_back(Unreadable{name, files[i], e.to_string(),
                                          core::error_message(e).value_or(core::Message("{}", e.to_string()))});
    }
  }
  return out;
}

}  // namespace tfrig::fleet
