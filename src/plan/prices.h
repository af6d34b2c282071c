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

#include "core/message.h"
#include "core/result.h"
#include "plan/gpu_candidate.h"

namespace tfrig::plan {

// How a provider rounds a rented run up before billing it.
enum class Billing { kPerSecond, kPerMinute, kPerHour };
std::string_view billing_name(Billing b);
std::optional<Billing> parse_billing(std::string_view s);

// Money as people read it: the ISO 4217 code, the symbol written before the
// amount and the digits after the decimal point.
struct Currency {
  std::string code;    // "CNY"
  std::string symbol;  // "¥"; the code and a space for codes without a symbol of their own
  int decimals = 2;    // ISO 4217 minor unit: 2, 0 for JPY and KRW
};

// The three-letter ISO 4217 code in `text` (any case, surrounding blanks
// ignored) in capitals ("RMB", common in China, is CNY), or nullopt when it
// is no such code.
std::optional<std::string> parse_currency_code(std::string_view text);

// The currency of a code; a well-formed code tfrig has no symbol for is
// written as the code ("CHF 1,825.00").
Currency currency_of(std::string_view code);

// "¥1,825.00", "$0.526", "$12,345", "JP¥1,825": the symbol, the amount
// grouped by thousands with ','; two decimals (the currency's minor unit),
// none from 10,000 up, three significant digits below 0.1 (costs per 1,000
// samples are often fractions of a cent). Infinite or NaN gives "-".
std::string format_money(double amount, std::string_view currency);

// A rate the user gave to convert a price book's currency into the one the
// output is in: 1 `from` = `rate` `to`. tfrig never fetches one.
struct ExchangeRate {
  std::string from;
  std::string to;
  double rate = 0;
  core::Message
      source;  // where the rate comes from ("--exchange-rate, given on the command line; ..."), rendered by each output
};

// "USD/CNY=7.10" (1 USD = 7.10 CNY). Errors name the option.
core::Result<ExchangeRate> parse_exchange_rate(std::string_view text);

struct GpuPrice {
  std::optional<double> rent_per_gpu_hour;  // one GPU of an instance, per hour (on demand, pay as you go)
  // One GPU of an instance reserved by the month (a monthly subscription,
  // "reserved" at AWS, 包年包月 at Chinese clouds); none: 730 h of the hourly rent.
  std::optional<double> rent_per_gpu_month;
  std::optional<double> purchase_per_gpu;  // one card
  std::optional<Billing> billing;          // overrides the book's
  std::optional<double> minimum_billed_hours;
  std::string note;  // provider, date, source: shown next to the option
};

struct PriceBook {
  std::string currency = "USD";          // ISO 4217; a price book that names none is in USD
  bool currency_given = false;           // the file named its currency
  std::optional<ExchangeRate> exchange;  // the file's prices were converted at this rate
  core::Message source;                  // the file, or "command line" (rendered by each output); empty: none
  // Keyed by the text the user wrote: a catalog id, name or alias, matched
  // case-insensitively and ignoring "NVIDIA " (find_price).
  std::map<std::string, GpuPrice> gpus;
  // Default rounding: every started hour is billed (the conservative choice
  // when the user names no provider's rule).
  Billing billing = Billing::kPerHour;
  double minimum_billed_hours = 0;
  std::optional<double> server_purchase;  // the server around the GPUs, without them
  std::optional<double> server_watts;     // what the rest of the server draws under load
  std::optional<double> power_price_per_kwh;
  std::optional<double> hours_per_month;  // hours of use per month of an owned server
  double amortization_years = 3;          // assumed when not given (docs/plan.md)
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

// Whether a price book's or a flag's GPU name means this GPU: its id, name or
// an NVML alias, case and the words "NVIDIA ", "GeForce " and "Tesla " at the
// front ignored ("rtx 4090 d" is the NVIDIA GeForce RTX 4090 D).
bool price_names_gpu(std::string_view name, const GpuCandidate& gpu);
// The form of a name price_names_gpu compares: lower case, those words off the front.
std::string price_gpu_key(std::string_view name);

// The price the book gives this GPU (price_names_gpu), or nullptr.
const GpuPrice* find_price(const PriceBook& book, const GpuCandidate& gpu);

// The GPU name of a --rent/--buy value ("NAME=PRICE" -> "NAME"), as the
// book keys it; empty when the value has no '='.
std::string flag_gpu_name(std::string_view value);

// Multiplies every amount of money in the book (rents, purchases, the
// server, power, storage, network) by the rate and makes the book's currency
// its `to`. The rate's `from` must be the book's currency (caller checks).
void convert_prices(PriceBook& book, const ExchangeRate& rate);

// The price book of the command line: --prices FILE (read with a 1 MiB cap,
// errors name the file and field: exit 65), then each --rent and --buy, then
// --kwh when given (>= 0). Shared by plan and pipeline.
struct PriceOptions {
  std::string file;
  std::vector<std::string> rent;
  std::vector<std::string> buy;
  std::optional<double> kwh;
};
// The currency of the output (--currency; empty: the price book's, else
// USD) and the rate that converts the price book into it (--exchange-rate
// "USD/CNY=7.10"). A price book in another currency without a rate is
// refused (exit 64): amounts are never mixed, and no rate is guessed or
// fetched. --rent, --buy and --kwh are in the output's currency.
struct CurrencyOptions {
  std::string currency;
  std::string exchange_rate;
};
core::Result<PriceBook> load_prices(const PriceOptions& o, const CurrencyOptions& c = {});

}  // namespace tfrig::plan
