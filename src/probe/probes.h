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
// The NVIDIA and TensorFlow stack. nvidia_driver must precede nvml in the
// table: nvml's merge joins its GPUs onto the ones nvidia_driver listed.
std::shared_ptr<const Probe> make_nvidia_driver_probe();
std::shared_ptr<const Probe> make_nvml_probe();
std::shared_ptr<const Probe> make_cuda_libs_probe();
std::shared_ptr<const Probe> make_python_probe();
std::shared_ptr<const Probe> make_container_probe();

}  // namespace tfrig::probe
