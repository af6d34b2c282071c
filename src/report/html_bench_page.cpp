// The bench page (docs/report.md): the results, each metric against what the
// catalog expects, each metric's history on this machine, the whole JSON.
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "bench/benchmark.h"
#include "core/i18n.h"
#include "report/html_chart.h"
#include "report/html_page_parts.h"
#include "report/severity_paint.h"

namespace tfrig::report::html::detail {

namespace {

using nlohmann::json;

std::string bench_status_word(const std::string& s) {
  const auto status = bench::status_from_name(s);
  return status ? bench::status_label(*status) : s;
}

// Units where a smaller number is better (latencies); the others are rates.
bool lower_is_better(const std::string& unit) { return unit == "s" || unit == "ms" || unit == "us" || unit == "ns"; }

// A run is marked a regression when it is worse than the run before it by
// more than this share: well above the 1-5% run-to-run spread bench reports
// as cv on a quiet machine (bench/RESULTS.md).
constexpr double kRegressionShare = 0.10;

// Every metric: its median, spread, status, change against the previous run and expectation.
std::string bench_results_table(const json& results) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : results) {
    const json& prev = member(r, "previous");
    const json& exp = member(r, "expected");
    rows.push_back({escape(str(r, "id")), escape(str(r, "metric")), escape(human_number(dbl(r, "median"))),
                    escape(str(r, "unit")), escape(std::isfinite(dbl(r, "cv")) ? percent(dbl(r, "cv")) : ""),
                    severity_badge(str(r, "status") == "ok"       ? "ok"
                                   : str(r, "status") == "failed" ? "error"
                                                                  : "info") +
                        " " + escape(bench_status_word(str(r, "status"))),
                    prev.is_object() && member(prev, "change_percent").is_number()
                        ? escape(fmt::format("{:+.1f}%", prev["change_percent"].get<double>()))
                        : "",
                    exp.is_object() ? escape(human_number(dbl(exp, "value"))) : "", escape(str(r, "reason"))});
  }
  return table(_("Every metric"),
               {C_("bench table", "benchmark"), C_("bench table", "metric"), C_("bench table", "median"),
                C_("bench table", "unit"), _("spread (cv)"), C_("bench table", "status"), _("vs previous run"),
                C_("bench table", "expected"), C_("bench table", "why")},
               rows);
}

// How many metrics were measured, skipped and failed; the machine and what makes its numbers noisy.
Section bench_summary_section(const json& d, std::string_view p) {
  const json& ctx = member(d, "context");
  const json& results = array(d, "results");
  int ok = 0, skipped = 0, failed = 0;
  for (const auto& r : results) {
    const std::string s = str(r, "status");
    (s == "ok" ? ok : s == "skipped" ? skipped : failed)++;
  }
  const std::string cls = failed ? "error" : "ok";
  std::string body = verdict_box(
      cls, severity_badge(cls) + " " + escape(trf("{} metrics measured, {} skipped, {} failed", ok, skipped, failed)));
  body +=
      kv({{_("Host"), escape(str(ctx, "hostname"))},
          {"CPU", escape(str(ctx, "cpu_model"))},
          {_("When"), escape(str(ctx, "timestamp"))},
          {_("Load average"), std::isfinite(dbl(ctx, "load_average")) ? escape(human_number(dbl(ctx, "load_average")))
                                                                      : json_value_html(member(ctx, "load_average"))}});
  // What makes the numbers noisy (a virtual machine, the load, the governor), as the terminal warns.
  for (const auto& w : array(ctx, "warnings"))
    body += "<p class=\"meta\">" + escape(trf("warning: {}", w.is_string() ? w.get<std::string>() : w.dump())) + "</p>";
  body += bench_results_table(results);
  return {std::string(p) + "summary", _("Results"), body};
}

// Each metric as a share of what the catalog expects of this hardware.
Section bench_expected_section(const json& d, std::string_view p) {
  BarChart chart;
  chart.title = _("Each metric against what the catalog expects of this hardware");
  chart.value_header = _("share of expected");
  chart.reference = 100;
  chart.reference_label = C_("bench table", "expected");
  for (const auto& r : array(d, "results")) {
    const json& exp = member(r, "expected");
    const double v = dbl(r, "median");
    const double e = dbl(exp, "value");
    if (!exp.is_object() || !std::isfinite(v) || !std::isfinite(e) || e <= 0) continue;
    const double share = lower_is_better(str(r, "unit")) ? e / v : v / e;
    chart.bars.push_back({str(r, "id") + " " + str(r, "metric"), share * 100, percent(share),
                          // TRANSLATORS: a benchmark result below what the catalog expects.
                          share < 0.8 ? C_("expectation", "below") : "", share < 0.8});
  }
  std::string body =
      chart.bars.empty()
          // TRANSLATORS: {} is the command tfrig bench --compare (as code).
          ? "<p>" + trf("No expectations in this run ({} adds them).", "<code>tfrig bench --compare</code>") + "</p>"
          : bar_chart(chart);
  return {std::string(p) + "expected", _("Against expectation"), body};
}

// One metric's last runs (at most 20), a run worse than the one before by
// more than kRegressionShare marked.
std::string history_chart(const std::string& key, std::vector<const json*>& runs) {
  if (runs.size() > 20) runs.erase(runs.begin(), runs.end() - 20);
  BarChart chart;
  const std::string unit = str(*runs.front(), "unit");
  // TRANSLATORS: {0} a benchmark and metric, {1} its unit, {2} how many runs.
  chart.title = trf("{0} ({1}) over the last {2} runs on this machine", key, unit, runs.size());
  chart.value_header = unit;
  double previous = NAN;
  for (const json* h : runs) {
    const double v = dbl(*h, "median");
    Bar b;
    // TRANSLATORS: a past benchmark run: {0} its number, {1} its date.
    b.label = trf("run {0} {1}", member(*h, "run_id").dump(), str(*h, "timestamp").substr(0, 10));
    b.value = v;
    b.value_text = human_number(v);
    if (std::isfinite(previous) && previous > 0 && std::isfinite(v)) {
      const double change = v / previous - 1;
      const bool worse = lower_is_better(unit) ? change > kRegressionShare : change < -kRegressionShare;
      if (worse) {
        b.mark = trf("regression {:+.0f}%", change * 100);
        b.highlight = true;
      }
    }
    previous = v;
    chart.bars.push_back(std::move(b));
  }
  return bar_chart(chart);
}

// history: [{run_id, timestamp, id, metric, unit, median}], oldest first: a chart per metric.
Section bench_history_section(const json& d, std::string_view p) {
  std::map<std::string, std::vector<const json*>> series;
  std::vector<std::string> order;
  for (const auto& h : array(d, "history")) {
    const std::string key = str(h, "id") + " " + str(h, "metric");
    if (!series.count(key)) order.push_back(key);
    series[key].push_back(&h);
  }
  std::string body;
  for (const auto& key : order) body += history_chart(key, series[key]);
  if (body.empty())
    body = "<p>" + escape(_("No history in this input.")) + "</p>";
  else
    body = "<p class=\"meta\">" +
           escape(trf("A regression: worse than the run before by more than {:.0f}%.", kRegressionShare * 100)) +
           "</p>" + body;
  return {std::string(p) + "history", _("History"), body};
}

}  // namespace

std::vector<Section> bench_sections(const json& d, std::string_view p) {
  std::vector<Section> out;
  out.push_back(bench_summary_section(d, p));
  out.push_back(bench_expected_section(d, p));
  out.push_back(bench_history_section(d, p));
  out.push_back({std::string(p) + "data", _("All data"), all_data(d, "bench")});
  return out;
}

}  // namespace tfrig::report::html::detail
