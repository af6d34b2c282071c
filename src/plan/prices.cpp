#include "plan/prices.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "core/i18n.h"
#include "core/try.h"
#include "core/input_file.h"
#include "core/text.h"

namespace tfrig::plan {

using nlohmann::json;

std::string_view billing_name(Billing b) {
  switch (b) {
    case Billing::kPerSecond: return "per_second";
    case Billing::kPerMinute: return "per_minute";
    case Billing::kPerHour: return "per_hour";
  }
  return "per_hour";
}

std::optional<Billing> parse_billing(std::string_view s) {
  if (s == "per_second" || s == "second") return Billing::kPerSecond;
  if (s == "per_minute" || s == "minute") return Billing::kPerMinute;
  if (s == "per_hour" || s == "hour") return Billing::kPerHour;
  return std::nullopt;
}

std::optional<std::string> parse_currency_code(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  if (text.size() != 3) return std::nullopt;
  std::string code;
  for (char c : text) {
    if (!std::isalpha(static_cast<unsigned char>(c))) return std::nullopt;
    code += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  // "RMB" is how the yuan is often written in China; its ISO 4217 code is CNY.
  if (code == "RMB") return std::string("CNY");
  return code;
}

Currency currency_of(std::string_view code) {
  // Symbols as the Unicode CLDR writes them (common/main/en.xml and, for the
  // yuan, zh.xml: "¥"; the yen is then "JP¥" as en.xml writes it, so the two
  // never look alike); minor units from ISO 4217 (JPY and KRW have none).
  struct Known {
    const char* code;
    const char* symbol;
    int decimals;
  };
  static constexpr Known kKnown[] = {
      {"USD", "$", 2},   {"CNY", "¥", 2},   {"EUR", "€", 2}, {"GBP", "£", 2},   {"JPY", "JP¥", 0}, {"KRW", "₩", 0},
      {"HKD", "HK$", 2}, {"TWD", "NT$", 2}, {"INR", "₹", 2}, {"CAD", "CA$", 2}, {"AUD", "A$", 2},
  };
  for (const Known& k : kKnown) {
    if (code == k.code) return Currency{k.code, k.symbol, k.decimals};
  }
  return Currency{std::string(code), std::string(code) + " ", 2};
}

std::string format_money(double amount, std::string_view currency) {
  if (!std::isfinite(amount)) return "-";
  const Currency c = currency_of(currency);
  const bool negative = amount < 0;
  const double a = std::fabs(amount);
  std::string digits;
  if (a > 0 && a < 0.1) {
    // Three significant digits, written out (never 1.2e-05), trailing zeros
    // dropped down to the currency's own decimals.
    const int decimals = std::min(9, 2 - static_cast<int>(std::floor(std::log10(a))));
    digits = fmt::format("{:.{}f}", a, decimals);
    while (digits.back() == '0' && digits.size() - digits.find('.') - 1 > static_cast<size_t>(c.decimals))
      digits.pop_back();
    if (digits.back() == '.') digits.pop_back();
  } else {
    digits = fmt::format("{:.{}f}", a, a >= 10000 ? 0 : c.decimals);
  }
  // Thousands grouped with ',' (as both English and Chinese write money).
  const size_t point = std::min(digits.find('.'), digits.size());
  std::string whole = digits.substr(0, point);
  for (size_t i = whole.size(); i > 3; i -= 3) whole.insert(i - 3, ",");
  return (negative ? "-" : "") + c.symbol + whole + digits.substr(point);
}

core::Result<ExchangeRate> parse_exchange_rate(std::string_view text) {
  auto bad = [&text] {
    return core::fail(core::ErrorCode::kInvalidArgument, "--exchange-rate",
                      trf("expected FROM/TO=RATE, e.g. --exchange-rate USD/CNY=7.10 (1 USD = 7.10 CNY), found '{}'",
                          core::printable(std::string(text))));
  };
  const auto slash = text.find('/');
  const auto eq = text.find('=');
  if (slash == std::string_view::npos || eq == std::string_view::npos || eq < slash) return bad();
  const auto from = parse_currency_code(text.substr(0, slash));
  const auto to = parse_currency_code(text.substr(slash + 1, eq - slash - 1));
  const std::string number(text.substr(eq + 1));
  char* end = nullptr;
  const double rate = std::strtod(number.c_str(), &end);
  if (!from || !to || *from == *to || end == number.c_str() || *end != '\0' || !std::isfinite(rate) || rate <= 0 ||
      rate > 1e6 || rate < 1e-6)
    return bad();
  return ExchangeRate{*from, *to, rate,
                      core::Message(N_("--exchange-rate, given on the command line; tfrig fetches no rates"))};
}

std::string price_gpu_key(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!out.empty() && out.front() == ' ') out.erase(0, 1);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  // Names with and without the vendor prefix and the product line mean the
  // same card: "NVIDIA GeForce RTX 4090", "GeForce RTX 4090", "RTX 4090".
  for (std::string_view prefix : {"nvidia ", "geforce ", "tesla "}) {
    if (out.rfind(prefix, 0) == 0) out.erase(0, prefix.size());
  }
  return out;
}

namespace {

// A YAML scalar becomes a JSON number when all of it reads as one, else a
// string; so both formats go through one validator below.
json yaml_to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& kv : node) out[kv.first.as<std::string>()] = yaml_to_json(kv.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& item : node) out.push_back(yaml_to_json(item));
      return out;
    }
    case YAML::NodeType::Scalar: {
      const std::string s = node.Scalar();
      if (!s.empty() && node.Tag() != "!") {  // "!" marks a quoted scalar
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (end != nullptr && *end == '\0' && end != s.c_str()) return v;
      }
      return s;
    }
    default: return nullptr;
  }
}

// A value as the user wrote it, for an error message: bytes that are not
// UTF-8 (a YAML file may hold any) are replaced, never thrown on.
std::string shown(const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

struct Reader {
  const std::string& path;

  core::Error error(const std::string& field, const std::string& what) const {
    return core::Error{core::ErrorCode::kParse, path + ": " + field, what};
  }

  // A number in [lo, hi]; absent or null gives nullopt.
  core::Result<std::optional<double>> number(const json& obj, const std::string& key, const std::string& field,
                                             double lo, double hi) const {
    if (!obj.contains(key) || obj[key].is_null()) return std::optional<double>{};
    const json& v = obj[key];
    if (!v.is_number())
      return tl::unexpected(error(field, trf("expected a number from {0} to {1}, found {2}", lo, hi, shown(v))));
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < lo || d > hi)
      return tl::unexpected(error(field, trf("expected a number from {0} to {1}, found {2}", lo, hi, shown(v))));
    return std::optional<double>{d};
  }

  core::Result<std::optional<Billing>> billing(const json& obj, const std::string& key,
                                               const std::string& field) const {
    if (!obj.contains(key) || obj[key].is_null()) return std::optional<Billing>{};
    const json& v = obj[key];
    auto b = v.is_string() ? parse_billing(v.get<std::string>()) : std::nullopt;
    if (!b) return tl::unexpected(error(field, trf("expected per_second, per_minute or per_hour, found {}", shown(v))));
    return std::optional<Billing>{*b};
  }

  core::Status only_keys(const json& obj, const std::string& field,
                         std::initializer_list<std::string_view> allowed) const {
    for (const auto& [k, v] : obj.items()) {
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
        std::string list;
        for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        return tl::unexpected(error(field.empty() ? k : field + "." + k, trf("unknown field (known: {})", list)));
      }
    }
    return {};
  }
};

// Prices, power and hours: generous upper bounds that still catch a unit
// slip (a price in cents, watts in milliwatts).
constexpr double kMaxPrice = 1e9;
constexpr double kMaxHourly = 1e5;
constexpr double kHoursPerMonthMax = 744;  // 31 days x 24 h

core::Result<GpuPrice> read_gpu_price(const Reader& r, const json& v, const std::string& field) {
  GpuPrice p;
  if (v.is_number()) {  // shorthand: "RTX 4090: 0.60" is an hourly rent
    auto rent = r.number(json{{"x", v}}, "x", field, 0, kMaxHourly);
    if (!rent) return tl::unexpected(rent.error());
    p.rent_per_gpu_hour = *rent;
    return p;
  }
  if (!v.is_object())
    return tl::unexpected(
        r.error(field, _("expected a map with rent_per_hour and/or purchase, or a number (hourly rent)")));
  if (auto s = r.only_keys(v, field,
                           {"rent_per_hour", "rent_per_month", "purchase", "billing", "minimum_billed_minutes", "note",
                            "provider", "source", "as_of"});
      !s)
    return tl::unexpected(s.error());
  auto rent = r.number(v, "rent_per_hour", field + ".rent_per_hour", 0, kMaxHourly);
  if (!rent) return tl::unexpected(rent.error());
  auto month = r.number(v, "rent_per_month", field + ".rent_per_month", 0, kMaxHourly * 744);
  if (!month) return tl::unexpected(month.error());
  auto buy = r.number(v, "purchase", field + ".purchase", 0, kMaxPrice);
  if (!buy) return tl::unexpected(buy.error());
  auto billing = r.billing(v, "billing", field + ".billing");
  if (!billing) return tl::unexpected(billing.error());
  auto min_minutes = r.number(v, "minimum_billed_minutes", field + ".minimum_billed_minutes", 0, 60 * 24 * 31);
  if (!min_minutes) return tl::unexpected(min_minutes.error());
  if (!*rent && !*buy && !*month)
    return tl::unexpected(r.error(field, _("gives none of rent_per_hour, rent_per_month and purchase")));
  p.rent_per_gpu_hour = *rent;
  p.rent_per_gpu_month = *month;
  p.purchase_per_gpu = *buy;
  p.billing = *billing;
  if (*min_minutes) p.minimum_billed_hours = **min_minutes / 60.0;
  for (const char* k : {"provider", "as_of", "source", "note"}) {
    if (v.contains(k) && v[k].is_string()) p.note += (p.note.empty() ? "" : "; ") + v[k].get<std::string>();
  }
  return p;
}

core::Status apply_flag(PriceBook& book, std::string_view value, const char* option, bool rent) {
  const auto eq = value.rfind('=');
  const char* example = rent ? "0.60" : "1599";
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == value.size())
    return core::fail(
        core::ErrorCode::kInvalidArgument, option,
        trf("expected {0} \"GPU NAME=PRICE\", e.g. {0} \"NVIDIA GeForce RTX 4090={1}\"", option, example));
  const std::string name(value.substr(0, eq));
  const std::string number(value.substr(eq + 1));
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (end == number.c_str() || *end != '\0' || !std::isfinite(v) || v < 0 || v > (rent ? kMaxHourly : kMaxPrice))
    return core::fail(
        core::ErrorCode::kInvalidArgument, option,
        trf("expected {0} \"GPU NAME=PRICE\", e.g. {0} \"NVIDIA GeForce RTX 4090={1}\", found price '{2}'", option,
            example, number));
  // The flag adds to the book's entry for the same GPU however either spells
  // it ("RTX 4090 D" and "NVIDIA GeForce RTX 4090 D"), so both prices apply.
  std::string key = name;
  for (const auto& [k, price] : book.gpus) {
    if (price_gpu_key(k) == price_gpu_key(name)) key = k;
  }
  GpuPrice& p = book.gpus[key];
  (rent ? p.rent_per_gpu_hour : p.purchase_per_gpu) = v;
  if (book.source.empty()) book.source = core::Message(N_("command line"));
  return {};
}

}  // namespace

namespace {

// The document: a JSON object or a YAML map, at most 1 MiB.
core::Result<json> price_book_document(std::string_view text, const std::string& path) {
  // A price book is a page of numbers; anything larger is not one.
  constexpr size_t kMaxBytes = size_t{1} << 20;
  if (text.size() > kMaxBytes)
    return core::fail(core::ErrorCode::kParse, path, _("larger than 1 MiB: not a price book"));
  json doc;
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    doc = json::parse(text.begin(), text.end(), nullptr, false);
    if (doc.is_discarded())
      return core::fail(core::ErrorCode::kParse, path, _("not valid JSON (a price book is a JSON object or YAML map)"));
  } else {
    try {
      doc = yaml_to_json(YAML::Load(std::string(text)));
    } catch (const YAML::Exception& e) {
      return core::fail(core::ErrorCode::kParse, fmt::format("{}:{}:{}", path, e.mark.line + 1, e.mark.column + 1),
                        trf("not valid YAML: {}", e.msg));
    }
  }
  if (!doc.is_object())
    return core::fail(core::ErrorCode::kParse, path,
                      _("expected a map of price fields at the top (see data/prices.example.yaml)"));
  return doc;
}

// The terms of the whole book: currency, billing, power, hours of use, write-off, storage and network.
core::Status read_book_terms(const Reader& r, const json& doc, PriceBook& book) {
  if (doc.contains("currency")) {
    if (!doc.at("currency").is_string() || doc.at("currency").get<std::string>().empty() ||
        doc.at("currency").get<std::string>().size() > 8)
      return tl::unexpected(r.error("currency", _("expected a currency code such as USD, EUR or CNY")));
    const auto code = parse_currency_code(doc.at("currency").get<std::string>());
    if (!code)
      return tl::unexpected(
          r.error("currency", trf("expected a three-letter ISO 4217 currency code such as USD, EUR or CNY, found {}",
                                  shown(doc.at("currency")))));
    book.currency = *code;
    book.currency_given = true;
  }
  auto billing = r.billing(doc, "billing", "billing");
  if (!billing) return tl::unexpected(billing.error());
  if (*billing) book.billing = **billing;
  auto min_minutes = r.number(doc, "minimum_billed_minutes", "minimum_billed_minutes", 0, 60 * 24 * 31);
  if (!min_minutes) return tl::unexpected(min_minutes.error());
  if (*min_minutes) book.minimum_billed_hours = **min_minutes / 60.0;
  auto kwh = r.number(doc, "power_price_per_kwh", "power_price_per_kwh", 0, 100);
  if (!kwh) return tl::unexpected(kwh.error());
  book.power_price_per_kwh = *kwh;
  auto hours = r.number(doc, "hours_per_month", "hours_per_month", 0, kHoursPerMonthMax);
  if (!hours) return tl::unexpected(hours.error());
  if (*hours && **hours <= 0)
    return tl::unexpected(r.error("hours_per_month", _("expected more than 0 hours of use a month")));
  book.hours_per_month = *hours;
  auto years = r.number(doc, "amortization_years", "amortization_years", 0, 30);
  if (!years) return tl::unexpected(years.error());
  if (*years) {
    if (**years <= 0) return tl::unexpected(r.error("amortization_years", _("expected more than 0 years")));
    book.amortization_years = **years;
    book.amortization_assumed = false;
  }
  for (const char* k : {"storage_per_month", "network_per_month"}) {
    auto v = r.number(doc, k, k, 0, kMaxPrice);
    if (!v) return tl::unexpected(v.error());
    (std::string_view(k) == "storage_per_month" ? book.storage_per_month : book.network_per_month) = v->value_or(0);
  }
  return {};
}

// What the server around the GPUs costs and draws, and each GPU's prices.
core::Status read_book_hardware(const Reader& r, const json& doc, PriceBook& book) {
  if (doc.contains("server")) {
    const json& s = doc.at("server");
    if (!s.is_object()) return tl::unexpected(r.error("server", _("expected a map with purchase and/or watts")));
    if (auto st = r.only_keys(s, "server", {"purchase", "watts", "note", "source"}); !st)
      return tl::unexpected(st.error());
    auto buy = r.number(s, "purchase", "server.purchase", 0, kMaxPrice);
    if (!buy) return tl::unexpected(buy.error());
    auto watts = r.number(s, "watts", "server.watts", 0, 100000);
    if (!watts) return tl::unexpected(watts.error());
    book.server_purchase = *buy;
    book.server_watts = *watts;
  }
  if (doc.contains("gpus")) {
    const json& g = doc.at("gpus");
    if (!g.is_object()) return tl::unexpected(r.error("gpus", _("expected a map from GPU name to its prices")));
    for (const auto& [name, v] : g.items()) {
      auto p = read_gpu_price(r, v, "gpus." + name);
      if (!p) return tl::unexpected(p.error());
      book.gpus[name] = std::move(*p);
    }
  }
  return {};
}

}  // namespace

// A price book (YAML or JSON, data/prices.example.yaml): only known keys, each
// value checked against its range; errors name the file and the key.
core::Result<PriceBook> parse_price_book(std::string_view text, const std::string& path) {
  const json doc = TFRIG_TRY(price_book_document(text, path));
  const Reader r{path};
  if (auto s = r.only_keys(
          doc, "",
          {"currency", "as_of", "sources", "notes", "gpus", "billing", "minimum_billed_minutes", "server",
           "power_price_per_kwh", "hours_per_month", "amortization_years", "storage_per_month", "network_per_month"});
      !s)
    return tl::unexpected(s.error());
  PriceBook book;
  book.source = core::Message("{}", path);
  TFRIG_TRY(read_book_terms(r, doc, book));
  TFRIG_TRY(read_book_hardware(r, doc, book));
  return book;
}

core::Status apply_rent_flag(PriceBook& book, std::string_view value) {
  return apply_flag(book, value, "--rent", true);
}
core::Status apply_buy_flag(PriceBook& book, std::string_view value) { return apply_flag(book, value, "--buy", false); }

bool price_names_gpu(std::string_view name, const GpuCandidate& gpu) {
  const std::string k = price_gpu_key(name);
  if (k.empty()) return false;
  if (k == price_gpu_key(gpu.id) || k == price_gpu_key(gpu.name)) return true;
  return std::any_of(gpu.aliases.begin(), gpu.aliases.end(),
                     [&k](const std::string& a) { return price_gpu_key(a) == k; });
}

const GpuPrice* find_price(const PriceBook& book, const GpuCandidate& gpu) {
  for (const auto& [key, price] : book.gpus) {
    if (price_names_gpu(key, gpu)) return &price;
  }
  return nullptr;
}

std::string flag_gpu_name(std::string_view value) {
  const auto eq = value.rfind('=');
  return eq == std::string_view::npos ? std::string() : std::string(value.substr(0, eq));
}

void convert_prices(PriceBook& book, const ExchangeRate& rate) {
  auto scale = [&rate](std::optional<double>& v) {
    if (v) *v *= rate.rate;
  };
  for (auto& [name, p] : book.gpus) {
    scale(p.rent_per_gpu_hour);
    scale(p.rent_per_gpu_month);
    scale(p.purchase_per_gpu);
  }
  scale(book.server_purchase);
  scale(book.power_price_per_kwh);
  book.storage_per_month *= rate.rate;
  book.network_per_month *= rate.rate;
  book.currency = rate.to;
  book.exchange = rate;
}

core::Result<PriceBook> load_prices(const PriceOptions& o, const CurrencyOptions& c) {
  PriceBook book;
  if (!o.file.empty()) {
    auto text = core::read_input_file(o.file, size_t{1} << 20);
    if (!text) return tl::unexpected(text.error());
    auto parsed = parse_price_book(*text, o.file);
    if (!parsed) return tl::unexpected(parsed.error());
    book = std::move(*parsed);
  }
  std::string want = book.currency;
  if (!c.currency.empty()) {
    const auto code = parse_currency_code(c.currency);
    if (!code)
      return core::fail(core::ErrorCode::kInvalidArgument, "--currency",
                        trf("expected a three-letter ISO 4217 currency code such as USD, EUR or CNY, found '{}'",
                            core::printable(c.currency)));
    want = *code;
  }
  std::optional<ExchangeRate> rate;
  if (!c.exchange_rate.empty()) {
    auto parsed = parse_exchange_rate(c.exchange_rate);
    if (!parsed) return tl::unexpected(parsed.error());
    rate = *parsed;
  }
  const bool mixed = !o.file.empty() && book.currency != want;
  if (mixed) {
    // The book's amounts and the output's must be one currency: a rate the
    // user gives converts them, nothing else does.
    if (!rate) {
      // TRANSLATORS: {0} a price file, {1} its currency (or USD when it names none), {2} the one --currency asks for.
      return core::fail(
          core::ErrorCode::kInvalidArgument, "--currency",
          book.currency_given
              ? trf("{0} is priced in {1} and --currency asks for {2}: give the rate with --exchange-rate {1}/{2}=RATE "
                    "(tfrig fetches none) or leave --currency out",
                    o.file, book.currency, want)
              : trf("{0} names no currency (USD is assumed) and --currency asks for {2}: add 'currency: {2}' to it if its "
                    "prices are in {2}, or give --exchange-rate {1}/{2}=RATE",
                    o.file, book.currency, want));
    }
    if (rate->from == want && rate->to == book.currency) {
      // Given the other way round: 1 CNY = 0.14 USD.
      rate = ExchangeRate{book.currency, want, 1.0 / rate->rate, rate->source};
    }
    if (rate->from != book.currency || rate->to != want)
      return core::fail(core::ErrorCode::kInvalidArgument, "--exchange-rate",
                        trf("converts {0} to {1}, but {2} is priced in {3} and the output is in {4}", rate->from,
                            rate->to, o.file, book.currency, want));
    convert_prices(book, *rate);
  } else if (rate) {
    return core::fail(
        core::ErrorCode::kInvalidArgument, "--exchange-rate",
        trf("nothing to convert: the prices are already in {0} (--exchange-rate converts a --prices file in another currency)",
            want));
  }
  book.currency = want;
  for (const std::string& r : o.rent) {
    if (auto st = apply_rent_flag(book, r); !st) return tl::unexpected(st.error());
  }
  for (const std::string& b : o.buy) {
    if (auto st = apply_buy_flag(book, b); !st) return tl::unexpected(st.error());
  }
  if (o.kwh) {
    if (!std::isfinite(*o.kwh) || *o.kwh < 0 || *o.kwh > 100)
      return core::fail(core::ErrorCode::kInvalidArgument, "--kwh", _("expected a price per kWh from 0 to 100"));
    book.power_price_per_kwh = *o.kwh;
  }
  return book;
}

}  // namespace tfrig::plan
