// Factories of the probes in the table (registry.cpp); one file per probe.
#pragma once

#include <memory>

#include "probe/probe.h"

namespace tfrig::probe {

std::shared_ptr<const Probe> make_host_probe();
std::shared_ptr<const Probe> make_cpu_probe();
std::shared_ptr<const Probe> make_memory_probe();
std::shared_ptr<const Probe> make_storage_probe();
std::shared_ptr<const Probe> make_pci_probe();
std::shared_ptr<const Probe> make_limits_probe();

}  // namespace tfrig::probe
