// The time-and-money section of `tfrig plan` (and the cost column of
// `tfrig pipeline`'s what-ifs): every ranked option costed for one run,
// as text for people and JSON for programs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text_width.h"

#include "plan/cost.h"
#include "plan/ranking.h"

namespace tfrig::plan {

struct CostTable {
  RunSpec run;
  std::string currency = "USD";
  core::Message prices_source;           // the price file, "command line", or empty when nothing is priced
  std::optional<ExchangeRate> exchange;  // the price file was converted into `currency` at this rate
  std::vector<OptionCost> options;
  std::optional<size_t> cheapest;    // meeting the deadline (or overall without one)
  std::vector<core::Message> notes;  // rendered by each output in its language
};

// The band around a plan's throughput: the estimate's own band where the
// throughput model gives one, else the figure itself for a measured row.
RateBand rate_band(const GpuChoice& choice);

// Costs every GPU choice that fits (in the plan's order).
CostTable cost_table(const std::vector<GpuChoice>& choices, const RunSpec& run, const PriceBook& prices);

// "converted from USD at 1 USD = 7.1 CNY (rate from ...)": the line under a
// cost table whose prices were converted, and its JSON (plan and pipeline).
// Its source renders in `language` (the output's).
std::string exchange_rate_text(const ExchangeRate& rate, std::string_view language);
nlohmann::ordered_json exchange_rate_json(const ExchangeRate& rate, std::string_view language);

// "3.2 h", "41 min", "2.1 d".
std::string format_hours(double hours);
// Amounts of money: format_money() in plan/prices.h ("¥1,825.00").

// The table's notes and the prices' source are messages, rendered in
// `language` (the output's: English in JSON unless --lang); the text's own
// words in the process's language, the reader's.
// Tables fold and lines wrap to `width` columns (core/text_width.h).
std::string render_cost_text(const CostTable& t, size_t top, std::string_view language,
                             size_t width = core::kDefaultTextWidth);
nlohmann::ordered_json cost_to_json(const CostTable& t, std::string_view language);

// The input pipeline's rate from a `tfrig pipeline --format json` result:
// the slowest input stage (every stage but the GPU). Errors name the file
// and field.
core::Result<double> input_rate_from_pipeline_json(const std::string& text, const std::string& path);

}  // namespace tfrig::plan
