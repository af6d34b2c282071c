// The pipeline page (docs/report.md): the verdict, the barrel of stave
// rates, the what-ifs, the advice, the time and cost of the run, the whole JSON.
#include <cmath>

#include "core/i18n.h"
#include "pipeline/barrel.h"
#include "report/html_chart.h"
#include "report/html_page_parts.h"
#include "report/severity_paint.h"

namespace tfrig::report::html::detail {

namespace {

using nlohmann::json;

// JSON contract words in the interface's language where pipeline translates
// them, else as they are.
std::string origin_word(const std::string& o) {
  const auto origin = pipeline::origin_from_name(o);
  return origin ? pipeline::origin_label(*origin) : o;
}

// pipeline's run_cost: the run as measured and after each what-if.
std::string pipeline_cost_html(const json& rc) {
  const std::string currency = str(rc, "currency").empty() ? std::string("USD") : str(rc, "currency");
  std::string body = prices_paragraphs(rc, currency);
  std::vector<std::vector<std::string>> rows;
  for (const json& w : array(rc, "rows")) {
    rows.push_back({escape(str(w, "change")), busy_cell(w), hours_cell(w, "run_hours"),
                    money_cell(w, "rent_cost", currency), money_cell(w, "own_cost", currency)});
  }
  body += table("",
                {C_("run cost", "change"), C_("run cost", "GPU busy"), C_("run cost", "run"), C_("run cost", "rented"),
                 C_("run cost", "owned")},
                rows);
  return body;
}

// Which stage sets the pace and the GPU utilization it allows, then the rates.
Section pipeline_verdict_section(const json& d, std::string_view p) {
  const double demand = dbl(d, "gpu_demand_samples_per_s");
  const double util = dbl(d, "predicted_gpu_utilization");
  const double target = dbl(d, "target_gpu_utilization");
  const std::string bottleneck = str(d, "bottleneck");
  const bool below = std::isfinite(util) && std::isfinite(target) && util < target;
  // TRANSLATORS: {0} the slowest stage (storage, decode, ...), {1} and {2} percentages.
  std::string text = trf("The {0} sets the pace: predicted GPU utilization {1} (target {2}).",
                         pipeline::stage_label(bottleneck), percent(util), percent(target));
  std::string body =
      verdict_box(below ? "warning" : "ok", severity_badge(below ? "warning" : "ok") + " " + escape(text));
  body +=
      kv({{_("Data"), escape(str(d, "data_dir"))},
          {_("Model, GPU"), escape(trf("{0} on {1}", str(d, "model"), str(d, "gpu")))},
          {_("GPU demand"), escape(trf("{} samples/s", human_number(demand)))},
          {_("Training"), escape(trf("{} samples/s", human_number(dbl(d, "training_samples_per_s"))))},
          {_("Without prefetch"), escape(percent(dbl(d, "predicted_gpu_utilization_without_prefetch")))},
          {_("Cheapest change"), member(d, "cheapest_change").is_null() ? escape(_("none needed"))
                                                                        : json_html(member(d, "cheapest_change"))}});
  return {std::string(p) + "verdict", _("Verdict"), body};
}

// Each stave's rate against the GPU's demand, the shortest marked, and how each was found.
Section pipeline_barrel_section(const json& d, std::string_view p) {
  const double demand = dbl(d, "gpu_demand_samples_per_s");
  const json& stages = array(d, "stages");
  size_t shortest = stages.size();
  double lo = INFINITY;
  for (size_t i = 0; i < stages.size(); ++i) {
    const double v = dbl(stages[i], "samples_per_s");
    if (std::isfinite(v) && v < lo) {
      lo = v;
      shortest = i;
    }
  }
  BarChart chart;
  chart.title = _("The barrel: each stave's rate against the GPU's demand (log scale)");
  chart.value_header = _("samples/s");
  chart.log_scale = true;
  chart.reference = demand;
  // TRANSLATORS: the reference line of the barrel chart: {} samples per second.
  chart.reference_label = trf("GPU demand {}/s", human_number(demand));
  chart.reference_text = human_number(demand);
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < stages.size(); ++i) {
    const auto& s = stages[i];
    Bar b;
    b.label = pipeline::stage_label(str(s, "name"));
    b.value = dbl(s, "samples_per_s");
    b.value_text = human_number(b.value);
    if (i == shortest) {
      // TRANSLATORS: the shortest stave of the barrel (the slowest stage).
      b.mark = C_("barrel", "shortest");
      b.highlight = std::isfinite(demand) && b.value < demand;
    }
    chart.bars.push_back(std::move(b));
    rows.push_back({escape(pipeline::stage_label(str(s, "name"))), escape(origin_word(str(s, "origin"))),
                    escape(str(s, "detail"))});
  }
  std::string body = stages.empty() ? "<p>" + escape(_("No stages measured.")) + "</p>" : bar_chart(chart);
  body += table(_("How each stave was found"), {C_("stave table", "stave"), _("origin"), _("detail")}, rows);
  return {std::string(p) + "barrel", _("The barrel"), body};
}

// The predicted GPU utilization as measured and after each what-if, against the target.
Section pipeline_whatif_section(const json& d, std::string_view p) {
  const double util = dbl(d, "predicted_gpu_utilization");
  const double target = dbl(d, "target_gpu_utilization");
  BarChart chart;
  chart.title = _("Predicted GPU utilization after each what-if");
  chart.value_header = _("GPU utilization");
  chart.max = 100;
  chart.reference = std::isfinite(target) ? target * 100 : 90;
  // TRANSLATORS: the target GPU utilization line: {} is a percentage.
  chart.reference_label = trf("target {}", percent(std::isfinite(target) ? target : 0.9));
  chart.bars.push_back({_("as measured"), util * 100, percent(util), C_("what-if", "now"), false});
  chart.with_table = false;  // the what-if table below has the same numbers
  std::vector<std::vector<std::string>> rows{
      {"<strong>" + escape(_("as measured")) + "</strong>", escape(percent(util)),
       escape(pipeline::stage_label(str(d, "bottleneck"))), escape(C_("origin", "measured")), ""}};
  for (const auto& w : array(d, "what_if")) {
    const bool applicable = !member(w, "applicable").is_boolean() || w["applicable"].get<bool>();
    const double u = dbl(w, "predicted_gpu_utilization");
    chart.bars.push_back({str(w, "change"), u * 100, percent(u), applicable ? "" : _("not applicable"), false});
    rows.push_back({escape(str(w, "change")), escape(percent(u)), escape(pipeline::stage_label(str(w, "bottleneck"))),
                    escape(origin_word(str(w, "origin"))), escape(str(w, "detail"))});
  }
  std::string body = bar_chart(chart);
  rows.push_back({"<em>" + escape(C_("what-if", "target")) + "</em>",
                  escape(percent(std::isfinite(target) ? target : 0.9)), "", "", ""});
  body += table(_("What-ifs"),
                {C_("what-if", "change"), _("GPU utilization"), _("then the pace is set by"), _("origin"), _("detail")},
                rows);
  return {std::string(p) + "whatif", _("What-ifs"), body};
}

// Each advice: the stage and problem, the fix, its code and its source.
Section pipeline_advice_section(const json& d, std::string_view p) {
  std::string body;
  for (const auto& a : array(d, "advice")) {
    body += "<article class=\"finding info\"><h3>" +
            // TRANSLATORS: an advice's heading: {0} the pipeline stage, {1} the problem.
            escape(trf("{0}: {1}", pipeline::stage_label(str(a, "stage")), str(a, "problem"))) + "</h3><p>" +
            with_code(str(a, "fix")) + "</p>";
    if (!str(a, "code").empty()) body += "<pre class=\"fix\"><code>" + escape(str(a, "code")) + "</code></pre>";
    if (!str(a, "source").empty()) body += source_line(escape(str(a, "source")));
    body += "</article>";
  }
  return {std::string(p) + "advice", _("Advice"), body.empty() ? none_paragraph() : body};
}

}  // namespace

std::vector<Section> pipeline_sections(const json& d, std::string_view p) {
  std::vector<Section> out;
  out.push_back(pipeline_verdict_section(d, p));
  out.push_back(pipeline_barrel_section(d, p));
  out.push_back(pipeline_whatif_section(d, p));
  out.push_back(pipeline_advice_section(d, p));
  if (member(d, "run_cost").is_object() && !array(member(d, "run_cost"), "rows").empty())
    out.push_back({std::string(p) + "cost", _("Time and cost of the run"), pipeline_cost_html(d["run_cost"])});
  out.push_back({std::string(p) + "data", _("All data"), all_data(d, "pipeline")});
  return out;
}

}  // namespace tfrig::report::html::detail
