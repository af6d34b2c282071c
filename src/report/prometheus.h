// doctor --format prometheus: the report as Prometheus text exposition
// format 0.0.4, for node_exporter's textfile collector (docs/metrics.md).
// Every metric is a row of one table (prometheus_metrics()); the renderer
// writes only those rows, and docs/metrics.md is generated from the same table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/report.h"

namespace tfrig::report {

enum class MetricType { kGauge, kCounter };
std::string_view metric_type_name(MetricType type);  // "gauge", "counter"

struct MetricSpec {
  std::string_view name;    // "tfrig_gpu_memory_total_bytes"
  MetricType type;
  std::vector<std::string_view> labels;  // every label a sample may carry
  std::string_view help;    // the # HELP line
  std::string_view source;  // where the value comes from (docs only)
};

// The table, in output order.
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
