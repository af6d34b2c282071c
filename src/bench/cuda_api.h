// Our own minimal declarations of the CUDA driver API and cuBLASLt, written
// from NVIDIA's public API reference (docs.nvidia.com/cuda/cuda-driver-api,
// docs.nvidia.com/cuda/cublas/#using-the-cublaslt-api), loaded with dlopen so
// that tfrig builds and runs where no CUDA is installed. Only what pcie and
// gemm use is declared. Opaque handles are void*; enums are passed as int,
// which is how the x86-64 and aarch64 C ABIs pass a C enum.
// tests/bench/cuda_decls_test.cpp checks every signature, constant and
// struct size below against the real headers when they are installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/result.h"

namespace tfrig::bench::cuda {

using CUresult = int;  // CUDA_SUCCESS = 0
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // the _v2 (64-bit) device pointer
using CUcontext = void*;
using CUstream = void*;
using cublasStatus_t = int;  // CUBLAS_STATUS_SUCCESS = 0
using cublasLtHandle_t = void*;
using cublasLtMatmulDesc_t = void*;
using cublasLtMatrixLayout_t = void*;
using cublasLtMatmulPreference_t = void*;

inline constexpr CUresult kCudaSuccess = 0;
inline constexpr cublasStatus_t kCublasSuccess = 0;

// CUdevice_attribute values (cuda.h).
inline constexpr int kAttrPciBusId = 33;
inline constexpr int kAttrPciDeviceId = 34;
inline constexpr int kAttrPciDomainId = 50;
inline constexpr int kAttrComputeCapabilityMajor = 75;
inline constexpr int kAttrComputeCapabilityMinor = 76;

// cudaDataType_t (library_types.h) and cublasComputeType_t (cublas_api.h).
inline constexpr int kCudaR32F = 0;
inline constexpr int kCudaR16F = 2;
inline constexpr int kCudaR16BF = 14;
inline constexpr int kComputeType32F = 68;
inline constexpr int kComputeType32FFastTf32 = 77;
// cublasOperation_t and the attribute ids we set (cublasLt.h).
inline constexpr int kOpN = 0;
inline constexpr int kOpT = 1;
inline constexpr int kMatmulDescTransA = 3;
inline constexpr int kMatmulDescTransB = 4;
inline constexpr int kMatmulPrefMaxWorkspaceBytes = 1;

// cublasLtMatmulAlgo_t and cublasLtMatmulHeuristicResult_t, laid out as in cublasLt.h.
struct MatmulAlgo {
  uint64_t data[8];
};
struct MatmulHeuristicResult {
  MatmulAlgo algo;
  size_t workspace_size;
  cublasStatus_t state;
  float waves_count;
  int reserved[4];
};

// Function pointer types, one per entry point.
using cuInit_t = CUresult (*)(unsigned int flags);
using cuDriverGetVersion_t = CUresult (*)(int* version);
using cuDeviceGetCount_t = CUresult (*)(int* count);
using cuDeviceGet_t = CUresult (*)(CUdevice* device, int ordinal);
using cuDeviceGetName_t = CUresult (*)(char* name, int len, CUdevice device);
using cuDeviceGetAttribute_t = CUresult (*)(int* value, int attribute, CUdevice device);
using cuDevicePrimaryCtxRetain_t = CUresult (*)(CUcontext* ctx, CUdevice device);
using cuDevicePrimaryCtxRelease_t = CUresult (*)(CUdevice device);
using cuCtxSetCurrent_t = CUresult (*)(CUcontext ctx);
using cuMemAlloc_t = CUresult (*)(CUdeviceptr* ptr, size_t bytes);
using cuMemFree_t = CUresult (*)(CUdeviceptr ptr);
using cuMemAllocHost_t = CUresult (*)(void** ptr, size_t bytes);
using cuMemFreeHost_t = CUresult (*)(void* ptr);
using cuMemcpyHtoDAsync_t = CUresult (*)(CUdeviceptr dst, const void* src, size_t bytes, CUstream stream);
using cuMemcpyDtoHAsync_t = CUresult (*)(void* dst, CUdeviceptr src, size_t bytes, CUstream stream);
using cuStreamCreate_t = CUresult (*)(CUstream* stream, unsigned int flags);
using cuStreamDestroy_t = CUresult (*)(CUstream stream);
using cuStreamSynchronize_t = CUresult (*)(CUstream stream);
using cuGetErrorString_t = CUresult (*)(CUresult error, const char** text);

using cublasLtCreate_t = cublasStatus_t (*)(cublasLtHandle_t* handle);
using cublasLtDestroy_t = cublasStatus_t (*)(cublasLtHandle_t handle);
using cublasLtMatmulDescCreate_t = cublasStatus_t (*)(cublasLtMatmulDesc_t* desc, int compute_type, int scale_type);
using cublasLtMatmulDescDestroy_t = cublasStatus_t (*)(cublasLtMatmulDesc_t desc);
using cublasLtMatmulDescSetAttribute_t = cublasStatus_t (*)(cublasLtMatmulDesc_t desc, int attribute, const void* value,
                                                            size_t bytes);
using cublasLtMatrixLayoutCreate_t = cublasStatus_t (*)(cublasLtMatrixLayout_t* layout, int type, uint64_t rows,
                                                        uint64_t cols, int64_t ld);
using cublasLtMatrixLayoutDestroy_t = cublasStatus_t (*)(cublasLtMatrixLayout_t layout);
using cublasLtMatmulPreferenceCreate_t = cublasStatus_t (*)(cublasLtMatmulPreference_t* pref);
using cublasLtMatmulPreferenceDestroy_t = cublasStatus_t (*)(cublasLtMatmulPreference_t pref);
using cublasLtMatmulPreferenceSetAttribute_t = cublasStatus_t (*)(cublasLtMatmulPreference_t pref, int attribute,
                                                                  const void* value, size_t bytes);
using cublasLtMatmulAlgoGetHeuristic_t = cublasStatus_t (*)(cublasLtHandle_t handle, cublasLtMatmulDesc_t op,
                                                            cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                                            cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                                                            cublasLtMatmulPreference_t pref, int requested,
                                                            MatmulHeuristicResult* results, int* returned);
using cublasLtMatmul_t = cublasStatus_t (*)(cublasLtHandle_t handle, cublasLtMatmulDesc_t op, const void* alpha,
                                            const void* a, cublasLtMatrixLayout_t a_desc, const void* b,
                                            cublasLtMatrixLayout_t b_desc, const void* beta, const void* c,
                                            cublasLtMatrixLayout_t c_desc, void* d, cublasLtMatrixLayout_t d_desc,
                                            const MatmulAlgo* algo, void* workspace, size_t workspace_bytes,
                                            CUstream stream);

// The driver: libcuda.so.1 (the soname the driver installs; never the
// toolkit's stub libcuda.so, which only fails).
struct Driver {
  void* handle = nullptr;
  cuInit_t cuInit = nullptr;
  cuDriverGetVersion_t cuDriverGetVersion = nullptr;
  cuDeviceGetCount_t cuDeviceGetCount = nullptr;
  cuDeviceGet_t cuDeviceGet = nullptr;
  cuDeviceGetName_t cuDeviceGetName = nullptr;
  cuDeviceGetAttribute_t cuDeviceGetAttribute = nullptr;
  cuDevicePrimaryCtxRetain_t cuDevicePrimaryCtxRetain = nullptr;
  cuDevicePrimaryCtxRelease_t cuDevicePrimaryCtxRelease = nullptr;
  cuCtxSetCurrent_t cuCtxSetCurrent = nullptr;
  cuMemAlloc_t cuMemAlloc = nullptr;
  cuMemFree_t cuMemFree = nullptr;
  cuMemAllocHost_t cuMemAllocHost = nullptr;
  cuMemFreeHost_t cuMemFreeHost = nullptr;
  cuMemcpyHtoDAsync_t cuMemcpyHtoDAsync = nullptr;
  cuMemcpyDtoHAsync_t cuMemcpyDtoHAsync = nullptr;
  cuStreamCreate_t cuStreamCreate = nullptr;
  cuStreamDestroy_t cuStreamDestroy = nullptr;
  cuStreamSynchronize_t cuStreamSynchronize = nullptr;
  cuGetErrorString_t cuGetErrorString = nullptr;  // optional

  // "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string error_text(const char* call, CUresult rc) const;
};

struct CublasLt {
  void* handle = nullptr;
  std::string soname;
  cublasLtCreate_t cublasLtCreate = nullptr;
  cublasLtDestroy_t cublasLtDestroy = nullptr;
  cublasLtMatmulDescCreate_t cublasLtMatmulDescCreate = nullptr;
  cublasLtMatmulDescDestroy_t cublasLtMatmulDescDestroy = nullptr;
  cublasLtMatmulDescSetAttribute_t cublasLtMatmulDescSetAttribute = nullptr;
  cublasLtMatrixLayoutCreate_t cublasLtMatrixLayoutCreate = nullptr;
  cublasLtMatrixLayoutDestroy_t cublasLtMatrixLayoutDestroy = nullptr;
  cublasLtMatmulPreferenceCreate_t cublasLtMatmulPreferenceCreate = nullptr;
  cublasLtMatmulPreferenceDestroy_t cublasLtMatmulPreferenceDestroy = nullptr;
  cublasLtMatmulPreferenceSetAttribute_t cublasLtMatmulPreferenceSetAttribute = nullptr;
  cublasLtMatmulAlgoGetHeuristic_t cublasLtMatmulAlgoGetHeuristic = nullptr;
  cublasLtMatmul_t cublasLtMatmul = nullptr;
};

// Loads libcuda.so.1 (TFRIG_CUDA_LIBRARY overrides, for tests) and every
// required symbol; the error says which file or symbol is missing. The
// handle stays loaded for the life of the process (unloading a driver
// library with live contexts is undefined).
core::Result<const Driver*> load_driver();
// Loads cuBLASLt: TFRIG_CUBLASLT_LIBRARY, then libcublasLt.so.13, .12, .11
// (one soname per CUDA major release), newest first, through the loader's
// path and then from /usr/local/cuda/lib64.
core::Result<const CublasLt*> load_cublaslt();

}  // namespace tfrig::bench::cuda
