// One factory per benchmark; registry.cpp lists them in run order.
#pragma once

#include <memory>

#include "bench/benchmark.h"

namespace tfrig::bench {

std::unique_ptr<Benchmark> make_storage_benchmark();
std::unique_ptr<Benchmark> make_memory_benchmark();
std::unique_ptr<Benchmark> make_decode_benchmark();
std::unique_ptr<Benchmark> make_crc32c_benchmark();
std::unique_ptr<Benchmark> make_pcie_benchmark();
std::unique_ptr<Benchmark> make_gemm_benchmark();

}  // namespace tfrig::bench
