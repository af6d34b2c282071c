// The table of probes. Order here is report order; ids never change.
#include "probe/probe.h"
#include "probe/probes.h"

namespace tfrig::probe {

std::vector<std::shared_ptr<const Probe>> all_probes() {
  return {
      make_host_probe(),      make_cpu_probe(),    make_memory_probe(),        make_storage_probe(),
      make_pci_probe(),       make_limits_probe(), make_nvidia_driver_probe(), make_nvml_probe(),
      make_cuda_libs_probe(), make_python_probe(), make_container_probe(),
  };
}

}  // namespace tfrig::probe
