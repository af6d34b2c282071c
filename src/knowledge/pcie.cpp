#include "knowledge/pcie.h"

namespace tfrig::knowledge {

namespace {

// Line encoding (PCI-SIG, "PCI Express Base Specification" and the PCI-SIG
// FAQ for each generation): Gen 1-2 use 8b/10b (80% of the bits carry data),
// Gen 3-5 use 128b/130b (98.46%). Gen 6 uses PAM4 with 256-byte FLITs, of
// which 242 bytes carry TLP payload and DLLP (the rest is FEC and CRC).
double encoding_efficiency(int generation) {
  if (generation <= 2) return 8.0 / 10.0;
  if (generation <= 5) return 128.0 / 130.0;
  return 242.0 / 256.0;
}

}  // namespace

std::optional<double> pcie_transfer_rate_gts(int generation) {
  switch (generation) {
    case 1: return 2.5;
    case 2: return 5.0;
    case 3: return 8.0;
    case 4: return 16.0;
    case 5: return 32.0;
    case 6: return 64.0;
    default: return std::nullopt;
  }
}

std::optional<double> pcie_link_bytes_per_second(int generation, int width) {
  const auto gts = pcie_transfer_rate_gts(generation);
  if (!gts || width < 1 || width > 32) return std::nullopt;
  // One transfer carries one bit per lane.
  return *gts * 1e9 * encoding_efficiency(generation) / 8.0 * static_cast<double>(width);
}

}  // namespace tfrig::knowledge
