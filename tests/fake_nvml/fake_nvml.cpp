// A test NVML: a shared library exporting the NVML entry points tfrig uses,
// answering from a capture (a tfrig snapshot's "inventory" made from a real
// `nvidia-smi -q -x` file, see tests/data/fake-nvml/README.md). The NVML
// probe loads it through the real dlopen path with TFRIG_NVML_LIBRARY.
//
// Switches (read at every nvmlInit, so one process can test them all):
//   TFRIG_FAKE_NVML_CAPTURE   the capture file (JSON)
//   TFRIG_FAKE_NVML_INIT_RC   nvmlInit returns this nvmlReturn_t instead of 0
//   TFRIG_FAKE_NVML_INIT_MS   nvmlInit sleeps this long first (slow init)
// Build variants (tests/CMakeLists.txt): FAKE_NVML_LEGACY exports only the
// unversioned entry points of old drivers; FAKE_NVML_NO_COUNT lacks the
// required nvmlDeviceGetCount.
//
// A null field in the capture answers NVML_ERROR_NOT_SUPPORTED, as a GPU
// that cannot report it does.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using Json = nlohmann::json;

// nvmlReturn_t values from the NVML API reference.
constexpr int kSuccess = 0;
constexpr int kUninitialized = 1;
constexpr int kInvalidArgument = 2;
constexpr int kNotSupported = 3;
constexpr int kInsufficientSize = 7;
constexpr int kUnknown = 999;

struct PciInfo {
  char bus_id_legacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pci_device_id;
  unsigned int pci_sub_system_id;
  char bus_id[32];
};

struct State {
  bool initialised = false;
  Json inventory;
  std::vector<Json> gpus;
};

State& state() {
  static State s;
  return s;
}

const Json* gpu(void* handle) {
  auto& s = state();
  for (const auto& g : s.gpus) {
    if (static_cast<const void*>(&g) == handle) return &g;
  }
  return nullptr;
}

// The field when present and not null.
const Json* field(void* handle, const char* name) {
  const Json* g = gpu(handle);
  if (g == nullptr || !g->contains(name) || (*g)[name].is_null()) return nullptr;
  return &(*g)[name];
}

int copy_string(const Json* v, char* out, unsigned size) {
  if (v == nullptr || !v->is_string()) return kNotSupported;
  const std::string s = v->get<std::string>();
  if (s.size() + 1 > size) return kInsufficientSize;
  std::memcpy(out, s.c_str(), s.size() + 1);
  return kSuccess;
}

bool parse_bus_id(const std::string& id, PciInfo* p) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  if (std::sscanf(id.c_str(), "%x:%x:%x.%x", &domain, &bus, &device, &function) != 4) return false;
  std::memset(p, 0, sizeof(*p));
  p->domain = domain;
  p->bus = bus;
  p->device = device;
  std::snprintf(p->bus_id, sizeof(p->bus_id), "%08X:%02X:%02X.0", domain, bus, device);
  std::snprintf(p->bus_id_legacy, sizeof(p->bus_id_legacy), "%04X:%02X:%02X.0", domain, bus, device);
  return true;
}

template <class T>
int number(void* d, const char* name, T* out) {
  if (gpu(d) == nullptr) return kInvalidArgument;
  const Json* v = field(d, name);
  if (v == nullptr || !v->is_number()) return kNotSupported;
  *out = v->get<T>();
  return kSuccess;
}

int flag(void* d, const char* name, int* out) {
  if (gpu(d) == nullptr) return kInvalidArgument;
  const Json* v = field(d, name);
  if (v == nullptr || !v->is_boolean()) return kNotSupported;
  *out = v->get<bool>() ? 1 : 0;
  return kSuccess;
}

const Json* topology(unsigned a, unsigned b) {
  auto& inv = state().inventory;
  if (!inv.contains("gpu_topology")) return nullptr;
  for (const auto& p : inv["gpu_topology"]) {
    const unsigned pa = p.value("gpu_a", 0u);
    const unsigned pb = p.value("gpu_b", 0u);
    if ((pa == a && pb == b) || (pa == b && pb == a)) return &p;
  }
  return nullptr;
}

unsigned index_of(void* d) {
  auto& s = state();
  for (unsigned i = 0; i < s.gpus.size(); ++i) {
    if (static_cast<const void*>(&s.gpus[i]) == d) return i;
  }
  return ~0u;
}

const Json* nvlink(void* d, unsigned link) {
  const Json* links = field(d, "nvlinks");
  if (links == nullptr || !links->is_array()) return nullptr;
  for (const auto& l : *links) {
    if (l.value("link", -1) == static_cast<int>(link)) return &l;
  }
  return nullptr;
}

int init_impl() {
  if (const char* ms = std::getenv("TFRIG_FAKE_NVML_INIT_MS")) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(ms)));
  }
  if (const char* rc = std::getenv("TFRIG_FAKE_NVML_INIT_RC")) {
    const int v = std::atoi(rc);
    if (v != kSuccess) return v;
  }
  auto& s = state();
  s = State{};
  const char* path = std::getenv("TFRIG_FAKE_NVML_CAPTURE");
  if (path == nullptr) return kUnknown;
  std::ifstream in(path);
  if (!in) return kUnknown;
  std::stringstream buf;
  buf << in.rdbuf();
  Json doc = Json::parse(buf.str(), nullptr, false);
  if (doc.is_discarded()) return kUnknown;
  s.inventory = doc.contains("inventory") ? doc["inventory"] : doc;
  if (s.inventory.contains("gpus")) {
    for (const auto& g : s.inventory["gpus"]) s.gpus.push_back(g);
  }
  s.initialised = true;
  return kSuccess;
}

const Json* driver(const char* name) {
  auto& inv = state().inventory;
  if (!inv.contains("driver") || !inv["driver"].contains(name) || inv["driver"][name].is_null()) return nullptr;
  return &inv["driver"][name];
}

}  // namespace

#define FAKE_API extern "C" __attribute__((visibility("default")))

#ifndef FAKE_NVML_LEGACY
FAKE_API int nvmlInit_v2() { return init_impl(); }
#endif
FAKE_API int nvmlInit() { return init_impl(); }
FAKE_API int nvmlShutdown() {
  state().initialised = false;
  return kSuccess;
}
FAKE_API const char* nvmlErrorString(int rc) {
  switch (rc) {
    case 0: return "Success";
    case 3: return "Not Supported";
    case 4: return "Insufficient Permissions";
    case 9: return "Driver Not Loaded";
    case 18: return "Driver/library version mismatch";
    default: return "Unknown Error";
  }
}
FAKE_API int nvmlSystemGetDriverVersion(char* out, unsigned size) { return copy_string(driver("version"), out, size); }
FAKE_API int nvmlSystemGetNVMLVersion(char* out, unsigned size) { return copy_string(driver("nvml_version"), out, size); }
static int cuda_driver_version(int* out) {
  const Json* v = driver("cuda_version");
  if (v == nullptr || !v->is_string()) return kNotSupported;
  int major = 0, minor = 0;
  if (std::sscanf(v->get<std::string>().c_str(), "%d.%d", &major, &minor) != 2) return kNotSupported;
  *out = major * 1000 + minor * 10;  // CUDA_VERSION encoding
  return kSuccess;
}
#ifndef FAKE_NVML_LEGACY
FAKE_API int nvmlSystemGetCudaDriverVersion_v2(int* out) { return cuda_driver_version(out); }
#endif
FAKE_API int nvmlSystemGetCudaDriverVersion(int* out) { return cuda_driver_version(out); }

#ifndef FAKE_NVML_NO_COUNT
static int device_count(unsigned* out) {
  if (!state().initialised) return kUninitialized;
  *out = static_cast<unsigned>(state().gpus.size());
  return kSuccess;
}
#ifndef FAKE_NVML_LEGACY
FAKE_API int nvmlDeviceGetCount_v2(unsigned* out) { return device_count(out); }
#endif
FAKE_API int nvmlDeviceGetCount(unsigned* out) { return device_count(out); }
#endif

static int handle_by_index(unsigned i, void** out) {
  if (!state().initialised) return kUninitialized;
  if (i >= state().gpus.size()) return kInvalidArgument;
  *out = &state().gpus[i];
  return kSuccess;
}
#ifndef FAKE_NVML_LEGACY
FAKE_API int nvmlDeviceGetHandleByIndex_v2(unsigned i, void** out) { return handle_by_index(i, out); }
#endif
FAKE_API int nvmlDeviceGetHandleByIndex(unsigned i, void** out) { return handle_by_index(i, out); }

FAKE_API int nvmlDeviceGetName(void* d, char* out, unsigned size) { return copy_string(field(d, "name"), out, size); }
FAKE_API int nvmlDeviceGetUUID(void* d, char* out, unsigned size) { return copy_string(field(d, "uuid"), out, size); }
FAKE_API int nvmlDeviceGetSerial(void* d, char* out, unsigned size) { return copy_string(field(d, "serial"), out, size); }

static int pci_info(void* d, PciInfo* p) {
  const Json* id = field(d, "pci_bus_id");
  if (id == nullptr || !id->is_string() || !parse_bus_id(id->get<std::string>(), p)) return kNotSupported;
  if (const Json* dev = field(d, "pci_device_id")) p->pci_device_id = (dev->get<unsigned>() << 16) | 0x10deu;
  return kSuccess;
}
#ifndef FAKE_NVML_LEGACY
FAKE_API int nvmlDeviceGetPciInfo_v3(void* d, PciInfo* p) { return pci_info(d, p); }
#endif
FAKE_API int nvmlDeviceGetPciInfo(void* d, PciInfo* p) {
  // The v1 struct is shorter; fill only its leading part.
  PciInfo full{};
  const int rc = pci_info(d, &full);
  if (rc == kSuccess) std::memcpy(p, &full, offsetof(PciInfo, bus_id));
  return rc;
}

#ifndef FAKE_NVML_LEGACY
FAKE_API int nvmlDeviceGetArchitecture(void* d, unsigned* out) {
  const Json* a = field(d, "architecture");
  if (a == nullptr) return kNotSupported;
  static const char* kNames[] = {"", "", "Kepler", "Maxwell", "Pascal", "Volta", "Turing", "Ampere", "Ada Lovelace", "Hopper", "Blackwell"};
  for (unsigned i = 2; i < sizeof(kNames) / sizeof(kNames[0]); ++i) {
    if (a->get<std::string>() == kNames[i]) {
      *out = i;
      return kSuccess;
    }
  }
  return kNotSupported;
}
FAKE_API int nvmlDeviceGetCudaComputeCapability(void* d, int* major, int* minor) {
  const Json* cc = field(d, "compute_capability");
  if (cc == nullptr || std::sscanf(cc->get<std::string>().c_str(), "%d.%d", major, minor) != 2) return kNotSupported;
  return kSuccess;
}
struct MemoryV2 {
  unsigned int version;
  unsigned long long total, reserved, free, used;
};
FAKE_API int nvmlDeviceGetMemoryInfo_v2(void* d, MemoryV2* m) {
  if (m->version != (static_cast<unsigned>(sizeof(MemoryV2)) | (2u << 24))) return 25;  // ARGUMENT_VERSION_MISMATCH
  if (number(d, "memory_total_bytes", &m->total) != kSuccess) return kNotSupported;
  m->used = 0;
  number(d, "memory_used_bytes", &m->used);
  m->reserved = 0;
  m->free = m->total - m->used;
  return kSuccess;
}
#endif
struct Memory {
  unsigned long long total, free, used;
};
FAKE_API int nvmlDeviceGetMemoryInfo(void* d, Memory* m) {
  if (number(d, "memory_total_bytes", &m->total) != kSuccess) return kNotSupported;
  m->used = 0;
  number(d, "memory_used_bytes", &m->used);
  m->free = m->total - m->used;
  return kSuccess;
}
FAKE_API int nvmlDeviceGetEnforcedPowerLimit(void* d, unsigned* mw) {
  double w = 0;
  if (number(d, "power_limit_watts", &w) != kSuccess) return kNotSupported;
  *mw = static_cast<unsigned>(w * 1000 + 0.5);
  return kSuccess;
}
FAKE_API int nvmlDeviceGetTemperature(void* d, int sensor, unsigned* out) {
  if (sensor != 0) return kInvalidArgument;
  return number(d, "temperature_celsius", out);
}
FAKE_API int nvmlDeviceGetClockInfo(void* d, int type, unsigned* out) {
  if (type == 1) return number(d, "clock_sm_mhz", out);
  if (type == 2) return number(d, "clock_memory_mhz", out);
  return kNotSupported;
}
FAKE_API int nvmlDeviceGetMaxClockInfo(void* d, int type, unsigned* out) {
  if (type == 1) return number(d, "clock_sm_max_mhz", out);
  return kNotSupported;
}
// tfrig watch's samples: fields a watch capture adds (tests/data/watch/README.md).
struct Utilization {
  unsigned gpu;
  unsigned memory;
};
FAKE_API int nvmlDeviceGetUtilizationRates(void* d, Utilization* u) {
  if (number(d, "utilization_gpu_percent", &u->gpu) != kSuccess) return kNotSupported;
  if (number(d, "utilization_memory_percent", &u->memory) != kSuccess) u->memory = 0;
  return kSuccess;
}
FAKE_API int nvmlDeviceGetPcieThroughput(void* d, int counter, unsigned* out) {
  if (counter == 0) return number(d, "pcie_tx_kbps", out);
  if (counter == 1) return number(d, "pcie_rx_kbps", out);
  return kInvalidArgument;
}
FAKE_API int nvmlDeviceGetPowerUsage(void* d, unsigned* mw) {
  double w = 0;
  if (number(d, "power_draw_watts", &w) != kSuccess) return kNotSupported;
  *mw = static_cast<unsigned>(w * 1000 + 0.5);
  return kSuccess;
}
FAKE_API int nvmlDeviceGetPersistenceMode(void* d, int* out) { return flag(d, "persistence_mode", out); }
FAKE_API int nvmlDeviceGetEccMode(void* d, int* current, int* pending) {
  if (flag(d, "ecc_mode_current", current) != kSuccess) return kNotSupported;
  if (flag(d, "ecc_mode_pending", pending) != kSuccess) *pending = *current;
  return kSuccess;
}
FAKE_API int nvmlDeviceGetTotalEccErrors(void* d, int type, int counter, unsigned long long* out) {
  if (type == 0 && counter == 0) return number(d, "ecc_errors_corrected_volatile", out);
  if (type == 1 && counter == 0) return number(d, "ecc_errors_uncorrected_volatile", out);
  if (type == 1 && counter == 1) return number(d, "ecc_errors_uncorrected_aggregate", out);
  return kNotSupported;
}
FAKE_API int nvmlDeviceGetRetiredPages(void* d, int cause, unsigned* count, unsigned long long* addresses) {
  unsigned long long total = 0;
  if (number(d, "retired_pages_count", &total) != kSuccess) return kNotSupported;
  // The capture has one total: all of it under "multiple single-bit".
  const unsigned n = cause == 0 ? static_cast<unsigned>(total) : 0;
  if (*count < n || (addresses == nullptr && n > 0)) {
    *count = n;
    return kInsufficientSize;
  }
  *count = n;
  return kSuccess;
}
FAKE_API int nvmlDeviceGetRetiredPagesPendingStatus(void* d, int* out) { return flag(d, "retired_pages_pending", out); }
FAKE_API int nvmlDeviceGetRemappedRows(void* d, unsigned* corr, unsigned* unc, unsigned* pending, unsigned* failure) {
  if (number(d, "remapped_rows_correctable", corr) != kSuccess) return kNotSupported;
  number(d, "remapped_rows_uncorrectable", unc);
  int p = 0, f = 0;
  flag(d, "remapped_rows_pending", &p);
  flag(d, "remapped_rows_failure", &f);
  *pending = static_cast<unsigned>(p);
  *failure = static_cast<unsigned>(f);
  return kSuccess;
}
FAKE_API int nvmlDeviceGetMigMode(void* d, unsigned* current, unsigned* pending) {
  int c = 0, p = 0;
  if (flag(d, "mig_mode_current", &c) != kSuccess) return kNotSupported;
  if (flag(d, "mig_mode_pending", &p) != kSuccess) p = c;
  *current = static_cast<unsigned>(c);
  *pending = static_cast<unsigned>(p);
  return kSuccess;
}
FAKE_API int nvmlDeviceGetCurrPcieLinkGeneration(void* d, unsigned* out) { return number(d, "pcie_link_gen_current", out); }
FAKE_API int nvmlDeviceGetMaxPcieLinkGeneration(void* d, unsigned* out) { return number(d, "pcie_link_gen_max", out); }
FAKE_API int nvmlDeviceGetCurrPcieLinkWidth(void* d, unsigned* out) { return number(d, "pcie_link_width_current", out); }
FAKE_API int nvmlDeviceGetMaxPcieLinkWidth(void* d, unsigned* out) { return number(d, "pcie_link_width_max", out); }
#ifndef FAKE_NVML_LEGACY
FAKE_API int nvmlDeviceGetNumaNodeId(void* d, unsigned* out) { return number(d, "numa_node", out); }
#endif
FAKE_API int nvmlDeviceGetCpuAffinity(void* d, unsigned words, unsigned long* set) {
  const Json* cpus = field(d, "cpu_affinity");
  if (cpus == nullptr || !cpus->is_array() || cpus->empty()) return kNotSupported;
  std::memset(set, 0, words * sizeof(unsigned long));
  for (const auto& c : *cpus) {
    const unsigned cpu = c.get<unsigned>();
    if (cpu / (8 * sizeof(unsigned long)) < words) set[cpu / (8 * sizeof(unsigned long))] |= 1ul << (cpu % (8 * sizeof(unsigned long)));
  }
  return kSuccess;
}
FAKE_API int nvmlDeviceGetComputeMode(void* d, int* out) {
  const Json* m = field(d, "compute_mode");
  if (m == nullptr) return kNotSupported;
  const std::string s = m->get<std::string>();
  *out = s == "default" ? 0 : s == "exclusive_thread" ? 1 : s == "prohibited" ? 2 : 3;
  return kSuccess;
}

struct ProcessV1 {
  unsigned int pid;
  unsigned long long used;
};
struct ProcessV2 {
  unsigned int pid;
  unsigned long long used;
  unsigned int gi, ci;
};
template <class Info>
static int processes(void* d, unsigned* count, Info* infos) {
  unsigned n = 0;
  if (number(d, "process_count", &n) != kSuccess) return kNotSupported;
  unsigned long long bytes = 0;
  number(d, "process_memory_bytes", &bytes);
  if (*count < n || (infos == nullptr && n > 0)) {
    *count = n;
    return kInsufficientSize;
  }
  for (unsigned i = 0; i < n; ++i) {
    infos[i] = Info{};
    infos[i].pid = 1000 + i;
    infos[i].used = bytes / n + (i == 0 ? bytes % n : 0);
  }
  *count = n;
  return kSuccess;
}
#ifndef FAKE_NVML_LEGACY
FAKE_API int nvmlDeviceGetComputeRunningProcesses_v3(void* d, unsigned* count, ProcessV2* infos) {
  return processes(d, count, infos);
}
FAKE_API int nvmlDeviceGetGraphicsRunningProcesses_v3(void*, unsigned* count, ProcessV2*) {
  *count = 0;  // the capture's count is all compute processes
  return kSuccess;
}
#endif
FAKE_API int nvmlDeviceGetComputeRunningProcesses(void* d, unsigned* count, ProcessV1* infos) { return processes(d, count, infos); }

FAKE_API int nvmlDeviceGetNvLinkState(void* d, unsigned link, int* out) {
  const Json* l = nvlink(d, link);
  if (l == nullptr || !l->contains("active") || (*l)["active"].is_null()) return kNotSupported;
  *out = (*l)["active"].get<bool>() ? 1 : 0;
  return kSuccess;
}
FAKE_API int nvmlDeviceGetNvLinkRemotePciInfo_v2(void* d, unsigned link, PciInfo* p) {
  const Json* l = nvlink(d, link);
  if (l == nullptr || !l->contains("remote_pci_bus_id") || !(*l)["remote_pci_bus_id"].is_string()) return kNotSupported;
  return parse_bus_id((*l)["remote_pci_bus_id"].get<std::string>(), p) ? kSuccess : kNotSupported;
}
FAKE_API int nvmlDeviceGetNvLinkRemoteDeviceType(void* d, unsigned link, int* out) {
  const Json* l = nvlink(d, link);
  if (l == nullptr || !l->contains("remote_kind") || !(*l)["remote_kind"].is_string()) return kNotSupported;
  const std::string k = (*l)["remote_kind"].get<std::string>();
  *out = k == "gpu" ? 0 : k == "cpu" ? 1 : k == "switch" ? 2 : 255;
  return kSuccess;
}
FAKE_API int nvmlDeviceGetNvLinkVersion(void* d, unsigned link, unsigned* out) {
  const Json* l = nvlink(d, link);
  if (l == nullptr || !l->contains("version") || !(*l)["version"].is_number()) return kNotSupported;
  *out = (*l)["version"].get<unsigned>();
  return kSuccess;
}
FAKE_API int nvmlDeviceGetTopologyCommonAncestor(void* a, void* b, int* out) {
  const Json* p = topology(index_of(a), index_of(b));
  if (p == nullptr || !p->contains("level") || !(*p)["level"].is_string()) return kNotSupported;
  const std::string l = (*p)["level"].get<std::string>();
  *out = l == "same_board" ? 0 : l == "single_switch" ? 10 : l == "multiple_switches" ? 20 : l == "host_bridge" ? 30
       : l == "same_cpu" ? 40 : 50;
  return kSuccess;
}
FAKE_API int nvmlDeviceGetP2PStatus(void* a, void* b, int caps, int* out) {
  if (caps != 0) return kNotSupported;
  const Json* p = topology(index_of(a), index_of(b));
  if (p == nullptr || !p->contains("p2p_read") || !(*p)["p2p_read"].is_boolean()) return kNotSupported;
  *out = (*p)["p2p_read"].get<bool>() ? 0 : 4;  // NVML_P2P_STATUS_OK / _NOT_SUPPORTED
  return kSuccess;
}
