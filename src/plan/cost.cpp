#include "plan/cost.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/i18n.h"

namespace tfrig::plan {

namespace {

// An average month: 365 days x 24 h / 12.
constexpr double kHoursPerMonth = 365.0 * 24.0 / 12.0;

// Rounds up to the unit, ignoring the last bits of floating-point noise so
// that exactly 2 h is not billed as 3.
double round_up(double value, double unit) {
  const double units = value / unit;
  return std::ceil(units - 1e-9) * unit;
}

std::optional<double> cheaper(std::optional<double> a, std::optional<double> b) {
  if (a && b) return std::min(*a, *b);
  return a ? a : b;
}

}  // namespace

std::optional<double> run_samples(const RunSpec& run) {
  if (run.steps && run.batch > 0) return static_cast<double>(*run.steps) * static_cast<double>(run.batch);
  if (run.epochs && run.dataset_samples && *run.dataset_samples > 0)
    return *run.epochs * static_cast<double>(*run.dataset_samples);
  return std::nullopt;
}

double billed_hours(double hours, Billing billing, double minimum_hours) {
  double billed = hours;
  switch (billing) {
    case Billing::kPerSecond: billed = round_up(hours, 1.0 / 3600.0); break;
    case Billing::kPerMinute: billed = round_up(hours, 1.0 / 60.0); break;
    case Billing::kPerHour: billed = round_up(hours, 1.0); break;
  }
  return std::max(billed, minimum_hours);
}

namespace {

// The run's time: the GPUs run no faster than the input pipeline feeds them
// (the barrel), over the rate's band; returns the hours at the GPUs' own rate.
double time_the_run(OptionCost& c, const RateBand& rate, const RunSpec& run) {
  const double input = run.input_rate.value_or(std::numeric_limits<double>::infinity());
  c.effective_rate = std::min(rate.expected, input);
  c.utilization = c.effective_rate / rate.expected;
  const double low_rate = std::min(rate.low > 0 ? rate.low : rate.expected, input);
  const double high_rate = std::min(rate.high > 0 ? rate.high : rate.expected, input);
  c.run_hours = c.samples / c.effective_rate / 3600.0;
  c.run_hours_low = c.samples / high_rate / 3600.0;
  c.run_hours_high = c.samples / low_rate / 3600.0;
  const double ideal_hours = c.samples / rate.expected / 3600.0;
  c.hours_lost_to_input = c.run_hours - ideal_hours;
  if (run.epochs && run.dataset_samples)
    c.epoch_hours = static_cast<double>(*run.dataset_samples) / c.effective_rate / 3600.0;
  // A deadline is met only when the slow end of the band meets it.
  if (run.deadline_hours) c.meets_deadline = c.run_hours_high <= *run.deadline_hours;
  return ideal_hours;
}

// Renting: the billed hours of the run at the price's billing step, the cost
// of waiting on the input, and a month of it released or reserved.
void cost_renting(OptionCost& c, const GpuPrice* price, int gpus, const RunSpec& run, const PriceBook& prices,
                  double ideal_hours) {
  const double rest_per_month = prices.storage_per_month + prices.network_per_month;
  if (price != nullptr && price->rent_per_gpu_hour) {
    const Billing billing = price->billing.value_or(prices.billing);
    const double minimum = price->minimum_billed_hours.value_or(prices.minimum_billed_hours);
    const double per_hour = *price->rent_per_gpu_hour * gpus;
    c.rent_billed_hours = billed_hours(c.run_hours, billing, minimum);
    c.rent_cost = *c.rent_billed_hours * per_hour;
    c.rent_lost_to_input = *c.rent_cost - billed_hours(ideal_hours, billing, minimum) * per_hour;
    if (run.runs_per_month) {
      c.rent_month_released = *run.runs_per_month * *c.rent_cost + rest_per_month;
      c.rent_month_reserved = kHoursPerMonth * per_hour + rest_per_month;
    }
  }
  // A monthly price (a reserved instance, a subscription: 包年包月) is what
  // holding the GPUs all month costs, in place of 730 h on demand.
  if (price != nullptr && price->rent_per_gpu_month && run.runs_per_month) {
    c.rent_month_reserved = *price->rent_per_gpu_month * gpus + rest_per_month;
    c.rent_month_from_monthly_price = true;
  }
}

// Owning: the purchase amortized over the hours of use, the energy at board
// power, a month of it, and the months after which owning costs less than renting.
void cost_owning(OptionCost& c, const GpuCandidate& gpu, const GpuPrice& price, int gpus, const RunSpec& run,
                 const PriceBook& prices) {
  const double rest_per_month = prices.storage_per_month + prices.network_per_month;
  c.own_capex = *price.purchase_per_gpu * gpus + prices.server_purchase.value_or(0);
  if (!prices.server_purchase)
    c.notes.push_back(
        core::Message(N_("owned: no server price given (server.purchase): the GPUs alone are amortized")));
  if (prices.hours_per_month) {
    c.own_hours_per_month = *prices.hours_per_month;
  } else if (run.runs_per_month) {
    c.own_hours_per_month = std::min(kHoursPerMonth, *run.runs_per_month * c.run_hours);
  } else {
    c.own_hours_per_month = kHoursPerMonth;
    c.notes.push_back(
        core::Message(N_("owned: assumed in use around the clock (give hours_per_month or --runs-per-month)")));
  }
  const double amortized_months = prices.amortization_years * 12.0;
  const double capex_per_use_hour = *c.own_capex / (amortized_months * c.own_hours_per_month);
  // Board power (TDP) is what the card may draw at full load: an upper
  // bound for a busy GPU, and the figure a power budget is sized on.
  const double watts = gpu.tdp_watts.value_or(0) * gpus + prices.server_watts.value_or(0);
  c.own_energy_kwh = watts / 1000.0 * c.run_hours;
  double energy_per_hour = 0;
  if (!gpu.tdp_watts)
    c.notes.push_back(core::Message(N_("owned: the catalog has no board power for this GPU: its energy is left out")));
  if (prices.power_price_per_kwh) {
    energy_per_hour = watts / 1000.0 * *prices.power_price_per_kwh;
    c.own_energy_cost = energy_per_hour * c.run_hours;
  } else {
    c.notes.push_back(core::Message(N_("owned: no power price (--kwh): energy is left out")));
  }
  c.own_cost = capex_per_use_hour * c.run_hours + c.own_energy_cost.value_or(0);
  c.own_month = *c.own_capex / amortized_months + energy_per_hour * c.own_hours_per_month + rest_per_month;

  // Break-even: the capex plus m months of energy equals m months of rent
  // for the same hours of use (storage and network cost the same both ways).
  if (price.rent_per_gpu_hour) {
    double rent_per_month = 0;
    if (run.runs_per_month && c.rent_cost) {
      rent_per_month = *run.runs_per_month * *c.rent_cost;
    } else {
      rent_per_month = c.own_hours_per_month * *price.rent_per_gpu_hour * gpus;
    }
    const double energy_per_month = energy_per_hour * c.own_hours_per_month;
    if (rent_per_month > energy_per_month) c.breakeven_months = *c.own_capex / (rent_per_month - energy_per_month);
  }
}

}  // namespace

// One option's time and money: the run timed, then rented and owned where
// the price book prices it; the cheaper way gives the cost per 1k samples.
OptionCost cost_option(const GpuCandidate& gpu, int gpus, const RateBand& rate, const RunSpec& run,
                       const PriceBook& prices) {
  OptionCost c;
  c.gpu_name = gpu.name;
  c.gpus = gpus;
  c.gpu_rate = rate;
  const auto samples = run_samples(run);
  if (!samples || rate.expected <= 0) return c;
  c.samples = *samples;
  const double ideal_hours = time_the_run(c, rate, run);
  const GpuPrice* price = find_price(prices, gpu);
  cost_renting(c, price, gpus, run, prices, ideal_hours);
  if (price != nullptr && price->purchase_per_gpu) cost_owning(c, gpu, *price, gpus, run, prices);

  const auto cheapest = cheaper(c.rent_cost, c.own_cost);
  if (cheapest && c.samples > 0) c.cost_per_1k_samples = *cheapest / c.samples * 1000.0;
  return c;
}

std::optional<size_t> cheapest_meeting_deadline(const std::vector<OptionCost>& options) {
  std::optional<size_t> best;
  double best_cost = 0;
  for (size_t i = 0; i < options.size(); ++i) {
    const OptionCost& o = options[i];
    if (!o.meets_deadline) continue;
    const auto cost = cheaper(o.rent_cost, o.own_cost);
    if (!cost) continue;
    if (!best || *cost < best_cost) {
      best = i;
      best_cost = *cost;
    }
  }
  return best;
}

}  // namespace tfrig::plan
