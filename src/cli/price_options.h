// The price options `tfrig plan` and `tfrig pipeline` share (--prices,
// --rent, --buy, --kwh, --currency, --exchange-rate): declared once, with
// one help text each, and read into one price book (plan/prices.h), so the
// two commands cannot drift apart.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/validate.h"
#include "core/i18n.h"
#include "core/result.h"
#include "plan/prices.h"

namespace tfrig::cli {

struct PriceFlags {
  std::string prices;         // --prices FILE
  std::vector<std::string> rent;
  std::vector<std::string> buy;
  double kwh = -1;            // < 0: not given
  std::string currency;       // ISO 4217 code of the output (plan/prices.h)
  std::string exchange_rate;  // "USD/CNY=7.10": converts a --prices file in another currency

  // Whether any of the options was given (they all need the run's length).
  bool any_given() const;
  // The price book: the file, then --rent/--buy/--kwh, in the output's
  // currency (plan::load_prices; errors name the file, field or option).
  core::Result<plan::PriceBook> load() const;
};

// Adds the six options to `cmd`.
void add_price_options(CLI::App* cmd, PriceFlags& f);

// Inline: a new source file would shift the unity batches of the library.

inline bool PriceFlags::any_given() const {
  return !prices.empty() || !rent.empty() || !buy.empty() || kwh >= 0 || !currency.empty() || !exchange_rate.empty();
}

inline core::Result<plan::PriceBook> PriceFlags::load() const {
  return plan::load_prices(plan::PriceOptions{prices, rent, buy, kwh >= 0 ? std::optional<double>(kwh) : std::nullopt},
                           plan::CurrencyOptions{currency, exchange_rate});
}

inline void add_price_options(CLI::App* cmd, PriceFlags& f) {
  cmd->add_option("--prices", f.prices, _("Price book (YAML or JSON): rent and purchase per GPU, power, server; see data/prices.example.yaml"))
      ->type_name("FILE");
  cmd->add_option("--rent", f.rent, _("Hourly (pay-as-you-go) rent of one GPU in the output's currency: \"NVIDIA GeForce RTX 4090=0.60\" (repeatable)"))
      ->type_name("GPU=PRICE");
  cmd->add_option("--buy", f.buy, _("Purchase price of one GPU in the output's currency: \"NVIDIA GeForce RTX 4090=1599\" (repeatable)"))
      ->type_name("GPU=PRICE");
  cmd->add_option("--currency", f.currency, _("Currency of the amounts (ISO 4217: CNY, USD, EUR ...; default: the price book's, else USD)"))
      ->type_name("CODE");
  cmd->add_option("--exchange-rate", f.exchange_rate,
                  _("Convert a --prices file in another currency: FROM/TO=RATE, e.g. USD/CNY=7.10 (your rate; tfrig fetches none)"))
      ->type_name("RATE");
  cmd->add_option("--kwh", f.kwh, _("Electricity price per kWh in the output's currency, for owned servers"))->type_name("PRICE")->check(finite_in(0, 100));
}


}  // namespace tfrig::cli
