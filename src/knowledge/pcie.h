// PCIe link bandwidth by generation and width: the one place that turns
// "Gen 4 x16" into bytes per second, for the bench's expectations, the
// pipeline's estimated host-to-device stave and the plan.
#pragma once

#include <optional>

namespace tfrig::knowledge {

// Per-lane transfer rate in GT/s for generations 1..6 (PCI-SIG: 2.5, 5, 8,
// 16, 32, 64 GT/s), empty for anything else.
std::optional<double> pcie_transfer_rate_gts(int generation);

// One direction's payload bandwidth of a link, in bytes per second, after
// the line encoding and before packet (TLP/DLLP) overhead: what a copy can
// approach but never reach. Empty for an unknown generation or a width
// outside 1..32.
std::optional<double> pcie_link_bytes_per_second(int generation, int width);

}  // namespace tfrig::knowledge
