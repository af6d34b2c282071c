// libFuzzer target: importing `nvidia-smi -q -x` output from arbitrary bytes
// must return, never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "probe/parse/nvidia_smi_xml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto xml = tfrig::probe::parse::parse_nvidia_smi_xml(text)) {
    tfrig::inventory::Inventory inv;
    tfrig::probe::parse::apply_nvidia_smi_xml(*xml, "fuzz.xml", inv);
  }
  return 0;
}
