#include "cli/price_options.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <utility>

#include "cli/validate.h"
#include "core/log.h"
#include "core/terminal_text.h"

namespace tfrig::cli {

bool PriceFlags::any_given() const {
  return !prices.empty() || !rent.empty() || !buy.empty() || kwh >= 0 || !currency.empty() || !exchange_rate.empty();
}

core::Result<plan::PriceBook> PriceFlags::load() const {
  return plan::load_prices(plan::PriceOptions{prices, rent, buy, kwh >= 0 ? std::optional<double>(kwh) : std::nullopt},
                           plan::CurrencyOptions{currency, exchange_rate});
}

void add_price_options(CLI::App* cmd, PriceFlags& f) {
  cmd->add_option(
         "--prices", f.prices,
         _("Price book (YAML or JSON): rent and purchase per GPU, power, server; see data/prices.example.yaml"))
      ->type_name("FILE");
  cmd->add_option(
         "--rent", f.rent,
         _("Hourly (pay-as-you-go) rent of one GPU in the output's currency: \"NVIDIA GeForce RTX 4090=0.60\" (repeatable)"))
      ->type_name("GPU=PRICE");
  cmd->add_option(
         "--buy", f.buy,
         _("Purchase price of one GPU in the output's currency: \"NVIDIA GeForce RTX 4090=1599\" (repeatable)"))
      ->type_name("GPU=PRICE");
  cmd->add_option("--currency", f.currency,
                  _("Currency of the amounts (ISO 4217: CNY, USD, EUR ...; default: the price book's, else USD)"))
      ->type_name("CODE");
  cmd->add_option(
         "--exchange-rate", f.exchange_rate,
         _("Convert a --prices file in another currency: FROM/TO=RATE, e.g. USD/CNY=7.10 (your rate; tfrig fetches none)"))
      ->type_name("RATE");
  cmd->add_option("--kwh", f.kwh, _("Electricity price per kWh in the output's currency, for owned servers"))
      ->type_name("PRICE")
      ->check(finite_in(0, 100));
}

namespace {

// The catalog names nearest to `name`: those that contain what was typed
// ("a100": the four A100s) before the rest, each by edits to the id, the
// name or an NVML alias. Spaces, '-' and '_' do not count ("4090d" is near
// "RTX 4090 D").
std::vector<std::string> nearest_catalog_names(const std::string& name, std::span<const plan::GpuCandidate> catalog,
                                               size_t count) {
  auto compact = [](std::string_view text) {
    std::string out;
    for (char c : plan::price_gpu_key(text)) {
      if (c != ' ' && c != '-' && c != '_') out += c;
    }
    return out;
  };
  const std::string want = compact(name);
  std::vector<std::pair<size_t, std::string>> near;
  for (const plan::GpuCandidate& g : catalog) {
    std::vector<std::string> keys = {compact(g.id), compact(g.name)};
    for (const std::string& a : g.aliases) keys.push_back(compact(a));
    size_t d = SIZE_MAX / 2;
    bool contains = false;
    for (const std::string& k : keys) {
      d = std::min(d, edit_distance(want, k));
      contains = contains || (!want.empty() && k.find(want) != std::string::npos);
    }
    near.emplace_back(contains ? d : d + SIZE_MAX / 4, g.name);
  }
  std::stable_sort(near.begin(), near.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> names;
  for (size_t i = 0; i < near.size() && i < count; ++i) names.push_back(near[i].second);
  return names;
}

}  // namespace

core::Status check_price_names(const PriceFlags& o, const plan::PriceBook& prices,
                               std::span<const plan::GpuCandidate> catalog) {
  auto known = [&catalog](const std::string& name) {
    return std::any_of(catalog.begin(), catalog.end(),
                       [&name](const plan::GpuCandidate& g) { return plan::price_names_gpu(name, g); });
  };
  for (const auto& [option, values] :
       {std::pair<const char*, const std::vector<std::string>*>{"--rent", &o.rent}, {"--buy", &o.buy}}) {
    for (const std::string& value : *values) {
      const std::string name = plan::flag_gpu_name(value);
      if (name.empty() || known(name)) continue;
      const std::vector<std::string> near = nearest_catalog_names(name, catalog, 3);
      std::string list;
      // TRANSLATORS: between the items of a list of names ("A, B, C"); Chinese uses 、.
      const std::string separator = C_("list separator", ", ");
      for (size_t i = 0; i < near.size(); ++i) list += (i ? separator : "") + near[i];
      return core::fail(
          core::ErrorCode::kInvalidArgument, option,
          // TRANSLATORS: {0} the option, {1} the GPU name given, {2} up to three catalog names.
          trf("'{1}' is no GPU of the catalog, so {0} would price nothing; nearest: {2} ('tfrig plan --model resnet50 --all' lists them)",
              option, core::printable(name), list));
    }
  }
  if (!o.prices.empty()) {
    for (const auto& entry : prices.gpus) {
      const std::string& name = entry.first;  // a named variable: clang 14 cannot capture a structured binding
      if (known(name)) continue;
      auto flagged = [&name](const std::string& v) { return plan::flag_gpu_name(v) == name; };
      if (std::any_of(o.rent.begin(), o.rent.end(), flagged) || std::any_of(o.buy.begin(), o.buy.end(), flagged))
        continue;
      core::log(
          core::LogLevel::kWarn, "{}",
          trf("{0}: gpus.{1} names no GPU of the catalog: its prices are not used", o.prices, core::printable(name)));
    }
  }
  return {};
}

}  // namespace tfrig::cli
