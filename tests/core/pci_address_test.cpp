#include "core/pci_address.h"

#include <gtest/gtest.h>

namespace tfrig::core {
namespace {

TEST(PciAddress, NormalizePciBusId) {
  EXPECT_EQ(normalize_pci_bus_id("00000000:3B:00.0"), "0000:3b:00.0");  // NVML, nvidia-smi
  EXPECT_EQ(normalize_pci_bus_id("0000:3b:00.0"), "0000:3b:00.0");      // sysfs, lspci -D
  EXPECT_EQ(normalize_pci_bus_id("3b:00.0"), "0000:3b:00.0");           // lspci
  EXPECT_EQ(normalize_pci_bus_id(" 0000:3b:00.0\n"), "0000:3b:00.0");
  EXPECT_EQ(normalize_pci_bus_id("00010000:01:00.0"), "10000:01:00.0");  // VMD domains
  EXPECT_FALSE(normalize_pci_bus_id("GPU-1234"));
  EXPECT_FALSE(normalize_pci_bus_id("0000:3b:00.9"));
  EXPECT_FALSE(normalize_pci_bus_id("0000:3b:00"));
  EXPECT_FALSE(normalize_pci_bus_id("0000:3g:00.0"));
  EXPECT_FALSE(normalize_pci_bus_id(""));
}

}  // namespace
}  // namespace tfrig::core
