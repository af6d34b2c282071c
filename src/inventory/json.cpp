#include "inventory/json.h"

#include "core/i18n.h"

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
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ConfiguredSource, file, kind, host)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RegionInfo, locale, time_zone, sources)

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(NvLink, link, active, remote_pci_bus_id, remote_kind, version)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Gpu, index, source, name, uuid, serial, pci_bus_id, pci_device_id,
                                                architecture, compute_capability, memory_total_bytes,
                                                memory_used_bytes, power_limit_watts, temperature_celsius,
                                                clock_sm_mhz, clock_memory_mhz, clock_sm_max_mhz, persistence_mode,
                                                ecc_mode_current, ecc_mode_pending, ecc_errors_corrected_volatile,
                                                ecc_errors_uncorrected_volatile, ecc_errors_uncorrected_aggregate,
                                                retired_pages_count, retired_pages_pending, remapped_rows_correctable,
                                                remapped_rows_uncorrectable, remapped_rows_pending,
                                                remapped_rows_failure, mig_mode_current, mig_mode_pending,
                                                pcie_link_gen_current, pcie_link_gen_max, pcie_link_width_current,
                                                pcie_link_width_max, numa_node, cpu_affinity, compute_mode,
                                                process_count, process_memory_bytes, nvlinks, driver_problem, lost,
                                                lost_evidence, init_error)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GpuPair, gpu_a, gpu_b, level, p2p_read, nvlink)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DeviceNode, path, readable, writable)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(NvmlStatus, state, detail, library_path, init_seconds)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(XidEvent, xid, pci_bus_id, count, first_time, last_time, message,
                                                source)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DriverInfo, version, cuda_version, nvml_version, loaded,
                                                kernel_module_version, kernel_module_flavor, module_nvidia,
                                                module_nvidia_uvm, module_nvidia_drm, module_nouveau, device_nodes,
                                                nvml, nvidia_smi_error, xid_events)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CudaLibrary, family, soname, path, version, found_via, resolved,
                                                version_source)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CudaToolkit, path, version, version_source, link_target)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CudaInfo, libraries, toolkits)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PackageVersion, name, version)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TensorFlowInstall, distribution, version, built_cuda, built_cudnn,
                                                is_cuda_build, compute_capabilities, requires_python)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PythonEnvironment, prefix, kind, python_version, site_packages,
                                                tensorflow, keras_version, nvidia_wheels)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PythonInfo, environments)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ContainerInfo, docker_binary, podman_binary,
                                                docker_daemon_json_present, docker_runtimes, docker_default_runtime,
                                                nvidia_ctk, nvidia_container_runtime, nvidia_container_cli,
                                                libnvidia_container, cdi_specs, inside_container, visible_devices)

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
    throw nlohmann::json::type_error::create(302, "expected a non-negative integer or \"unlimited\", got " + j.dump(), &j);
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
  if (j.contains("limits")) for_each_in(j.at("limits"), "configured", [](const nlohmann::json& e) { check_whole(e, "line"); });
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
}

std::string fact_word(const std::string& stored) {
  if (stored == "none") return _("none");
  if (stored == "unknown") return _("unknown");
  // TRANSLATORS: the CPU says it runs under a hypervisor, but not which one.
  if (stored == "unknown hypervisor") return _("unknown hypervisor");
  return stored;
}

}  // namespace tfrig::inventory
