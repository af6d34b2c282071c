// What hardware and cloud time cost the user. Prices are inputs, never
// guesses: they come from --prices FILE (YAML or JSON) and the single flags
// (--rent, --buy, --kwh); tfrig ships only a dated example
// (data/prices.example.yaml) that is used when the user names it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "plan/gpu_candidate.h"

namespace tfrig::plan {

// How a provider rounds a rented run up before billing it.
enum class Billing { kPerSecond, kPerMinute, kPerHour };
std::string_view billing_name(Billing b);
std::optional<Billing> parse_billing(std::string_view s);

struct GpuPrice {
  std::optional<double> rent_per_gpu_hour;  // one GPU of an instance, per hour
  std::optional<double> purchase_per_gpu;   // one card
  std::optional<Billing> billing;           // overrides the book's
  std::optional<double> minimum_billed_hours;
  std::string note;                         // provider, date, source: shown next to the option
};

struct PriceBook {
  std::string currency = "USD";
  std::string source;  // the file, or "command line"
  // Keyed by the text the user wrote: a catalog id, name or alias, matched
  // case-insensitively and ignoring "NVIDIA " (find_price).
  std::map<std::string, GpuPrice> gpus;
  // Default rounding: every started hour is billed (the conservative choice
  // when the user names no provider's rule).
  Billing billing = Billing::kPerHour;
  double minimum_billed_hours = 0;
  std::optional<double> server_purchase;     // the server around the GPUs, without them
  std::optional<double> server_watts;        // what the rest of the server draws under load
  std::optional<double> power_price_per_kwh;
  std::optional<double> hours_per_month;     // hours of use per month of an owned server
  double amortization_years = 3;             // assumed when not given (docs/plan.md)
  bool amortization_assumed = true;
  double storage_per_month = 0;
  double network_per_month = 0;
};

// Parses a price book. JSON when the text starts with '{', else YAML.
// Errors name the file and the field path ("gpus.RTX 4090.rent_per_hour")
// and say what was expected; the caller maps them to exit 65.
core::Result<PriceBook> parse_price_book(std::string_view text, const std::string& path);

// --rent "NAME=0.60" / --buy "NAME=1599": one GPU's hourly rent or purchase
// price. Errors name the option.
core::Status apply_rent_flag(PriceBook& book, std::string_view value);
core::Status apply_buy_flag(PriceBook& book, std::string_view value);

// The price the book gives this GPU (its id, name or an alias; "NVIDIA "
// and case ignored), or nullptr.
const GpuPrice* find_price(const PriceBook& book, const GpuCandidate& gpu);

// The price book of the command line: --prices FILE (read with a 1 MiB cap,
// errors name the file and field: exit 65), then each --rent and --buy, then
// --kwh when given (>= 0). Shared by plan and pipeline.
struct PriceOptions {
  std::string file;
  std::vector<std::string> rent;
  std::vector<std::string> buy;
  std::optional<double> kwh;
};
core::Result<PriceBook> load_prices(const PriceOptions& o);

}  // namespace tfrig::plan
