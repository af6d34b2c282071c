// libFuzzer target: reading a snapshot document (JSON) must give a value or an
// error naming the field, never crash.
#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "report/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  auto report = tfrig::report::report_from_json(j);
  if (report) (void)tfrig::report::to_json(*report).dump();
  return 0;
}
