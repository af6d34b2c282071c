#include "inventory/json.h"

namespace tfrig::inventory {

// _WITH_DEFAULT: a key missing from an older snapshot reads as its default
// (null), so adding a field never breaks reading old files.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HostInfo, hostname, os_id, os_name, os_version_id, os_pretty_name,
                                                os_codename, kernel_release, kernel_version, architecture,
                                                virtualization, container, wsl)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(NumaNode, id, cpus, memory_total_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CpuFlags, avx, avx2, fma, avx512f, amx)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CpuInfo, vendor, model_name, sockets, physical_cores, threads,
                                                numa_nodes, flags, governor, base_mhz, max_mhz)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(MemoryInfo, total_bytes, available_bytes, swap_total_bytes,
                                                swap_used_bytes, swappiness, thp_enabled, thp_defrag,
                                                hugepages_total, hugepage_size_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BlockDevice, name, kind, rotational, transport, model, size_bytes,
                                                removable)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Mount, device, mount_point, fs_type, options, network, block_device)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DataPath, path, mount_point, fs_type, device, block_device,
                                                device_kind, network, error)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(StorageInfo, devices, mounts, data_paths)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PciDevice, address, vendor_id, device_id, subsystem_vendor_id,
                                                subsystem_device_id, class_code, class_name, vendor_name, driver,
                                                numa_node, link_speed_current_gts, link_speed_max_gts,
                                                link_width_current, link_width_max, is_gpu)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PciInfo, devices)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LimitsConfEntry, file, line, domain, type, item, value)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LimitsInfo, nofile, memlock, configured)

namespace {
nlohmann::json limit_value_to_json(const Opt<uint64_t>& v) {
  if (!v) return nullptr;
  if (*v == Limit::kUnlimited) return "unlimited";
  return *v;
}

Opt<uint64_t> limit_value_from_json(const nlohmann::json& j) {
  if (j.is_null()) return std::nullopt;
  if (j.is_string() && j.get<std::string>() == "unlimited") return Limit::kUnlimited;
  return j.get<uint64_t>();
}
}  // namespace

void to_json(nlohmann::json& j, const Limit& v) {
  j = nlohmann::json{{"soft", limit_value_to_json(v.soft)}, {"hard", limit_value_to_json(v.hard)}};
}

void from_json(const nlohmann::json& j, Limit& v) {
  v.soft = j.contains("soft") ? limit_value_from_json(j.at("soft")) : std::nullopt;
  v.hard = j.contains("hard") ? limit_value_from_json(j.at("hard")) : std::nullopt;
}

void to_json(nlohmann::json& j, const Inventory& v) {
  j = nlohmann::json::object();
  j["host"] = v.host;
  j["cpu"] = v.cpu;
  j["memory"] = v.memory;
  j["storage"] = v.storage;
  j["pci"] = v.pci;
  j["limits"] = v.limits;
}

void from_json(const nlohmann::json& j, Inventory& v) {
  v = Inventory{};
  if (j.contains("host")) j.at("host").get_to(v.host);
  if (j.contains("cpu")) j.at("cpu").get_to(v.cpu);
  if (j.contains("memory")) j.at("memory").get_to(v.memory);
  if (j.contains("storage")) j.at("storage").get_to(v.storage);
  if (j.contains("pci")) j.at("pci").get_to(v.pci);
  if (j.contains("limits")) j.at("limits").get_to(v.limits);
}

}  // namespace tfrig::inventory
