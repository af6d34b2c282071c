// The watch page (docs/report.md): the verdict, utilization over time with
// the phases shaded, the phases, the whole JSON but the samples.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/i18n.h"
#include "report/html_chart.h"
#include "report/html_page_parts.h"
#include "watch/classify.h"

namespace tfrig::report::html::detail {

using nlohmann::json;

std::string verdict_words(const std::string& v) {
  std::string out = v;
  if (auto verdict = watch::verdict_from_name(v)) out = watch::verdict_label(*verdict);
  if (out == v) std::replace(out.begin(), out.end(), '_', ' ');
  return out;
}

namespace {

// The verdict itself is the badge's word; its colour from the severity
// (none without a GPU watched: then it describes the work, an info).
Section watch_verdict_section(const json& d, std::string_view p) {
  const json& run = member(d, "run");
  const std::string verdict = str(d, "verdict");
  const std::string sev = member(d, "severity").is_string() ? str(d, "severity")
                          : verdict == "compute_bound"      ? "ok"
                                                            : "info";
  std::string body = verdict_box(sev, "<span class=\"sev " + escape(anchor(sev)) + "\">" +
                                          escape(verdict_words(verdict)) + "</span> " + escape(str(d, "explanation")));
  if (!str(d, "fix").empty()) body += "<h4>" + escape(_("Fix")) + "</h4><p>" + with_code(str(d, "fix")) + "</p>";
  body += kv(
      // TRANSLATORS: {0} how many samples, {1} the seconds between two.
      {{_("Watched"), escape(str(run, "command").empty() ? "pid " + member(run, "pid").dump() : str(run, "command"))},
       {_("Started"), escape(str(run, "started_utc"))},
       {_("Samples"),
        trf("{0} every {1} s", json_value_html(member(d, "samples")), json_value_html(member(run, "interval_s")))},
       {_("GPUs"), escape(member(d, "gpu_watched").is_boolean() && d["gpu_watched"].get<bool>()
                              ? C_("watch GPUs", "watched")
                              : _(str(run, "gpu_status")))},  // stored English (watch/monitor.cpp)
       {_("Source"), escape(str(run, "source"))}});
  return {std::string(p) + "verdict", _("Verdict"), body};
}

// The samples' lines (each GPU, CPU busy, disk busy) and the phases as bands.
LineChart timeline_chart(const json& d) {
  LineChart chart;
  chart.title = _("Utilization over time, phases shaded with their verdicts");
  const json& series = member(d, "series");
  for (const auto& t : array(series, "t")) chart.x.push_back(t.is_number() ? t.get<double>() : NAN);
  auto to_values = [](const json& a) {
    std::vector<double> v;
    for (const auto& e : a) v.push_back(e.is_number() ? e.get<double>() : NAN);
    return v;
  };
  const json& gpu = array(series, "gpu_util_percent");
  for (size_t g = 0; g < gpu.size(); ++g) chart.lines.push_back({fmt::format("GPU {}", g), to_values(gpu[g])});
  if (series.contains("cpu_busy_percent"))
    chart.lines.push_back({_("CPU busy"), to_values(series["cpu_busy_percent"])});
  if (series.contains("disk_util_percent"))
    chart.lines.push_back({_("disk busy"), to_values(series["disk_util_percent"])});
  for (const auto& ph : array(d, "phases")) {
    chart.bands.push_back({dbl(ph, "start_s"), dbl(ph, "end_s"), verdict_words(str(ph, "verdict"))});
  }
  if (chart.x.empty()) {
    // Only the analysis (a --format json file): the phases on their time line.
    for (const auto& b : chart.bands) {
      chart.x.push_back(b.start);
      chart.x.push_back(b.end);
    }
  }
  return chart;
}

Section watch_timeline_section(const json& d, std::string_view p) {
  std::string body = line_chart(timeline_chart(d));
  std::vector<std::vector<std::string>> rows;
  for (const auto& ph : array(d, "phases")) {
    rows.push_back({escape(fmt::format("{:.2f}-{:.2f} s", dbl(ph, "start_s"), dbl(ph, "end_s"))),
                    escape(verdict_words(str(ph, "verdict"))), json_value_html(member(ph, "gpu_util_percent")),
                    escape(percent(dbl(ph, "cpu_busy_share"))),
                    escape(human_number(dbl(ph, "read_bytes_per_s") / 1e6)) + " MB/s", escape(str(ph, "why"))});
  }
  body += table(_("Phases"),
                {C_("phase table", "time"), C_("phase table", "verdict"), _("GPU busy %"), _("CPU busy"),
                 C_("phase table", "read"), C_("phase table", "why")},
                rows);
  return {std::string(p) + "timeline", _("Over time"), body};
}

}  // namespace

std::vector<Section> watch_sections(const json& d, std::string_view p) {
  std::vector<Section> out;
  out.push_back(watch_verdict_section(d, p));
  out.push_back(watch_timeline_section(d, p));
  json rest = d;
  if (rest.is_object()) rest.erase("series");
  out.push_back({std::string(p) + "data", _("All data"), all_data(rest, "watch")});
  return out;
}

}  // namespace tfrig::report::html::detail
