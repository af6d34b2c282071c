#include "gpulib/nvml.h"
#include "gpulib/nvml_entry_points.h"

#include <dlfcn.h>

#include <cstring>
#include <initializer_list>

#include "core/clock.h"
#include "core/i18n.h"
#include "core/log.h"

namespace tfrig::gpulib {

using nvml::Device;
using nvml::Return;

// One function pointer per entry point of gpulib/nvml_entry_points.h, with
// the name it was found under (what problems and logs name).
template <class Fn>
struct EntryPoint {
  Fn fn = nullptr;
  const char* name = nullptr;
};

#define TFRIG_NVML_STR2(x) #x
#define TFRIG_NVML_STR(x) TFRIG_NVML_STR2(x)

struct Nvml::Symbols {
#define TFRIG_NVML_MEMBER(member, required, signature, ...) \
  EntryPoint<TFRIG_NVML_POINTER(signature)> member{nullptr, TFRIG_NVML_STR(TFRIG_NVML_NEWEST(__VA_ARGS__))};
  TFRIG_NVML_ENTRY_POINTS(TFRIG_NVML_MEMBER)
#undef TFRIG_NVML_MEMBER
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

// Looks the names up newest first; the entry point keeps the one found.
template <class Fn>
bool resolve(void* lib, EntryPoint<Fn>& entry, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    dlerror();
    void* p = dlsym(lib, n);
    if (p != nullptr) {
      // A function pointer is not an object pointer in ISO C++; copy the bits.
      static_assert(sizeof(p) == sizeof(entry.fn));
      std::memcpy(&entry.fn, &p, sizeof(p));
      entry.name = n;
      return true;
    }
    const char* err = dlerror();
    core::log(core::LogLevel::kDebug, "nvml: dlsym {}: {}", n, err != nullptr ? err : "not found");
  }
  return false;
}

std::string joined(std::initializer_list<const char*> names) {
  std::string out;
  for (const char* n : names) out += (out.empty() ? "" : "/") + std::string(n);
  return out;
}

// Answers that mean "this GPU/driver cannot say", not "something broke".
bool is_unknown(Return rc) {
  return rc == nvml::kErrorNotSupported || rc == nvml::kErrorNotFound || rc == nvml::kErrorNoData ||
         rc == nvml::kErrorFunctionNotFound || rc == nvml::kErrorInvalidArgument;
}

std::string c_string(const char* buf, size_t size) { return std::string(buf, strnlen(buf, size)); }

// What a failed nvmlInit means for the user: the return codes with a known
// cause get their own state and advice; `what` names the call and NVML's text.
NvmlError init_failure(Return rc, const core::Message& what) {
  switch (rc) {
    case nvml::kErrorLibRmVersionMismatch:
      return {NvmlFailure::kDriverMismatch,
              core::Message(
                  N_("{0}: {1}"), what,
                  core::Message(N_("the user-space driver library and the loaded kernel module are different versions "
                                   "(driver upgraded without a reboot, or two drivers installed)")))};
    case nvml::kErrorNoPermission:
      return {NvmlFailure::kNoPermission,
              core::Message(N_("{0}: {1}"), what, core::Message(N_("this user cannot open /dev/nvidia*")))};
    case nvml::kErrorDriverNotLoaded:
      return {NvmlFailure::kDriverNotLoaded,
              core::Message(N_("{0}: {1}"), what, core::Message(N_("the nvidia kernel module is not loaded")))};
    case nvml::kErrorGpuNotFound: return {NvmlFailure::kNoDevice, what};
    default: return {NvmlFailure::kError, what};
  }
}

// "nvmlInit_v2 returned NVML_ERROR_NO_PERMISSION (Insufficient Permissions)":
// the call, the code's name and NVML's own text (English, as NVML says it).
core::Message returned(const char* call, Return rc, const char* text) {
  // TRANSLATORS: an NVML call and its return code ("nvmlInit_v2 returned NVML_ERROR_NO_PERMISSION (Insufficient Permissions)").
  if (text != nullptr) return core::Message(N_("{0} returned {1} ({2})"), call, return_code_name(rc), text);
  return core::Message(N_("{0} returned {1}"), call, return_code_name(rc));
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
        library_override
            ? core::Message(N_("TFRIG_NVML_LIBRARY {0} could not be loaded: {1}"), *library_override, tried)
            : core::Message(N_("libnvidia-ml.so.1 not found by the dynamic loader (no NVIDIA driver installed?): {}"),
                            tried)});
  }

  Symbols& s = *n->sym_;
  // Every entry point, newest name first; the first required one missing
  // fails the load (without it nothing can be listed), an optional one
  // missing leaves its fields unknown.
  std::string missing;
#define TFRIG_NVML_RESOLVE(member, required, signature, ...)                                              \
  if (!resolve(n->handle_, s.member, {TFRIG_NVML_NAMES(__VA_ARGS__)}) && (required) && missing.empty()) { \
    missing = joined({TFRIG_NVML_NAMES(__VA_ARGS__)});                                                    \
  }
  TFRIG_NVML_ENTRY_POINTS(TFRIG_NVML_RESOLVE)
#undef TFRIG_NVML_RESOLVE
  // Where the library really is, for the report.
  Dl_info info{};
  void* any = nullptr;
  std::memcpy(&any, &s.init.fn, sizeof(any));
  if (any != nullptr && dladdr(any, &info) != 0 && info.dli_fname != nullptr) {
    n->library_path_ = info.dli_fname;
  } else {
    n->library_path_ = candidates.front();
  }
  if (!missing.empty()) {
    return tl::unexpected(
        NvmlError{NvmlFailure::kSymbolMissing,
                  core::Message(N_("required NVML entry point {0} missing from {1} (library too old, or not NVML)"),
                                missing, n->library_path_)});
  }

  // nvmlInit can take seconds when persistence mode is off (the driver
  // brings every GPU up); the caller reports the time.
  core::Stopwatch watch;
  const Return rc = s.init.fn();
  n->init_seconds_ = watch.seconds();
  core::log(core::LogLevel::kDebug, "nvml: {} from {} returned {} in {:.3f} s", s.init.name, n->library_path_, rc,
            n->init_seconds_);
  if (rc != nvml::kSuccess) {
    const char* text = s.error_string.fn(rc);
    return tl::unexpected(init_failure(rc, returned(s.init.name, rc, text != nullptr ? text : "no message")));
  }
  n->initialised_ = true;
  return n;
}

Nvml::~Nvml() {
  if (initialised_ && sym_ && sym_->shutdown.fn != nullptr) sym_->shutdown.fn();
  // The library stays mapped: NVML starts helper threads in some driver
  // versions, and unmapping code they may still run is not safe.
}

bool Nvml::ok(Return rc, const char* call) {
  if (rc == nvml::kSuccess) return true;
  if (!is_unknown(rc)) {
    const char* text = sym_->error_string.fn != nullptr ? sym_->error_string.fn(rc) : nullptr;
    problems_.push_back(std::string(call) + ": " + return_code_name(rc) +
                        (text != nullptr ? std::string(" (") + text + ")" : ""));
  }
  return false;
}

std::optional<std::string> Nvml::driver_version() {
  char buf[nvml::kVersionBufferSize] = {};
  if (!ok(sym_->system_driver_version.fn(buf, sizeof(buf)), sym_->system_driver_version.name)) return std::nullopt;
  return c_string(buf, sizeof(buf));
}

std::optional<std::string> Nvml::nvml_version() {
  if (sym_->system_nvml_version.fn == nullptr) return std::nullopt;
  char buf[nvml::kVersionBufferSize] = {};
  if (!ok(sym_->system_nvml_version.fn(buf, sizeof(buf)), sym_->system_nvml_version.name)) return std::nullopt;
  return c_string(buf, sizeof(buf));
}

std::optional<std::string> Nvml::cuda_driver_version() {
  if (sym_->system_cuda_driver_version.fn == nullptr) return std::nullopt;
  int v = 0;
  if (!ok(sym_->system_cuda_driver_version.fn(&v), sym_->system_cuda_driver_version.name)) return std::nullopt;
  // CUDA_VERSION encoding: 1000 * major + 10 * minor (12020 = 12.2).
  if (v <= 0) return std::nullopt;
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

NvmlResult<unsigned> Nvml::device_count() {
  unsigned count = 0;
  const Return rc = sym_->device_count.fn(&count);
  if (rc == nvml::kSuccess) return count;
  const char* text = sym_->error_string.fn(rc);
  return tl::unexpected(NvmlError{NvmlFailure::kError, returned(sym_->device_count.name, rc, text)});
}

std::optional<Device> Nvml::handle(unsigned index) {
  Device d = nullptr;
  if (!ok(sym_->handle_by_index.fn(index, &d), sym_->handle_by_index.name)) return std::nullopt;
  return d;
}

#define TFRIG_NVML_STRING(method, slot, size)                                          \
  std::optional<std::string> Nvml::method(Device d) {                                  \
    if (sym_->slot.fn == nullptr) return std::nullopt;                                 \
    char buf[size] = {};                                                               \
    if (!ok(sym_->slot.fn(d, buf, sizeof(buf)), sym_->slot.name)) return std::nullopt; \
    std::string s = c_string(buf, sizeof(buf));                                        \
    if (s.empty()) return std::nullopt;                                                \
    return s;                                                                          \
  }
TFRIG_NVML_STRING(name, name, nvml::kNameBufferSize)
TFRIG_NVML_STRING(uuid, uuid, nvml::kUuidBufferSize)
TFRIG_NVML_STRING(serial, serial, nvml::kSerialBufferSize)
#undef TFRIG_NVML_STRING

std::optional<nvml::PciInfo> Nvml::pci_info(Device d) {
  if (sym_->pci_info.fn == nullptr) return std::nullopt;
  nvml::PciInfo p{};
  if (!ok(sym_->pci_info.fn(d, &p), sym_->pci_info.name)) return std::nullopt;
  return p;
}

std::optional<unsigned> Nvml::architecture(Device d) {
  if (sym_->architecture.fn == nullptr) return std::nullopt;
  unsigned v = 0;
  if (!ok(sym_->architecture.fn(d, &v), sym_->architecture.name)) return std::nullopt;
  return v;
}

std::optional<std::pair<int, int>> Nvml::compute_capability(Device d) {
  if (sym_->compute_capability.fn == nullptr) return std::nullopt;
  int major = 0;
  int minor = 0;
  if (!ok(sym_->compute_capability.fn(d, &major, &minor), sym_->compute_capability.name)) return std::nullopt;
  return std::make_pair(major, minor);
}

std::optional<std::pair<uint64_t, uint64_t>> Nvml::memory(Device d) {
  if (sym_->memory_v2.fn != nullptr) {
    nvml::MemoryV2 m{};
    m.version = nvml::kMemoryV2Version;
    const Return rc = sym_->memory_v2.fn(d, &m);
    if (rc == nvml::kSuccess) return std::make_pair(static_cast<uint64_t>(m.total), static_cast<uint64_t>(m.used));
    // Older drivers export the symbol but reject the struct version.
    if (sym_->memory_v1.fn == nullptr) {
      ok(rc, sym_->memory_v2.name);
      return std::nullopt;
    }
  }
  if (sym_->memory_v1.fn == nullptr) return std::nullopt;
  nvml::Memory m{};
  if (!ok(sym_->memory_v1.fn(d, &m), sym_->memory_v1.name)) return std::nullopt;
  return std::make_pair(static_cast<uint64_t>(m.total), static_cast<uint64_t>(m.used));
}

#define TFRIG_NVML_UNSIGNED(method, slot)                                \
  std::optional<unsigned> Nvml::method(Device d) {                       \
    if (sym_->slot.fn == nullptr) return std::nullopt;                   \
    unsigned v = 0;                                                      \
    if (!ok(sym_->slot.fn(d, &v), sym_->slot.name)) return std::nullopt; \
    return v;                                                            \
  }
TFRIG_NVML_UNSIGNED(power_limit_milliwatts, power_limit)
TFRIG_NVML_UNSIGNED(numa_node, numa_node)
#undef TFRIG_NVML_UNSIGNED

std::optional<unsigned> Nvml::temperature(Device d) {
  if (sym_->temperature.fn == nullptr) return std::nullopt;
  unsigned v = 0;
  if (!ok(sym_->temperature.fn(d, nvml::kTemperatureGpu, &v), sym_->temperature.name)) return std::nullopt;
  return v;
}

std::optional<unsigned> Nvml::clock(Device d, int type) {
  if (sym_->clock_info.fn == nullptr) return std::nullopt;
  unsigned v = 0;
  if (!ok(sym_->clock_info.fn(d, type, &v), sym_->clock_info.name)) return std::nullopt;
  return v;
}

std::optional<nvml::Utilization> Nvml::utilization(Device d) {
  if (sym_->utilization.fn == nullptr) return std::nullopt;
  nvml::Utilization u{};
  if (!ok(sym_->utilization.fn(d, &u), sym_->utilization.name)) return std::nullopt;
  return u;
}

std::optional<unsigned> Nvml::pcie_throughput_kbps(Device d, int counter) {
  if (sym_->pcie_throughput.fn == nullptr) return std::nullopt;
  unsigned v = 0;
  if (!ok(sym_->pcie_throughput.fn(d, counter, &v), sym_->pcie_throughput.name)) return std::nullopt;
  return v;
}

std::optional<unsigned> Nvml::power_usage_milliwatts(Device d) {
  if (sym_->power_usage.fn == nullptr) return std::nullopt;
  unsigned v = 0;
  if (!ok(sym_->power_usage.fn(d, &v), sym_->power_usage.name)) return std::nullopt;
  return v;
}

std::optional<unsigned> Nvml::max_clock(Device d, int type) {
  if (sym_->max_clock_info.fn == nullptr) return std::nullopt;
  unsigned v = 0;
  if (!ok(sym_->max_clock_info.fn(d, type, &v), sym_->max_clock_info.name)) return std::nullopt;
  return v;
}

std::optional<bool> Nvml::persistence_mode(Device d) {
  if (sym_->persistence_mode.fn == nullptr) return std::nullopt;
  int v = 0;
  if (!ok(sym_->persistence_mode.fn(d, &v), sym_->persistence_mode.name)) return std::nullopt;
  return v == nvml::kFeatureEnabled;
}

std::optional<std::pair<bool, bool>> Nvml::ecc_mode(Device d) {
  if (sym_->ecc_mode.fn == nullptr) return std::nullopt;
  int current = 0;
  int pending = 0;
  if (!ok(sym_->ecc_mode.fn(d, &current, &pending), sym_->ecc_mode.name)) return std::nullopt;
  return std::make_pair(current == nvml::kFeatureEnabled, pending == nvml::kFeatureEnabled);
}

std::optional<uint64_t> Nvml::ecc_errors(Device d, int error_type, int counter_type) {
  if (sym_->total_ecc_errors.fn == nullptr) return std::nullopt;
  unsigned long long v = 0;
  if (!ok(sym_->total_ecc_errors.fn(d, error_type, counter_type, &v), sym_->total_ecc_errors.name)) return std::nullopt;
  return static_cast<uint64_t>(v);
}

std::optional<unsigned> Nvml::retired_pages(Device d, int cause) {
  if (sym_->retired_pages.fn == nullptr) return std::nullopt;
  // pageCount 0 and no buffer: NVML only reports how many pages match.
  unsigned count = 0;
  const Return rc = sym_->retired_pages.fn(d, cause, &count, nullptr);
  if (rc == nvml::kSuccess || rc == nvml::kErrorInsufficientSize) return count;
  ok(rc, sym_->retired_pages.name);
  return std::nullopt;
}

std::optional<bool> Nvml::retired_pages_pending(Device d) {
  if (sym_->retired_pages_pending.fn == nullptr) return std::nullopt;
  int v = 0;
  if (!ok(sym_->retired_pages_pending.fn(d, &v), sym_->retired_pages_pending.name)) return std::nullopt;
  return v == nvml::kFeatureEnabled;
}

std::optional<Nvml::RemappedRows> Nvml::remapped_rows(Device d) {
  if (sym_->remapped_rows.fn == nullptr) return std::nullopt;
  unsigned corr = 0;
  unsigned unc = 0;
  unsigned pending = 0;
  unsigned failure = 0;
  if (!ok(sym_->remapped_rows.fn(d, &corr, &unc, &pending, &failure), sym_->remapped_rows.name)) return std::nullopt;
  return RemappedRows{corr, unc, pending != 0, failure != 0};
}

std::optional<std::pair<bool, bool>> Nvml::mig_mode(Device d) {
  if (sym_->mig_mode.fn == nullptr) return std::nullopt;
  unsigned current = 0;
  unsigned pending = 0;
  if (!ok(sym_->mig_mode.fn(d, &current, &pending), sym_->mig_mode.name)) return std::nullopt;
  // NVML_DEVICE_MIG_ENABLE = 1
  return std::make_pair(current == 1, pending == 1);
}

std::optional<unsigned> Nvml::pcie_link_gen(Device d, bool max) {
  const auto& entry = max ? sym_->max_link_gen : sym_->curr_link_gen;
  if (entry.fn == nullptr) return std::nullopt;
  unsigned v = 0;
  if (!ok(entry.fn(d, &v), entry.name)) return std::nullopt;
  return v;
}

std::optional<unsigned> Nvml::pcie_link_width(Device d, bool max) {
  const auto& entry = max ? sym_->max_link_width : sym_->curr_link_width;
  if (entry.fn == nullptr) return std::nullopt;
  unsigned v = 0;
  if (!ok(entry.fn(d, &v), entry.name)) return std::nullopt;
  return v;
}

std::optional<std::vector<int>> Nvml::cpu_affinity(Device d, unsigned cpu_count) {
  if (sym_->cpu_affinity.fn == nullptr || cpu_count == 0) return std::nullopt;
  constexpr unsigned kBits = sizeof(unsigned long) * 8;
  std::vector<unsigned long> words((cpu_count + kBits - 1) / kBits, 0);
  if (!ok(sym_->cpu_affinity.fn(d, static_cast<unsigned>(words.size()), words.data()), sym_->cpu_affinity.name)) {
    return std::nullopt;
  }
  std::vector<int> cpus;
  for (unsigned i = 0; i < words.size() * kBits; ++i) {
    if ((words[i / kBits] >> (i % kBits)) & 1ul) cpus.push_back(static_cast<int>(i));
  }
  return cpus;
}

std::optional<int> Nvml::compute_mode(Device d) {
  if (sym_->compute_mode.fn == nullptr) return std::nullopt;
  int v = 0;
  if (!ok(sym_->compute_mode.fn(d, &v), sym_->compute_mode.name)) return std::nullopt;
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
  if (sym_->compute_procs_v2.fn != nullptr) {
    if (auto l = list_processes<nvml::ProcessInfoV2>(sym_->compute_procs_v2.fn, d, rc))
      add(*l);
    else
      ok(rc, sym_->compute_procs_v2.name);
  } else if (sym_->compute_procs_v1.fn != nullptr) {
    if (auto l = list_processes<nvml::ProcessInfoV1>(sym_->compute_procs_v1.fn, d, rc))
      add(*l);
    else
      ok(rc, sym_->compute_procs_v1.name);
  }
  if (sym_->graphics_procs_v2.fn != nullptr) {
    if (auto l = list_processes<nvml::ProcessInfoV2>(sym_->graphics_procs_v2.fn, d, rc))
      add(*l);
    else
      ok(rc, sym_->graphics_procs_v2.name);
  } else if (sym_->graphics_procs_v1.fn != nullptr) {
    if (auto l = list_processes<nvml::ProcessInfoV1>(sym_->graphics_procs_v1.fn, d, rc))
      add(*l);
    else
      ok(rc, sym_->graphics_procs_v1.name);
  }
  if (!any) return std::nullopt;
  return std::make_pair(count, bytes);
}

std::optional<bool> Nvml::nvlink_active(Device d, unsigned link) {
  if (sym_->nvlink_state.fn == nullptr) return std::nullopt;
  int v = 0;
  const Return rc = sym_->nvlink_state.fn(d, link, &v);
  if (rc != nvml::kSuccess) {
    // A link index the GPU does not have answers NOT_SUPPORTED or
    // INVALID_ARGUMENT: both are "no such link", not a problem.
    if (!is_unknown(rc)) ok(rc, sym_->nvlink_state.name);
    return std::nullopt;
  }
  return v == nvml::kFeatureEnabled;
}

std::optional<nvml::PciInfo> Nvml::nvlink_remote_pci(Device d, unsigned link) {
  if (sym_->nvlink_remote_pci.fn == nullptr) return std::nullopt;
  nvml::PciInfo p{};
  if (!ok(sym_->nvlink_remote_pci.fn(d, link, &p), sym_->nvlink_remote_pci.name)) return std::nullopt;
  return p;
}

std::optional<int> Nvml::nvlink_remote_type(Device d, unsigned link) {
  if (sym_->nvlink_remote_type.fn == nullptr) return std::nullopt;
  int v = 0;
  if (!ok(sym_->nvlink_remote_type.fn(d, link, &v), sym_->nvlink_remote_type.name)) return std::nullopt;
  return v;
}

std::optional<unsigned> Nvml::nvlink_version(Device d, unsigned link) {
  if (sym_->nvlink_version.fn == nullptr) return std::nullopt;
  unsigned v = 0;
  if (!ok(sym_->nvlink_version.fn(d, link, &v), sym_->nvlink_version.name)) return std::nullopt;
  return v;
}

std::optional<int> Nvml::topology_common_ancestor(Device a, Device b) {
  if (sym_->topology_common_ancestor.fn == nullptr) return std::nullopt;
  int v = 0;
  if (!ok(sym_->topology_common_ancestor.fn(a, b, &v), sym_->topology_common_ancestor.name)) return std::nullopt;
  return v;
}

std::optional<bool> Nvml::p2p_read(Device a, Device b) {
  if (sym_->p2p_status.fn == nullptr) return std::nullopt;
  int v = 0;
  if (!ok(sym_->p2p_status.fn(a, b, nvml::kP2pCapsRead, &v), sym_->p2p_status.name)) return std::nullopt;
  return v == nvml::kP2pStatusOk;
}

}  // namespace tfrig::gpulib
