// The price options `tfrig plan` and `tfrig pipeline` share (--prices,
// --rent, --buy, --kwh, --currency, --exchange-rate): declared once, with
// one help text each, and read into one price book (plan/prices.h), so the
// two commands cannot drift apart.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/validate.h"
#include "core/i18n.h"
#include "core/result.h"
#include "plan/gpu_candidate.h"
#include "plan/prices.h"

namespace tfrig::cli {

struct PriceFlags {
  std::string prices;  // --prices FILE
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

// A --rent or --buy name that names no catalog GPU would price nothing and
// leave every cost cell "-": refused (kInvalidArgument, exit 64) naming it
// and the nearest catalog names. A price book's GPU that names none is said
// on stderr (a book may price cards of a newer catalog).
core::Status check_price_names(const PriceFlags& flags, const plan::PriceBook& prices,
                               std::span<const plan::GpuCandidate> catalog);

}  // namespace tfrig::cli
