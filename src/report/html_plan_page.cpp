// The plan page (docs/report.md): the plan, GPU memory against VRAM, the GPU
// ranking, the time and cost of the run, the whole JSON.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/i18n.h"
#include "plan/cost_report.h"
#include "plan/prices.h"
#include "plan/ranking.h"
#include "plan/render.h"
#include "report/html_chart.h"
#include "report/html_page_parts.h"

namespace tfrig::report::html::detail {

namespace {

using nlohmann::json;

std::string rank_by_word(const std::string& r) {
  const auto by = plan::parse_rank_by(r);
  return by ? plan::rank_by_text(*by) : r;
}

// The plan's stave names (src/plan/render.cpp marks the same English words).
std::string stave_name_word(const std::string& name) { return name.empty() ? name : _(name); }

// The options of plan's cost table shown whether priced or not (the terminal's --top default).
constexpr size_t kCostRows = 10;

// The run the cost is for: its steps and batch, or its epochs and samples.
std::string run_heading(const json& rc) {
  const double epochs = dbl(rc, "epochs");
  const double samples = dbl(rc, "dataset_samples");
  const double steps = dbl(rc, "steps");
  if (std::isfinite(steps))
    return "<p>" +
           escape(trf("Time and cost of the run ({0} steps of batch {1})", steps,
                      member(rc, "samples").is_number() ? dbl(rc, "samples") / steps : NAN)) +
           "</p>";
  if (std::isfinite(epochs) && std::isfinite(samples))
    return "<p>" +
           escape(trf("Time and cost of the run ({0:g} epochs of {1} samples)", epochs, human_number(samples))) +
           "</p>";
  return "";
}

// One option's row of the cost table; the cheapest one in bold with a star.
std::vector<std::string> cost_row(const json& o, bool is_cheapest, const std::string& currency) {
  std::string run = plan::format_hours(dbl(o, "run_hours"));
  const double lo = dbl(o, "run_hours_low"), hi = dbl(o, "run_hours_high");
  if (std::isfinite(lo) && std::isfinite(hi) && hi > lo * 1.001)
    run += fmt::format(" ({} - {})", plan::format_hours(lo), plan::format_hours(hi));
  if (member(o, "meets_deadline").is_boolean() && !o["meets_deadline"].get<bool>()) run += " " + C_("run cost", "late");
  const double months = dbl(o, "breakeven_months");
  return {(is_cheapest ? "<strong>" : std::string()) + escape(str(o, "gpu") + (is_cheapest ? " *" : "")) +
              (is_cheapest ? "</strong>" : ""),
          json_value_html(member(o, "gpus")),
          busy_cell(o),
          hours_cell(o, "epoch_hours"),
          escape(run),
          hours_cell(o, "hours_lost_to_input"),
          money_cell(o, "rent_cost", currency),
          money_cell(o, "own_cost", currency),
          money_cell(o, "cost_per_1k_samples", currency),
          escape(std::isfinite(months) ? trf("{:.1f} months", months) : "-")};
}

// The options as the terminal's table: the plan's first options, and every
// priced one (the rest is in the JSON below), with the notes under it.
std::string cost_table(const json& options, double cheapest, const std::string& currency) {
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < options.size(); ++i) {
    const json& o = options[i];
    const bool priced = std::isfinite(dbl(o, "rent_cost")) || std::isfinite(dbl(o, "own_cost"));
    if (i >= kCostRows && !priced && static_cast<double>(i) != cheapest) continue;
    rows.push_back(cost_row(o, static_cast<double>(i) == cheapest, currency));
  }
  std::string body = table("",
                           {"GPU", "n", C_("run cost", "GPU busy"), C_("run cost", "epoch"),
                            C_("run cost", "run (band)"), C_("run cost", "lost to input"), C_("run cost", "rented"),
                            C_("run cost", "owned"), C_("run cost", "per 1k samples"), C_("run cost", "buy pays off")},
                           rows);
  body += "<p class=\"meta\">" +
          escape(_("run (band): expected, and the range the throughput estimate allows; measured rows have no band")) +
          "</p>";
  body +=
      "<p class=\"meta\">" +
      escape(_(
          "rented: billed hours after the provider's rounding; owned: purchase written off per hour of use + energy at board power")) +
      "</p>";
  return body;
}

// The cheapest option (within the deadline when there is one), or that none finishes in time.
std::string cheapest_verdict(const json& rc, const json& options, double cheapest, const std::string& currency) {
  const double deadline = dbl(rc, "deadline_hours");
  if (cheapest >= 0 && cheapest < static_cast<double>(options.size())) {
    const json& c = options[static_cast<size_t>(cheapest)];
    const double cost = std::min(std::isfinite(dbl(c, "rent_cost")) ? dbl(c, "rent_cost") : INFINITY,
                                 std::isfinite(dbl(c, "own_cost")) ? dbl(c, "own_cost") : INFINITY);
    const int gpus = integer(c, "gpus", 1);
    const std::string line = std::isfinite(deadline)
                                 ? trf("Cheapest within {4}: {0} x {1}, {2} for the run, done in {3}", gpus,
                                       str(c, "gpu"), plan::format_money(cost, currency),
                                       plan::format_hours(dbl(c, "run_hours")), plan::format_hours(deadline))
                                 : trf("Cheapest: {0} x {1}, {2} for the run, done in {3}", gpus, str(c, "gpu"),
                                       plan::format_money(cost, currency), plan::format_hours(dbl(c, "run_hours")));
    return verdict_box("ok", "* " + escape(line));
  }
  if (std::isfinite(deadline)) {
    return verdict_box("warning", escape(trf("No priced option finishes within {0} (at the slow end of its band).",
                                             plan::format_hours(deadline))));
  }
  return "";
}

// What the input pipeline costs of the run, from the first option it starves
// (the same pipeline starves every option).
std::string lost_to_input_line(const json& options, const std::string& currency) {
  for (const json& o : options) {
    const double lost = dbl(o, "rent_cost_lost_to_input");
    if (std::isfinite(lost) && lost > 0 && dbl(o, "hours_lost_to_input") > 0) {
      return "<p>" +
             escape(trf(
                 "{0}: the input pipeline costs {1} of this run ({2} of {3}); fix the pipeline before buying a faster GPU",
                 str(o, "gpu"), plan::format_money(lost, currency), plan::format_hours(dbl(o, "hours_lost_to_input")),
                 plan::format_hours(dbl(o, "run_hours")))) +
             "</p>";
    }
  }
  return "";
}

// An option's month: reserved around the clock against released after each run.
std::string month_line(const json& o, const std::string& currency) {
  const double reserved = dbl(o, "rent_month_reserved"), released = dbl(o, "rent_month_released");
  const bool monthly = str(o, "rent_month_reserved_basis") == "monthly_price";
  const bool releasing = released <= reserved;
  const double saves = releasing ? (reserved > 0 ? (1 - released / reserved) * 100 : 0.0)
                                 : (released > 0 ? (1 - reserved / released) * 100 : 0.0);
  const int gpus = integer(o, "gpus", 1);
  const std::string r = plan::format_money(reserved, currency), f = plan::format_money(released, currency);
  return monthly
             ? (releasing ? trf("{0} x {1}: {2} reserved at the monthly price, {3} released (releasing saves {4:.0f}%)",
                                gpus, str(o, "gpu"), r, f, saves)
                          : trf("{0} x {1}: {2} reserved at the monthly price, {3} released (reserving saves {4:.0f}%)",
                                gpus, str(o, "gpu"), r, f, saves))
             : (releasing ? trf("{0} x {1}: {2} reserved, {3} released (releasing saves {4:.0f}%)", gpus, str(o, "gpu"),
                                r, f, saves)
                          : trf("{0} x {1}: {2} reserved, {3} released (reserving saves {4:.0f}%)", gpus, str(o, "gpu"),
                                r, f, saves));
}

// The options' months as a table, when rent by the month is priced.
std::string month_table(const json& rc, const json& options, const std::string& currency) {
  std::vector<std::vector<std::string>> month_rows;
  for (const json& o : options) {
    if (!std::isfinite(dbl(o, "rent_month_reserved")) || !std::isfinite(dbl(o, "rent_month_released"))) continue;
    month_rows.push_back({escape(month_line(o, currency))});
  }
  if (month_rows.empty()) return "";
  const json& runs = member(rc, "runs_per_month");
  return table(trf("Per month with {0} runs: reserved around the clock vs released after each run",
                   runs.is_number() ? runs.dump() : std::string("?")),
               {}, month_rows);
}

// plan's run_cost: every option that fits, costed for one run, as the
// terminal's table (amounts with the currency's symbol, hours as "3.2 h").
std::string plan_cost_html(const json& rc) {
  const std::string currency = str(rc, "currency").empty() ? std::string("USD") : str(rc, "currency");
  const json& options = array(rc, "options");
  const json& cheapest_index = member(rc, "cheapest");
  const double cheapest = cheapest_index.is_number_unsigned() ? cheapest_index.get<double>() : -1;
  std::string body = run_heading(rc);
  body += prices_paragraphs(rc, currency);
  body += cost_table(options, cheapest, currency);
  body += cheapest_verdict(rc, options, cheapest, currency);
  body += lost_to_input_line(options, currency);
  body += month_table(rc, options, currency);
  for (const auto& n : array(rc, "notes"))
    body += "<p class=\"meta\">" + escape(trf("note: {0}", n.is_string() ? n.get<std::string>() : n.dump())) + "</p>";
  return body;
}

// The staves of the machine the plan was made on (plan --snapshot or live).
std::string machine_staves(const json& machine) {
  std::string body = "<h3>" + escape(_("This machine")) + "</h3><p>" + escape(str(machine, "source")) + "</p>";
  std::vector<std::vector<std::string>> srows;
  for (const auto& s : array(machine, "staves")) {
    const std::string v = str(s, "verdict");
    const std::string cls = v == "ok" ? "ok" : v == "short" ? "warning" : v == "fail" ? "error" : "info";
    srows.push_back({escape(stave_name_word(str(s, "name"))),
                     "<span class=\"sev " + cls + "\">" + escape(plan::stave_verdict_text(v)) + "</span>",
                     escape(str(s, "need")), escape(str(s, "have"))});
  }
  body += table(
      _("Staves of this machine"),
      {C_("stave table", "stave"), C_("stave table", "verdict"), C_("stave table", "needs"), C_("stave table", "has")},
      srows);
  return body;
}

// The model, batch, precision, optimizer, memory per GPU, the server it
// suggests, this machine's staves and the notes.
Section plan_summary_section(const json& d, std::string_view p) {
  const json& model = member(d, "model");
  const json& mem = member(d, "memory");
  std::vector<std::pair<std::string, std::string>> rows{
      // TRANSLATORS: {0} a model's name, {1} its number of parameters.
      {C_("plan page", "Model"),
       trf("{0} ({1} parameters)", escape(str(model, "name")), json_value_html(member(model, "params")))},
      {_("Batch"), json_value_html(member(d, "batch"))},
      {_("Precision"), escape(str(d, "precision"))},
      {_("Optimizer"), escape(str(d, "optimizer"))},
      // TRANSLATORS: {0} the GPU memory each GPU needs ("11.8 GiB"), {1} the batch each GPU gets.
      {_("GPU memory per GPU"), trf("{0} for batch {1} per GPU", escape(human_bytes(dbl(mem, "total_bytes"))),
                                    json_value_html(member(mem, "batch_per_gpu")))},
  };
  const json& server = member(d, "server");
  if (server.is_object()) {
    rows.emplace_back(_("Suggested server"),
                      escape(fmt::format("{} x {}", member(server, "gpus").dump(), str(server, "gpu"))));
  }
  std::string body = kv(rows);
  const json& machine = member(d, "machine");
  if (machine.is_object()) body += machine_staves(machine);
  for (const auto& n : array(d, "notes"))
    body += "<p class=\"meta\">" + escape(n.is_string() ? n.get<std::string>() : n.dump()) + "</p>";
  return {std::string(p) + "plan", C_("page section", "Plan"), body};
}

// Per GPU: the fixed parts, and activations as the rest of its total
// (activations are what grows with the batch each GPU gets).
Section plan_memory_section(const json& d, std::string_view p) {
  const json& mem = member(d, "memory");
  const json& gpus = array(d, "gpus");
  const double fixed_w = dbl(mem, "weights_bytes");
  const double fixed_g = dbl(mem, "gradients_bytes");
  const double fixed_o = dbl(mem, "optimizer_bytes");
  const double fixed_x = dbl(mem, "overhead_bytes");
  StackedChart chart;
  chart.title = _("GPU memory per GPU against its VRAM (the ranking's first GPUs)");
  chart.part_names = {C_("memory chart", "weights"), C_("memory chart", "gradients"), C_("memory chart", "optimizer"),
                      C_("memory chart", "overhead"), C_("memory chart", "activations")};
  chart.capacity_name = C_("memory chart", "VRAM");
  auto add = [&](const std::string& label, double total, double capacity, const std::string& note) {
    StackedBar b;
    b.label = label;
    const double fixed = fixed_w + fixed_g + fixed_o + fixed_x;
    b.parts = {fixed_w, fixed_g, fixed_o, fixed_x,
               std::isfinite(total) ? total - fixed : dbl(mem, "activations_bytes")};
    for (auto& v : b.parts) v = std::isfinite(v) ? v : 0;
    b.capacity = std::isfinite(capacity) ? capacity : 0;
    b.note = note;
    chart.bars.push_back(std::move(b));
  };
  for (const auto& g : array(member(d, "machine"), "gpus")) {
    const bool fits = member(g, "fits").is_boolean() && g["fits"].get<bool>();
    // TRANSLATORS: a GPU of this machine in the memory chart: {} is its name.
    add(trf("here: {}", str(g, "name")), dbl(mem, "total_bytes"), dbl(g, "memory_bytes"),
        fits ? _("fits") : _("does not fit"));
  }
  for (size_t i = 0; i < gpus.size() && chart.bars.size() < 12; ++i) {
    const auto& g = gpus[i];
    const bool fits = member(g, "fits").is_boolean() && g["fits"].get<bool>();
    add(str(g, "name"), dbl(g, "total_bytes_per_gpu"), dbl(g, "memory_bytes"), fits ? _("fits") : _("does not fit"));
  }
  std::string body = chart.bars.empty() ? "<p>" + escape(_("No GPUs.")) + "</p>" : stacked_bytes_chart(chart);
  return {std::string(p) + "memory", _("GPU memory"), body};
}

// The ranking's first 15 GPUs by estimated samples/s.
std::string ranking_chart(const json& d, const json& gpus) {
  BarChart chart;
  chart.title =
      // TRANSLATORS: {} is what the ranking sorts by (price-performance, speed, memory).
      trf("Estimated training samples/s (first 15 GPUs of the ranking, by {})", rank_by_word(str(d, "rank_by")));
  chart.value_header = _("samples/s");
  for (size_t i = 0; i < gpus.size() && i < 15; ++i) {
    const auto& g = gpus[i];
    Bar b;
    b.label = str(g, "name");
    b.value = dbl(g, "est_samples_per_s");
    b.value_text = std::isfinite(b.value) ? human_number(b.value) : _("unknown");
    const bool fits = member(g, "fits").is_boolean() && g["fits"].get<bool>();
    const double needed = dbl(g, "gpus_needed");
    b.mark = !fits ? _("does not fit") : needed > 1 ? trf("{} GPUs", needed) : "";
    b.highlight = !fits;
    chart.bars.push_back(std::move(b));
  }
  return chart.bars.empty() ? "" : bar_chart(chart);
}

// Every GPU of the ranking, numbers as people read them ("1,216", "32.0 GiB",
// "$1,999.00"); every digit is in the folded JSON below.
std::string ranking_table(const json& gpus) {
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < gpus.size(); ++i) {
    const auto& g = gpus[i];
    auto number = [&g](std::string_view key) {
      const double v = dbl(g, key);
      return std::isfinite(v) ? escape(human_number(v)) : json_value_html(member(g, key));
    };
    const double launch = dbl(g, "launch_price_usd");
    rows.push_back({escape(std::to_string(i + 1)), escape(str(g, "name")), json_value_html(member(g, "fits")),
                    number("gpus_needed"), number("est_samples_per_s"), number("max_batch_per_gpu"),
                    std::isfinite(dbl(g, "memory_bytes")) ? escape(human_bytes(dbl(g, "memory_bytes")))
                                                          : json_value_html(member(g, "memory_bytes")),
                    std::isfinite(launch) ? escape(plan::format_money(launch, "USD"))
                                          : json_value_html(member(g, "launch_price_usd")),
                    number("samples_per_s_per_kusd"), escape(plan::basis_text(str(g, "basis")))});
  }
  return table(
      _("Every GPU of the ranking"),
      {"#", "GPU", C_("ranking table", "fits"), C_("ranking table", "GPUs"), _("samples/s"), _("max batch/GPU"),
       C_("memory chart", "VRAM"), _("launch price (USD)"), _("samples/s per k USD"), C_("ranking table", "basis")},
      rows);
}

}  // namespace

std::vector<Section> plan_sections(const json& d, std::string_view p) {
  std::vector<Section> out;
  const json& gpus = array(d, "gpus");
  out.push_back(plan_summary_section(d, p));
  out.push_back(plan_memory_section(d, p));
  out.push_back({std::string(p) + "ranking", _("GPU ranking"), ranking_chart(d, gpus) + ranking_table(gpus)});
  if (member(d, "run_cost").is_object())
    out.push_back({std::string(p) + "cost", _("Time and cost of the run"), plan_cost_html(d["run_cost"])});
  out.push_back({std::string(p) + "data", _("All data"), all_data(d, "plan")});
  return out;
}

}  // namespace tfrig::report::html::detail
