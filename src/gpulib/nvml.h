// NVML (the NVIDIA Management Library) loaded with dlopen, declared by hand.
//
// Only what tfrig reads is declared, written from NVIDIA's public "NVML API
// Reference Guide" (docs.nvidia.com/deploy/nvml-api/). No NVIDIA header is
// needed to build, and a machine without the driver still runs tfrig.
//
// Loading: TFRIG_NVML_LIBRARY when set (tests point it at the replaying fake
// in tests/fake_nvml/), else the driver's soname libnvidia-ml.so.1, else the
// development symlink libnvidia-ml.so. Required symbols fail the load naming
// the symbol; optional ones leave their fields unknown. Versioned entry points
// are tried newest first (nvmlInit_v2 before nvmlInit, ...). Each entry point
// is declared once, in gpulib/nvml_entry_points.h.
// NVML_ERROR_NOT_SUPPORTED means "this GPU or driver cannot say": unknown,
// never a failure.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "core/message.h"

namespace tfrig::gpulib {

// ---- Our own declarations of the NVML C ABI (nvml.h in the reference). ----
namespace nvml {

using Return = int;  // nvmlReturn_t
struct DeviceSt;
using Device = DeviceSt*;  // nvmlDevice_t

// nvmlReturn_t values (NVML API Reference, "Error reporting").
constexpr Return kSuccess = 0;
constexpr Return kErrorUninitialized = 1;
constexpr Return kErrorInvalidArgument = 2;
constexpr Return kErrorNotSupported = 3;
constexpr Return kErrorNoPermission = 4;
constexpr Return kErrorNotFound = 6;
constexpr Return kErrorInsufficientSize = 7;
constexpr Return kErrorDriverNotLoaded = 9;
constexpr Return kErrorLibraryNotFound = 12;
constexpr Return kErrorFunctionNotFound = 13;
constexpr Return kErrorGpuIsLost = 15;
constexpr Return kErrorLibRmVersionMismatch = 18;
constexpr Return kErrorNoData = 21;
constexpr Return kErrorGpuNotFound = 28;
constexpr Return kErrorUnknown = 999;

// Buffer sizes (NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80,
// NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE = 80, NVML_DEVICE_NAME_V2_BUFFER_SIZE
// = 96, NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96, NVML_DEVICE_SERIAL_BUFFER_SIZE = 30).
constexpr unsigned kVersionBufferSize = 80;
constexpr unsigned kNameBufferSize = 96;
constexpr unsigned kUuidBufferSize = 96;
constexpr unsigned kSerialBufferSize = 30;

// NVML_NVLINK_MAX_LINKS (18 since Hopper).
constexpr unsigned kNvLinkMaxLinks = 18;

// nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it.
struct PciInfo {
  char bus_id_legacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pci_device_id;  // device id << 16 | vendor id
  unsigned int pci_sub_system_id;
  char bus_id[32];
};

// nvmlMemory_t (v1) and nvmlMemory_v2_t.
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
struct MemoryV2 {
  unsigned int version;  // sizeof(MemoryV2) | 2 << 24 (NVML_STRUCT_VERSION)
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
};
constexpr unsigned int kMemoryV2Version = static_cast<unsigned int>(sizeof(MemoryV2)) | (2u << 24);

// nvmlProcessInfo_v1_t; v2 and v3 add the MIG instance ids.
struct ProcessInfoV1 {
  unsigned int pid;
  unsigned long long used_gpu_memory;
};
struct ProcessInfoV2 {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};

// nvmlUtilization_t: percent of the last sample period (1/6 s to 1 s,
// product-dependent) during which a kernel ran / device memory was read or
// written (NVML API Reference, nvmlUtilization_t).
struct Utilization {
  unsigned int gpu;
  unsigned int memory;
};
// nvmlPcieUtilCounter_t for nvmlDeviceGetPcieThroughput (KB/s over a 20 ms
// window, NVML API Reference).
constexpr int kPcieUtilTxBytes = 0;
constexpr int kPcieUtilRxBytes = 1;

// nvmlEnableState_t
constexpr int kFeatureDisabled = 0;
constexpr int kFeatureEnabled = 1;
// nvmlTemperatureSensors_t
constexpr int kTemperatureGpu = 0;
// nvmlClockType_t
constexpr int kClockSm = 1;
constexpr int kClockMem = 2;
// nvmlMemoryErrorType_t / nvmlEccCounterType_t
constexpr int kMemoryErrorCorrected = 0;
constexpr int kMemoryErrorUncorrected = 1;
constexpr int kVolatileEcc = 0;
constexpr int kAggregateEcc = 1;
// nvmlPageRetirementCause_t
constexpr int kRetiredMultipleSingleBit = 0;
constexpr int kRetiredDoubleBit = 1;
// nvmlComputeMode_t
constexpr int kComputeDefault = 0;
constexpr int kComputeExclusiveThread = 1;
constexpr int kComputeProhibited = 2;
constexpr int kComputeExclusiveProcess = 3;
// nvmlGpuTopologyLevel_t
constexpr int kTopologyInternal = 0;
constexpr int kTopologySingle = 10;
constexpr int kTopologyMultiple = 20;
constexpr int kTopologyHostbridge = 30;
constexpr int kTopologyNode = 40;
constexpr int kTopologySystem = 50;
// nvmlGpuP2PCapsIndex_t / nvmlGpuP2PStatus_t
constexpr int kP2pCapsRead = 0;
constexpr int kP2pStatusOk = 0;
// nvmlIntNvLinkDeviceType_t
constexpr int kNvLinkDeviceGpu = 0;
constexpr int kNvLinkDeviceIbmNpu = 1;
constexpr int kNvLinkDeviceSwitch = 2;
// nvmlDeviceArchitecture_t
constexpr unsigned kArchKepler = 2;
constexpr unsigned kArchMaxwell = 3;
constexpr unsigned kArchPascal = 4;
constexpr unsigned kArchVolta = 5;
constexpr unsigned kArchTuring = 6;
constexpr unsigned kArchAmpere = 7;
constexpr unsigned kArchAda = 8;
constexpr unsigned kArchHopper = 9;
constexpr unsigned kArchBlackwell = 10;

}  // namespace nvml

// Why NVML could not be used. Names match inventory::NvmlStatus::state.
enum class NvmlFailure {
  kLibraryMissing,   // no libnvidia-ml on the loader path (no driver installed)
  kSymbolMissing,    // a required entry point is absent (library too old or not NVML)
  kDriverMismatch,   // NVML_ERROR_LIB_RM_VERSION_MISMATCH: user space and kernel module differ
  kNoPermission,     // NVML_ERROR_NO_PERMISSION: /dev/nvidia* not accessible
  kDriverNotLoaded,  // NVML_ERROR_DRIVER_NOT_LOADED: the kernel module is not loaded
  kNoDevice,         // init worked, zero GPUs
  kError,            // anything else, with NVML's own message
};
std::string failure_state_name(NvmlFailure failure);

// detail is the English (the inventory's text); message the same as a
// core::Message, so a report renders it in its reader's language.
struct NvmlError {
  NvmlFailure failure = NvmlFailure::kError;
  std::string detail;  // names the library, the symbol or NVML's error string
  core::Message message;

  NvmlError() = default;
  NvmlError(NvmlFailure f, core::Message m) : failure(f), detail(core::english(m)), message(std::move(m)) {}
};

// core::Result with NVML's own error: the kind of failure becomes the
// inventory's nvml state (and the probe's absent/error), so it is kept
// rather than folded into core::ErrorCode.
template <class T>
using NvmlResult = tl::expected<T, NvmlError>;

// NVML's nvmlErrorString text for a return code, or our own name when the
// library is not loaded (tests and messages).
std::string return_code_name(nvml::Return rc);

// One loaded and initialised NVML. Not copyable; shuts NVML down and closes
// the library when destroyed. Every getter returns nullopt when NVML says
// NOT_SUPPORTED (unknown) and also records any other error in problems().
class Nvml {
 public:
  struct Symbols;

  // Loads and calls nvmlInit. `library_override` replaces the soname search.
  static NvmlResult<std::unique_ptr<Nvml>> open(const std::optional<std::string>& library_override);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  const std::string& library_path() const { return library_path_; }
  double init_seconds() const { return init_seconds_; }
  const std::vector<std::string>& problems() const { return problems_; }

  std::optional<std::string> driver_version();
  std::optional<std::string> nvml_version();
  // nvmlSystemGetCudaDriverVersion: 12020 -> "12.2".
  std::optional<std::string> cuda_driver_version();
  // Device count; an error here is a whole-probe failure.
  NvmlResult<unsigned> device_count();
  std::optional<nvml::Device> handle(unsigned index);

  std::optional<std::string> name(nvml::Device d);
  std::optional<std::string> uuid(nvml::Device d);
  std::optional<std::string> serial(nvml::Device d);
  std::optional<nvml::PciInfo> pci_info(nvml::Device d);
  std::optional<unsigned> architecture(nvml::Device d);
  std::optional<std::pair<int, int>> compute_capability(nvml::Device d);
  // total and used bytes
  std::optional<std::pair<uint64_t, uint64_t>> memory(nvml::Device d);
  std::optional<unsigned> power_limit_milliwatts(nvml::Device d);
  std::optional<unsigned> temperature(nvml::Device d);
  std::optional<unsigned> clock(nvml::Device d, int type);
  std::optional<unsigned> max_clock(nvml::Device d, int type);
  // Sampled by tfrig watch: utilisation percentages, PCIe KB/s per counter
  // (kPcieUtilTxBytes / kPcieUtilRxBytes), board power draw in milliwatts.
  std::optional<nvml::Utilization> utilization(nvml::Device d);
  std::optional<unsigned> pcie_throughput_kbps(nvml::Device d, int counter);
  std::optional<unsigned> power_usage_milliwatts(nvml::Device d);
  std::optional<bool> persistence_mode(nvml::Device d);
  std::optional<std::pair<bool, bool>> ecc_mode(nvml::Device d);  // current, pending
  std::optional<uint64_t> ecc_errors(nvml::Device d, int error_type, int counter_type);
  std::optional<unsigned> retired_pages(nvml::Device d, int cause);
  std::optional<bool> retired_pages_pending(nvml::Device d);
  struct RemappedRows {
    unsigned correctable = 0;
    unsigned uncorrectable = 0;
    bool pending = false;
    bool failure = false;
  };
  std::optional<RemappedRows> remapped_rows(nvml::Device d);
  std::optional<std::pair<bool, bool>> mig_mode(nvml::Device d);  // current, pending
  std::optional<unsigned> pcie_link_gen(nvml::Device d, bool max);
  std::optional<unsigned> pcie_link_width(nvml::Device d, bool max);
  std::optional<unsigned> numa_node(nvml::Device d);
  std::optional<std::vector<int>> cpu_affinity(nvml::Device d, unsigned cpu_count);
  std::optional<int> compute_mode(nvml::Device d);
  // count and the memory they hold (compute + graphics processes)
  std::optional<std::pair<int, uint64_t>> processes(nvml::Device d);
  std::optional<bool> nvlink_active(nvml::Device d, unsigned link);
  std::optional<nvml::PciInfo> nvlink_remote_pci(nvml::Device d, unsigned link);
  std::optional<int> nvlink_remote_type(nvml::Device d, unsigned link);
  std::optional<unsigned> nvlink_version(nvml::Device d, unsigned link);
  std::optional<int> topology_common_ancestor(nvml::Device a, nvml::Device b);
  std::optional<bool> p2p_read(nvml::Device a, nvml::Device b);

 private:
  Nvml() = default;
  // Records a failed call: NOT_SUPPORTED and friends are silent, the rest
  // become problems ("nvmlDeviceGetTemperature(gpu 0): GPU is lost").
  bool ok(nvml::Return rc, const char* call);

  void* handle_ = nullptr;
  std::unique_ptr<Symbols> sym_;
  bool initialised_ = false;
  std::string library_path_;
  double init_seconds_ = 0;
  std::vector<std::string> problems_;
};

}  // namespace tfrig::gpulib
