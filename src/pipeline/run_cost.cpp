#include "pipeline/run_cost.h"

#include <fmt/format.h>

#include "core/display_width.h"

#include "core/i18n.h"
#include "core/table.h"
#include "plan/cost_report.h"

namespace tfrig::pipeline {

using OJson = nlohmann::ordered_json;

namespace {

// One row: the GPU's rate and the rate the run trains at, both after the
// change (mixed precision raises the GPU's demand: its utilisation is a share
// of the new demand, not of the measured one).
WhatIfCost row(std::string id, core::Message change, double gpu_demand, double training_rate,
               const plan::GpuCandidate& gpu, int gpus, plan::RunSpec run, const plan::PriceBook& prices) {
  // The input stages cap the rate: the same cap plan applies to every GPU.
  run.input_rate = training_rate;
  return WhatIfCost{
      std::move(id), std::move(change),
      plan::cost_option(gpu, gpus, plan::RateBand{gpu_demand, gpu_demand, gpu_demand, "measured"}, run, prices)};
}

std::string money(const std::optional<double>& v, const std::string& currency) {
  return v ? plan::format_money(*v, currency) : std::string("-");
}

}  // namespace

RunCostTable cost_what_ifs(const Report& r, const plan::GpuCandidate& gpu, int gpus, plan::RunSpec run,
                           const plan::PriceBook& prices) {
  RunCostTable t;
  t.currency = prices.currency;
  t.prices_source = prices.source;
  t.exchange = prices.exchange;
  if (r.barrel.gpu_demand <= 0 || r.dataset_samples <= 0) return t;
  run.dataset_samples = static_cast<uint64_t>(r.dataset_samples);
  t.epochs = run.epochs.value_or(0);
  t.dataset_samples = r.dataset_samples;
  t.rows.push_back(row("measured", core::Message(N_("as measured")), r.barrel.gpu_demand, r.barrel.training_rate, gpu,
                       gpus, run, prices));
  for (const WhatIf& w : r.what_ifs) {
    if (!w.applicable) continue;
    t.rows.push_back(row(w.id, w.change, w.gpu_demand, w.training_rate, gpu, gpus, run, prices));
  }
  return t;
}

std::string render_run_cost_text(const RunCostTable& t, std::string_view language, size_t width) {
  if (t.rows.empty()) return {};
  auto text = [language](const core::Message& m) { return core::render(m, language); };
  const plan::OptionCost& base = t.rows.front().cost;
  // TRANSLATORS: {0} epochs of {1} samples on {2} GPUs of the model {3}.
  std::string out =
      "\n" +
      (t.prices_source.empty()
           ? trf("Time and cost of the run ({0:g} epochs of {1:.0f} samples on {2} x {3}; no prices given: --rent \"GPU=PRICE\" or --prices FILE):",
                 t.epochs, t.dataset_samples, base.gpus, base.gpu_name)
           // TRANSLATORS: {4} where the prices come from (a file or the options).
           : trf("Time and cost of the run ({0:g} epochs of {1:.0f} samples on {2} x {3}; prices: {4}):", t.epochs,
                 t.dataset_samples, base.gpus, base.gpu_name, text(t.prices_source))) +
      "\n";
  if (t.exchange) out += "  " + plan::exchange_rate_text(*t.exchange, language) + "\n";
  core::Table table({C_("run cost", "change"), C_("run cost", "GPU busy"), C_("run cost", "run"),
                     C_("run cost", "rented"), C_("run cost", "owned")},
                    {core::Table::Align::kLeft, core::Table::Align::kRight, core::Table::Align::kRight,
                     core::Table::Align::kRight, core::Table::Align::kRight});
  for (const WhatIfCost& w : t.rows) {
    table.add_row({text(w.change), fmt::format("{:.0f}%", w.cost.utilization * 100),
                   plan::format_hours(w.cost.run_hours), money(w.cost.rent_cost, t.currency),
                   money(w.cost.own_cost, t.currency)});
  }
  out += table.render("  ", width);
  // The best what-if in one sentence, the way it is decided on.
  const WhatIfCost* best = nullptr;
  for (size_t i = 1; i < t.rows.size(); ++i) {
    if (!best || t.rows[i].cost.run_hours < best->cost.run_hours) best = &t.rows[i];
  }
  if (best != nullptr && best->cost.run_hours < base.run_hours) {
    // TRANSLATORS: {0} the change; GPU busy {1}% -> {2}%, the run's time {3} -> {4}[, the rented cost {5} -> {6}].
    out += "  " +
           (base.rent_cost && best->cost.rent_cost
                ? trf("{0}: GPU {1:.0f}% -> {2:.0f}%, run {3} -> {4}, rented cost {5} -> {6}", text(best->change),
                      base.utilization * 100, best->cost.utilization * 100, plan::format_hours(base.run_hours),
                      plan::format_hours(best->cost.run_hours), plan::format_money(*base.rent_cost, t.currency),
                      plan::format_money(*best->cost.rent_cost, t.currency))
                : trf("{0}: GPU {1:.0f}% -> {2:.0f}%, run {3} -> {4}", text(best->change), base.utilization * 100,
                      best->cost.utilization * 100, plan::format_hours(base.run_hours),
                      plan::format_hours(best->cost.run_hours))) +
           "\n";
  }
  return core::wrap_lines(out, width);
}

OJson run_cost_json(const RunCostTable& t, std::string_view language) {
  OJson j;
  j["currency"] = t.currency;
  j["prices_source"] = t.prices_source.empty() ? OJson(nullptr) : OJson(core::render(t.prices_source, language));
  j["exchange_rate"] = t.exchange ? plan::exchange_rate_json(*t.exchange, language) : OJson(nullptr);
  OJson rows = OJson::array();
  for (const WhatIfCost& w : t.rows) {
    const plan::OptionCost& c = w.cost;
    rows.push_back(OJson{{"id", w.id},
                         {"change", core::render(w.change, language)},
                         {"gpu_utilization", c.utilization},
                         {"epoch_hours", c.epoch_hours},
                         {"run_hours", c.run_hours},
                         {"rent_cost", c.rent_cost ? OJson(*c.rent_cost) : OJson(nullptr)},
                         {"own_cost", c.own_cost ? OJson(*c.own_cost) : OJson(nullptr)}});
  }
  j["rows"] = std::move(rows);
  return j;
}

}  // namespace tfrig::pipeline
