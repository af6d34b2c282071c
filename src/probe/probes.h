// Factories of the probes in the table (registry.cpp); one file per probe.
#pragma once

#include <cstdint>
#include <memory>

#include "probe/probe.h"

namespace tfrig::probe {

// PCI-SIG vendor id of NVIDIA (pcisig.com/membership/member-companies); with
// class 0x03 (display controllers: VGA 0x0300, 3D 0x0302) it marks a GPU.
inline constexpr uint32_t kPciVendorNvidia = 0x10de;

std::shared_ptr<const Probe> make_host_probe();
std::shared_ptr<const Probe> make_cpu_probe();
std::shared_ptr<const Probe> make_memory_probe();
std::shared_ptr<const Probe> make_storage_probe();
std::shared_ptr<const Probe> make_pci_probe();
std::shared_ptr<const Probe> make_limits_probe();
// The NVIDIA and TensorFlow stack. nvidia_driver must precede nvml in the
// table: nvml's merge joins its GPUs onto the ones nvidia_driver listed.
std::shared_ptr<const Probe> make_nvidia_driver_probe();
std::shared_ptr<const Probe> make_nvml_probe();
std::shared_ptr<const Probe> make_cuda_libs_probe();
std::shared_ptr<const Probe> make_python_probe();
std::shared_ptr<const Probe> make_container_probe();

}  // namespace tfrig::probe
