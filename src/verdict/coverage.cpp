#include "verdict/coverage.h"
#include "verdict/probes_run.h"

#include "core/i18n.h"

#include <algorithm>
#include <set>

namespace tfrig::report {

Coverage coverage_of(const Report& r) {
  Coverage c;
  if (r.probes.empty()) return c;
  // A probe "looked" when it ran, found the thing absent, or failed on what it
  // read (nvidia-smi's error is a fact); skipped means nothing was there to read.
  std::set<std::string> looked;
  std::set<std::string> read;
  for (const auto& s : r.probes) {
    if (s.state != probe::State::kSkipped) looked.insert(s.id);
    if (s.state == probe::State::kOk || s.state == probe::State::kAbsent) read.insert(s.id);
  }
  const auto& inv = r.inventory;
  // No probe read anything (an empty or wrong --root, a capture of nothing):
  // "absent" there says nothing about the machine, so every part is listed
  // as not examined and the verdict cannot read as "checked and clean".
  // The containers probe is "ok" with "docker no, podman no" on any folder:
  // it concludes from absence, so it does not count as having read something.
  const bool read_anything = std::any_of(r.probes.begin(), r.probes.end(), [](const probe::ProbeStatus& s) {
    return s.state == probe::State::kOk && s.id != "containers";
  });
  if (!read_anything && inv.gpus.empty()) {
    for (const char* name : {N_("GPUs"), N_("driver"), N_("CUDA libraries"), N_("TensorFlow"), N_("CPU"), N_("memory")})
      c.not_examined.push_back(name);
    return c;
  }
  // The parts every verdict accounts for, then those only an import names.
  auto part = [&c](const std::string& name, bool examined, bool always_listed) {
    if (examined) {
      c.examined.push_back(name);
    } else if (always_listed) {
      c.not_examined.push_back(name);
    }
  };
  const bool smi_xml = looked.count("nvidia_smi_xml") > 0;  // doctor on an nvidia-smi -q -x file
  // /proc/driver/nvidia/version alone says nothing about which GPUs there are.
  part(N_("GPUs"), looked.count("nvml") || looked.count("pci") || smi_xml || !inv.gpus.empty(), true);
  part(N_("driver"),
       looked.count("nvidia_driver") || looked.count("nvml") || smi_xml || inv.driver.nvidia_smi_error.has_value(),
       true);
  part(N_("CUDA libraries"), read.count("cuda_libs") > 0, true);
  part(N_("TensorFlow"), read.count("python") > 0, true);
  part(N_("CPU"), read.count("cpu") > 0, true);
  part(N_("memory"), read.count("memory") > 0, true);
  part(N_("GPU topology"), looked.count("topology") > 0, false);
  part(N_("kernel log"), looked.count("kernel_log") > 0, false);
  // What a cut capture left out: "7 of 8 GPUs", "the end of report.log.gz".
  for (const auto& s : r.probes) {
    for (const auto& p : s.problems) {
      if (p.rfind(kCutShort, 0) != 0) continue;
      const std::string what = p.substr(kCutShort.size());
      c.not_examined.push_back(what.substr(0, what.find(" (")));
    }
  }
  return c;
}

std::optional<std::set<std::string>> probes_run(const Report& r) {
  if (r.probes.empty()) return std::nullopt;
  std::set<std::string> out;
  for (const auto& s : r.probes) {
    if (s.state == probe::State::kOk || s.state == probe::State::kAbsent) out.insert(s.id);
  }
  return out;
}

}  // namespace tfrig::report
