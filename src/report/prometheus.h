// doctor --format prometheus: the report as Prometheus text exposition
// format 0.0.4, for node_exporter's textfile collector (docs/metrics.md).
// Every metric is a row of one table (prometheus_metrics()); the renderer
// writes only those rows, and docs/metrics.md is generated from the same table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "verdict/report.h"

namespace tfrig::report {

enum class MetricType { kGauge, kCounter };

// Every metric tfrig writes, in output order: the renderer names a metric by
// its enumerator (a misspelt one does not compile); the name, labels and help
// are written once, in prometheus_metrics()' row for it (a test checks there
// is exactly one row per enumerator, in this order). The alert rules in
// deploy/prometheus and docs/metrics.md are checked against the table.
enum class Metric {
  kBuildInfo,                 // tfrig_build_info
  kLastRunTimestampSeconds,   // tfrig_last_run_timestamp_seconds
  kRunDurationSeconds,        // tfrig_run_duration_seconds
  kVerdict,                   // tfrig_verdict
  kFindings,                  // tfrig_findings
  kFinding,                   // tfrig_finding
  kProbeSuccess,              // tfrig_probe_success
  kProbeDurationSeconds,      // tfrig_probe_duration_seconds
  kDriverInfo,                // tfrig_driver_info
  kStackInfo,                 // tfrig_stack_info
  kGpus,                      // tfrig_gpus
  kGpuInfo,                   // tfrig_gpu_info
  kGpuLost,                   // tfrig_gpu_lost
  kGpuMemoryTotalBytes,       // tfrig_gpu_memory_total_bytes
  kGpuMemoryUsedBytes,        // tfrig_gpu_memory_used_bytes
  kGpuTemperatureCelsius,     // tfrig_gpu_temperature_celsius
  kGpuPowerLimitWatts,        // tfrig_gpu_power_limit_watts
  kGpuPcieLinkGeneration,     // tfrig_gpu_pcie_link_generation
  kGpuPcieLinkMaxGeneration,  // tfrig_gpu_pcie_link_max_generation
  kGpuPcieLinkWidthLanes,     // tfrig_gpu_pcie_link_width_lanes
  kGpuPcieLinkMaxWidthLanes,  // tfrig_gpu_pcie_link_max_width_lanes
  kGpuNvlinkLinksActive,      // tfrig_gpu_nvlink_links_active
  kGpuEccEnabled,             // tfrig_gpu_ecc_enabled
  kGpuEccErrors,              // tfrig_gpu_ecc_errors
  kGpuRetiredPages,           // tfrig_gpu_retired_pages
  kGpuRetiredPagesPending,    // tfrig_gpu_retired_pages_pending
  kGpuRemappedRows,           // tfrig_gpu_remapped_rows
  kGpuRemappedRowsPending,    // tfrig_gpu_remapped_rows_pending
  kGpuRemappedRowsFailure,    // tfrig_gpu_remapped_rows_failure
  kXidEvents,                 // tfrig_xid_events
};
std::string_view metric_type_name(MetricType type);  // "gauge", "counter"

struct MetricSpec {
  Metric id;
  std::string_view name;  // "tfrig_gpu_memory_total_bytes"
  MetricType type;
  std::vector<std::string_view> labels;  // every label a sample may carry
  std::string_view help;                 // the # HELP line
  std::string_view source;               // where the value comes from (docs only)
};

// The table, in output order: row i is Metric i.
const std::vector<MetricSpec>& prometheus_metrics();

// Renders every known value; an unknown value writes no sample (never 0), a
// label whose value is unknown is left off (Prometheus reads an empty label
// as an absent one). `now_seconds` goes into tfrig_last_run_timestamp_seconds
// and `run_seconds` into tfrig_run_duration_seconds (negative: left out).
std::string render_prometheus(const Report& report, double now_seconds, double run_seconds);

// A label value as the exposition format wants it: backslash, double quote
// and newline escaped; bytes that are not UTF-8 replaced by U+FFFD.
std::string escape_label_value(std::string_view value);
// Valid UTF-8 of any bytes: each invalid sequence becomes U+FFFD.
std::string to_valid_utf8(std::string_view bytes);

// docs/metrics.md.
std::string prometheus_metrics_markdown();

}  // namespace tfrig::report
