// Checks src/bench/cuda_api.h, written by hand from NVIDIA's documentation,
// against the CUDA toolkit's own headers when they are installed: every
// function's ABI shape, every constant and struct layout. Without a toolkit
// the test says so and skips.
#include "bench/cuda_api.h"
#include "abi_shape.h"

#include <gtest/gtest.h>

#if defined(TFRIG_HAVE_CUDA_HEADERS)
#include <cublasLt.h>
#include <cuda.h>
#endif

namespace tfrig::bench::cuda {
namespace {

#if defined(TFRIG_HAVE_CUDA_HEADERS)

using test::same_shape;

#define TFRIG_CHECK_FN(real_symbol, ours) \
  static_assert(same_shape<decltype(&::real_symbol), ours>, #real_symbol " does not match " #ours)

TFRIG_CHECK_FN(cuInit, cuInit_t);
TFRIG_CHECK_FN(cuDriverGetVersion, cuDriverGetVersion_t);
TFRIG_CHECK_FN(cuDeviceGetCount, cuDeviceGetCount_t);
TFRIG_CHECK_FN(cuDeviceGet, cuDeviceGet_t);
TFRIG_CHECK_FN(cuDeviceGetName, cuDeviceGetName_t);
TFRIG_CHECK_FN(cuDeviceGetAttribute, cuDeviceGetAttribute_t);
TFRIG_CHECK_FN(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain_t);
TFRIG_CHECK_FN(cuDevicePrimaryCtxRelease_v2, cuDevicePrimaryCtxRelease_t);
TFRIG_CHECK_FN(cuCtxSetCurrent, cuCtxSetCurrent_t);
TFRIG_CHECK_FN(cuMemAlloc_v2, cuMemAlloc_t);
TFRIG_CHECK_FN(cuMemFree_v2, cuMemFree_t);
TFRIG_CHECK_FN(cuMemAllocHost_v2, cuMemAllocHost_t);
TFRIG_CHECK_FN(cuMemFreeHost, cuMemFreeHost_t);
TFRIG_CHECK_FN(cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync_t);
TFRIG_CHECK_FN(cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync_t);
TFRIG_CHECK_FN(cuStreamCreate, cuStreamCreate_t);
TFRIG_CHECK_FN(cuStreamDestroy_v2, cuStreamDestroy_t);
TFRIG_CHECK_FN(cuStreamSynchronize, cuStreamSynchronize_t);
TFRIG_CHECK_FN(cuGetErrorString, cuGetErrorString_t);
TFRIG_CHECK_FN(cublasLtCreate, cublasLtCreate_t);
TFRIG_CHECK_FN(cublasLtDestroy, cublasLtDestroy_t);
TFRIG_CHECK_FN(cublasLtMatmulDescCreate, cublasLtMatmulDescCreate_t);
TFRIG_CHECK_FN(cublasLtMatmulDescDestroy, cublasLtMatmulDescDestroy_t);
TFRIG_CHECK_FN(cublasLtMatmulDescSetAttribute, cublasLtMatmulDescSetAttribute_t);
TFRIG_CHECK_FN(cublasLtMatrixLayoutCreate, cublasLtMatrixLayoutCreate_t);
TFRIG_CHECK_FN(cublasLtMatrixLayoutDestroy, cublasLtMatrixLayoutDestroy_t);
TFRIG_CHECK_FN(cublasLtMatmulPreferenceCreate, cublasLtMatmulPreferenceCreate_t);
TFRIG_CHECK_FN(cublasLtMatmulPreferenceDestroy, cublasLtMatmulPreferenceDestroy_t);
TFRIG_CHECK_FN(cublasLtMatmulPreferenceSetAttribute, cublasLtMatmulPreferenceSetAttribute_t);
TFRIG_CHECK_FN(cublasLtMatmulAlgoGetHeuristic, cublasLtMatmulAlgoGetHeuristic_t);
TFRIG_CHECK_FN(cublasLtMatmul, cublasLtMatmul_t);

static_assert(sizeof(CUdeviceptr) == sizeof(::CUdeviceptr));
static_assert(sizeof(::CUresult) == sizeof(CUresult));
static_assert(kCudaSuccess == ::CUDA_SUCCESS);
static_assert(kCublasSuccess == ::CUBLAS_STATUS_SUCCESS);
static_assert(kAttrPciBusId == ::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
static_assert(kAttrPciDeviceId == ::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
static_assert(kAttrPciDomainId == ::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
static_assert(kAttrComputeCapabilityMajor == ::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(kAttrComputeCapabilityMinor == ::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(kCudaR32F == ::CUDA_R_32F);
static_assert(kCudaR16F == ::CUDA_R_16F);
static_assert(kCudaR16BF == ::CUDA_R_16BF);
static_assert(kComputeType32F == ::CUBLAS_COMPUTE_32F);
static_assert(kComputeType32FFastTf32 == ::CUBLAS_COMPUTE_32F_FAST_TF32);
static_assert(kOpN == ::CUBLAS_OP_N);
static_assert(kOpT == ::CUBLAS_OP_T);
static_assert(kMatmulDescTransA == ::CUBLASLT_MATMUL_DESC_TRANSA);
static_assert(kMatmulDescTransB == ::CUBLASLT_MATMUL_DESC_TRANSB);
static_assert(kMatmulPrefMaxWorkspaceBytes == ::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
// The attributes we set are int32 (TRANSA/TRANSB: cublasOperation_t) and
// uint64 (workspace); the sizes we pass must match the enum storage.
static_assert(sizeof(::cublasOperation_t) == sizeof(int));
static_assert(sizeof(MatmulAlgo) == sizeof(::cublasLtMatmulAlgo_t));
static_assert(sizeof(MatmulHeuristicResult) == sizeof(::cublasLtMatmulHeuristicResult_t));
static_assert(offsetof(MatmulHeuristicResult, workspace_size) == offsetof(::cublasLtMatmulHeuristicResult_t, workspaceSize));
static_assert(offsetof(MatmulHeuristicResult, state) == offsetof(::cublasLtMatmulHeuristicResult_t, state));
static_assert(offsetof(MatmulHeuristicResult, waves_count) == offsetof(::cublasLtMatmulHeuristicResult_t, wavesCount));

TEST(CudaDeclarations, MatchTheInstalledHeaders) {
  // Everything is checked at compile time above; this records that it ran.
  SUCCEED() << "checked against CUDA " << CUDA_VERSION;
}

#else

TEST(CudaDeclarations, MatchTheInstalledHeaders) {
  GTEST_SKIP() << "no CUDA toolkit headers (cuda.h, cublasLt.h) found at configure time";
}

#endif

}  // namespace
}  // namespace tfrig::bench::cuda
