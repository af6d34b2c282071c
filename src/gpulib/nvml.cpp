#include "gpulib/nvml.h"

#include <dlfcn.h>

#include <cstring>
#include <initializer_list>

#include "core/clock.h"
#include "core/log.h"

namespace tfrig::gpulib {

using nvml::Device;
using nvml::Return;

// Function pointer types, one per entry point, as the NVML reference
// declares them (all return nvmlReturn_t but nvmlErrorString).
struct Nvml::Symbols {
  Return (*init)() = nullptr;
  Return (*shutdown)() = nullptr;
  const char* (*error_string)(Return) = nullptr;
  Return (*system_driver_version)(char*, unsigned) = nullptr;
  Return (*system_nvml_version)(char*, unsigned) = nullptr;
  Return (*system_cuda_driver_version)(int*) = nullptr;
  Return (*device_count)(unsigned*) = nullptr;
  Return (*handle_by_index)(unsigned, Device*) = nullptr;
  Return (*name)(Device, char*, unsigned) = nullptr;
  Return (*uuid)(Device, char*, unsigned) = nullptr;
  Return (*serial)(Device, char*, unsigned) = nullptr;
  Return (*pci_info)(Device, nvml::PciInfo*) = nullptr;
  Return (*architecture)(Device, unsigned*) = nullptr;
  Return (*compute_capability)(Device, int*, int*) = nullptr;
  Return (*memory_v2)(Device, nvml::MemoryV2*) = nullptr;
  Return (*memory_v1)(Device, nvml::Memory*) = nullptr;
  Return (*power_limit)(Device, unsigned*) = nullptr;
  Return (*temperature)(Device, int, unsigned*) = nullptr;
  Return (*clock_info)(Device, int, unsigned*) = nullptr;
  Return (*max_clock_info)(Device, int, unsigned*) = nullptr;
  Return (*persistence_mode)(Device, int*) = nullptr;
  Return (*ecc_mode)(Device, int*, int*) = nullptr;
  Return (*total_ecc_errors)(Device, int, int, unsigned long long*) = nullptr;
  Return (*retired_pages)(Device, int, unsigned*, unsigned long long*) = nullptr;
  Return (*retired_pages_pending)(Device, int*) = nullptr;
  Return (*remapped_rows)(Device, unsigned*, unsigned*, unsigned*, unsigned*) = nullptr;
  Return (*mig_mode)(Device, unsigned*, unsigned*) = nullptr;
  Return (*curr_link_gen)(Device, unsigned*) = nullptr;
  Return (*max_link_gen)(Device, unsigned*) = nullptr;
  Return (*curr_link_width)(Device, unsigned*) = nullptr;
  Return (*max_link_width)(Device, unsigned*) = nullptr;
  Return (*numa_node)(Device, unsigned*) = nullptr;
  Return (*cpu_affinity)(Device, unsigned, unsigned long*) = nullptr;
  Return (*compute_mode)(Device, int*) = nullptr;
  // Process lists: v3/v2 fill ProcessInfoV2, the unversioned one ProcessInfoV1.
  Return (*compute_procs_v2)(Device, unsigned*, nvml::ProcessInfoV2*) = nullptr;
  Return (*graphics_procs_v2)(Device, unsigned*, nvml::ProcessInfoV2*) = nullptr;
  Return (*compute_procs_v1)(Device, unsigned*, nvml::ProcessInfoV1*) = nullptr;
  Return (*graphics_procs_v1)(Device, unsigned*, nvml::ProcessInfoV1*) = nullptr;
  Return (*nvlink_state)(Device, unsigned, int*) = nullptr;
  Return (*nvlink_remote_pci)(Device, unsigned, nvml::PciInfo*) = nullptr;
  Return (*nvlink_remote_type)(Device, unsigned, int*) = nullptr;
  Return (*nvlink_version)(Device, unsigned, unsigned*) = nullptr;
  Return (*topology_common_ancestor)(Device, Device, int*) = nullptr;
  Return (*p2p_status)(Device, Device, int, int*) = nullptr;
  // Added for tfrig watch (sampled every interval).
  Return (*utilization)(Device, nvml::Utilization*) = nullptr;
  Return (*pcie_throughput)(Device, int, unsigned*) = nullptr;
  Return (*power_usage)(Device, unsigned*) = nullptr;
};

std::string failure_state_name(NvmlFailure failure) {
  switch (failure) {
    case NvmlFailure::kLibraryMissing: return "library_missing";
    case NvmlFailure::kSymbolMissing: return "symbol_missing";
    case NvmlFailure::kDriverMismatch: return "driver_mismatch";
    case NvmlFailure::kNoPermission: return "no_permission";
    case NvmlFailure::kDriverNotLoaded: return "driver_not_loaded";
    case NvmlFailure::kNoDevice: return "no_device";
    case NvmlFailure::kError: return "error";
  }
  return "error";
}

std::string return_code_name(Return rc) {
  switch (rc) {
    case nvml::kSuccess: return "NVML_SUCCESS";
    case nvml::kErrorUninitialized: return "NVML_ERROR_UNINITIALIZED";
    case nvml::kErrorInvalidArgument: return "NVML_ERROR_INVALID_ARGUMENT";
    case nvml::kErrorNotSupported: return "NVML_ERROR_NOT_SUPPORTED";
    case nvml::kErrorNoPermission: return "NVML_ERROR_NO_PERMISSION";
    case nvml::kErrorNotFound: return "NVML_ERROR_NOT_FOUND";
    case nvml::kErrorInsufficientSize: return "NVML_ERROR_INSUFFICIENT_SIZE";
    case nvml::kErrorDriverNotLoaded: return "NVML_ERROR_DRIVER_NOT_LOADED";
    case nvml::kErrorLibraryNotFound: return "NVML_ERROR_LIBRARY_NOT_FOUND";
    case nvml::kErrorFunctionNotFound: return "NVML_ERROR_FUNCTION_NOT_FOUND";
    case nvml::kErrorGpuIsLost: return "NVML_ERROR_GPU_IS_LOST";
    case nvml::kErrorLibRmVersionMismatch: return "NVML_ERROR_LIB_RM_VERSION_MISMATCH";
    case nvml::kErrorNoData: return "NVML_ERROR_NO_DATA";
    case nvml::kErrorGpuNotFound: return "NVML_ERROR_GPU_NOT_FOUND";
    case nvml::kErrorUnknown: return "NVML_ERROR_UNKNOWN";
    default: return "NVML error " + std::to_string(rc);
  }
}

namespace {

// The driver installs libnvidia-ml.so.1; only the development package adds
// the unversioned symlink (NVML API Reference, "Linux": link against the
// versioned soname).
constexpr const char* kSonames[] = {"libnvidia-ml.so.1", "libnvidia-ml.so"};

template <class Fn>
bool resolve(void* lib, Fn& slot, std::initializer_list<const char*> names, const char** found) {
  for (const char* n : names) {
    dlerror();
    void* p = dlsym(lib, n);
    if (p != nullptr) {
      // A function pointer is not an object pointer in ISO C++; copy the bits.
      static_assert(sizeof(p) == sizeof(slot));
      std::memcpy(&slot, &p, sizeof(p));
      if (found != nullptr) *found = n;
      return true;
    }
    const char* err = dlerror();
    core::log(core::LogLevel::kDebug, "nvml: dlsym {}: {}", n, err != nullptr ? err : "not found");
  }
  return false;
}

// Answers that mean "this GPU/driver cannot say", not "something broke".
bool is_unknown(Return rc) {
  return rc == nvml::kErrorNotSupported || rc == nvml::kErrorNotFound || rc == nvml::kErrorNoData ||
         rc == nvml::kErrorFunctionNotFound || rc == nvml::kErrorInvalidArgument;
}

std::string c_string(const char* buf, size_t size) { return std::string(buf, strnlen(buf, size)); }

// What a failed nvmlInit means for the user: the return codes with a known
// cause get their own state and advice; `what` names the call and NVML's text.
NvmlError init_failure(Return rc, const std::string& what) {
  switch (rc) {
    case nvml::kErrorLibRmVersionMismatch:
      return {NvmlFailure::kDriverMismatch,
               what + ": the user-space driver library and the loaded kernel module are different versions "
                      "(driver upgraded without a reboot, or two drivers installed)"};
    case nvml::kErrorNoPermission:
      return {NvmlFailure::kNoPermission, what + ": this user cannot open /dev/nvidia*"};
    case nvml::kErrorDriverNotLoaded:
      return {NvmlFailure::kDriverNotLoaded, what + ": the nvidia kernel module is not loaded"};
    case nvml::kErrorGpuNotFound:
      return {NvmlFailure::kNoDevice, what};
    default:
      return {NvmlFailure::kError, what};
  }
}

}  // namespace

NvmlResult<std::unique_ptr<Nvml>> Nvml::open(const std::optional<std::string>& library_override) {
  std::unique_ptr<Nvml> n(new Nvml());
  n->sym_ = std::make_unique<Symbols>();
  std::vector<std::string> candidates;
  if (library_override && !library_override->empty()) {
    candidates.push_back(*library_override);
  } else {
    for (const char* s : kSonames) candidates.emplace_back(s);
  }
  std::string tried;
  for (const auto& c : candidates) {
    n->handle_ = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (n->handle_ != nullptr) break;
    const char* err = dlerror();
    core::log(core::LogLevel::kDebug, "nvml: dlopen {}: {}", c, err != nullptr ? err : "failed");
    if (!tried.empty()) tried += "; ";
    tried += err != nullptr ? err : c + ": failed";
  }
  if (n->handle_ == nullptr) {
    return tl::unexpected(NvmlError{
        NvmlFailure::kLibraryMissing,
        (library_override ? "TFRIG_NVML_LIBRARY " + *library_override + " could not be loaded: "
                          : std::string("libnvidia-ml.so.1 not found by the dynamic loader (no NVIDIA driver installed?): ")) +
            tried});
  }

  Symbols& s = *n->sym_;
  const char* init_name = nullptr;
  // Required: without these nothing can be listed.
  struct Required {
    bool ok;
    const char* what;
  };
  const Required required[] = {
      {resolve(n->handle_, s.init, {"nvmlInit_v2", "nvmlInit"}, &init_name), "nvmlInit_v2/nvmlInit"},
      {resolve(n->handle_, s.shutdown, {"nvmlShutdown"}, nullptr), "nvmlShutdown"},
      {resolve(n->handle_, s.error_string, {"nvmlErrorString"}, nullptr), "nvmlErrorString"},
      {resolve(n->handle_, s.device_count, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"}, nullptr),
       "nvmlDeviceGetCount_v2/nvmlDeviceGetCount"},
      {resolve(n->handle_, s.handle_by_index, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"}, nullptr),
       "nvmlDeviceGetHandleByIndex_v2/nvmlDeviceGetHandleByIndex"},
      {resolve(n->handle_, s.system_driver_version, {"nvmlSystemGetDriverVersion"}, nullptr), "nvmlSystemGetDriverVersion"},
  };
  // Where the library really is, for the report.
  Dl_info info{};
  void* any = nullptr;
  std::memcpy(&any, &s.init, sizeof(any));
  if (any != nullptr && dladdr(any, &info) != 0 && info.dli_fname != nullptr) {
    n->library_path_ = info.dli_fname;
  } else {
    n->library_path_ = candidates.front();
  }
  for (const auto& r : required) {
    if (!r.ok) {
      return tl::unexpected(NvmlError{NvmlFailure::kSymbolMissing, "required NVML entry point " + std::string(r.what) +
                                                                       " missing from " + n->library_path_ +
                                                                       " (library too old, or not NVML)"});
    }
  }
  // Optional: each missing one leaves its fields unknown.
  resolve(n->handle_, s.system_nvml_version, {"nvmlSystemGetNVMLVersion"}, nullptr);
  resolve(n->handle_, s.system_cuda_driver_version, {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"}, nullptr);
  resolve(n->handle_, s.name, {"nvmlDeviceGetName"}, nullptr);
  resolve(n->handle_, s.uuid, {"nvmlDeviceGetUUID"}, nullptr);
  resolve(n->handle_, s.serial, {"nvmlDeviceGetSerial"}, nullptr);
  // _v1 filled a shorter struct with the same leading fields; the buffer
  // given is always the v3 size, so every version is safe to call.
  resolve(n->handle_, s.pci_info, {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo"}, nullptr);
  resolve(n->handle_, s.architecture, {"nvmlDeviceGetArchitecture"}, nullptr);
  resolve(n->handle_, s.compute_capability, {"nvmlDeviceGetCudaComputeCapability"}, nullptr);
  resolve(n->handle_, s.memory_v2, {"nvmlDeviceGetMemoryInfo_v2"}, nullptr);
  resolve(n->handle_, s.memory_v1, {"nvmlDeviceGetMemoryInfo"}, nullptr);
  resolve(n->handle_, s.power_limit, {"nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetPowerManagementLimit"}, nullptr);
  resolve(n->handle_, s.temperature, {"nvmlDeviceGetTemperature"}, nullptr);
  resolve(n->handle_, s.clock_info, {"nvmlDeviceGetClockInfo"}, nullptr);
  resolve(n->handle_, s.max_clock_info, {"nvmlDeviceGetMaxClockInfo"}, nullptr);
  resolve(n->handle_, s.utilization, {"nvmlDeviceGetUtilizationRates"}, nullptr);
  resolve(n->handle_, s.pcie_throughput, {"nvmlDeviceGetPcieThroughput"}, nullptr);
  resolve(n->handle_, s.power_usage, {"nvmlDeviceGetPowerUsage"}, nullptr);
  resolve(n->handle_, s.persistence_mode, {"nvmlDeviceGetPersistenceMode"}, nullptr);
  resolve(n->handle_, s.ecc_mode, {"nvmlDeviceGetEccMode"}, nullptr);
  resolve(n->handle_, s.total_ecc_errors, {"nvmlDeviceGetTotalEccErrors"}, nullptr);
  resolve(n->handle_, s.retired_pages, {"nvmlDeviceGetRetiredPages"}, nullptr);
  resolve(n->handle_, s.retired_pages_pending, {"nvmlDeviceGetRetiredPagesPendingStatus"}, nullptr);
  resolve(n->handle_, s.remapped_rows, {"nvmlDeviceGetRemappedRows"}, nullptr);
  resolve(n->handle_, s.mig_mode, {"nvmlDeviceGetMigMode"}, nullptr);
  resolve(n->handle_, s.curr_link_gen, {"nvmlDeviceGetCurrPcieLinkGeneration"}, nullptr);
  resolve(n->handle_, s.max_link_gen, {"nvmlDeviceGetMaxPcieLinkGeneration"}, nullptr);
  resolve(n->handle_, s.curr_link_width, {"nvmlDeviceGetCurrPcieLinkWidth"}, nullptr);
  resolve(n->handle_, s.max_link_width, {"nvmlDeviceGetMaxPcieLinkWidth"}, nullptr);
  resolve(n->handle_, s.numa_node, {"nvmlDeviceGetNumaNodeId"}, nullptr);
  resolve(n->handle_, s.cpu_affinity, {"nvmlDeviceGetCpuAffinity"}, nullptr);
  resolve(n->handle_, s.compute_mode, {"nvmlDeviceGetComputeMode"}, nullptr);
  if (!resolve(n->handle_, s.compute_procs_v2, {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"}, nullptr)) {
    resolve(n->handle_, s.compute_procs_v1, {"nvmlDeviceGetComputeRunningProcesses"}, nullptr);
  }
  if (!resolve(n->handle_, s.graphics_procs_v2, {"nvmlDeviceGetGraphicsRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v2"}, nullptr)) {
    resolve(n->handle_, s.graphics_procs_v1, {"nvmlDeviceGetGraphicsRunningProcesses"}, nullptr);
  }
  resolve(n->handle_, s.nvlink_state, {"nvmlDeviceGetNvLinkState"}, nullptr);
  resolve(n->handle_, s.nvlink_remote_pci, {"nvmlDeviceGetNvLinkRemotePciInfo_v2", "nvmlDeviceGetNvLinkRemotePciInfo"}, nullptr);
  resolve(n->handle_, s.nvlink_remote_type, {"nvmlDeviceGetNvLinkRemoteDeviceType"}, nullptr);
  resolve(n->handle_, s.nvlink_version, {"nvmlDeviceGetNvLinkVersion"}, nullptr);
  resolve(n->handle_, s.topology_common_ancestor, {"nvmlDeviceGetTopologyCommonAncestor"}, nullptr);
  resolve(n->handle_, s.p2p_status, {"nvmlDeviceGetP2PStatus"}, nullptr);

  // nvmlInit can take seconds when persistence mode is off (the driver
  // brings every GPU up); the caller reports the time.
  core::Stopwatch watch;
  const Return rc = s.init();
  n->init_seconds_ = watch.seconds();
  core::log(core::LogLevel::kDebug, "nvml: {} from {} returned {} in {:.3f} s", init_name, n->library_path_, rc,
            n->init_seconds_);
  if (rc != nvml::kSuccess) {
    const char* text = s.error_string(rc);
    const std::string what = std::string(init_name) + " returned " + return_code_name(rc) + " (" +
                             (text != nullptr ? text : "no message") + ")";
    return tl::unexpected(init_failure(rc, what));
  }
  n->initialised_ = true;
  return n;
}

Nvml::~Nvml() {
  if (initialised_ && sym_ && sym_->shutdown != nullptr) sym_->shutdown();
  // The library stays mapped: NVML starts helper threads in some driver
  // versions, and unmapping code they may still run is not safe.
}

bool Nvml::ok(Return rc, const char* call) {
  if (rc == nvml::kSuccess) return true;
  if (!is_unknown(rc)) {
    const char* text = sym_->error_string != nullptr ? sym_->error_string(rc) : nullptr;
    problems_.push_back(std::string(call) + ": " + return_code_name(rc) + (text != nullptr ? std::string(" (") + text + ")" : ""));
  }
  return false;
}

std::optional<std::string> Nvml::driver_version() {
  char buf[nvml::kVersionBufferSize] = {};
  if (!ok(sym_->system_driver_version(buf, sizeof(buf)), "nvmlSystemGetDriverVersion")) return std::nullopt;
  return c_string(buf, sizeof(buf));
}

std::optional<std::string> Nvml::nvml_version() {
  if (sym_->system_nvml_version == nullptr) return std::nullopt;
  char buf[nvml::kVersionBufferSize] = {};
  if (!ok(sym_->system_nvml_version(buf, sizeof(buf)), "nvmlSystemGetNVMLVersion")) return std::nullopt;
  return c_string(buf, sizeof(buf));
}

std::optional<std::string> Nvml::cuda_driver_version() {
  if (sym_->system_cuda_driver_version == nullptr) return std::nullopt;
  int v = 0;
  if (!ok(sym_->system_cuda_driver_version(&v), "nvmlSystemGetCudaDriverVersion")) return std::nullopt;
  // CUDA_VERSION encoding: 1000 * major + 10 * minor (12020 = 12.2).
  if (v <= 0) return std::nullopt;
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

NvmlResult<unsigned> Nvml::device_count() {
  unsigned count = 0;
  const Return rc = sym_->device_count(&count);
  if (rc == nvml::kSuccess) return count;
  const char* text = sym_->error_string(rc);
  return tl::unexpected(NvmlError{NvmlFailure::kError, "nvmlDeviceGetCount returned " + return_code_name(rc) +
                                                           (text != nullptr ? std::string(" (") + text + ")" : "")});
}

std::optional<Device> Nvml::handle(unsigned index) {
  Device d = nullptr;
  if (!ok(sym_->handle_by_index(index, &d), "nvmlDeviceGetHandleByIndex")) return std::nullopt;
  return d;
}

#define TFRIG_NVML_STRING(method, slot, size, call)                \
  std::optional<std::string> Nvml::method(Device d) {              \
    if (sym_->slot == nullptr) return std::nullopt;                \
    char buf[size] = {};                                           \
    if (!ok(sym_->slot(d, buf, sizeof(buf)), call)) return std::nullopt; \
    std::string s = c_string(buf, sizeof(buf));                    \
    if (s.empty()) return std::nullopt;                            \
    return s;                                                      \
  }
TFRIG_NVML_STRING(name, name, nvml::kNameBufferSize, "nvmlDeviceGetName")
TFRIG_NVML_STRING(uuid, uuid, nvml::kUuidBufferSize, "nvmlDeviceGetUUID")
TFRIG_NVML_STRING(serial, serial, nvml::kSerialBufferSize, "nvmlDeviceGetSerial")
#undef TFRIG_NVML_STRING

std::optional<nvml::PciInfo> Nvml::pci_info(Device d) {
  if (sym_->pci_info == nullptr) return std::nullopt;
  nvml::PciInfo p{};
  if (!ok(sym_->pci_info(d, &p), "nvmlDeviceGetPciInfo")) return std::nullopt;
  return p;
}

std::optional<unsigned> Nvml::architecture(Device d) {
  if (sym_->architecture == nullptr) return std::nullopt;
  unsigned v = 0;
  if (!ok(sym_->architecture(d, &v), "nvmlDeviceGetArchitecture")) return std::nullopt;
  return v;
}

std::optional<std::pair<int, int>> Nvml::compute_capability(Device d) {
  if (sym_->compute_capability == nullptr) return std::nullopt;
  int major = 0;
  int minor = 0;
  if (!ok(sym_->compute_capability(d, &major, &minor), "nvmlDeviceGetCudaComputeCapability")) return std::nullopt;
  return std::make_pair(major, minor);
}

std::optional<std::pair<uint64_t, uint64_t>> Nvml::memory(Device d) {
  if (sym_->memory_v2 != nullptr) {
    nvml::MemoryV2 m{};
    m.version = nvml::kMemoryV2Version;
    const Return rc = sym_->memory_v2(d, &m);
    if (rc == nvml::kSuccess) return std::make_pair(static_cast<uint64_t>(m.total), static_cast<uint64_t>(m.used));
    // Older drivers export the symbol but reject the struct version.
    if (sym_->memory_v1 == nullptr) {
      ok(rc, "nvmlDeviceGetMemoryInfo_v2");
      return std::nullopt;
    }
  }
  if (sym_->memory_v1 == nullptr) return std::nullopt;
  nvml::Memory m{};
  if (!ok(sym_->memory_v1(d, &m), "nvmlDeviceGetMemoryInfo")) return std::nullopt;
  return std::make_pair(static_cast<uint64_t>(m.total), static_cast<uint64_t>(m.used));
}

#define TFRIG_NVML_UNSIGNED(method, slot, call)                   \
  std::optional<unsigned> Nvml::method(Device d) {                \
    if (sym_->slot == nullptr) return std::nullopt;               \
    unsigned v = 0;                                               \
    if (!ok(sym_->slot(d, &v), call)) return std::nullopt;        \
    return v;                                                     \
  }
TFRIG_NVML_UNSIGNED(power_limit_milliwatts, power_limit, "nvmlDeviceGetEnforcedPowerLimit")
TFRIG_NVML_UNSIGNED(numa_node, numa_node, "nvmlDeviceGetNumaNodeId")
#undef TFRIG_NVML_UNSIGNED

std::optional<unsigned> Nvml::temperature(Device d) {
  if (sym_->temperature == nullptr) return std::nullopt;
  unsigned v = 0;
  if (!ok(sym_->temperature(d, nvml::kTemperatureGpu, &v), "nvmlDeviceGetTemperature")) return std::nullopt;
  return v;
}

std::optional<unsigned> Nvml::clock(Device d, int type) {
  if (sym_->clock_info == nullptr) return std::nullopt;
  unsigned v = 0;
  if (!ok(sym_->clock_info(d, type, &v), "nvmlDeviceGetClockInfo")) return std::nullopt;
  return v;
}

std::optional<nvml::Utilization> Nvml::utilization(Device d) {
  if (sym_->utilization == nullptr) return std::nullopt;
  nvml::Utilization u{};
  if (!ok(sym_->utilization(d, &u), "nvmlDeviceGetUtilizationRates")) return std::nullopt;
  return u;
}

std::optional<unsigned> Nvml::pcie_throughput_kbps(Device d, int counter) {
  if (sym_->pcie_throughput == nullptr) return std::nullopt;
  unsigned v = 0;
  if (!ok(sym_->pcie_throughput(d, counter, &v), "nvmlDeviceGetPcieThroughput")) return std::nullopt;
  return v;
}

std::optional<unsigned> Nvml::power_usage_milliwatts(Device d) {
  if (sym_->power_usage == nullptr) return std::nullopt;
  unsigned v = 0;
  if (!ok(sym_->power_usage(d, &v), "nvmlDeviceGetPowerUsage")) return std::nullopt;
  return v;
}

std::optional<unsigned> Nvml::max_clock(Device d, int type) {
  if (sym_->max_clock_info == nullptr) return std::nullopt;
  unsigned v = 0;
  if (!ok(sym_->max_clock_info(d, type, &v), "nvmlDeviceGetMaxClockInfo")) return std::nullopt;
  return v;
}

std::optional<bool> Nvml::persistence_mode(Device d) {
  if (sym_->persistence_mode == nullptr) return std::nullopt;
  int v = 0;
  if (!ok(sym_->persistence_mode(d, &v), "nvmlDeviceGetPersistenceMode")) return std::nullopt;
  return v == nvml::kFeatureEnabled;
}

std::optional<std::pair<bool, bool>> Nvml::ecc_mode(Device d) {
  if (sym_->ecc_mode == nullptr) return std::nullopt;
  int current = 0;
  int pending = 0;
  if (!ok(sym_->ecc_mode(d, &current, &pending), "nvmlDeviceGetEccMode")) return std::nullopt;
  return std::make_pair(current == nvml::kFeatureEnabled, pending == nvml::kFeatureEnabled);
}

std::optional<uint64_t> Nvml::ecc_errors(Device d, int error_type, int counter_type) {
  if (sym_->total_ecc_errors == nullptr) return std::nullopt;
  unsigned long long v = 0;
  if (!ok(sym_->total_ecc_errors(d, error_type, counter_type, &v), "nvmlDeviceGetTotalEccErrors")) return std::nullopt;
  return static_cast<uint64_t>(v);
}

std::optional<unsigned> Nvml::retired_pages(Device d, int cause) {
  if (sym_->retired_pages == nullptr) return std::nullopt;
  // pageCount 0 and no buffer: NVML only reports how many pages match.
  unsigned count = 0;
  const Return rc = sym_->retired_pages(d, cause, &count, nullptr);
  if (rc == nvml::kSuccess || rc == nvml::kErrorInsufficientSize) return count;
  ok(rc, "nvmlDeviceGetRetiredPages");
  return std::nullopt;
}

std::optional<bool> Nvml::retired_pages_pending(Device d) {
  if (sym_->retired_pages_pending == nullptr) return std::nullopt;
  int v = 0;
  if (!ok(sym_->retired_pages_pending(d, &v), "nvmlDeviceGetRetiredPagesPendingStatus")) return std::nullopt;
  return v == nvml::kFeatureEnabled;
}

std::optional<Nvml::RemappedRows> Nvml::remapped_rows(Device d) {
  if (sym_->remapped_rows == nullptr) return std::nullopt;
  unsigned corr = 0;
  unsigned unc = 0;
  unsigned pending = 0;
  unsigned failure = 0;
  if (!ok(sym_->remapped_rows(d, &corr, &unc, &pending, &failure), "nvmlDeviceGetRemappedRows")) return std::nullopt;
  return RemappedRows{corr, unc, pending != 0, failure != 0};
}

std::optional<std::pair<bool, bool>> Nvml::mig_mode(Device d) {
  if (sym_->mig_mode == nullptr) return std::nullopt;
  unsigned current = 0;
  unsigned pending = 0;
  if (!ok(sym_->mig_mode(d, &current, &pending), "nvmlDeviceGetMigMode")) return std::nullopt;
  // NVML_DEVICE_MIG_ENABLE = 1
  return std::make_pair(current == 1, pending == 1);
}

std::optional<unsigned> Nvml::pcie_link_gen(Device d, bool max) {
  auto fn = max ? sym_->max_link_gen : sym_->curr_link_gen;
  if (fn == nullptr) return std::nullopt;
  unsigned v = 0;
  if (!ok(fn(d, &v), max ? "nvmlDeviceGetMaxPcieLinkGeneration" : "nvmlDeviceGetCurrPcieLinkGeneration")) return std::nullopt;
  return v;
}

std::optional<unsigned> Nvml::pcie_link_width(Device d, bool max) {
  auto fn = max ? sym_->max_link_width : sym_->curr_link_width;
  if (fn == nullptr) return std::nullopt;
  unsigned v = 0;
  if (!ok(fn(d, &v), max ? "nvmlDeviceGetMaxPcieLinkWidth" : "nvmlDeviceGetCurrPcieLinkWidth")) return std::nullopt;
  return v;
}

std::optional<std::vector<int>> Nvml::cpu_affinity(Device d, unsigned cpu_count) {
  if (sym_->cpu_affinity == nullptr || cpu_count == 0) return std::nullopt;
  constexpr unsigned kBits = sizeof(unsigned long) * 8;
  std::vector<unsigned long> words((cpu_count + kBits - 1) / kBits, 0);
  if (!ok(sym_->cpu_affinity(d, static_cast<unsigned>(words.size()), words.data()), "nvmlDeviceGetCpuAffinity")) {
    return std::nullopt;
  }
  std::vector<int> cpus;
  for (unsigned i = 0; i < words.size() * kBits; ++i) {
    if ((words[i / kBits] >> (i % kBits)) & 1ul) cpus.push_back(static_cast<int>(i));
  }
  return cpus;
}

std::optional<int> Nvml::compute_mode(Device d) {
  if (sym_->compute_mode == nullptr) return std::nullopt;
  int v = 0;
  if (!ok(sym_->compute_mode(d, &v), "nvmlDeviceGetComputeMode")) return std::nullopt;
  return v;
}

namespace {

// Calls a process-list entry point: first with no buffer to learn the count,
// then with room for a few more (processes can start in between).
template <class Info, class Fn>
std::optional<std::vector<Info>> list_processes(Fn fn, Device d, Return& rc_out) {
  unsigned count = 0;
  Return rc = fn(d, &count, nullptr);
  if (rc == nvml::kSuccess) return std::vector<Info>{};
  if (rc != nvml::kErrorInsufficientSize) {
    rc_out = rc;
    return std::nullopt;
  }
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::vector<Info> infos(count + 8);
    unsigned n = static_cast<unsigned>(infos.size());
    rc = fn(d, &n, infos.data());
    if (rc == nvml::kSuccess) {
      infos.resize(n);
      return infos;
    }
    if (rc != nvml::kErrorInsufficientSize) break;
    count = n;
  }
  rc_out = rc;
  return std::nullopt;
}

}  // namespace

std::optional<std::pair<int, uint64_t>> Nvml::processes(Device d) {
  int count = 0;
  uint64_t bytes = 0;
  bool any = false;
  // NVML reports (unsigned long long)-1 (NVML_VALUE_NOT_AVAILABLE) when the
  // memory of a process cannot be read (e.g. under Windows WDDM or in a container).
  constexpr unsigned long long kNotAvailable = ~0ull;
  auto add = [&](const auto& list) {
    any = true;
    for (const auto& p : list) {
      ++count;
      if (p.used_gpu_memory != kNotAvailable) bytes += p.used_gpu_memory;
    }
  };
  Return rc = nvml::kSuccess;
  if (sym_->compute_procs_v2 != nullptr) {
    if (auto l = list_processes<nvml::ProcessInfoV2>(sym_->compute_procs_v2, d, rc)) add(*l); else ok(rc, "nvmlDeviceGetComputeRunningProcesses");
  } else if (sym_->compute_procs_v1 != nullptr) {
    if (auto l = list_processes<nvml::ProcessInfoV1>(sym_->compute_procs_v1, d, rc)) add(*l); else ok(rc, "nvmlDeviceGetComputeRunningProcesses");
  }
  if (sym_->graphics_procs_v2 != nullptr) {
    if (auto l = list_processes<nvml::ProcessInfoV2>(sym_->graphics_procs_v2, d, rc)) add(*l); else ok(rc, "nvmlDeviceGetGraphicsRunningProcesses");
  } else if (sym_->graphics_procs_v1 != nullptr) {
    if (auto l = list_processes<nvml::ProcessInfoV1>(sym_->graphics_procs_v1, d, rc)) add(*l); else ok(rc, "nvmlDeviceGetGraphicsRunningProcesses");
  }
  if (!any) return std::nullopt;
  return std::make_pair(count, bytes);
}

std::optional<bool> Nvml::nvlink_active(Device d, unsigned link) {
  if (sym_->nvlink_state == nullptr) return std::nullopt;
  int v = 0;
  const Return rc = sym_->nvlink_state(d, link, &v);
  if (rc != nvml::kSuccess) {
    // A link index the GPU does not have answers NOT_SUPPORTED or
    // INVALID_ARGUMENT: both are "no such link", not a problem.
    if (!is_unknown(rc)) ok(rc, "nvmlDeviceGetNvLinkState");
    return std::nullopt;
  }
  return v == nvml::kFeatureEnabled;
}

std::optional<nvml::PciInfo> Nvml::nvlink_remote_pci(Device d, unsigned link) {
  if (sym_->nvlink_remote_pci == nullptr) return std::nullopt;
  nvml::PciInfo p{};
  if (!ok(sym_->nvlink_remote_pci(d, link, &p), "nvmlDeviceGetNvLinkRemotePciInfo")) return std::nullopt;
  return p;
}

std::optional<int> Nvml::nvlink_remote_type(Device d, unsigned link) {
  if (sym_->nvlink_remote_type == nullptr) return std::nullopt;
  int v = 0;
  if (!ok(sym_->nvlink_remote_type(d, link, &v), "nvmlDeviceGetNvLinkRemoteDeviceType")) return std::nullopt;
  return v;
}

std::optional<unsigned> Nvml::nvlink_version(Device d, unsigned link) {
  if (sym_->nvlink_version == nullptr) return std::nullopt;
  unsigned v = 0;
  if (!ok(sym_->nvlink_version(d, link, &v), "nvmlDeviceGetNvLinkVersion")) return std::nullopt;
  return v;
}

std::optional<int> Nvml::topology_common_ancestor(Device a, Device b) {
  if (sym_->topology_common_ancestor == nullptr) return std::nullopt;
  int v = 0;
  if (!ok(sym_->topology_common_ancestor(a, b, &v), "nvmlDeviceGetTopologyCommonAncestor")) return std::nullopt;
  return v;
}

std::optional<bool> Nvml::p2p_read(Device a, Device b) {
  if (sym_->p2p_status == nullptr) return std::nullopt;
  int v = 0;
  if (!ok(sym_->p2p_status(a, b, nvml::kP2pCapsRead, &v), "nvmlDeviceGetP2PStatus")) return std::nullopt;
  return v == nvml::kP2pStatusOk;
}

}  // namespace tfrig::gpulib
