// libFuzzer target: the /proc/driver/nvidia parsers (version, per-GPU
// information), /proc/modules and the PCI address normaliser on arbitrary
// bytes must return, never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "probe/parse/daemon_json.h"
#include "probe/parse/proc_driver_nvidia.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto version = tfrig::probe::parse::parse_nvidia_version(text);
  (void)version;
  auto info = tfrig::probe::parse::parse_nvidia_gpu_information(text);
  (void)info;
  (void)tfrig::probe::parse::parse_proc_modules(text);
  (void)tfrig::core::normalize_pci_bus_id(text);
  auto daemon = tfrig::probe::parse::parse_daemon_json(text);
  (void)daemon;
  return 0;
}
