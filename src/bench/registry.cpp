#include "bench/benchmarks.h"

namespace tfrig::bench {

// Cheap to expensive, CPU before GPU: a run cut short by Ctrl-C or the
// budget has the results that matter most for the input pipeline first.
std::vector<std::unique_ptr<Benchmark>> all_benchmarks() {
  std::vector<std::unique_ptr<Benchmark>> b;
  b.push_back(make_crc32c_benchmark());
  b.push_back(make_memory_benchmark());
  b.push_back(make_decode_benchmark());
  b.push_back(make_storage_benchmark());
  b.push_back(make_pcie_benchmark());
  b.push_back(make_gemm_benchmark());
  return b;
}

std::vector<std::string> benchmark_ids() {
  std::vector<std::string> ids;
  for (const auto& b : all_benchmarks()) ids.emplace_back(b->id());
  return ids;
}

}  // namespace tfrig::bench
