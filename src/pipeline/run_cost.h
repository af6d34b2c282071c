// What each what-if does to a training run's time and money, so that
// "fix the input pipeline" and "buy a faster GPU" compare on one scale
// (plan/cost.h does the arithmetic; this applies it to the barrel).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/report.h"
#include "plan/cost.h"

namespace tfrig::pipeline {

struct WhatIfCost {
  std::string id;  // "measured" for the pipeline as it is, else the what-if's id
  core::Message change;
  plan::OptionCost cost;
};

struct RunCostTable {
  std::string currency = "USD";
  core::Message prices_source;                 // the price file or "command line"; empty: no prices
  std::optional<plan::ExchangeRate> exchange;  // the price file was converted into `currency` at this rate
  double epochs = 0;
  double dataset_samples = 0;
  std::vector<WhatIfCost> rows;  // rows[0]: as measured; then every applicable what-if
};

// `gpu` is the GPU the demand was taken from (its name matches the price
// book); `run` gives the epochs (its dataset size is the report's).
RunCostTable cost_what_ifs(const Report& r, const plan::GpuCandidate& gpu, int gpus, plan::RunSpec run,
                           const plan::PriceBook& prices);

// Its texts (the changes, the prices' source) render in `language`, the
// output's; the table's own words in the process's, the reader's.
std::string render_run_cost_text(const RunCostTable& t, std::string_view language,
                                 size_t width = core::kDefaultTextWidth);
nlohmann::ordered_json run_cost_json(const RunCostTable& t, std::string_view language);

}  // namespace tfrig::pipeline
