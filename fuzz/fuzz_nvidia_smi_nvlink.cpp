// libFuzzer target: the nvidia_smi_nvlink parser on arbitrary bytes must return, never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "importer/nvidia_smi_nvlink.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<tfrig::importer::NvlinkGpu> gpus;
  tfrig::importer::parse_nvidia_smi_nvlink(text, gpus);
  (void)tfrig::importer::looks_like_nvidia_smi_nvlink(text);
  return 0;
}
