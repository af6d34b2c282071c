// A fake NVIDIA driver and cuBLASLt in one shared library, so that the pcie
// and gemm benchmarks' code paths (loading, context, allocation, copies,
// descriptors, heuristics, clean-up) run in tests on machines without a GPU.
// Device memory is host memory; matmul does nothing. Every call checks its
// arguments the way the real library documents them and fails the same way,
// and at exit the library writes its bookkeeping to $FAKE_CUDA_REPORT so a
// test can see that everything allocated was freed.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

namespace {

std::mutex g_mutex;
std::set<uintptr_t> g_device, g_pinned;
int g_retained = 0;
int g_streams = 0;
int g_lt_handles = 0, g_lt_descs = 0, g_lt_layouts = 0, g_lt_prefs = 0;
int g_errors = 0;  // calls with arguments the real library would reject
bool g_initialised = false;

constexpr int kSuccess = 0;
constexpr int kInvalidValue = 1;       // CUDA_ERROR_INVALID_VALUE
constexpr int kNotInitialized = 3;     // CUDA_ERROR_NOT_INITIALIZED
constexpr int kCublasInvalid = 7;      // CUBLAS_STATUS_INVALID_VALUE

int bad() {
  ++g_errors;
  return kInvalidValue;
}

struct Report {
  ~Report() {
    const char* path = std::getenv("FAKE_CUDA_REPORT");
    if (path == nullptr) return;
    if (FILE* f = std::fopen(path, "w")) {
      std::fprintf(f, "device=%zu pinned=%zu retained=%d streams=%d lt_handles=%d lt_descs=%d lt_layouts=%d lt_prefs=%d errors=%d\n",
                   g_device.size(), g_pinned.size(), g_retained, g_streams, g_lt_handles, g_lt_descs, g_lt_layouts,
                   g_lt_prefs, g_errors);
      std::fclose(f);
    }
  }
} g_report;

int devices() {
  const char* n = std::getenv("FAKE_CUDA_DEVICES");
  return n != nullptr ? std::atoi(n) : 1;
}

}  // namespace

extern "C" {

int cuInit(unsigned int flags) {
  if (flags != 0) return bad();
  g_initialised = true;
  return kSuccess;
}
int cuDriverGetVersion(int* v) {
  if (v == nullptr) return bad();
  *v = 13000;
  return kSuccess;
}
int cuDeviceGetCount(int* n) {
  if (!g_initialised) return kNotInitialized;
  if (n == nullptr) return bad();
  *n = devices();
  return kSuccess;
}
int cuDeviceGet(int* d, int ordinal) {
  if (d == nullptr || ordinal < 0 || ordinal >= devices()) return bad();
  *d = ordinal;
  return kSuccess;
}
int cuDeviceGetName(char* name, int len, int) {
  if (name == nullptr || len <= 0) return bad();
  std::snprintf(name, static_cast<size_t>(len), "Fake GPU");
  return kSuccess;
}
int cuDeviceGetAttribute(int* value, int attribute, int) {
  if (value == nullptr) return bad();
  switch (attribute) {
    case 75: *value = 9; break;   // compute capability major
    case 76: *value = 0; break;   // minor
    case 33: *value = 0x3b; break;
    case 34: *value = 0; break;
    case 50: *value = 0; break;
    default: return bad();
  }
  return kSuccess;
}
int cuDevicePrimaryCtxRetain(void** ctx, int) {
  if (ctx == nullptr) return bad();
  static int token;
  *ctx = &token;
  ++g_retained;
  return kSuccess;
}
int cuDevicePrimaryCtxRelease_v2(int) {
  --g_retained;
  return kSuccess;
}
int cuCtxSetCurrent(void* ctx) { return ctx == nullptr ? bad() : kSuccess; }
int cuMemAlloc_v2(unsigned long long* p, size_t bytes) {
  if (p == nullptr || bytes == 0) return bad();
  void* m = std::malloc(bytes);
  std::lock_guard lock(g_mutex);
  g_device.insert(reinterpret_cast<uintptr_t>(m));
  *p = reinterpret_cast<uintptr_t>(m);
  return kSuccess;
}
int cuMemFree_v2(unsigned long long p) {
  std::lock_guard lock(g_mutex);
  if (g_device.erase(static_cast<uintptr_t>(p)) == 0) return bad();
  std::free(reinterpret_cast<void*>(static_cast<uintptr_t>(p)));
  return kSuccess;
}
int cuMemAllocHost_v2(void** p, size_t bytes) {
  if (p == nullptr || bytes == 0) return bad();
  *p = std::malloc(bytes);
  std::lock_guard lock(g_mutex);
  g_pinned.insert(reinterpret_cast<uintptr_t>(*p));
  return kSuccess;
}
int cuMemFreeHost(void* p) {
  std::lock_guard lock(g_mutex);
  if (g_pinned.erase(reinterpret_cast<uintptr_t>(p)) == 0) return bad();
  std::free(p);
  return kSuccess;
}
int cuMemcpyHtoDAsync_v2(unsigned long long dst, const void* src, size_t bytes, void*) {
  if (g_device.count(static_cast<uintptr_t>(dst)) == 0 || src == nullptr) return bad();
  std::memcpy(reinterpret_cast<void*>(static_cast<uintptr_t>(dst)), src, bytes);
  return kSuccess;
}
int cuMemcpyDtoHAsync_v2(void* dst, unsigned long long src, size_t bytes, void*) {
  if (g_device.count(static_cast<uintptr_t>(src)) == 0 || dst == nullptr) return bad();
  std::memcpy(dst, reinterpret_cast<const void*>(static_cast<uintptr_t>(src)), bytes);
  return kSuccess;
}
int cuStreamCreate(void** s, unsigned int) {
  if (s == nullptr) return bad();
  static int token;
  *s = &token;
  ++g_streams;
  return kSuccess;
}
int cuStreamDestroy_v2(void*) {
  --g_streams;
  return kSuccess;
}
int cuStreamSynchronize(void* s) { return s == nullptr ? bad() : kSuccess; }
int cuGetErrorString(int, const char** text) {
  if (text == nullptr) return bad();
  *text = "fake error";
  return kSuccess;
}

// cuBLASLt
struct Algo {
  uint64_t data[8];
};
struct Heuristic {
  Algo algo;
  size_t workspace;
  int state;
  float waves;
  int reserved[4];
};
static int g_token;

int cublasLtCreate(void** h) {
  if (h == nullptr) return kCublasInvalid;
  *h = &g_token;
  ++g_lt_handles;
  return kSuccess;
}
int cublasLtDestroy(void*) {
  --g_lt_handles;
  return kSuccess;
}
int cublasLtMatmulDescCreate(void** d, int compute, int scale) {
  // CUBLAS_COMPUTE_32F, _32F_FAST_TF32 with CUDA_R_32F scale.
  if (d == nullptr || (compute != 68 && compute != 77) || scale != 0) return kCublasInvalid;
  *d = &g_token;
  ++g_lt_descs;
  return kSuccess;
}
int cublasLtMatmulDescDestroy(void*) {
  --g_lt_descs;
  return kSuccess;
}
int cublasLtMatmulDescSetAttribute(void* d, int attr, const void* buf, size_t size) {
  // TRANSA/TRANSB hold a 32-bit cublasOperation_t.
  if (d == nullptr || buf == nullptr || ((attr == 3 || attr == 4) && size != 4)) return kCublasInvalid;
  return kSuccess;
}
int cublasLtMatrixLayoutCreate(void** l, int type, uint64_t rows, uint64_t cols, int64_t ld) {
  if (l == nullptr || (type != 0 && type != 2 && type != 14) || rows == 0 || cols == 0 ||
      ld < static_cast<int64_t>(rows)) {
    return kCublasInvalid;
  }
  *l = &g_token;
  ++g_lt_layouts;
  return kSuccess;
}
int cublasLtMatrixLayoutDestroy(void*) {
  --g_lt_layouts;
  return kSuccess;
}
int cublasLtMatmulPreferenceCreate(void** p) {
  if (p == nullptr) return kCublasInvalid;
  *p = &g_token;
  ++g_lt_prefs;
  return kSuccess;
}
int cublasLtMatmulPreferenceDestroy(void*) {
  --g_lt_prefs;
  return kSuccess;
}
int cublasLtMatmulPreferenceSetAttribute(void* p, int attr, const void* buf, size_t size) {
  // MAX_WORKSPACE_BYTES is a uint64_t.
  if (p == nullptr || buf == nullptr || (attr == 1 && size != 8)) return kCublasInvalid;
  return kSuccess;
}
int cublasLtMatmulAlgoGetHeuristic(void* h, void* op, void* a, void* b, void* c, void* d, void* pref, int requested,
                                   Heuristic* results, int* returned) {
  if (h == nullptr || op == nullptr || a == nullptr || b == nullptr || c == nullptr || d == nullptr ||
      pref == nullptr || requested < 1 || results == nullptr || returned == nullptr) {
    return kCublasInvalid;
  }
  std::memset(results, 0, sizeof(Heuristic));
  results[0].algo.data[0] = 42;
  results[0].state = kSuccess;
  *returned = 1;
  return kSuccess;
}
int cublasLtMatmul(void* h, void* op, const void* alpha, const void* a, void*, const void* b, void*, const void* beta,
                   const void* c, void*, void* d, void*, const Algo* algo, void* workspace, size_t workspace_bytes,
                   void*) {
  if (h == nullptr || op == nullptr || alpha == nullptr || beta == nullptr || algo == nullptr || algo->data[0] != 42) {
    return kCublasInvalid;
  }
  for (const void* p : {a, b, c, static_cast<const void*>(d), static_cast<const void*>(workspace)}) {
    if (g_device.count(reinterpret_cast<uintptr_t>(p)) == 0) return kCublasInvalid;
  }
  return workspace_bytes > 0 ? kSuccess : kCublasInvalid;
}

}  // extern "C"
