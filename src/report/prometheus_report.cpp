// The report as Prometheus metrics (text exposition format 0.0.4,
// https://prometheus.io/docs/instrumenting/exposition_formats/), named after
// https://prometheus.io/docs/practices/naming/: prefix tfrig_, base units in
// the name (_bytes, _seconds), versions as labels of _info metrics with value
// 1, _total only on counters. Values read once by a probe (ECC counts, Xid
// lines still in the kernel log) are gauges: a counter must never go down,
// and a rotated kernel log or a driver reload resets them.
#include "report/prometheus.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "core/terminal_text.h"
#include "knowledge/xid_catalog.h"
#include "verdict/finding.h"

namespace tfrig::report {

std::string_view metric_type_name(MetricType type) { return type == MetricType::kCounter ? "counter" : "gauge"; }

// The table of prometheus_metrics(), a constant rather than a function's
// static so that no function holds 180 lines of data (.clang-tidy's 80); it is
// read at run time only, never by another file's static initializer. Its own
// namespace keeps T and M from the other files of a unity batch.
namespace metric_table {
using T = MetricType;
using M = Metric;
const std::vector<MetricSpec> kRows = {
    {M::kBuildInfo,
     "tfrig_build_info",
     T::kGauge,
     {"version"},
     "Version of tfrig that produced the report; always 1.",
     "report tool_version"},
    {M::kLastRunTimestampSeconds,
     "tfrig_last_run_timestamp_seconds",
     T::kGauge,
     {},
     "Unix time at which tfrig wrote these metrics.",
     "the clock when doctor rendered the report"},
    {M::kRunDurationSeconds,
     "tfrig_run_duration_seconds",
     T::kGauge,
     {},
     "Wall time of the tfrig run that wrote these metrics.",
     "doctor's own stopwatch"},
    {M::kVerdict,
     "tfrig_verdict",
     T::kGauge,
     {},
     "Worst finding: 0 no warnings or errors, 1 warnings, 2 errors.",
     "the rules' summary"},
    {M::kFindings,
     "tfrig_findings",
     T::kGauge,
     {"severity"},
     "Number of firing findings of each severity (error, warning, info).",
     "the rules' summary"},
    {M::kFinding,
     "tfrig_finding",
     T::kGauge,
     {"rule_id", "severity", "area", "entity"},
     "One firing finding of a rule on an entity; always 1 (docs/rules.md lists the rules).",
     "the rules' findings"},
    {M::kProbeSuccess,
     "tfrig_probe_success",
     T::kGauge,
     {"probe"},
     "1 when the probe read its subsystem (found or found absent), 0 when it failed or timed out.",
     "probe status (a skipped probe writes no sample)"},
    {M::kProbeDurationSeconds,
     "tfrig_probe_duration_seconds",
     T::kGauge,
     {"probe"},
     "Wall time one probe took.",
     "probe status"},
    {M::kDriverInfo,
     "tfrig_driver_info",
     T::kGauge,
     {"version", "cuda_version", "kernel_module_version", "flavor"},
     "NVIDIA driver versions found; always 1.",
     "NVML, /proc/driver/nvidia/version"},
    {M::kStackInfo,
     "tfrig_stack_info",
     T::kGauge,
     {"tensorflow", "python", "cuda", "cudnn", "driver", "tf_built_cuda", "tf_built_cudnn"},
     "The TensorFlow stack found: TensorFlow and its Python, the CUDA runtime and cuDNN the loader picks, the "
     "driver, and the CUDA/cuDNN TensorFlow was built with; always 1.",
     "Python environments, CUDA libraries, driver"},
    {M::kGpus, "tfrig_gpus", T::kGauge, {}, "GPUs found (NVML, the driver's /proc or the PCI bus).", "inventory gpus"},
    {M::kGpuInfo,
     "tfrig_gpu_info",
     T::kGauge,
     {"gpu", "uuid", "name", "pci_bus_id", "driver", "compute_capability"},
     "One GPU and what identifies it; always 1.",
     "NVML / nvidia-smi / PCI"},
    {M::kGpuLost,
     "tfrig_gpu_lost",
     T::kGauge,
     {"gpu", "pci_bus_id"},
     "1 when the GPU fell off the bus (nvidia-smi 'GPU is lost', config space reads all 1s), 0 when it answers.",
     "import of nvidia-bug-report / nvidia-smi output"},
    {M::kGpuMemoryTotalBytes,
     "tfrig_gpu_memory_total_bytes",
     T::kGauge,
     {"gpu"},
     "Total GPU memory.",
     "NVML memory info"},
    {M::kGpuMemoryUsedBytes,
     "tfrig_gpu_memory_used_bytes",
     T::kGauge,
     {"gpu"},
     "GPU memory in use when probed.",
     "NVML memory info"},
    {M::kGpuTemperatureCelsius,
     "tfrig_gpu_temperature_celsius",
     T::kGauge,
     {"gpu"},
     "GPU core temperature when probed.",
     "NVML"},
    {M::kGpuPowerLimitWatts, "tfrig_gpu_power_limit_watts", T::kGauge, {"gpu"}, "Enforced power limit.", "NVML"},
    {M::kGpuPcieLinkGeneration,
     "tfrig_gpu_pcie_link_generation",
     T::kGauge,
     {"gpu"},
     "Current PCIe link generation (it drops at idle to save power).",
     "NVML / nvidia-smi"},
    {M::kGpuPcieLinkMaxGeneration,
     "tfrig_gpu_pcie_link_max_generation",
     T::kGauge,
     {"gpu"},
     "Highest PCIe link generation of the GPU and its slot together.",
     "NVML / nvidia-smi"},
    {M::kGpuPcieLinkWidthLanes,
     "tfrig_gpu_pcie_link_width_lanes",
     T::kGauge,
     {"gpu"},
     "Current PCIe link width.",
     "NVML / nvidia-smi"},
    {M::kGpuPcieLinkMaxWidthLanes,
     "tfrig_gpu_pcie_link_max_width_lanes",
     T::kGauge,
     {"gpu"},
     "Widest PCIe link the GPU supports.",
     "NVML / nvidia-smi"},
    {M::kGpuNvlinkLinksActive,
     "tfrig_gpu_nvlink_links_active",
     T::kGauge,
     {"gpu"},
     "NVLink links up (written only when links were read).",
     "NVML nvlink state"},
    {M::kGpuEccEnabled,
     "tfrig_gpu_ecc_enabled",
     T::kGauge,
     {"gpu"},
     "1 when ECC is on in the current mode, 0 when off.",
     "NVML"},
    {M::kGpuEccErrors,
     "tfrig_gpu_ecc_errors",
     T::kGauge,
     {"gpu", "type", "scope"},
     "ECC errors as the driver counts them: type corrected/uncorrected, scope volatile (since the driver loaded) "
     "or aggregate (lifetime).",
     "NVML ECC counters"},
    {M::kGpuRetiredPages,
     "tfrig_gpu_retired_pages",
     T::kGauge,
     {"gpu"},
     "Memory pages retired (pre-Ampere page retirement).",
     "NVML"},
    {M::kGpuRetiredPagesPending,
     "tfrig_gpu_retired_pages_pending",
     T::kGauge,
     {"gpu"},
     "1 when a page retirement waits for a GPU reset.",
     "NVML"},
    {M::kGpuRemappedRows,
     "tfrig_gpu_remapped_rows",
     T::kGauge,
     {"gpu", "type"},
     "Memory rows remapped (Ampere and later), by the error that caused it: correctable or uncorrectable.",
     "NVML"},
    {M::kGpuRemappedRowsPending,
     "tfrig_gpu_remapped_rows_pending",
     T::kGauge,
     {"gpu"},
     "1 when a row remapping waits for a GPU reset.",
     "NVML"},
    {M::kGpuRemappedRowsFailure,
     "tfrig_gpu_remapped_rows_failure",
     T::kGauge,
     {"gpu"},
     "1 when a row remapping failed (the GPU needs service).",
     "NVML"},
    {M::kXidEvents,
     "tfrig_xid_events",
     T::kGauge,
     {"pci_bus_id", "xid", "class", "severe"},
     "NVRM Xid lines of one Xid number for one GPU found in the kernel log (a gauge: the log rotates); class and "
     "severe (the GPU needs a reset or service) from NVIDIA's Xid catalog (class: application, memory, bus, firmware, nvlink, driver, other), for the Xids tfrig knows.",
     "dmesg / kernel log; https://docs.nvidia.com/deploy/xid-errors/index.html"},
};
}  // namespace metric_table

const std::vector<MetricSpec>& prometheus_metrics() { return metric_table::kRows; }

namespace {

using Labels = std::vector<std::pair<std::string_view, std::string>>;

struct Sample {
  Labels labels;
  double value = 0;
};

// Samples by metric; rendered in the table's order. A metric is named by its
// enumerator, never by a string, so a misspelt one does not compile.
class Exposition {
 public:
  void add(Metric metric, Labels labels, double value) {
    // A label whose value is unknown is left off rather than written empty.
    std::erase_if(labels, [](const auto& l) { return l.second.empty(); });
    samples_[metric].push_back(Sample{std::move(labels), value});
  }
  template <class N>
  void add_opt(Metric metric, Labels labels, const std::optional<N>& value) {
    if (value) add(metric, std::move(labels), static_cast<double>(*value));
  }
  void add_opt(Metric metric, Labels labels, const std::optional<bool>& value) {
    if (value) add(metric, std::move(labels), *value ? 1.0 : 0.0);
  }
  std::string render() const;

 private:
  std::map<Metric, std::vector<Sample>> samples_;
};

std::string escape_help(std::string_view text) {
  std::string out;
  for (char c : core::terminal_text(to_valid_utf8(text), false)) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // Integers (counts, bytes) exactly, without an exponent, up to 2^53.
  if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

std::string Exposition::render() const {
  std::string out;
  for (const auto& spec : prometheus_metrics()) {
    auto it = samples_.find(spec.id);
    if (it == samples_.end()) continue;
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", spec.name, escape_help(spec.help), spec.name,
                       metric_type_name(spec.type));
    for (const auto& s : it->second) {
      out += spec.name;
      if (!s.labels.empty()) {
        out += '{';
        for (size_t i = 0; i < s.labels.size(); ++i) {
          if (i) out += ',';
          out += fmt::format("{}=\"{}\"", s.labels[i].first, escape_label_value(s.labels[i].second));
        }
        out += '}';
      }
      out += ' ';
      out += format_value(s.value);
      out += '\n';
    }
  }
  return out;
}

template <class T>
std::string str(const std::optional<T>& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return v ? *v : std::string();
  } else {
    return v ? fmt::format("{}", *v) : std::string();
  }
}

// The library of a family the loader would pick (resolved), else the first
// one with a version.
const inventory::CudaLibrary* library_of(const inventory::CudaInfo& cuda, std::string_view family) {
  const inventory::CudaLibrary* first = nullptr;
  for (const auto& l : cuda.libraries) {
    if (l.family != family || !l.version) continue;
    if (l.resolved.value_or(false)) return &l;
    if (!first) first = &l;
  }
  return first;
}

void add_stack(Exposition& e, const inventory::Inventory& inv) {
  const inventory::PythonEnvironment* tf_env = nullptr;
  for (const auto& env : inv.python.environments) {
    if (env.tensorflow) {
      tf_env = &env;
      break;
    }
  }
  const auto* cudart = library_of(inv.cuda, "cudart");
  const auto* cudnn = library_of(inv.cuda, "cudnn");
  Labels labels = {
      {"tensorflow", tf_env ? tf_env->tensorflow->version : ""},
      {"python", tf_env ? str(tf_env->python_version) : ""},
      {"cuda", cudart ? *cudart->version : ""},
      {"cudnn", cudnn ? *cudnn->version : ""},
      {"driver", str(inv.driver.version)},
      {"tf_built_cuda", tf_env ? str(tf_env->tensorflow->built_cuda) : ""},
      {"tf_built_cudnn", tf_env ? str(tf_env->tensorflow->built_cudnn) : ""},
  };
  const bool any = std::any_of(labels.begin(), labels.end(), [](const auto& l) { return !l.second.empty(); });
  if (any) e.add(Metric::kStackInfo, std::move(labels), 1);
}

void add_gpu(Exposition& e, const inventory::Gpu& g, const inventory::DriverInfo& driver) {
  const std::string gpu = std::to_string(g.index);
  e.add(Metric::kGpuInfo,
        {{"gpu", gpu},
         {"uuid", str(g.uuid)},
         {"name", str(g.name)},
         {"pci_bus_id", str(g.pci_bus_id)},
         {"driver", str(driver.version)},
         {"compute_capability", str(g.compute_capability)}},
        1);
  e.add_opt(Metric::kGpuLost, {{"gpu", gpu}, {"pci_bus_id", str(g.pci_bus_id)}}, g.lost);
  e.add_opt(Metric::kGpuMemoryTotalBytes, {{"gpu", gpu}}, g.memory_total_bytes);
  e.add_opt(Metric::kGpuMemoryUsedBytes, {{"gpu", gpu}}, g.memory_used_bytes);
  e.add_opt(Metric::kGpuTemperatureCelsius, {{"gpu", gpu}}, g.temperature_celsius);
  e.add_opt(Metric::kGpuPowerLimitWatts, {{"gpu", gpu}}, g.power_limit_watts);
  e.add_opt(Metric::kGpuPcieLinkGeneration, {{"gpu", gpu}}, g.pcie_link_gen_current);
  e.add_opt(Metric::kGpuPcieLinkMaxGeneration, {{"gpu", gpu}}, g.pcie_link_gen_max);
  e.add_opt(Metric::kGpuPcieLinkWidthLanes, {{"gpu", gpu}}, g.pcie_link_width_current);
  e.add_opt(Metric::kGpuPcieLinkMaxWidthLanes, {{"gpu", gpu}}, g.pcie_link_width_max);
  // An empty list means the links were not read (or the GPU has none): unknown, not 0.
  if (!g.nvlinks.empty()) {
    const auto active = std::count_if(g.nvlinks.begin(), g.nvlinks.end(),
                                      [](const inventory::NvLink& l) { return l.active.value_or(false); });
    e.add(Metric::kGpuNvlinkLinksActive, {{"gpu", gpu}}, static_cast<double>(active));
  }
  e.add_opt(Metric::kGpuEccEnabled, {{"gpu", gpu}}, g.ecc_mode_current);
  e.add_opt(Metric::kGpuEccErrors, {{"gpu", gpu}, {"type", "corrected"}, {"scope", "volatile"}},
            g.ecc_errors_corrected_volatile);
  e.add_opt(Metric::kGpuEccErrors, {{"gpu", gpu}, {"type", "uncorrected"}, {"scope", "volatile"}},
            g.ecc_errors_uncorrected_volatile);
  e.add_opt(Metric::kGpuEccErrors, {{"gpu", gpu}, {"type", "uncorrected"}, {"scope", "aggregate"}},
            g.ecc_errors_uncorrected_aggregate);
  e.add_opt(Metric::kGpuRetiredPages, {{"gpu", gpu}}, g.retired_pages_count);
  e.add_opt(Metric::kGpuRetiredPagesPending, {{"gpu", gpu}}, g.retired_pages_pending);
  e.add_opt(Metric::kGpuRemappedRows, {{"gpu", gpu}, {"type", "correctable"}}, g.remapped_rows_correctable);
  e.add_opt(Metric::kGpuRemappedRows, {{"gpu", gpu}, {"type", "uncorrectable"}}, g.remapped_rows_uncorrectable);
  e.add_opt(Metric::kGpuRemappedRowsPending, {{"gpu", gpu}}, g.remapped_rows_pending);
  e.add_opt(Metric::kGpuRemappedRowsFailure, {{"gpu", gpu}}, g.remapped_rows_failure);
}

// Short label values for the Xid classes (the catalog's names are prose).
std::string_view xid_class_label(knowledge::XidClass c) {
  switch (c) {
    case knowledge::XidClass::kApplication: return "application";
    case knowledge::XidClass::kMemory: return "memory";
    case knowledge::XidClass::kBus: return "bus";
    case knowledge::XidClass::kFirmware: return "firmware";
    case knowledge::XidClass::kInterconnect: return "nvlink";
    case knowledge::XidClass::kDriver: return "driver";
    case knowledge::XidClass::kOther: return "other";
  }
  return "other";
}

// Decodes one UTF-8 sequence at s[i]; its length, or 0 when invalid
// (overlong forms, surrogates and code points past U+10FFFF included).
size_t utf8_sequence_length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  size_t n = 0;
  uint32_t cp = 0;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

std::string to_valid_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) {
    const size_t n = utf8_sequence_length(bytes, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    } else {
      out.append(bytes.substr(i, n));
      i += n;
    }
  }
  return out;
}

// Control characters (ESC, CR, NUL, C1) from a GPU name or a path become
// "\xNN" first (core::terminal_text): the exposition is read on terminals too.
std::string escape_label_value(std::string_view value) {
  std::string out;
  for (char c : core::terminal_text(to_valid_utf8(value), false)) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string render_prometheus(const Report& report, double now_seconds, double run_seconds) {
  Exposition e;
  const auto& inv = report.inventory;
  if (!report.tool_version.empty()) e.add(Metric::kBuildInfo, {{"version", report.tool_version}}, 1);
  e.add(Metric::kLastRunTimestampSeconds, {}, now_seconds);
  if (run_seconds >= 0) e.add(Metric::kRunDurationSeconds, {}, run_seconds);
  if (report.evaluated) {
    e.add(Metric::kVerdict, {}, static_cast<int>(report.summary.worst()));
    e.add(Metric::kFindings, {{"severity", "error"}}, report.summary.errors);
    e.add(Metric::kFindings, {{"severity", "warning"}}, report.summary.warnings);
    e.add(Metric::kFindings, {{"severity", "info"}}, report.summary.infos);
    // Two findings of one rule on one entity would be one series twice (an
    // invalid exposition): the first (worst) one stands for both.
    std::set<std::pair<std::string, std::string>> seen;
    for (const auto& f : report.findings) {
      if (!seen.insert({f.rule_id, f.entity}).second) continue;
      e.add(Metric::kFinding,
            {{"rule_id", f.rule_id},
             {"severity", std::string(rules::severity_name(f.severity))},
             {"area", f.area},
             {"entity", f.entity}},
            1);
    }
  }
  for (const auto& p : report.probes) {
    if (p.state == probe::State::kSkipped) continue;
    const bool ok = p.state == probe::State::kOk || p.state == probe::State::kAbsent;
    e.add(Metric::kProbeSuccess, {{"probe", p.id}}, ok ? 1 : 0);
    e.add(Metric::kProbeDurationSeconds, {{"probe", p.id}}, p.seconds);
  }
  const auto& d = inv.driver;
  if (d.version || d.cuda_version || d.kernel_module_version) {
    e.add(Metric::kDriverInfo,
          {{"version", str(d.version)},
           {"cuda_version", str(d.cuda_version)},
           {"kernel_module_version", str(d.kernel_module_version)},
           {"flavor", str(d.kernel_module_flavor)}},
          1);
  }
  add_stack(e, inv);
  // GPUs: the inventory's list (NVML, /proc or import); probed without any
  // GPU section at all is unknown, so the count is written only when the
  // GPU probe ran or GPUs were found.
  const bool gpu_probe_ran = std::any_of(report.probes.begin(), report.probes.end(), [](const probe::ProbeStatus& p) {
    return p.id == "nvml" && p.state != probe::State::kSkipped && p.state != probe::State::kError;
  });
  if (!inv.gpus.empty() || gpu_probe_ran) e.add(Metric::kGpus, {}, static_cast<double>(inv.gpus.size()));
  for (const auto& g : inv.gpus) add_gpu(e, g, d);
  // Xid lines by (GPU, Xid); two entries of one pair (dmesg and a log file)
  // add up.
  std::map<std::pair<std::string, int>, uint64_t> xids;
  for (const auto& x : d.xid_events) xids[{str(x.pci_bus_id), x.xid}] += x.count;
  for (const auto& [key, count] : xids) {
    const auto info = knowledge::xid_info(key.second);
    e.add(Metric::kXidEvents,
          {{"pci_bus_id", key.first},
           {"xid", std::to_string(key.second)},
           {"class", info ? std::string(xid_class_label(info->cls)) : ""},
           {"severe", info ? (info->severe ? "true" : "false") : ""}},
          static_cast<double>(count));
  }
  return e.render();
}

std::string prometheus_metrics_markdown() {
  std::string out =
      "# Metrics\n\n"
      "<!-- Generated from src/report/prometheus_report.cpp (prometheus_metrics()); a test checks that they "
      "agree. Regenerate with `tfrig metrics --markdown > docs/metrics.md`. -->\n\n"
      "`tfrig doctor --format prometheus` writes these metrics in the Prometheus text exposition format, for "
      "node_exporter's textfile collector (`-o /var/lib/node_exporter/textfile/tfrig.prom`, written to a "
      "temporary name and renamed, so a scrape never reads half a file). A value tfrig does not know is left "
      "out, never written as 0; a label whose value is unknown is left off. Every `_info` metric has the value 1 "
      "and carries its facts as labels. Names follow https://prometheus.io/docs/practices/naming/.\n\n"
      "| Metric | Type | Labels | Meaning | From |\n|---|---|---|---|---|\n";
  for (const auto& m : prometheus_metrics()) {
    std::string labels;
    for (const auto& l : m.labels) labels += (labels.empty() ? "" : ", ") + fmt::format("`{}`", l);
    out += fmt::format("| `{}` | {} | {} | {} | {} |\n", m.name, metric_type_name(m.type),
                       labels.empty() ? "-" : labels, m.help, m.source);
  }
  out += "\n## Conventions\n\n"
         "- `gpu` is the GPU's index as tfrig lists it (NVML order); `pci_bus_id` is normalised "
         "(`0000:3b:00.0`). The node itself is named by the `instance` label Prometheus adds when it scrapes "
         "node_exporter, as for node_exporter's own metrics.\n"
         "- Label cardinality stays bounded: one series per GPU, per probe, per firing (rule, entity), per "
         "(GPU, Xid number). No timestamps in the samples (node_exporter's textfile collector refuses them); "
         "`tfrig_last_run_timestamp_seconds` says when the file was written.\n"
         "- Counts the driver keeps (ECC errors, retired pages, Xid lines in the kernel log) are gauges: a reload "
         "of the driver or a rotated log resets them, which a counter must never do. Alert on them with "
         "`max_over_time - min_over_time` or `delta`, not `rate`.\n"
         "- Known 0 and unknown differ: a GPU whose ECC counters NVML could not read has no "
         "`tfrig_gpu_ecc_errors` series at all, and `absent()` or `unless` finds it.\n"
         "- `tfrig_gpu_info` has no `vbios` label yet: the inventory does not read the VBIOS version.\n"
         "\n## Queries\n\n"
         "- Nodes with an error finding: `tfrig_verdict == 2`\n"
         "- Which rules fire where: `sum by (rule_id) (tfrig_finding)`\n"
         "- GPUs on a narrower PCIe link than they support: "
         "`tfrig_gpu_pcie_link_width_lanes < tfrig_gpu_pcie_link_max_width_lanes`\n"
         "- Stacks in the fleet: `count by (tensorflow, cuda, cudnn, driver) (tfrig_stack_info)`\n"
         "- GPU names per node, joined onto another metric: "
         "`tfrig_gpu_memory_total_bytes * on (instance, gpu) group_left (name) tfrig_gpu_info`\n"
         "\nAlert rules over these metrics: `deploy/prometheus/tfrig-rules.yml` (unit tests beside it, run with "
         "`promtool test rules`). Deployment: `deploy/kubernetes/README.md`.\n";
  return out;
}

}  // namespace tfrig::report
