// libFuzzer target: reading a snapshot document (JSON) must give a value or an
// error naming the field, never crash; a report read renders as Prometheus
// metrics that are valid UTF-8 with one sample per line.
#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "report/prometheus.h"
#include "verdict/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  auto report = tfrig::report::report_from_json(j);
  if (report) {
    (void)tfrig::report::to_json(*report).dump();
    const std::string metrics = tfrig::report::render_prometheus(*report, 1, 0.5);
    if (tfrig::report::to_valid_utf8(metrics) != metrics) __builtin_trap();
    // Every line is a comment or starts with a metric name: an unescaped
    // newline in a label value would start a line with something else.
    size_t start = 0;
    while (start < metrics.size()) {
      size_t end = metrics.find('\n', start);
      if (end == std::string::npos) __builtin_trap();  // the last line ends with a newline too
      if (metrics.compare(start, 1, "#") != 0 && metrics.compare(start, 6, "tfrig_") != 0) __builtin_trap();
      start = end + 1;
    }
  }
  return 0;
}
