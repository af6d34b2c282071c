// libFuzzer target: `nvidia-smi --query-gpu` CSV detection and parsing on arbitrary bytes must return, never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "importer/nvidia_smi_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)tfrig::importer::looks_like_nvidia_smi_csv(text);
  auto r = tfrig::importer::parse_nvidia_smi_csv(text);
  (void)r;
  return 0;
}
