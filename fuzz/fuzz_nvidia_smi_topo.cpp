// libFuzzer target: the nvidia_smi_topo parser on arbitrary bytes must return, never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "importer/nvidia_smi_topo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = tfrig::importer::parse_nvidia_smi_topo(text);
  if (r) {
    tfrig::inventory::Inventory inv;
    for (int i = 0; i < 4; ++i) {
      tfrig::inventory::Gpu g;
      g.index = i;
      inv.gpus.push_back(g);
    }
    tfrig::importer::apply_nvidia_smi_topo(*r, inv);
  }
  (void)r;
  return 0;
}
