#include "bench/expectation.h"

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/text.h"
#include "knowledge/pcie.h"

namespace tfrig::bench {

namespace {

std::string param_text(const Measurement& m, const char* key) {
  auto it = m.params.find(key);
  return it != m.params.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// "bus:device.function", lower case: CUDA writes the domain with 4 hex
// digits and upper case ("0000:3B:00.0"), NVML with 8 ("00000000:3B:00.0").
std::string bus_device_function(std::string_view id) {
  return id.size() < 7 ? std::string() : core::to_lower(id.substr(id.size() - 7));
}

core::Message sources_text(const knowledge::GpuSpec& spec) {
  std::string out;
  for (const std::string& s : spec.sources) out += (out.empty() ? "" : "; ") + s;
  return out.empty() ? core::Message(N_("GPU catalog (data/knowledge/gpus.json)")) : core::Message("{}", out);
}

// gemm: the catalog's dense peak for the precision the metric measured.
// A GEMM of 8192^3 reaches 70-90% of it on a healthy GPU; far less points at
// clocks held down (power or thermal limits) or at another process.
std::optional<Expectation> gemm_expectation(const Measurement& m, const knowledge::Knowledge& k) {
  const std::string gpu = param_text(m, "gpu");
  if (gpu.empty()) return std::nullopt;
  const auto match = k.find_gpu(gpu);
  if (!match || match->spec == nullptr) return std::nullopt;
  const knowledge::GpuSpec& spec = *match->spec;
  std::optional<double> peak;
  core::Message basis;
  if (m.metric == "fp32") {
    peak = spec.fp32_tflops;
    basis = core::Message(N_("catalog peak, fp32 on CUDA cores of the {}"), spec.name);
  } else if (m.metric == "tf32") {
    peak = spec.tf32_tensor_tflops_dense;
    basis = core::Message(N_("catalog peak, dense tf32 tensor cores of the {}"), spec.name);
  } else if (m.metric == "fp16") {
    peak = spec.fp16_tensor_tflops_dense;
    basis = core::Message(N_("catalog peak, dense fp16 tensor cores of the {}"), spec.name);
  } else if (m.metric == "bf16") {
    peak = spec.bf16_tensor_tflops_dense;
    basis = core::Message(N_("catalog peak, dense bf16 tensor cores of the {}"), spec.name);
  }
  if (!peak || *peak <= 0) return std::nullopt;
  return Expectation{*peak, basis, sources_text(spec)};
}

// pcie: the rate of the link the copies crossed, as the inventory (NVML)
// reports it for the GPU with the benchmark's PCI bus id, or the first GPU.
std::optional<Expectation> pcie_expectation(const Measurement& m, const inventory::Inventory& inv) {
  const inventory::Gpu* gpu = nullptr;
  const std::string bus = bus_device_function(param_text(m, "pci_bus_id"));
  for (const inventory::Gpu& g : inv.gpus) {
    if (!bus.empty() && g.pci_bus_id && bus_device_function(*g.pci_bus_id) == bus) {
      gpu = &g;
      break;
    }
  }
  if (gpu == nullptr && inv.gpus.size() == 1) gpu = &inv.gpus.front();
  if (gpu == nullptr || !gpu->pcie_link_gen_current || !gpu->pcie_link_width_current) return std::nullopt;
  const auto rate = knowledge::pcie_link_bytes_per_second(*gpu->pcie_link_gen_current, *gpu->pcie_link_width_current);
  if (!rate) return std::nullopt;
  // The link trains down to a lower generation when idle (power saving);
  // the maximum is what it runs at under a copy.
  int gen = *gpu->pcie_link_gen_current;
  int width = *gpu->pcie_link_width_current;
  if (gpu->pcie_link_gen_max && *gpu->pcie_link_gen_max > gen) gen = *gpu->pcie_link_gen_max;
  const auto at_max = knowledge::pcie_link_bytes_per_second(gen, width);
  return Expectation{
      (at_max ? *at_max : *rate) / 1e9,
      core::Message(N_("PCIe Gen {0} x{1} link rate, one direction, before packet overhead (copies reach ~80-90%)"),
                    gen, width),
      core::Message(N_("PCI-SIG transfer rates and line encodings (knowledge/pcie.cpp)"))};
}

}  // namespace

std::optional<Expectation> expectation_for(const Measurement& m, const inventory::Inventory& inv,
                                           const knowledge::Knowledge& k) {
  if (m.status != Status::kOk) return std::nullopt;
  if (m.id == "gemm") return gemm_expectation(m, k);
  if (m.id == "pcie") return pcie_expectation(m, inv);
  return std::nullopt;
}

void add_expectations(std::vector<Measurement>& results, const inventory::Inventory& inv,
                      const knowledge::Knowledge& k) {
  for (Measurement& m : results) m.expected = expectation_for(m, inv, k);
}

}  // namespace tfrig::bench
