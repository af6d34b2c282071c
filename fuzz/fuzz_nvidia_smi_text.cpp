// libFuzzer target: the nvidia_smi_text parser on arbitrary bytes must return, never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "importer/nvidia_smi_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = tfrig::importer::parse_nvidia_smi_text(text);
  (void)r;
  return 0;
}
