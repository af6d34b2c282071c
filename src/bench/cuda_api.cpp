#include "bench/cuda_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/log.h"

namespace tfrig::bench::cuda {

namespace {

// The library's handle, or the loader's message (dlerror) for why not.
core::Result<void*> open_library(const std::string& name) {
  dlerror();
  void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h != nullptr) return h;
  const char* e = dlerror();
  const std::string error = e != nullptr ? e : "dlopen failed";
  core::log(core::LogLevel::kDebug, "dlopen {}: {}", name, error);
  return core::fail(core::ErrorCode::kNotFound, name, error);
}

// Resolves the first of `names` (newest version first) into `out`.
template <class Fn>
bool resolve(void* handle, std::initializer_list<const char*> names, Fn& out, std::string& missing) {
  for (const char* n : names) {
    dlerror();
    void* p = dlsym(handle, n);
    if (p != nullptr) {
      out = reinterpret_cast<Fn>(p);
      return true;
    }
    const char* e = dlerror();
    core::log(core::LogLevel::kDebug, "dlsym {}: {}", n, e != nullptr ? e : "not found");
  }
  if (missing.empty()) missing = *names.begin();
  return false;
}

core::Result<Driver> load_driver_once() {
  Driver d;
  const char* env = std::getenv("TFRIG_CUDA_LIBRARY");
  std::string name = env != nullptr && env[0] != '\0' ? env : "libcuda.so.1";
  auto opened = open_library(name);
  if (!opened)
    return core::fail(core::ErrorCode::kNotFound, name,
                      core::Message(N_("not found: no NVIDIA driver ({})"), opened.error().message));
  d.handle = *opened;
  std::string missing;
  // The unversioned names of the memory calls take 32-bit device pointers
  // (CUDA 3.2 and older), so only the _v2 names are acceptable there.
  resolve(d.handle, {"cuInit"}, d.cuInit, missing);
  resolve(d.handle, {"cuDriverGetVersion"}, d.cuDriverGetVersion, missing);
  resolve(d.handle, {"cuDeviceGetCount"}, d.cuDeviceGetCount, missing);
  resolve(d.handle, {"cuDeviceGet"}, d.cuDeviceGet, missing);
  resolve(d.handle, {"cuDeviceGetName"}, d.cuDeviceGetName, missing);
  resolve(d.handle, {"cuDeviceGetAttribute"}, d.cuDeviceGetAttribute, missing);
  resolve(d.handle, {"cuDevicePrimaryCtxRetain"}, d.cuDevicePrimaryCtxRetain, missing);
  resolve(d.handle, {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}, d.cuDevicePrimaryCtxRelease,
          missing);
  resolve(d.handle, {"cuCtxSetCurrent"}, d.cuCtxSetCurrent, missing);
  resolve(d.handle, {"cuMemAlloc_v2"}, d.cuMemAlloc, missing);
  resolve(d.handle, {"cuMemFree_v2"}, d.cuMemFree, missing);
  resolve(d.handle, {"cuMemAllocHost_v2"}, d.cuMemAllocHost, missing);
  resolve(d.handle, {"cuMemFreeHost"}, d.cuMemFreeHost, missing);
  resolve(d.handle, {"cuMemcpyHtoDAsync_v2"}, d.cuMemcpyHtoDAsync, missing);
  resolve(d.handle, {"cuMemcpyDtoHAsync_v2"}, d.cuMemcpyDtoHAsync, missing);
  resolve(d.handle, {"cuStreamCreate"}, d.cuStreamCreate, missing);
  resolve(d.handle, {"cuStreamDestroy_v2", "cuStreamDestroy"}, d.cuStreamDestroy, missing);
  resolve(d.handle, {"cuStreamSynchronize"}, d.cuStreamSynchronize, missing);
  bool ok = missing.empty();
  std::string optional_missing;
  resolve(d.handle, {"cuGetErrorString"}, d.cuGetErrorString, optional_missing);
  if (!ok) {
    return core::fail(core::ErrorCode::kUnsupported, name,
                      core::Message(N_("lacks {}: driver too old or not the NVIDIA driver library"), missing));
  }
  return d;
}

core::Result<CublasLt> load_cublaslt_once() {
  CublasLt lt;
  std::vector<std::string> names;
  const char* env = std::getenv("TFRIG_CUBLASLT_LIBRARY");
  if (env != nullptr && env[0] != '\0') names.emplace_back(env);
  for (const char* n : {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11"}) names.emplace_back(n);
  // The toolkit's default prefix, often not in the loader's path
  // (NVIDIA's installation guide asks users to add it to LD_LIBRARY_PATH).
  for (const char* n : {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11"}) {
    names.emplace_back(std::string("/usr/local/cuda/lib64/") + n);
  }
  for (const auto& n : names) {
    if (auto opened = open_library(n)) {
      lt.handle = *opened;
      lt.soname = n;
      break;
    }
  }
  if (lt.handle == nullptr) {
    return core::fail(core::ErrorCode::kNotFound, "libcublasLt.so.{13,12,11}",
                      core::Message(N_("not found (also not in /usr/local/cuda/lib64): install the CUDA toolkit's "
                                       "cuBLAS or add its lib64 to LD_LIBRARY_PATH")));
  }
  std::string missing;
  resolve(lt.handle, {"cublasLtCreate"}, lt.cublasLtCreate, missing);
  resolve(lt.handle, {"cublasLtDestroy"}, lt.cublasLtDestroy, missing);
  resolve(lt.handle, {"cublasLtMatmulDescCreate"}, lt.cublasLtMatmulDescCreate, missing);
  resolve(lt.handle, {"cublasLtMatmulDescDestroy"}, lt.cublasLtMatmulDescDestroy, missing);
  resolve(lt.handle, {"cublasLtMatmulDescSetAttribute"}, lt.cublasLtMatmulDescSetAttribute, missing);
  resolve(lt.handle, {"cublasLtMatrixLayoutCreate"}, lt.cublasLtMatrixLayoutCreate, missing);
  resolve(lt.handle, {"cublasLtMatrixLayoutDestroy"}, lt.cublasLtMatrixLayoutDestroy, missing);
  resolve(lt.handle, {"cublasLtMatmulPreferenceCreate"}, lt.cublasLtMatmulPreferenceCreate, missing);
  resolve(lt.handle, {"cublasLtMatmulPreferenceDestroy"}, lt.cublasLtMatmulPreferenceDestroy, missing);
  resolve(lt.handle, {"cublasLtMatmulPreferenceSetAttribute"}, lt.cublasLtMatmulPreferenceSetAttribute, missing);
  resolve(lt.handle, {"cublasLtMatmulAlgoGetHeuristic"}, lt.cublasLtMatmulAlgoGetHeuristic, missing);
  resolve(lt.handle, {"cublasLtMatmul"}, lt.cublasLtMatmul, missing);
  bool ok = missing.empty();
  if (!ok) return core::fail(core::ErrorCode::kUnsupported, lt.soname, core::Message(N_("lacks {}"), missing));
  return lt;
}

}  // namespace

std::string Driver::error_text(const char* call, CUresult rc) const {
  const char* text = nullptr;
  if (cuGetErrorString != nullptr && cuGetErrorString(rc, &text) != kCudaSuccess) text = nullptr;
  return fmt::format("{}: CUDA error {}{}", call, rc, text != nullptr ? std::string(" (") + text + ")" : "");
}

core::Result<const Driver*> load_driver() {
  // Loaded once per process: the result (or the error) is kept.
  static const core::Result<Driver> driver = load_driver_once();
  if (!driver) return tl::unexpected(driver.error());
  return &*driver;
}

core::Result<const CublasLt*> load_cublaslt() {
  static const core::Result<CublasLt> lt = load_cublaslt_once();
  if (!lt) return tl::unexpected(lt.error());
  return &*lt;
}

}  // namespace tfrig::bench::cuda
