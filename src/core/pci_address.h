// PCI addresses as tfrig writes them. Every source names a GPU by its bus
// address, each in its own form: NVML and nvidia-smi "00000000:3B:00.0",
// sysfs and lspci -D "0000:3b:00.0", lspci without -D "3b:00.0", the kernel
// log either. The probes and the importer turn each into one form so the
// sources join.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tfrig::core {

// "00000000:3B:00.0", "0000:3b:00.0", "3b:00.0" -> "0000:3b:00.0"; nullopt
// when it is not a PCI address. tfrig keeps the sysfs form (4-digit domain,
// lower case).
std::optional<std::string> normalize_pci_bus_id(std::string_view text);

}  // namespace tfrig::core
