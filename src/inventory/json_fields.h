// The JSON keys of each inventory struct, one list per struct, so that the
// two readers of a snapshot cannot drift apart: nlohmann-json's (json.cpp,
// every reader) and simdjson's On-Demand one (fleet/snapshot_reader.cpp, the
// fast path of `tfrig fleet`). Each key is the member's name. A field added to
// a struct in inventory.h goes here and nowhere else.
#pragma once

// One line per group of keys, as a struct lists them; not reflowed.
// clang-format off
#define TFRIG_INVENTORY_FIELDS_HostInfo \
  hostname, os_id, os_name, os_version_id, os_pretty_name, os_codename, \
  kernel_release, kernel_version, architecture, virtualization, container, wsl

#define TFRIG_INVENTORY_FIELDS_NumaNode \
  id, cpus, memory_total_bytes

#define TFRIG_INVENTORY_FIELDS_CpuFlags \
  avx, avx2, fma, avx512f, amx

#define TFRIG_INVENTORY_FIELDS_CpuInfo \
  vendor, model_name, sockets, physical_cores, threads, numa_nodes, \
  flags, governor, base_mhz, max_mhz

#define TFRIG_INVENTORY_FIELDS_MemoryInfo \
  total_bytes, available_bytes, swap_total_bytes, swap_used_bytes, swappiness, thp_enabled, \
  thp_defrag, hugepages_total, hugepage_size_bytes

#define TFRIG_INVENTORY_FIELDS_BlockDevice \
  name, kind, rotational, transport, model, size_bytes, \
  removable

#define TFRIG_INVENTORY_FIELDS_Mount \
  device, mount_point, fs_type, options, network, block_device

#define TFRIG_INVENTORY_FIELDS_DataPath \
  path, mount_point, fs_type, device, block_device, device_kind, \
  network, error

#define TFRIG_INVENTORY_FIELDS_StorageInfo \
  devices, mounts, data_paths

#define TFRIG_INVENTORY_FIELDS_PciDevice \
  address, vendor_id, device_id, subsystem_vendor_id, subsystem_device_id, class_code, \
  class_name, vendor_name, driver, numa_node, link_speed_current_gts, link_speed_max_gts, \
  link_width_current, link_width_max, is_gpu

#define TFRIG_INVENTORY_FIELDS_PciInfo \
  devices

#define TFRIG_INVENTORY_FIELDS_LimitsConfEntry \
  file, line, domain, type, item, value

#define TFRIG_INVENTORY_FIELDS_LimitsInfo \
  nofile, memlock, configured

#define TFRIG_INVENTORY_FIELDS_ConfiguredSource \
  file, kind, host

#define TFRIG_INVENTORY_FIELDS_RegionInfo \
  locale, time_zone, sources

#define TFRIG_INVENTORY_FIELDS_NvLink \
  link, active, remote_pci_bus_id, remote_kind, version

#define TFRIG_INVENTORY_FIELDS_Gpu \
  index, source, name, uuid, serial, pci_bus_id, \
  pci_device_id, architecture, compute_capability, memory_total_bytes, memory_used_bytes, power_limit_watts, \
  temperature_celsius, clock_sm_mhz, clock_memory_mhz, clock_sm_max_mhz, persistence_mode, ecc_mode_current, \
  ecc_mode_pending, ecc_errors_corrected_volatile, ecc_errors_uncorrected_volatile, ecc_errors_uncorrected_aggregate, retired_pages_count, retired_pages_pending, \
  remapped_rows_correctable, remapped_rows_uncorrectable, remapped_rows_pending, remapped_rows_failure, mig_mode_current, mig_mode_pending, \
  pcie_link_gen_current, pcie_link_gen_max, pcie_link_width_current, pcie_link_width_max, numa_node, cpu_affinity, \
  compute_mode, process_count, process_memory_bytes, nvlinks, driver_problem, lost, \
  lost_evidence, init_error

#define TFRIG_INVENTORY_FIELDS_GpuPair \
  gpu_a, gpu_b, level, p2p_read, nvlink

#define TFRIG_INVENTORY_FIELDS_DeviceNode \
  path, readable, writable

#define TFRIG_INVENTORY_FIELDS_NvmlStatus \
  state, detail, library_path, init_seconds

#define TFRIG_INVENTORY_FIELDS_XidEvent \
  xid, pci_bus_id, count, first_time, last_time, message, \
  source

#define TFRIG_INVENTORY_FIELDS_DriverInfo \
  version, cuda_version, nvml_version, loaded, kernel_module_version, kernel_module_flavor, \
  module_nvidia, module_nvidia_uvm, module_nvidia_drm, module_nouveau, device_nodes, nvml, \
  nvidia_smi_error, xid_events

#define TFRIG_INVENTORY_FIELDS_CudaLibrary \
  family, soname, path, version, found_via, resolved, \
  version_source

#define TFRIG_INVENTORY_FIELDS_CudaToolkit \
  path, version, version_source, link_target

#define TFRIG_INVENTORY_FIELDS_CudaInfo \
  libraries, toolkits

#define TFRIG_INVENTORY_FIELDS_PackageVersion \
  name, version

#define TFRIG_INVENTORY_FIELDS_TensorFlowInstall \
  distribution, version, built_cuda, built_cudnn, is_cuda_build, compute_capabilities, \
  requires_python

#define TFRIG_INVENTORY_FIELDS_PythonEnvironment \
  prefix, kind, python_version, site_packages, tensorflow, keras_version, \
  nvidia_wheels

#define TFRIG_INVENTORY_FIELDS_PythonInfo \
  environments

#define TFRIG_INVENTORY_FIELDS_ContainerInfo \
  docker_binary, podman_binary, docker_daemon_json_present, docker_runtimes, docker_default_runtime, nvidia_ctk, \
  nvidia_container_runtime, nvidia_container_cli, libnvidia_container, cdi_specs, inside_container, visible_devices

// The sections of Inventory, as its own from_json (json.cpp) reads them, each
// when present; a section added there is added here.
#define TFRIG_INVENTORY_FIELDS_Inventory \
  host, cpu, memory, storage, pci, limits, gpus, gpu_topology, driver, cuda, python, containers, region
// clang-format on
