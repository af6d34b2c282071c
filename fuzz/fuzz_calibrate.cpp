// libFuzzer target: the file `tfrig plan --calibrate FILE` reads (seeds:
// tests/data/fuzz-corpus/calibrate/): a Keras fit log, a pipeline result, a
// TensorFlow Profiler trace plain or gzip-compressed; parse_step_file picks
// the reader by content. Whatever it accepts must give a finite step time in
// the bounds the parsers promise, and a rate for any batch.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "plan/calibrate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto m = tfrig::plan::parse_step_file(bytes, "fuzz");
  if (!m) return 0;
  const double t = m->seconds_per_sample > 0 ? m->seconds_per_sample : m->seconds_per_step;
  if (!(t > 0) || !std::isfinite(t) || t > 86400) std::abort();
  const double rate = tfrig::plan::measured_rate_per_gpu(*m, 1 + size % 512, 1);
  if (!(rate > 0) || !std::isfinite(rate)) std::abort();
  return 0;
}
