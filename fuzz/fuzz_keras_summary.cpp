// libFuzzer target: the Keras model.summary() parser and the workload built
// from what it returns (seeds: tests/data/fuzz-corpus/keras_summary/).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "plan/keras_summary.h"
#include "plan/memory.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto summary = tfrig::plan::parse_keras_summary(text);
  if (!summary) return 0;
  auto workload = tfrig::plan::keras_workload(*summary, static_cast<int>(size % 4096), "fuzz");
  if (!workload) return 0;
  workload->batch = 1 + size % 64;
  (void)tfrig::plan::estimate_memory(*workload, workload->batch);
  return 0;
}
