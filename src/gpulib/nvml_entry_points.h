// Every NVML entry point tfrig calls, declared once: the member that holds
// it, whether the load fails without it, its C signature as the NVML API
// Reference Guide (docs.nvidia.com/deploy/nvml-api/) declares it, and the
// exported names tried, newest first. NVML versions an entry point by adding
// a _vN export with the same arguments (a newer struct layout behind the same
// pointer; tfrig always passes the newest size), so one signature serves a
// row's names. gpulib/nvml.cpp expands the table into its function pointers
// and their dlsym lookups; tests/gpulib/nvml_decls_test.cpp checks every
// signature against NVIDIA's nvml.h where a CUDA toolkit is installed.
//
// The signature is written in parentheses (it has commas); `nvml::` types
// come from gpulib/nvml.h.
#pragma once

// X(member, required, (return_type(argument_types...)), name, fallback names...)
#define TFRIG_NVML_ENTRY_POINTS(X)                                                                                    \
  X(init, true, (Return()), nvmlInit_v2, nvmlInit)                                                                    \
  X(shutdown, true, (Return()), nvmlShutdown)                                                                         \
  X(error_string, true, (const char*(Return)), nvmlErrorString)                                                       \
  X(device_count, true, (Return(unsigned*)), nvmlDeviceGetCount_v2, nvmlDeviceGetCount)                               \
  X(handle_by_index, true, (Return(unsigned, Device*)), nvmlDeviceGetHandleByIndex_v2, nvmlDeviceGetHandleByIndex)    \
  X(system_driver_version, true, (Return(char*, unsigned)), nvmlSystemGetDriverVersion)                               \
  X(system_nvml_version, false, (Return(char*, unsigned)), nvmlSystemGetNVMLVersion)                                  \
  X(system_cuda_driver_version, false, (Return(int*)), nvmlSystemGetCudaDriverVersion_v2,                             \
    nvmlSystemGetCudaDriverVersion)                                                                                   \
  X(name, false, (Return(Device, char*, unsigned)), nvmlDeviceGetName)                                                \
  X(uuid, false, (Return(Device, char*, unsigned)), nvmlDeviceGetUUID)                                                \
  X(serial, false, (Return(Device, char*, unsigned)), nvmlDeviceGetSerial)                                            \
  X(pci_info, false, (Return(Device, nvml::PciInfo*)), nvmlDeviceGetPciInfo_v3, nvmlDeviceGetPciInfo_v2,              \
    nvmlDeviceGetPciInfo)                                                                                             \
  X(architecture, false, (Return(Device, unsigned*)), nvmlDeviceGetArchitecture)                                      \
  X(compute_capability, false, (Return(Device, int*, int*)), nvmlDeviceGetCudaComputeCapability)                      \
  X(memory_v2, false, (Return(Device, nvml::MemoryV2*)), nvmlDeviceGetMemoryInfo_v2)                                  \
  X(memory_v1, false, (Return(Device, nvml::Memory*)), nvmlDeviceGetMemoryInfo)                                       \
  X(power_limit, false, (Return(Device, unsigned*)), nvmlDeviceGetEnforcedPowerLimit,                                 \
    nvmlDeviceGetPowerManagementLimit)                                                                                \
  X(temperature, false, (Return(Device, int, unsigned*)), nvmlDeviceGetTemperature)                                   \
  X(clock_info, false, (Return(Device, int, unsigned*)), nvmlDeviceGetClockInfo)                                      \
  X(max_clock_info, false, (Return(Device, int, unsigned*)), nvmlDeviceGetMaxClockInfo)                               \
  X(persistence_mode, false, (Return(Device, int*)), nvmlDeviceGetPersistenceMode)                                    \
  X(ecc_mode, false, (Return(Device, int*, int*)), nvmlDeviceGetEccMode)                                              \
  X(total_ecc_errors, false, (Return(Device, int, int, unsigned long long*)), nvmlDeviceGetTotalEccErrors)            \
  X(retired_pages, false, (Return(Device, int, unsigned*, unsigned long long*)), nvmlDeviceGetRetiredPages)           \
  X(retired_pages_pending, false, (Return(Device, int*)), nvmlDeviceGetRetiredPagesPendingStatus)                     \
  X(remapped_rows, false, (Return(Device, unsigned*, unsigned*, unsigned*, unsigned*)), nvmlDeviceGetRemappedRows)    \
  X(mig_mode, false, (Return(Device, unsigned*, unsigned*)), nvmlDeviceGetMigMode)                                    \
  X(curr_link_gen, false, (Return(Device, unsigned*)), nvmlDeviceGetCurrPcieLinkGeneration)                           \
  X(max_link_gen, false, (Return(Device, unsigned*)), nvmlDeviceGetMaxPcieLinkGeneration)                             \
  X(curr_link_width, false, (Return(Device, unsigned*)), nvmlDeviceGetCurrPcieLinkWidth)                              \
  X(max_link_width, false, (Return(Device, unsigned*)), nvmlDeviceGetMaxPcieLinkWidth)                                \
  X(numa_node, false, (Return(Device, unsigned*)), nvmlDeviceGetNumaNodeId)                                           \
  X(cpu_affinity, false, (Return(Device, unsigned, unsigned long*)), nvmlDeviceGetCpuAffinity)                        \
  X(compute_mode, false, (Return(Device, int*)), nvmlDeviceGetComputeMode)                                            \
  /* Process lists: _v3 and _v2 fill ProcessInfoV2, the unversioned export ProcessInfoV1. */                          \
  X(compute_procs_v2, false, (Return(Device, unsigned*, nvml::ProcessInfoV2*)),                                       \
    nvmlDeviceGetComputeRunningProcesses_v3, nvmlDeviceGetComputeRunningProcesses_v2)                                 \
  X(compute_procs_v1, false, (Return(Device, unsigned*, nvml::ProcessInfoV1*)), nvmlDeviceGetComputeRunningProcesses) \
  X(graphics_procs_v2, false, (Return(Device, unsigned*, nvml::ProcessInfoV2*)),                                      \
    nvmlDeviceGetGraphicsRunningProcesses_v3, nvmlDeviceGetGraphicsRunningProcesses_v2)                               \
  X(graphics_procs_v1, false, (Return(Device, unsigned*, nvml::ProcessInfoV1*)),                                      \
    nvmlDeviceGetGraphicsRunningProcesses)                                                                            \
  X(nvlink_state, false, (Return(Device, unsigned, int*)), nvmlDeviceGetNvLinkState)                                  \
  X(nvlink_remote_pci, false, (Return(Device, unsigned, nvml::PciInfo*)), nvmlDeviceGetNvLinkRemotePciInfo_v2,        \
    nvmlDeviceGetNvLinkRemotePciInfo)                                                                                 \
  X(nvlink_remote_type, false, (Return(Device, unsigned, int*)), nvmlDeviceGetNvLinkRemoteDeviceType)                 \
  X(nvlink_version, false, (Return(Device, unsigned, unsigned*)), nvmlDeviceGetNvLinkVersion)                         \
  X(topology_common_ancestor, false, (Return(Device, Device, int*)), nvmlDeviceGetTopologyCommonAncestor)             \
  X(p2p_status, false, (Return(Device, Device, int, int*)), nvmlDeviceGetP2PStatus)                                   \
  /* tfrig watch, sampled every interval. */                                                                          \
  X(utilization, false, (Return(Device, nvml::Utilization*)), nvmlDeviceGetUtilizationRates)                          \
  X(pcie_throughput, false, (Return(Device, int, unsigned*)), nvmlDeviceGetPcieThroughput)                            \
  X(power_usage, false, (Return(Device, unsigned*)), nvmlDeviceGetPowerUsage)

namespace tfrig::gpulib::nvml {

// The function pointer type of a parenthesised signature:
// EntryPointer<void(Return(Device, int*))>::type is Return (*)(Device, int*)
// (a function type as a parameter becomes a pointer to it).
template <class T>
struct EntryPointer;
template <class P>
struct EntryPointer<void(P)> {
  using type = P;
};

}  // namespace tfrig::gpulib::nvml

#define TFRIG_NVML_POINTER(signature) typename ::tfrig::gpulib::nvml::EntryPointer<void signature>::type

// The exported names of a row as strings (up to three; NVML has had at most a
// _v3 of any entry point tfrig reads).
#define TFRIG_NVML_NAME_1(a) #a
#define TFRIG_NVML_NAME_2(a, b) #a, #b
#define TFRIG_NVML_NAME_3(a, b, c) #a, #b, #c
#define TFRIG_NVML_PICK(_1, _2, _3, chosen, ...) chosen
#define TFRIG_NVML_NAMES(...) \
  TFRIG_NVML_PICK(__VA_ARGS__, TFRIG_NVML_NAME_3, TFRIG_NVML_NAME_2, TFRIG_NVML_NAME_1, unused)(__VA_ARGS__)
// The newest name of a row (the one NVIDIA's current nvml.h declares).
#define TFRIG_NVML_NEWEST(first, ...) first
