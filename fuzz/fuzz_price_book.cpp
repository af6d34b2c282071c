// libFuzzer target: the price book reader (YAML or JSON) and the cost
// arithmetic over what it returns (seeds: tests/data/fuzz-corpus/price_book/).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "plan/cost.h"
#include "plan/prices.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto book = tfrig::plan::parse_price_book(text, "fuzz.yaml");
  if (!book) return 0;
  tfrig::plan::RunSpec run;
  run.epochs = 1 + static_cast<double>(size % 90);
  run.dataset_samples = 1281167;
  run.runs_per_month = 1 + static_cast<int>(size % 30);
  for (const auto& [name, price] : book->gpus) {
    tfrig::plan::GpuCandidate gpu;
    gpu.id = gpu.name = name;
    gpu.tdp_watts = 300;
    const auto c = tfrig::plan::cost_option(gpu, 1 + static_cast<int>(size % 8), tfrig::plan::RateBand{500, 400, 600, "estimated"}, run, *book);
    if (c.rent_cost && !(*c.rent_cost >= 0)) std::abort();  // money is never negative or NaN
    if (c.own_cost && !(*c.own_cost >= 0)) std::abort();
  }
  return 0;
}
