// Time and money of one training run on one option (a GPU model x a count):
// how long an epoch and the whole run take, what the run costs rented and
// owned, the cost per 1,000 samples, reserved versus released instances,
// and when buying pays for itself. Pure arithmetic over the throughput plan
// already estimates, the input pipeline's rate when one was measured, and
// the user's prices (plan/prices.h). Formulas and sources: docs/plan.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/message.h"
#include "plan/gpu_candidate.h"
#include "plan/prices.h"

namespace tfrig::plan {

// Samples per second of all the option's GPUs together, with the band the
// estimate carries (low == high == expected for a measured figure given as
// exact).
struct RateBand {
  double expected = 0;
  double low = 0;
  double high = 0;
  std::string basis;  // "measured" | "estimated"
};

// What the user wants to train: epochs over a dataset, or a step count.
struct RunSpec {
  std::optional<double> epochs;
  std::optional<uint64_t> dataset_samples;
  std::optional<uint64_t> steps;
  uint64_t batch = 0;                // global batch, for --steps
  std::optional<double> input_rate;  // samples/s the input pipeline delivers (tfrig pipeline)
  std::string input_rate_source;
  std::optional<int> runs_per_month;  // runs a month: released instances are billed only for these
  std::optional<double> deadline_hours;
};

// Samples one run processes; nullopt when the spec gives neither epochs x
// dataset nor steps x batch.
std::optional<double> run_samples(const RunSpec& run);

// Hours billed for a run of `hours` under a provider's rounding and minimum.
double billed_hours(double hours, Billing billing, double minimum_hours);

struct OptionCost {
  std::string gpu_name;
  int gpus = 1;
  RateBand gpu_rate;          // what the GPUs could do fed at full speed
  double effective_rate = 0;  // min(GPU rate, input pipeline rate)
  double utilization = 1;     // effective / GPU rate: the GPU's busy fraction
  double samples = 0;         // in the whole run
  double epoch_hours = 0;     // 0 when the run is given in steps
  double run_hours = 0;
  double run_hours_low = 0;        // at the band's high rate
  double run_hours_high = 0;       // at the band's low rate
  double hours_lost_to_input = 0;  // run_hours minus the run at the GPU rate
  bool meets_deadline = true;

  // Rented: this run, billed after the provider's rounding.
  std::optional<double> rent_billed_hours;
  std::optional<double> rent_cost;
  std::optional<double> rent_lost_to_input;  // money the starved GPU costs
  // Per month, with --runs-per-month: reserved around the clock vs released
  // after each run (the case study's lever).
  std::optional<double> rent_month_reserved;
  std::optional<double> rent_month_released;
  // Whether the reserved month is the price book's monthly price
  // (rent_per_month: a subscription, 包年包月) or 730 h of the hourly rent.
  bool rent_month_from_monthly_price = false;

  // Owned: purchase amortized over the hours of use, plus energy.
  std::optional<double> own_capex;
  std::optional<double> own_cost;         // this run
  std::optional<double> own_energy_cost;  // part of own_cost
  std::optional<double> own_energy_kwh;
  std::optional<double> own_month;  // amortization + energy + storage + network a month
  double own_hours_per_month = 0;   // of use, as assumed or given

  std::optional<double> cost_per_1k_samples;  // cheapest of rented and owned
  // Months of use after which buying has cost less than renting (released
  // after each run); nullopt when renting is always cheaper or a price is missing.
  std::optional<double> breakeven_months;
  std::vector<core::Message> notes;  // rendered by each output in its language
};

OptionCost cost_option(const GpuCandidate& gpu, int gpus, const RateBand& rate, const RunSpec& run,
                       const PriceBook& prices);

// The index of the cheapest option that meets the deadline (rented or owned,
// whichever is priced), or nullopt when none does.
std::optional<size_t> cheapest_meeting_deadline(const std::vector<OptionCost>& options);

}  // namespace tfrig::plan
