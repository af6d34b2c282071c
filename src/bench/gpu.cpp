// pcie and gemm: what the GPU side of the pipeline can take. pcie measures
// host-to-device and device-to-host copies from pinned and from pageable
// memory through the CUDA driver API; gemm measures matrix-multiply TFLOPS
// through cuBLASLt at fp32, tf32, fp16 and bf16. Both load NVIDIA's
// libraries with dlopen and skip with the reason where there is no driver or
// no GPU.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "bench/benchmarks.h"
#include "bench/cuda_api.h"
#include "bench/runner.h"
#include "core/clock.h"
#include "core/i18n.h"
#include "core/log.h"
#include "core/try.h"

namespace tfrig::bench {

namespace {

using cuda::CUdeviceptr;
using cuda::CUresult;
using cuda::kCudaSuccess;

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  std::string pci_bus_id;
};

// Why the GPU benchmarks cannot run here, or nullopt.
std::optional<core::Message> gpu_unavailable() {
  auto drv = cuda::load_driver();
  if (!drv) {
    // The one-line reason users search for; dlerror's text is in the -vv log.
    if (drv.error().code == core::ErrorCode::kNotFound) {
      return core::Message(N_("{} not found: no NVIDIA driver"), drv.error().where);
    }
    return error_reason(drv.error());
  }
  const cuda::Driver& d = **drv;
  // cuInit is idempotent; a failure here (no device, driver/kernel module
  // mismatch) is the most useful single line we can give.
  if (CUresult rc = d.cuInit(0); rc != kCudaSuccess) return core::Message("{}", d.error_text("cuInit", rc));
  int count = 0;
  if (CUresult rc = d.cuDeviceGetCount(&count); rc != kCudaSuccess) {
    return core::Message("{}", d.error_text("cuDeviceGetCount", rc));
  }
  if (count == 0) return core::Message(N_("the NVIDIA driver sees no CUDA device"));
  return std::nullopt;
}

core::Result<DeviceInfo> device_info(const cuda::Driver& d, int ordinal) {
  DeviceInfo info;
  info.ordinal = ordinal;
  cuda::CUdevice dev = 0;
  if (CUresult rc = d.cuDeviceGet(&dev, ordinal); rc != kCudaSuccess) {
    return core::fail(core::ErrorCode::kIo, "gpu", d.error_text("cuDeviceGet", rc));
  }
  char name[256] = {};
  if (d.cuDeviceGetName(name, sizeof(name) - 1, dev) == kCudaSuccess) info.name = name;
  d.cuDeviceGetAttribute(&info.cc_major, cuda::kAttrComputeCapabilityMajor, dev);
  d.cuDeviceGetAttribute(&info.cc_minor, cuda::kAttrComputeCapabilityMinor, dev);
  int domain = 0, bus = 0, slot = 0;
  d.cuDeviceGetAttribute(&domain, cuda::kAttrPciDomainId, dev);
  d.cuDeviceGetAttribute(&bus, cuda::kAttrPciBusId, dev);
  d.cuDeviceGetAttribute(&slot, cuda::kAttrPciDeviceId, dev);
  info.pci_bus_id = fmt::format("{:04x}:{:02x}:{:02x}.0", domain, bus, slot);
  return info;
}

// The primary context of device 0, current on the calling thread, and one
// stream; everything allocated through it is freed in the destructor, so an
// early return on any error leaks nothing on the GPU.
class GpuSession {
 public:
  explicit GpuSession(const cuda::Driver& d) : d_(d) {}
  ~GpuSession() {
    if (stream_ != nullptr) d_.cuStreamSynchronize(stream_);
    for (CUdeviceptr p : device_) d_.cuMemFree(p);
    for (void* p : pinned_) d_.cuMemFreeHost(p);
    if (stream_ != nullptr) d_.cuStreamDestroy(stream_);
    if (ctx_ != nullptr) d_.cuDevicePrimaryCtxRelease(dev_);
  }
  GpuSession(const GpuSession&) = delete;
  GpuSession& operator=(const GpuSession&) = delete;

  core::Status open(int ordinal) {
    if (CUresult rc = d_.cuDeviceGet(&dev_, ordinal); rc != kCudaSuccess) return error("cuDeviceGet", rc);
    if (CUresult rc = d_.cuDevicePrimaryCtxRetain(&ctx_, dev_); rc != kCudaSuccess) {
      ctx_ = nullptr;
      return error("cuDevicePrimaryCtxRetain", rc);
    }
    if (CUresult rc = d_.cuCtxSetCurrent(ctx_); rc != kCudaSuccess) return error("cuCtxSetCurrent", rc);
    // Flags 0: CU_STREAM_DEFAULT (synchronises with the legacy stream, which we do not use).
    if (CUresult rc = d_.cuStreamCreate(&stream_, 0); rc != kCudaSuccess) {
      stream_ = nullptr;
      return error("cuStreamCreate", rc);
    }
    return {};
  }
  core::Result<CUdeviceptr> alloc_device(size_t bytes) {
    CUdeviceptr p = 0;
    if (CUresult rc = d_.cuMemAlloc(&p, bytes); rc != kCudaSuccess)
      return tl::unexpected(error("cuMemAlloc_v2", rc).error());
    device_.push_back(p);
    return p;
  }
  core::Result<void*> alloc_pinned(size_t bytes) {
    void* p = nullptr;
    if (CUresult rc = d_.cuMemAllocHost(&p, bytes); rc != kCudaSuccess) {
      return tl::unexpected(error("cuMemAllocHost_v2", rc).error());
    }
    pinned_.push_back(p);
    return p;
  }
  core::Status sync() {
    if (CUresult rc = d_.cuStreamSynchronize(stream_); rc != kCudaSuccess) return error("cuStreamSynchronize", rc);
    return {};
  }
  core::Status error(const char* call, CUresult rc) const {
    return core::fail(core::ErrorCode::kIo, "gpu", d_.error_text(call, rc));
  }
  cuda::CUstream stream() const { return stream_; }

 private:
  const cuda::Driver& d_;
  cuda::CUdevice dev_ = 0;
  cuda::CUcontext ctx_ = nullptr;
  cuda::CUstream stream_ = nullptr;
  std::vector<CUdeviceptr> device_;
  std::vector<void*> pinned_;
};

class PcieBenchmark final : public Benchmark {
 public:
  std::string_view id() const override { return "pcie"; }
  std::string_view description() const override {
    return N_("host<->device copy bandwidth, pinned and pageable host memory (CUDA driver API)");
  }
  std::vector<std::pair<std::string, std::string>> metrics() const override {
    return {{"h2d_pinned", "GB/s"}, {"d2h_pinned", "GB/s"}, {"h2d_pageable", "GB/s"}, {"d2h_pageable", "GB/s"}};
  }
  std::optional<core::Message> skip_reason(const RunContext&) const override { return gpu_unavailable(); }

  void run(const RunContext& ctx, Runner& runner) override {
    const cuda::Driver& d = **cuda::load_driver();
    auto fail_all = [&](const core::Message& why) {
      for (const auto& [metric, unit] : metrics()) runner.fail(metric, unit, why);
    };
    auto info = device_info(d, 0);
    if (!info) return fail_all(error_reason(info.error()));
    GpuSession gpu(d);
    if (auto s = gpu.open(0); !s) return fail_all(error_reason(s.error()));
    // 256 MiB per copy: long enough (milliseconds at PCIe 5.0 x16's ~64 GB/s)
    // that launch latency is far below 1%, as in nvbandwidth's large-buffer tests.
    size_t bytes = ctx.config.quick ? (32u << 20) : (256u << 20);
    constexpr int kCopiesPerSample = 4;
    auto dev = gpu.alloc_device(bytes);
    auto pinned = gpu.alloc_pinned(bytes);
    if (!dev) return fail_all(error_reason(dev.error()));
    if (!pinned) return fail_all(error_reason(pinned.error()));
    std::vector<unsigned char> pageable(bytes);
    std::memset(pageable.data(), 1, bytes);  // fault every page in before timing
    std::memset(*pinned, 1, bytes);

    nlohmann::json base = {{"gpu", info->name},
                           {"pci_bus_id", info->pci_bus_id},
                           {"bytes_per_copy", bytes},
                           {"copies_per_sample", kCopiesPerSample}};
    for (bool use_pinned : {true, false}) {
      for (bool to_device : {true, false}) {
        void* host = use_pinned ? *pinned : static_cast<void*>(pageable.data());
        std::string metric = fmt::format("{}_{}", to_device ? "h2d" : "d2h", use_pinned ? "pinned" : "pageable");
        nlohmann::json params = base;
        params["host_memory"] = use_pinned ? "pinned (cuMemAllocHost)" : "pageable (malloc)";
        runner.measure(metric, "GB/s", params, [&, host, to_device]() -> core::Result<double> {
          core::Stopwatch w;
          for (int i = 0; i < kCopiesPerSample; ++i) {
            CUresult rc = to_device ? d.cuMemcpyHtoDAsync(*dev, host, bytes, gpu.stream())
                                    : d.cuMemcpyDtoHAsync(host, *dev, bytes, gpu.stream());
            if (rc != kCudaSuccess)
              return tl::unexpected(gpu.error(to_device ? "cuMemcpyHtoDAsync_v2" : "cuMemcpyDtoHAsync_v2", rc).error());
          }
          TFRIG_TRY(gpu.sync());
          return static_cast<double>(bytes) * kCopiesPerSample / std::max(w.seconds(), 1e-9) / 1e9;
        });
      }
    }
  }
};

struct Precision {
  const char* metric;
  int data_type;
  int compute_type;
  size_t element_bytes;
  int min_cc_major;  // tensor-core support for this type
  const char* label;
};

// Random values in [0.5, 1) for each element type, written as raw bits so no
// half-precision type is needed on the host: realistic data keeps the GPU's
// power (and so its clock) where a training run would have it.
void fill_random(void* host, size_t elements, int data_type, uint64_t seed) {
  std::mt19937_64 rng(seed);
  if (data_type == cuda::kCudaR32F) {
    auto* p = static_cast<uint32_t*>(host);
    for (size_t i = 0; i < elements; ++i) p[i] = 0x3F000000u | static_cast<uint32_t>(rng() & 0x7FFFFFu);
  } else if (data_type == cuda::kCudaR16F) {
    auto* p = static_cast<uint16_t*>(host);
    for (size_t i = 0; i < elements; ++i) p[i] = static_cast<uint16_t>(0x3800u | (rng() & 0x3FFu));
  } else {  // bf16
    auto* p = static_cast<uint16_t*>(host);
    for (size_t i = 0; i < elements; ++i) p[i] = static_cast<uint16_t>(0x3F00u | (rng() & 0x7Fu));
  }
}

// The element types measured, each with the compute capability whose tensor
// cores take it (fp32 runs on the CUDA cores everywhere).
const Precision kGemmPrecisions[] = {
    {"fp32", cuda::kCudaR32F, cuda::kComputeType32F, 4, 0, "fp32 inputs, fp32 compute (CUDA cores)"},
    {"tf32", cuda::kCudaR32F, cuda::kComputeType32FFastTf32, 4, 8, "fp32 inputs, tf32 tensor cores"},
    {"fp16", cuda::kCudaR16F, cuda::kComputeType32F, 2, 7, "fp16 inputs, fp32 accumulate (mixed precision)"},
    {"bf16", cuda::kCudaR16BF, cuda::kComputeType32F, 2, 8, "bf16 inputs, fp32 accumulate"},
};

// The conditions of one precision's measurement, recorded with it.
nlohmann::json gemm_params(const DeviceInfo& info, uint64_t n, const Precision& p, int iterations,
                           const cuda::CublasLt& lt) {
  return {{"gpu", info.name},
          {"compute_capability", fmt::format("{}.{}", info.cc_major, info.cc_minor)},
          {"m", n},
          {"n", n},
          {"k", n},
          {"layout", "TN (A transposed), column-major"},
          {"precision", p.label},
          {"iterations_per_sample", iterations},
          {"library", lt.soname}};
}

// Inputs: random values uploaded through the pinned staging buffer; false
// when a copy fails.
bool upload_gemm_inputs(const cuda::Driver& d, GpuSession& gpu, void* staging,
                        std::initializer_list<CUdeviceptr> inputs, size_t elements, const Precision& p) {
  bool upload_ok = true;
  for (CUdeviceptr dst : inputs) {
    fill_random(staging, elements, p.data_type, dst);
    if (d.cuMemcpyHtoDAsync(dst, staging, elements * p.element_bytes, gpu.stream()) != kCudaSuccess || !gpu.sync()) {
      upload_ok = false;
    }
  }
  return upload_ok;
}

class GemmBenchmark final : public Benchmark {
 public:
  std::string_view id() const override { return "gemm"; }
  std::string_view description() const override {
    return N_("matrix multiply TFLOPS through cuBLASLt at fp32, tf32, fp16 and bf16");
  }
  std::vector<std::pair<std::string, std::string>> metrics() const override {
    return {{"fp32", "TFLOPS"}, {"tf32", "TFLOPS"}, {"fp16", "TFLOPS"}, {"bf16", "TFLOPS"}};
  }
  std::optional<core::Message> skip_reason(const RunContext&) const override {
    if (auto why = gpu_unavailable()) return why;
    if (auto lt = cuda::load_cublaslt(); !lt) return error_reason(lt.error());
    return std::nullopt;
  }

  void run(const RunContext& ctx, Runner& runner) override {
    const cuda::Driver& d = **cuda::load_driver();
    const cuda::CublasLt& lt = **cuda::load_cublaslt();
    auto fail_all = [&](const core::Message& why) {
      for (const auto& [metric, unit] : metrics()) runner.fail(metric, unit, why);
    };
    auto info = device_info(d, 0);
    if (!info) return fail_all(error_reason(info.error()));
    GpuSession gpu(d);
    if (auto s = gpu.open(0); !s) return fail_all(error_reason(s.error()));
    cuda::cublasLtHandle_t handle = nullptr;
    if (lt.cublasLtCreate(&handle) != cuda::kCublasSuccess) return fail_all(core::Message(N_("cublasLtCreate failed")));

    // 8192^3: large enough to saturate any current GPU's tensor cores, small
    // enough (768 MiB at fp32) for a 4 GB card.
    const uint64_t n = ctx.config.quick ? 2048 : 8192;
    // 32 MiB of workspace: cuBLAS's recommendation for Hopper (cuBLAS docs,
    // cublasSetWorkspace), ample for older GPUs.
    constexpr size_t kWorkspace = 32u << 20;
    const int iterations = ctx.config.quick ? 5 : 20;
    auto workspace = gpu.alloc_device(kWorkspace);
    size_t max_bytes = n * n * 4;
    auto a = gpu.alloc_device(max_bytes);
    auto b = gpu.alloc_device(max_bytes);
    auto c = gpu.alloc_device(max_bytes);
    auto staging = gpu.alloc_pinned(max_bytes);
    for (const auto* r : {&workspace, &a, &b, &c}) {
      if (!*r) {
        lt.cublasLtDestroy(handle);
        return fail_all(error_reason(r->error()));
      }
    }
    if (!staging) {
      lt.cublasLtDestroy(handle);
      return fail_all(error_reason(staging.error()));
    }

    for (const Precision& p : kGemmPrecisions) {
      nlohmann::json params = gemm_params(*info, n, p, iterations, lt);
      if (info->cc_major < p.min_cc_major) {
        runner.skip(p.metric, "TFLOPS",
                    core::Message(N_("{0} needs compute capability {1}.0 or newer; this GPU is {2}.{3}"), p.metric,
                                  p.min_cc_major, info->cc_major, info->cc_minor),
                    params);
        continue;
      }
      if (!upload_gemm_inputs(d, gpu, *staging, {*a, *b}, n * n, p)) {
        runner.fail(p.metric, "TFLOPS", core::Message(N_("uploading the input matrices failed")), params);
        continue;
      }
      Matmul mm(lt);
      if (auto s = mm.setup(handle, p, n, kWorkspace); !s) {
        runner.fail(p.metric, "TFLOPS", error_reason(s.error()), params);
        continue;
      }
      const float alpha = 1.0f, beta = 0.0f;
      runner.measure(p.metric, "TFLOPS", params, [&]() -> core::Result<double> {
        core::Stopwatch w;
        for (int i = 0; i < iterations; ++i) {
          cuda::cublasStatus_t st = lt.cublasLtMatmul(
              handle, mm.op, &alpha, reinterpret_cast<const void*>(*a), mm.a, reinterpret_cast<const void*>(*b), mm.b,
              &beta, reinterpret_cast<const void*>(*c), mm.c, reinterpret_cast<void*>(*c), mm.c, &mm.algo,
              reinterpret_cast<void*>(*workspace), kWorkspace, gpu.stream());
          if (st != cuda::kCublasSuccess) {
            return core::fail(core::ErrorCode::kIo, "gpu", fmt::format("cublasLtMatmul: status {}", st));
          }
        }
        TFRIG_TRY(gpu.sync());
        double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) * iterations;
        return flops / std::max(w.seconds(), 1e-9) / 1e12;
      });
    }
    lt.cublasLtDestroy(handle);
  }

 private:
  // The descriptors of one C = A^T * B and the algorithm the heuristic picks.
  struct Matmul {
    explicit Matmul(const cuda::CublasLt& lt) : lt_(lt) {}
    ~Matmul() {
      if (pref != nullptr) lt_.cublasLtMatmulPreferenceDestroy(pref);
      for (cuda::cublasLtMatrixLayout_t l : {a, b, c}) {
        if (l != nullptr) lt_.cublasLtMatrixLayoutDestroy(l);
      }
      if (op != nullptr) lt_.cublasLtMatmulDescDestroy(op);
    }
    Matmul(const Matmul&) = delete;
    Matmul& operator=(const Matmul&) = delete;

    core::Status setup(cuda::cublasLtHandle_t handle, const Precision& p, uint64_t n, size_t workspace) {
      auto check = [](cuda::cublasStatus_t st, const char* call) -> core::Status {
        if (st == cuda::kCublasSuccess) return {};
        return core::fail(core::ErrorCode::kIo, "gpu", fmt::format("{}: status {}", call, st));
      };
      // Scale type fp32 for every precision: alpha and beta are floats.
      if (auto s =
              check(lt_.cublasLtMatmulDescCreate(&op, p.compute_type, cuda::kCudaR32F), "cublasLtMatmulDescCreate");
          !s)
        return s;
      const int trans_a = cuda::kOpT, trans_b = cuda::kOpN;
      if (auto s = check(lt_.cublasLtMatmulDescSetAttribute(op, cuda::kMatmulDescTransA, &trans_a, sizeof(trans_a)),
                         "cublasLtMatmulDescSetAttribute(TRANSA)");
          !s)
        return s;
      if (auto s = check(lt_.cublasLtMatmulDescSetAttribute(op, cuda::kMatmulDescTransB, &trans_b, sizeof(trans_b)),
                         "cublasLtMatmulDescSetAttribute(TRANSB)");
          !s)
        return s;
      const auto ld = static_cast<int64_t>(n);
      // A is stored k x m (transposed in the op), B k x n, C m x n; square here.
      if (auto s = check(lt_.cublasLtMatrixLayoutCreate(&a, p.data_type, n, n, ld), "cublasLtMatrixLayoutCreate(A)");
          !s)
        return s;
      if (auto s = check(lt_.cublasLtMatrixLayoutCreate(&b, p.data_type, n, n, ld), "cublasLtMatrixLayoutCreate(B)");
          !s)
        return s;
      if (auto s = check(lt_.cublasLtMatrixLayoutCreate(&c, p.data_type, n, n, ld), "cublasLtMatrixLayoutCreate(C)");
          !s)
        return s;
      if (auto s = check(lt_.cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate"); !s) return s;
      const uint64_t ws = workspace;  // the attribute is a uint64_t
      if (auto s =
              check(lt_.cublasLtMatmulPreferenceSetAttribute(pref, cuda::kMatmulPrefMaxWorkspaceBytes, &ws, sizeof(ws)),
                    "cublasLtMatmulPreferenceSetAttribute");
          !s)
        return s;
      cuda::MatmulHeuristicResult result{};
      int returned = 0;
      if (auto s = check(lt_.cublasLtMatmulAlgoGetHeuristic(handle, op, a, b, c, c, pref, 1, &result, &returned),
                         "cublasLtMatmulAlgoGetHeuristic");
          !s)
        return s;
      if (returned == 0 || result.state != cuda::kCublasSuccess) {
        return core::fail(core::ErrorCode::kUnsupported, "gpu",
                          core::Message(N_("cuBLASLt has no algorithm for {} on this GPU"), p.metric));
      }
      algo = result.algo;
      return {};
    }

    const cuda::CublasLt& lt_;
    cuda::cublasLtMatmulDesc_t op = nullptr;
    cuda::cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    cuda::cublasLtMatmulPreference_t pref = nullptr;
    cuda::MatmulAlgo algo{};
  };
};

}  // namespace

std::unique_ptr<Benchmark> make_pcie_benchmark() { return std::make_unique<PcieBenchmark>(); }
std::unique_ptr<Benchmark> make_gemm_benchmark() { return std::make_unique<GemmBenchmark>(); }

}  // namespace tfrig::bench
