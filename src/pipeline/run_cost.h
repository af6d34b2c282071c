// What each what-if does to a training run's time and money, so that
// "fix the input pipeline" and "buy a faster GPU" compare on one scale
// (plan/cost.h does the arithmetic; this applies it to the barrel).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/report.h"
#include "plan/cost.h"

namespace tfrig::pipeline {

struct WhatIfCost {
  std::string id;      // "measured" for the pipeline as it is, else the what-if's id
  std::string change;
  plan::OptionCost cost;
};

struct RunCostTable {
  std::string currency = "USD";
  std::string prices_source;
  std::optional<plan::ExchangeRate> exchange;  // the price file was converted into `currency` at this rate
  double epochs = 0;
  double dataset_samples = 0;
  std::vector<WhatIfCost> rows;  // rows[0]: as measured; then every applicable what-if
};

// `gpu` is the GPU the demand was taken from (its name matches the price
// book); `run` gives the epochs (its dataset size is the report's).
RunCostTable cost_what_ifs(const Report& r, const plan::GpuCandidate& gpu, int gpus, plan::RunSpec run, const plan::PriceBook& prices);

std::string render_run_cost_text(const RunCostTable& t, size_t width = core::kDefaultTextWidth);
nlohmann::ordered_json run_cost_json(const RunCostTable& t);

}  // namespace tfrig::pipeline
