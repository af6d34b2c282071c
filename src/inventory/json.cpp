#include "inventory/json.h"

#include "core/i18n.h"
#include "core/message.h"

namespace tfrig::inventory {

// _WITH_DEFAULT: a key missing from an older snapshot reads as its default
// (null), so adding a field never breaks reading old files.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HostInfo, TFRIG_INVENTORY_FIELDS_HostInfo)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(NumaNode, TFRIG_INVENTORY_FIELDS_NumaNode)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CpuFlags, TFRIG_INVENTORY_FIELDS_CpuFlags)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CpuInfo, TFRIG_INVENTORY_FIELDS_CpuInfo)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(MemoryInfo, TFRIG_INVENTORY_FIELDS_MemoryInfo)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BlockDevice, TFRIG_INVENTORY_FIELDS_BlockDevice)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Mount, TFRIG_INVENTORY_FIELDS_Mount)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DataPath, TFRIG_INVENTORY_FIELDS_DataPath)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(StorageInfo, TFRIG_INVENTORY_FIELDS_StorageInfo)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PciDevice, TFRIG_INVENTORY_FIELDS_PciDevice)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PciInfo, TFRIG_INVENTORY_FIELDS_PciInfo)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LimitsConfEntry, TFRIG_INVENTORY_FIELDS_LimitsConfEntry)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LimitsInfo, TFRIG_INVENTORY_FIELDS_LimitsInfo)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ConfiguredSource, TFRIG_INVENTORY_FIELDS_ConfiguredSource)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RegionInfo, TFRIG_INVENTORY_FIELDS_RegionInfo)

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(NvLink, TFRIG_INVENTORY_FIELDS_NvLink)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Gpu, TFRIG_INVENTORY_FIELDS_Gpu)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GpuPair, TFRIG_INVENTORY_FIELDS_GpuPair)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DeviceNode, TFRIG_INVENTORY_FIELDS_DeviceNode)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(NvmlStatus, TFRIG_INVENTORY_FIELDS_NvmlStatus)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(XidEvent, TFRIG_INVENTORY_FIELDS_XidEvent)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DriverInfo, TFRIG_INVENTORY_FIELDS_DriverInfo)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CudaLibrary, TFRIG_INVENTORY_FIELDS_CudaLibrary)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CudaToolkit, TFRIG_INVENTORY_FIELDS_CudaToolkit)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CudaInfo, TFRIG_INVENTORY_FIELDS_CudaInfo)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PackageVersion, TFRIG_INVENTORY_FIELDS_PackageVersion)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TensorFlowInstall, TFRIG_INVENTORY_FIELDS_TensorFlowInstall)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PythonEnvironment, TFRIG_INVENTORY_FIELDS_PythonEnvironment)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PythonInfo, TFRIG_INVENTORY_FIELDS_PythonInfo)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ContainerInfo, TFRIG_INVENTORY_FIELDS_ContainerInfo)

namespace {
nlohmann::json limit_value_to_json(const Opt<uint64_t>& v) {
  if (!v) return nullptr;
  if (*v == Limit::kUnlimited) return "unlimited";
  return *v;
}

Opt<uint64_t> limit_value_from_json(const nlohmann::json& j) {
  if (j.is_null()) return std::nullopt;
  if (j.is_string() && j.get<std::string>() == "unlimited") return Limit::kUnlimited;
  if (!j.is_number_unsigned()) {
    throw nlohmann::json::type_error::create(302, "expected a non-negative integer or \"unlimited\", got " + j.dump(),
                                             &j);
  }
  return j.get<uint64_t>();
}
}  // namespace

void to_json(nlohmann::json& j, const Limit& v) {
  j = nlohmann::json{{"soft", limit_value_to_json(v.soft)}, {"hard", limit_value_to_json(v.hard)}};
}

void from_json(const nlohmann::json& j, Limit& v) {
  if (!j.is_object()) {
    throw nlohmann::json::type_error::create(302, "expected an object {soft, hard}, got " + j.dump(), &j);
  }
  v.soft = j.contains("soft") ? limit_value_from_json(j.at("soft")) : std::nullopt;
  v.hard = j.contains("hard") ? limit_value_from_json(j.at("hard")) : std::nullopt;
}

namespace {

// The messages beside a few English texts (set_text in inventory.h): written
// as "<field>_message" only when set, read back only when the message is one
// of tfrig's and says exactly the English text beside it (that text is the
// fact; a message that disagrees, or is not ours, is dropped, not an error).
// A snapshot without them (older than the messages) prints its English.
void put_message(nlohmann::json& obj, const char* key, const Opt<core::Message>& m) {
  if (m && obj.is_object()) obj[key] = core::message_to_json(*m);
}

Opt<core::Message> message_beside(const nlohmann::json& obj, const char* key, const std::string& english) {
  if (!obj.is_object() || !obj.contains(key)) return std::nullopt;
  auto m = core::message_from_json(obj.at(key));
  if (!m || !core::known_message(*m) || core::english(*m) != english) return std::nullopt;
  return m;
}

Opt<core::Message> message_beside(const nlohmann::json& obj, const char* key, const Opt<std::string>& english) {
  if (!english) return std::nullopt;
  return message_beside(obj, key, *english);
}

void put_messages(nlohmann::json& j, const Inventory& v) {
  put_message(j["driver"]["nvml"], "detail_message", v.driver.nvml.detail_message);
  for (size_t i = 0; i < v.gpus.size() && i < j["gpus"].size(); ++i) {
    put_message(j["gpus"][i], "driver_problem_message", v.gpus[i].driver_problem_message);
    put_message(j["gpus"][i], "lost_evidence_message", v.gpus[i].lost_evidence_message);
  }
  auto& paths = j["storage"]["data_paths"];
  for (size_t i = 0; i < v.storage.data_paths.size() && i < paths.size(); ++i) {
    put_message(paths[i], "error_message", v.storage.data_paths[i].error_message);
  }
}

void read_messages(const nlohmann::json& j, Inventory& v) {
  if (j.contains("driver") && j.at("driver").is_object() && j.at("driver").contains("nvml")) {
    auto& nvml = v.driver.nvml;
    nvml.detail_message = message_beside(j.at("driver").at("nvml"), "detail_message", nvml.detail);
  }
  if (j.contains("gpus") && j.at("gpus").is_array()) {
    const auto& gpus = j.at("gpus");
    for (size_t i = 0; i < v.gpus.size() && i < gpus.size(); ++i) {
      auto& g = v.gpus[i];
      g.driver_problem_message = message_beside(gpus[i], "driver_problem_message", g.driver_problem);
      g.lost_evidence_message = message_beside(gpus[i], "lost_evidence_message", g.lost_evidence);
    }
  }
  if (j.contains("storage") && j.at("storage").is_object() && j.at("storage").contains("data_paths") &&
      j.at("storage").at("data_paths").is_array()) {
    const auto& paths = j.at("storage").at("data_paths");
    for (size_t i = 0; i < v.storage.data_paths.size() && i < paths.size(); ++i) {
      auto& dp = v.storage.data_paths[i];
      dp.error_message = message_beside(paths[i], "error_message", dp.error);
    }
  }
}

}  // namespace

void to_json(nlohmann::json& j, const Inventory& v) {
  j = nlohmann::json::object();
  j["host"] = v.host;
  j["cpu"] = v.cpu;
  j["memory"] = v.memory;
  j["storage"] = v.storage;
  j["pci"] = v.pci;
  j["limits"] = v.limits;
  j["gpus"] = v.gpus;
  j["gpu_topology"] = v.gpu_topology;
  j["driver"] = v.driver;
  j["cuda"] = v.cuda;
  j["python"] = v.python;
  j["containers"] = v.containers;
  // Only when something was found: a machine (or import) without these files
  // reads as the system defaults (C locale, UTC), and its snapshot stays as before.
  if (!v.region.empty()) j["region"] = v.region;
  put_messages(j, v);
}

namespace {
// The few numbers that are plain ints (indexes, ids, line numbers, a count)
// get the same check as the optional ones, which json_optional.h does as
// they are read; these are read by nlohmann's unchecked cast.
template <class T = int>
void check_whole(const nlohmann::json& obj, const char* key) {
  if (obj.is_object() && obj.contains(key)) nlohmann::tfrig_detail::check_number_fits<T>(obj.at(key));
}

void check_each_whole(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || !obj.at(key).is_array()) return;
  for (const auto& n : obj.at(key)) nlohmann::tfrig_detail::check_number_fits<int>(n);
}

// Calls f on each element of obj[key] when it is an array.
template <class F>
void for_each_in(const nlohmann::json& obj, const char* key, F f) {
  if (!obj.is_object() || !obj.contains(key) || !obj.at(key).is_array()) return;
  for (const auto& e : obj.at(key)) f(e);
}

void check_plain_integers(const nlohmann::json& j) {
  if (j.contains("cpu")) {
    for_each_in(j.at("cpu"), "numa_nodes", [](const nlohmann::json& n) {
      check_whole(n, "id");
      check_each_whole(n, "cpus");
    });
  }
  if (j.contains("limits"))
    for_each_in(j.at("limits"), "configured", [](const nlohmann::json& e) { check_whole(e, "line"); });
  for_each_in(j, "gpus", [](const nlohmann::json& g) {
    check_whole(g, "index");
    check_each_whole(g, "cpu_affinity");
    for_each_in(g, "nvlinks", [](const nlohmann::json& l) { check_whole(l, "link"); });
  });
  for_each_in(j, "gpu_topology", [](const nlohmann::json& p) {
    check_whole(p, "gpu_a");
    check_whole(p, "gpu_b");
  });
  if (j.contains("driver")) {
    for_each_in(j.at("driver"), "xid_events", [](const nlohmann::json& x) {
      check_whole(x, "xid");
      check_whole<uint64_t>(x, "count");
    });
  }
}
}  // namespace

void from_json(const nlohmann::json& j, Inventory& v) {
  v = Inventory{};
  check_plain_integers(j);
  if (j.contains("host")) j.at("host").get_to(v.host);
  if (j.contains("cpu")) j.at("cpu").get_to(v.cpu);
  if (j.contains("memory")) j.at("memory").get_to(v.memory);
  if (j.contains("storage")) j.at("storage").get_to(v.storage);
  if (j.contains("pci")) j.at("pci").get_to(v.pci);
  if (j.contains("limits")) j.at("limits").get_to(v.limits);
  if (j.contains("gpus")) j.at("gpus").get_to(v.gpus);
  if (j.contains("gpu_topology")) j.at("gpu_topology").get_to(v.gpu_topology);
  if (j.contains("driver")) j.at("driver").get_to(v.driver);
  if (j.contains("cuda")) j.at("cuda").get_to(v.cuda);
  if (j.contains("python")) j.at("python").get_to(v.python);
  if (j.contains("containers")) j.at("containers").get_to(v.containers);
  if (j.contains("region")) j.at("region").get_to(v.region);
  read_messages(j, v);
}

Opt<core::Message> known_nvml_state(const std::string& state) {
  // TRANSLATORS: NVML states; English shows the inventory's key as it is.
  static const std::pair<const char*, const char*> kStates[] = {
      NC_("NVML state", "ok"),
      NC_("NVML state", "not_tried"),
      NC_("NVML state", "library_missing"),
      NC_("NVML state", "symbol_missing"),
      NC_("NVML state", "driver_mismatch"),
      NC_("NVML state", "no_permission"),
      NC_("NVML state", "driver_not_loaded"),
      NC_("NVML state", "no_device"),
      NC_("NVML state", "error"),
  };
  for (const auto& known : kStates) {
    if (state == known.second) return core::Message::in_context(known);
  }
  return std::nullopt;
}

core::MessageArg nvml_state_arg(const std::string& state) {
  if (auto m = known_nvml_state(state)) return std::move(*m);
  return state;
}

core::Message nvml_state_message(const std::string& state) {
  if (auto m = known_nvml_state(state)) return std::move(*m);
  return core::Message("{}", state);  // not a catalog pattern: the key shows as it is
}

std::string fact_word(const std::string& stored) {
  if (stored == "none") return _("none");
  if (stored == "unknown") return _("unknown");
  // TRANSLATORS: the CPU says it runs under a hypervisor, but not which one.
  if (stored == "unknown hypervisor") return _("unknown hypervisor");
  return stored;
}

}  // namespace tfrig::inventory
