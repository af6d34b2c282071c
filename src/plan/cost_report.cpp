#include "plan/cost_report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/message.h"
#include "core/table.h"

namespace tfrig::plan {

using OJson = nlohmann::ordered_json;

namespace {

OJson opt(const std::optional<double>& v) { return v ? OJson(*v) : OJson(nullptr); }

std::string money_or_dash(const std::optional<double>& v, const std::string& currency) {
  return v ? format_money(*v, currency) : std::string("-");
}

}  // namespace

RateBand rate_band(const GpuChoice& choice) {
  RateBand band;
  band.expected = choice.est_samples_per_s;
  // The throughput model's own band (measured rows: the spread of the
  // published rows; estimates: the held-out error of the calibration,
  // docs/plan-validation.md), scaled like the rate to all the GPUs.
  band.low = choice.est_samples_per_s_low > 0 ? choice.est_samples_per_s_low : band.expected;
  band.high = choice.est_samples_per_s_high > 0 ? choice.est_samples_per_s_high : band.expected;
  band.basis = choice.per_gpu ? choice.per_gpu->basis : std::string("estimated");
  return band;
}

CostTable cost_table(const std::vector<GpuChoice>& choices, const RunSpec& run, const PriceBook& prices) {
  CostTable t;
  t.run = run;
  t.currency = prices.currency;
  t.prices_source = prices.source;
  t.exchange = prices.exchange;
  for (const GpuChoice& c : choices) {
    if (!c.fits || c.gpus_needed < 1 || c.est_samples_per_s <= 0) continue;
    t.options.push_back(cost_option(c.gpu, c.gpus_needed, rate_band(c), run, prices));
  }
  t.cheapest = cheapest_meeting_deadline(t.options);
  if (prices.amortization_assumed &&
      std::any_of(t.options.begin(), t.options.end(), [](const OptionCost& o) { return o.own_cost.has_value(); }))
    t.notes.push_back(
        core::Message(N_("owned: written off over {0:g} years (assumed; amortization_years in the price file)"),
                      prices.amortization_years));
  if (run.input_rate)
    t.notes.push_back(core::Message(
        // TRANSLATORS: {1} where the rate comes from (a file, an option).
        N_("input pipeline delivers {0:.0f} samples/s ({1}): faster GPUs wait for it"), *run.input_rate,
        run.input_rate_source));
  return t;
}

std::string exchange_rate_text(const ExchangeRate& rate, std::string_view language) {
  // TRANSLATORS: {0} the price file's currency, {1} the rate, {2} the output's currency, {3} where the rate comes from.
  return core::render(core::Message(N_("converted from {0} at 1 {0} = {1:.6g} {2} (rate from {3})"), rate.from,
                                    rate.rate, rate.to, rate.source),
                      language);
}

nlohmann::ordered_json exchange_rate_json(const ExchangeRate& rate, std::string_view language) {
  return OJson{
      {"from", rate.from}, {"to", rate.to}, {"rate", rate.rate}, {"source", core::render(rate.source, language)}};
}

std::string format_hours(double hours) {
  if (!std::isfinite(hours)) return "-";
  if (hours >= 48) return trf("{:.1f} d", hours / 24);
  if (hours >= 1) return trf("{:.1f} h", hours);
  if (hours * 60 >= 1) return trf("{:.0f} min", hours * 60);
  return trf("{:.0f} s", hours * 3600);
}

namespace {

// The options' table: time, band, lost to input, rented, owned, per 1k
// samples, break-even; the first `top` options and the cheapest (starred).
std::string cost_options_table(const CostTable& t, size_t top, size_t width) {
  core::Table table(
      {"GPU", "n", C_("run cost", "GPU busy"), C_("run cost", "epoch"), C_("run cost", "run (band)"),
       C_("run cost", "lost to input"), C_("run cost", "rented"), C_("run cost", "owned"),
       C_("run cost", "per 1k samples"), C_("run cost", "buy pays off")},
      {core::Table::Align::kLeft, core::Table::Align::kRight, core::Table::Align::kRight, core::Table::Align::kRight,
       core::Table::Align::kLeft, core::Table::Align::kRight, core::Table::Align::kRight, core::Table::Align::kRight,
       core::Table::Align::kRight, core::Table::Align::kRight});
  size_t shown = 0;
  for (size_t i = 0; i < t.options.size(); ++i) {
    if (top > 0 && shown >= top && (!t.cheapest || *t.cheapest != i)) continue;
    const OptionCost& o = t.options[i];
    std::string run = format_hours(o.run_hours);
    if (o.run_hours_high > o.run_hours_low * 1.001)
      run += fmt::format(" ({} - {})", format_hours(o.run_hours_low), format_hours(o.run_hours_high));
    if (!o.meets_deadline) run += " " + C_("run cost", "late");
    table.add_row({o.gpu_name + (t.cheapest && *t.cheapest == i ? " *" : ""), std::to_string(o.gpus),
                   fmt::format("{:.0f}%", o.utilization * 100), o.epoch_hours > 0 ? format_hours(o.epoch_hours) : "-",
                   run, o.hours_lost_to_input > 0 ? format_hours(o.hours_lost_to_input) : "-",
                   money_or_dash(o.rent_cost, t.currency), money_or_dash(o.own_cost, t.currency),
                   money_or_dash(o.cost_per_1k_samples, t.currency),
                   o.breakeven_months ? trf("{:.1f} months", *o.breakeven_months) : "-"});
    ++shown;
  }
  return table.render("  ", width);
}

// The cheapest option that meets the deadline (or that none does), and what
// the input pipeline costs.
std::string cost_verdict_text(const CostTable& t) {
  std::string out;
  if (t.cheapest) {
    const OptionCost& c = t.options[*t.cheapest];
    const double cost = std::min(c.rent_cost.value_or(INFINITY), c.own_cost.value_or(INFINITY));
    // TRANSLATORS: {0} GPUs of the model {1}, {2} the run's cost, {3} its time; {4} the deadline.
    out += "\n* " +
           (t.run.deadline_hours
                ? trf("Cheapest within {4}: {0} x {1}, {2} for the run, done in {3}", c.gpus, c.gpu_name,
                      format_money(cost, t.currency), format_hours(c.run_hours), format_hours(*t.run.deadline_hours))
                : trf("Cheapest: {0} x {1}, {2} for the run, done in {3}", c.gpus, c.gpu_name,
                      format_money(cost, t.currency), format_hours(c.run_hours))) +
           "\n";
  } else if (t.run.deadline_hours) {
    out += "\n" +
           trf("No priced option finishes within {0} (at the slow end of its band).",
               format_hours(*t.run.deadline_hours)) +
           "\n";
  }
  for (const OptionCost& o : t.options) {
    if (o.hours_lost_to_input > 0 && o.rent_lost_to_input && *o.rent_lost_to_input > 0) {
      out +=
          "  " +
          // TRANSLATORS: {0} a GPU, {1} money lost, {2} hours lost of the run's {3}.
          trf("{0}: the input pipeline costs {1} of this run ({2} of {3}); fix the pipeline before buying a faster GPU",
              o.gpu_name, format_money(*o.rent_lost_to_input, t.currency), format_hours(o.hours_lost_to_input),
              format_hours(o.run_hours)) +
          "\n";
      break;  // the same pipeline starves every option; one line says it
    }
  }
  return out;
}

// A month of runs: reserved around the clock against released after each run,
// for the first priced options.
std::string cost_month_text(const CostTable& t, size_t top) {
  std::string out;
  bool header = false;
  size_t months_shown = 0;  // the first priced options, as many as the table's top (at least 3)
  for (size_t i = 0; i < t.options.size() && months_shown < std::max<size_t>(top, 3); ++i) {
    const OptionCost& o = t.options[i];
    if (!o.rent_month_reserved || !o.rent_month_released) continue;
    ++months_shown;
    if (!header) {
      out +=
          "\n" +
          trf("Per month with {0} runs: reserved around the clock vs released after each run", *t.run.runs_per_month) +
          "\n";
      header = true;
    }
    const double reserved = *o.rent_month_reserved;
    const double released = *o.rent_month_released;
    const bool releasing = released <= reserved;  // which way saves, and how much of the dearer
    const double saves =
        releasing ? (reserved > 0 ? (1 - released / reserved) * 100 : 0.0) : (1 - reserved / released) * 100;
    const std::string reserved_text = format_money(reserved, t.currency),
                      released_text = format_money(released, t.currency);
    std::string line;
    if (o.rent_month_from_monthly_price) {
      // TRANSLATORS: {0} GPUs of the model {1}: {2} a month at the monthly (subscription, 包年包月) price, {3} pay-as-you-go released after each run.
      line = releasing ? trf("{0} x {1}: {2} reserved at the monthly price, {3} released (releasing saves {4:.0f}%)",
                             o.gpus, o.gpu_name, reserved_text, released_text, saves)
                       // TRANSLATORS: as above, when the monthly price costs less than the runs on demand.
                       : trf("{0} x {1}: {2} reserved at the monthly price, {3} released (reserving saves {4:.0f}%)",
                             o.gpus, o.gpu_name, reserved_text, released_text, saves);
    } else {
      // TRANSLATORS: {0} GPUs of the model {1}: {2} a month on demand around the clock, {3} released after each run.
      line = releasing ? trf("{0} x {1}: {2} reserved, {3} released (releasing saves {4:.0f}%)", o.gpus, o.gpu_name,
                             reserved_text, released_text, saves)
                       : trf("{0} x {1}: {2} reserved, {3} released (reserving saves {4:.0f}%)", o.gpus, o.gpu_name,
                             reserved_text, released_text, saves);
    }
    out += "  " + line + "\n";
  }
  return out;
}

}  // namespace

// The run's time and cost per option: what the run is, where the prices come
// from, the table, the verdict, a month of it, the notes.
std::string render_cost_text(const CostTable& t, size_t top, std::string_view language, size_t width) {
  std::string out;
  const auto samples = run_samples(t.run);
  if (!samples) return out;
  out += "\n" +
         (t.run.steps
              ? trf("Time and cost of the run ({0} steps of batch {1})", *t.run.steps, t.run.batch)
              : trf("Time and cost of the run ({0:g} epochs of {1} samples)", *t.run.epochs, *t.run.dataset_samples)) +
         "\n";
  if (t.prices_source.empty())
    out +=
        "  " +
        _("no prices given: --prices FILE, --rent \"GPU=PRICE\", --buy \"GPU=PRICE\" (data/prices.example.yaml shows the fields)") +
        "\n";
  // TRANSLATORS: {0} where the prices come from, {1} their currency.
  else
    out += "  " + trf("prices: {0}, {1}", core::render(t.prices_source, language), t.currency) + "\n";
  if (t.exchange) out += "  " + exchange_rate_text(*t.exchange, language) + "\n";
  out += cost_options_table(t, top, width);
  out +=
      "  " + _("run (band): expected, and the range the throughput estimate allows; measured rows have no band") + "\n";
  out +=
      "  " +
      _("rented: billed hours after the provider's rounding; owned: purchase written off per hour of use + energy at board power") +
      "\n";
  out += cost_verdict_text(t);
  out += cost_month_text(t, top);
  for (const core::Message& n : t.notes) out += "  " + trf("note: {0}", core::render(n, language)) + "\n";
  return out;
}

OJson cost_to_json(const CostTable& t, std::string_view language) {
  auto texts = [language](const std::vector<core::Message>& notes) {
    OJson out = OJson::array();
    for (const core::Message& n : notes) out.push_back(core::render(n, language));
    return out;
  };
  OJson j;
  j["samples"] = opt(run_samples(t.run));
  j["epochs"] = opt(t.run.epochs);
  j["dataset_samples"] = t.run.dataset_samples ? OJson(*t.run.dataset_samples) : OJson(nullptr);
  j["steps"] = t.run.steps ? OJson(*t.run.steps) : OJson(nullptr);
  j["input_rate_samples_per_s"] = opt(t.run.input_rate);
  j["runs_per_month"] = t.run.runs_per_month ? OJson(*t.run.runs_per_month) : OJson(nullptr);
  j["deadline_hours"] = opt(t.run.deadline_hours);
  j["currency"] = t.currency;
  j["prices_source"] = t.prices_source.empty() ? OJson(nullptr) : OJson(core::render(t.prices_source, language));
  j["exchange_rate"] = t.exchange ? exchange_rate_json(*t.exchange, language) : OJson(nullptr);
  OJson options = OJson::array();
  for (const OptionCost& o : t.options) {
    options.push_back(OJson{
        {"gpu", o.gpu_name},
        {"gpus", o.gpus},
        {"basis", o.gpu_rate.basis},
        {"gpu_samples_per_s", o.gpu_rate.expected},
        {"gpu_samples_per_s_low", o.gpu_rate.low},
        {"gpu_samples_per_s_high", o.gpu_rate.high},
        {"effective_samples_per_s", o.effective_rate},
        {"gpu_utilization", o.utilization},
        {"epoch_hours", o.epoch_hours > 0 ? OJson(o.epoch_hours) : OJson(nullptr)},
        {"run_hours", o.run_hours},
        {"run_hours_low", o.run_hours_low},
        {"run_hours_high", o.run_hours_high},
        {"hours_lost_to_input", o.hours_lost_to_input},
        {"meets_deadline", o.meets_deadline},
        {"rent_billed_hours", opt(o.rent_billed_hours)},
        {"rent_cost", opt(o.rent_cost)},
        {"rent_cost_lost_to_input", opt(o.rent_lost_to_input)},
        {"rent_month_reserved", opt(o.rent_month_reserved)},
        {"rent_month_released", opt(o.rent_month_released)},
        {"rent_month_reserved_basis", o.rent_month_reserved
                                          ? OJson(o.rent_month_from_monthly_price ? "monthly_price" : "hourly_x_730")
                                          : OJson(nullptr)},
        {"own_capex", opt(o.own_capex)},
        {"own_cost", opt(o.own_cost)},
        {"own_energy_kwh", opt(o.own_energy_kwh)},
        {"own_energy_cost", opt(o.own_energy_cost)},
        {"own_month", opt(o.own_month)},
        {"own_hours_per_month", o.own_cost ? OJson(o.own_hours_per_month) : OJson(nullptr)},
        {"cost_per_1k_samples", opt(o.cost_per_1k_samples)},
        {"breakeven_months", opt(o.breakeven_months)},
        {"notes", texts(o.notes)}});
  }
  j["options"] = std::move(options);
  j["cheapest"] = t.cheapest ? OJson(*t.cheapest) : OJson(nullptr);
  j["notes"] = texts(t.notes);
  return j;
}

core::Result<double> input_rate_from_pipeline_json(const std::string& text, const std::string& path) {
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return core::fail(core::ErrorCode::kParse, path,
                      _("not JSON (expected the output of 'tfrig pipeline --format json')"));
  if (!doc.contains("stages") || !doc["stages"].is_array())
    return core::fail(core::ErrorCode::kParse, path + ": stages",
                      _("missing (expected the output of 'tfrig pipeline --format json')"));
  std::optional<double> slowest;
  size_t i = 0;
  for (const auto& s : doc["stages"]) {
    const std::string field = fmt::format("{}: stages[{}]", path, i++);
    if (!s.is_object() || !s.contains("name") || !s["name"].is_string() || !s.contains("samples_per_s") ||
        !s["samples_per_s"].is_number())
      return core::fail(core::ErrorCode::kParse, field, _("expected {\"name\": ..., \"samples_per_s\": N}"));
    const double rate = s["samples_per_s"].get<double>();
    if (!std::isfinite(rate) || rate < 0)
      return core::fail(core::ErrorCode::kParse, field + ".samples_per_s", _("expected a rate of 0 or more"));
    if (s["name"].get<std::string>() == "gpu" || rate <= 0) continue;  // the GPU is the demand; 0 is unknown
    slowest = slowest ? std::min(*slowest, rate) : rate;
  }
  if (!slowest) return core::fail(core::ErrorCode::kParse, path + ": stages", _("no input stage with a measured rate"));
  return *slowest;
}

}  // namespace tfrig::plan
