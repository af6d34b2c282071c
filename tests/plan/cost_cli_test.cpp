// tfrig plan's time-and-cost options end to end, and the example price book
// against the GPU catalog.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "knowledge/knowledge.h"
#include "plan/catalog_adapter.h"
#include "plan/cost.h"
#include "plan/prices.h"
#include "test_support.h"

namespace tfrig {
namespace {

std::string example_prices() {
  return (std::filesystem::path(test::data_dir()).parent_path().parent_path() / "data" / "prices.example.yaml").string();
}

TEST(PricesExample, ParsesAndEveryGpuIsInTheCatalog) {
  auto book = plan::parse_price_book(test::read_file(example_prices()), example_prices());
  ASSERT_TRUE(book) << book.error().to_string();
  auto k = knowledge::load("");
  ASSERT_TRUE(k) << k.error().to_string();
  const auto catalog = plan::plan_gpus_from_catalog(*k);
  for (const auto& [name, price] : book->gpus) {
    bool found = false;
    for (const auto& g : catalog) {
      plan::PriceBook one;
      one.gpus[name] = price;
      if (plan::find_price(one, g) != nullptr) found = true;
    }
    EXPECT_TRUE(found) << name << " in prices.example.yaml names no catalog GPU";
    EXPECT_FALSE(price.note.empty()) << name << ": every example price says where it comes from";
  }
}

TEST(PlanCost, RentFlagGivesBilledHoursAndMoney) {
  auto r = test::run_tfrig({"plan", "--model", "resnet50", "--batch", "256", "--epochs", "10", "--dataset-size", "1000000", "--rent",
                            "NVIDIA GeForce RTX 4090=0.60", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["run_cost"].is_object());
  EXPECT_EQ(j["run_cost"]["samples"].get<double>(), 1e7);
  bool seen = false;
  for (const auto& o : j["run_cost"]["options"]) {
    EXPECT_NEAR(o["run_hours"].get<double>(), 1e7 / o["effective_samples_per_s"].get<double>() / 3600, 1e-6);
    EXPECT_LE(o["run_hours_low"].get<double>(), o["run_hours"].get<double>());
    EXPECT_GE(o["run_hours_high"].get<double>(), o["run_hours"].get<double>());
    if (o["gpu"] == "NVIDIA GeForce RTX 4090") {
      seen = true;
      // Every started hour is billed when the price names no rounding.
      const double billed = std::ceil(o["run_hours"].get<double>() - 1e-9);
      EXPECT_DOUBLE_EQ(o["rent_billed_hours"].get<double>(), billed);
      EXPECT_NEAR(o["rent_cost"].get<double>(), billed * 0.60 * o["gpus"].get<int>(), 1e-9);
    } else {
      EXPECT_TRUE(o["rent_cost"].is_null()) << o["gpu"];
    }
  }
  EXPECT_TRUE(seen);
  auto t = test::run_tfrig({"plan", "--model", "resnet50", "--batch", "256", "--epochs", "10", "--rent", "NVIDIA GeForce RTX 4090=0.60",
                            "--top", "3"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("Time and cost of the run (10 epochs of 1281167 samples)"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find(" x NVIDIA GeForce RTX 4090, $"), std::string::npos) << t.out;
}

TEST(PlanCost, PipelineResultCapsEveryGpu) {
  test::TempDir dir;
  // The stage list of a 'tfrig pipeline --format json' result: storage is
  // the slowest input stage at 300 samples/s.
  test::write_file(dir.file("pipeline.json"), R"({"stages": [
    {"name": "storage", "samples_per_s": 300}, {"name": "decode", "samples_per_s": 900},
    {"name": "host_memory", "samples_per_s": 50000}, {"name": "host_to_device", "samples_per_s": 0},
    {"name": "gpu", "samples_per_s": 1000}]})");
  auto r = test::run_tfrig({"plan", "--model", "resnet50", "--epochs", "1", "--pipeline", dir.file("pipeline.json"), "--rent",
                            "NVIDIA GeForce RTX 4090=0.60", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["run_cost"]["input_rate_samples_per_s"].get<double>(), 300);
  for (const auto& o : j["run_cost"]["options"]) {
    EXPECT_LE(o["effective_samples_per_s"].get<double>(), 300.0) << o["gpu"];
    if (o["gpu_samples_per_s"].get<double>() > 300) {
      EXPECT_LT(o["gpu_utilization"].get<double>(), 1.0);
      EXPECT_GT(o["hours_lost_to_input"].get<double>(), 0.0);
    }
  }
  auto t = test::run_tfrig({"plan", "--model", "resnet50", "--epochs", "1", "--pipeline", dir.file("pipeline.json"), "--rent",
                            "NVIDIA GeForce RTX 4090=0.60"});
  EXPECT_NE(t.out.find("fix the pipeline before buying a faster GPU"), std::string::npos) << t.out;
}

TEST(PlanCost, BadInputsNameTheFileFieldOrOption) {
  test::TempDir dir;
  test::write_file(dir.file("p.yaml"), "gpus:\n  NVIDIA GeForce RTX 4090:\n    rent_per_hour: cheap\n");
  auto bad = test::run_tfrig({"plan", "--model", "resnet50", "--epochs", "1", "--prices", dir.file("p.yaml")});
  EXPECT_EQ(bad.exit_code, 65);
  EXPECT_NE(bad.err.find(dir.file("p.yaml") + ": gpus.NVIDIA GeForce RTX 4090.rent_per_hour"), std::string::npos) << bad.err;
  auto missing = test::run_tfrig({"plan", "--model", "resnet50", "--epochs", "1", "--prices", dir.file("none.yaml")});
  EXPECT_EQ(missing.exit_code, 66);
  auto no_run = test::run_tfrig({"plan", "--model", "resnet50", "--rent", "NVIDIA GeForce RTX 4090=0.60"});
  EXPECT_EQ(no_run.exit_code, 64);
  EXPECT_NE(no_run.err.find("--epochs"), std::string::npos) << no_run.err;
  auto flag = test::run_tfrig({"plan", "--model", "resnet50", "--epochs", "1", "--rent", "RTX 4090"});
  EXPECT_EQ(flag.exit_code, 64);
  EXPECT_NE(flag.err.find("--rent"), std::string::npos) << flag.err;
  auto deadline = test::run_tfrig({"plan", "--model", "resnet50", "--epochs", "1", "--deadline", "soon"});
  EXPECT_EQ(deadline.exit_code, 64);
  auto both = test::run_tfrig({"plan", "--model", "resnet50", "--epochs", "1", "--steps", "10"});
  EXPECT_EQ(both.exit_code, 64);
  test::write_file(dir.file("pipe.json"), "{\"stages\": 3}");
  auto pipe = test::run_tfrig({"plan", "--model", "resnet50", "--epochs", "1", "--pipeline", dir.file("pipe.json")});
  EXPECT_EQ(pipe.exit_code, 65);
  EXPECT_NE(pipe.err.find("stages"), std::string::npos) << pipe.err;
}


// ---- Money in the reader's currency (plan/prices.h): ISO 4217 codes, symbols
// and grouping, a price book converted only at a rate the user gives,
// --rent/--buy names checked against the catalog, monthly (包年包月) prices,
// the example price book in yuan (data/prices.cn.example.yaml) round-tripping
// through `tfrig plan` as text and JSON, and the GPUs sold in China ranked. ----

std::string cn_repo_file(const std::string& rel) {
  return (std::filesystem::path(test::data_dir()).parent_path().parent_path() / rel).string();
}

const std::vector<plan::GpuCandidate>& cn_catalog() {
  static const std::vector<plan::GpuCandidate> gpus = [] {
    auto k = knowledge::load("");
    EXPECT_TRUE(k) << k.error().to_string();
    return plan::plan_gpus_from_catalog(*k);
  }();
  return gpus;
}

const plan::GpuCandidate& cn_catalog_gpu(const std::string& id) {
  for (const auto& g : cn_catalog()) {
    if (g.id == id) return g;
  }
  ADD_FAILURE() << id << " is not in the catalog";
  return cn_catalog().front();
}

TEST(Money, SymbolGroupingAndDecimalsPerCurrency) {
  // The issue's example: yuan as ¥1,825.00, dollars as $1,825.00.
  EXPECT_EQ(plan::format_money(1825, "CNY"), "¥1,825.00");
  EXPECT_EQ(plan::format_money(1825, "USD"), "$1,825.00");
  EXPECT_EQ(plan::format_money(1825, "EUR"), "€1,825.00");
  // From 10,000 up whole units, still grouped.
  EXPECT_EQ(plan::format_money(1234567.891, "CNY"), "¥1,234,568");
  EXPECT_EQ(plan::format_money(12345.5, "USD"), "$12,346");
  // Below 0.1: three significant digits, never an exponent.
  EXPECT_EQ(plan::format_money(0.0123456, "USD"), "$0.0123");
  EXPECT_EQ(plan::format_money(0.05, "USD"), "$0.05");
  EXPECT_EQ(plan::format_money(0.0000456, "CNY"), "¥0.0000456");
  // The yen has no minor unit and is not written like the yuan.
  EXPECT_EQ(plan::format_money(1825, "JPY"), "JP¥1,825");
  // A code without a symbol of its own is written as the code.
  EXPECT_EQ(plan::format_money(1825, "CHF"), "CHF 1,825.00");
  EXPECT_EQ(plan::format_money(-5, "USD"), "-$5.00");
  EXPECT_EQ(plan::format_money(0, "CNY"), "¥0.00");
  EXPECT_EQ(plan::format_money(NAN, "CNY"), "-");
  EXPECT_EQ(plan::format_money(INFINITY, "CNY"), "-");
}

TEST(Money, CurrencyCodes) {
  EXPECT_EQ(plan::parse_currency_code("cny"), "CNY");
  EXPECT_EQ(plan::parse_currency_code(" usd "), "USD");
  EXPECT_EQ(plan::parse_currency_code("RMB"), "CNY");
  for (const char* bad : {"", "US", "USDT", "¥", "C1Y", "U S"}) EXPECT_FALSE(plan::parse_currency_code(bad)) << bad;
}

TEST(Money, ExchangeRateText) {
  auto r = plan::parse_exchange_rate("USD/CNY=7.10");
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->from, "USD");
  EXPECT_EQ(r->to, "CNY");
  EXPECT_DOUBLE_EQ(r->rate, 7.10);
  EXPECT_NE(core::english(r->source).find("--exchange-rate"), std::string::npos);
  for (const char* bad : {"7.1", "USD/CNY", "USD=7.1", "USD/USD=1", "USD/CNY=-1", "USD/CNY=0", "USD/CNY=abc", "US/CNY=7", "USD/CNY=nan",
                          "USD/CNY=7.1x", "=7/USDCNY"}) {
    auto e = plan::parse_exchange_rate(bad);
    ASSERT_FALSE(e) << bad;
    EXPECT_EQ(e.error().code, core::ErrorCode::kInvalidArgument) << bad;
    EXPECT_EQ(e.error().where, "--exchange-rate") << bad;
  }
}

TEST(Money, PriceBookCurrencyIsAnIsoCode) {
  auto rmb = plan::parse_price_book("currency: rmb\n", "p.yaml");
  ASSERT_TRUE(rmb) << rmb.error().to_string();
  EXPECT_EQ(rmb->currency, "CNY");
  EXPECT_TRUE(rmb->currency_given);
  auto none = plan::parse_price_book("gpus: {}\n", "p.yaml");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->currency, "USD");
  EXPECT_FALSE(none->currency_given);
  for (const char* bad : {"currency: US Dollar\n", "currency: 7\n", "currency: \"\"\n", "currency: ¥\n"}) {
    auto e = plan::parse_price_book(bad, "p.yaml");
    ASSERT_FALSE(e) << bad;
    EXPECT_EQ(e.error().code, core::ErrorCode::kParse) << bad;
    EXPECT_EQ(e.error().where, "p.yaml: currency") << bad;
  }
}

// A book in dollars and an output in yuan are never mixed: refused without a
// rate, converted with one (every amount, once), and the flags stay in the
// output's currency.
TEST(Money, MixedCurrenciesNeedAGivenRate) {
  test::TempDir dir;
  const std::string usd = dir.file("usd.yaml");
  test::write_file(usd, R"(currency: USD
power_price_per_kwh: 0.13
storage_per_month: 10
network_per_month: 5
server: {purchase: 6000, watts: 350}
gpus:
  NVIDIA Tesla T4: {rent_per_hour: 0.526, rent_per_month: 300}
  NVIDIA GeForce RTX 4090: {purchase: 1599}
)");
  plan::PriceOptions po{usd, {}, {}, std::nullopt};

  auto refused = plan::load_prices(po, {"CNY", ""});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, core::ErrorCode::kInvalidArgument);
  EXPECT_EQ(refused.error().where, "--currency");
  for (const char* part : {"usd.yaml", "USD", "CNY", "--exchange-rate USD/CNY=RATE"})
    EXPECT_NE(refused.error().message.find(part), std::string::npos) << part << ": " << refused.error().message;

  po.rent = {"NVIDIA GeForce RTX 4090=2.5"};
  auto book = plan::load_prices(po, {"CNY", "USD/CNY=7.1"});
  ASSERT_TRUE(book) << book.error().to_string();
  EXPECT_EQ(book->currency, "CNY");
  ASSERT_TRUE(book->exchange);
  EXPECT_EQ(book->exchange->from, "USD");
  EXPECT_EQ(book->exchange->to, "CNY");
  const plan::GpuPrice* t4 = plan::find_price(*book, cn_catalog_gpu("tesla-t4"));
  ASSERT_NE(t4, nullptr);
  EXPECT_NEAR(*t4->rent_per_gpu_hour, 0.526 * 7.1, 1e-9);
  EXPECT_NEAR(*t4->rent_per_gpu_month, 300 * 7.1, 1e-9);
  EXPECT_NEAR(*book->power_price_per_kwh, 0.13 * 7.1, 1e-12);
  EXPECT_NEAR(*book->server_purchase, 6000 * 7.1, 1e-9);
  EXPECT_NEAR(book->storage_per_month, 10 * 7.1, 1e-12);
  EXPECT_NEAR(book->network_per_month, 5 * 7.1, 1e-12);
  const plan::GpuPrice* rtx = plan::find_price(*book, cn_catalog_gpu("rtx-4090"));
  ASSERT_NE(rtx, nullptr);
  EXPECT_NEAR(*rtx->purchase_per_gpu, 1599 * 7.1, 1e-9);  // from the book: converted
  EXPECT_EQ(*rtx->rent_per_gpu_hour, 2.5);                 // --rent: already in yuan

  // The rate may be given the other way round.
  auto inverse = plan::load_prices(plan::PriceOptions{usd, {}, {}, std::nullopt}, {"CNY", "CNY/USD=0.125"});
  ASSERT_TRUE(inverse) << inverse.error().to_string();
  EXPECT_NEAR(*plan::find_price(*inverse, cn_catalog_gpu("tesla-t4"))->rent_per_gpu_hour, 0.526 * 8, 1e-9);

  // A rate between other currencies, or one with nothing to convert, is refused.
  auto wrong = plan::load_prices(plan::PriceOptions{usd, {}, {}, std::nullopt}, {"CNY", "EUR/CNY=7.8"});
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().where, "--exchange-rate");
  auto needless = plan::load_prices(plan::PriceOptions{usd, {}, {}, std::nullopt}, {"", "USD/CNY=7.1"});
  ASSERT_FALSE(needless);
  EXPECT_EQ(needless.error().where, "--exchange-rate");

  // A book that names no currency is in USD: --currency CNY says how to fix it.
  const std::string bare = dir.file("bare.yaml");
  test::write_file(bare, "gpus:\n  NVIDIA Tesla T4: 3.5\n");
  auto unnamed = plan::load_prices(plan::PriceOptions{bare, {}, {}, std::nullopt}, {"CNY", ""});
  ASSERT_FALSE(unnamed);
  EXPECT_NE(unnamed.error().message.find("currency: CNY"), std::string::npos) << unnamed.error().message;

  // Without a file, --currency is the currency of the flags.
  auto flags = plan::load_prices(plan::PriceOptions{"", {"RTX 4090=4.2"}, {}, std::nullopt}, {"cny", ""});
  ASSERT_TRUE(flags) << flags.error().to_string();
  EXPECT_EQ(flags->currency, "CNY");
  EXPECT_FALSE(flags->exchange);
}

TEST(Money, NamesMatchIdsNamesAliasesAndShortForms) {
  const auto& rtx4090 = cn_catalog_gpu("rtx-4090");
  const auto& rtx4090d = cn_catalog_gpu("rtx-4090-d");
  for (const char* name : {"NVIDIA GeForce RTX 4090", "GeForce RTX 4090", "rtx 4090", "rtx-4090"}) {
    EXPECT_TRUE(plan::price_names_gpu(name, rtx4090)) << name;
    EXPECT_FALSE(plan::price_names_gpu(name, rtx4090d)) << name;
  }
  EXPECT_TRUE(plan::price_names_gpu("RTX 4090 D", rtx4090d));
  EXPECT_FALSE(plan::price_names_gpu("RTX 4090 D", rtx4090));
  EXPECT_TRUE(plan::price_names_gpu("T4", cn_catalog_gpu("tesla-t4")));
  EXPECT_FALSE(plan::price_names_gpu("", rtx4090));
  EXPECT_EQ(plan::flag_gpu_name("RTX 4090=0.6"), "RTX 4090");
  EXPECT_EQ(plan::flag_gpu_name("RTX 4090"), "");
}

// A monthly price (包年包月) is what the reserved month costs; without one it
// is 730 h of the hourly (按量付费) rent.
TEST(Money, MonthlyPriceIsTheReservedMonth) {
  plan::GpuCandidate g;
  g.id = "x";
  g.name = "X";
  plan::RunSpec run;
  run.steps = 1000;
  run.batch = 100;
  run.runs_per_month = 4;
  const plan::RateBand rate{100, 100, 100, "measured"};
  plan::PriceBook book;
  book.gpus["X"].rent_per_gpu_hour = 10;
  book.storage_per_month = 50;
  const auto hourly = plan::cost_option(g, 2, rate, run, book);
  ASSERT_TRUE(hourly.rent_month_reserved);
  EXPECT_FALSE(hourly.rent_month_from_monthly_price);
  EXPECT_NEAR(*hourly.rent_month_reserved, 730 * 10 * 2 + 50, 1e-9);
  book.gpus["X"].rent_per_gpu_month = 4000;
  const auto monthly = plan::cost_option(g, 2, rate, run, book);
  ASSERT_TRUE(monthly.rent_month_reserved);
  EXPECT_TRUE(monthly.rent_month_from_monthly_price);
  EXPECT_NEAR(*monthly.rent_month_reserved, 4000 * 2 + 50, 1e-9);
  EXPECT_EQ(*monthly.rent_month_released, *hourly.rent_month_released);  // released runs are billed by the hour either way

  auto parsed = plan::parse_price_book("gpus:\n  X: {rent_per_month: 4000}\n", "p.yaml");
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  EXPECT_EQ(*parsed->gpus["X"].rent_per_gpu_month, 4000);
  auto bad = plan::parse_price_book("gpus:\n  X: {rent_per_month: -1}\n", "p.yaml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "p.yaml: gpus.X.rent_per_month");
}

TEST(PricesCnExample, ParsesInYuanAndEveryGpuIsInTheCatalog) {
  const std::string path = cn_repo_file("data/prices.cn.example.yaml");
  auto book = plan::parse_price_book(test::read_file(path), path);
  ASSERT_TRUE(book) << book.error().to_string();
  EXPECT_EQ(book->currency, "CNY");
  EXPECT_TRUE(book->currency_given);
  EXPECT_FALSE(book->gpus.empty());
  for (const auto& [gpu_name, price] : book->gpus) {
    const std::string& name = gpu_name;  // clang 14 cannot capture a structured binding
    const bool found = std::any_of(cn_catalog().begin(), cn_catalog().end(), [&name](const auto& g) { return plan::price_names_gpu(name, g); });
    EXPECT_TRUE(found) << name << " in prices.cn.example.yaml names no catalog GPU";
    // Every price says where it was read, with a URL and the date.
    EXPECT_NE(price.note.find("http"), std::string::npos) << name;
    EXPECT_NE(price.note.find("read 20"), std::string::npos) << name;
  }
}

// What the book says a GPU costs is what plan prints, in yuan, in JSON and in
// text, and the same run in dollars at a given rate costs rate x as much.
TEST(PricesCnExample, CostsInYuanRoundTripThroughPlan) {
  const std::string path = cn_repo_file("data/prices.cn.example.yaml");
  auto book = plan::parse_price_book(test::read_file(path), path);
  ASSERT_TRUE(book) << book.error().to_string();
  const std::vector<std::string> base = {"plan", "--model", "resnet50", "--batch", "256", "--epochs", "10", "--prices", path, "--kwh", "0.8",
                                         "--rent", "RTX 4090 D=2.2"};
  auto args = base;
  args.insert(args.end(), {"--format", "json"});
  auto r = test::run_tfrig(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& cost = j["run_cost"];
  EXPECT_EQ(cost["currency"], "CNY");
  EXPECT_TRUE(cost["exchange_rate"].is_null());
  int priced = 0;
  double cheapest = INFINITY;
  for (const auto& o : cost["options"]) {
    const plan::GpuCandidate* gpu = nullptr;
    for (const auto& g : cn_catalog()) {
      if (g.name == o["gpu"]) gpu = &g;
    }
    ASSERT_NE(gpu, nullptr) << o["gpu"];
    const plan::GpuPrice* p = plan::find_price(*book, *gpu);
    if (gpu->id == "rtx-4090-d") {
      // --rent in the book's currency: every started hour at ¥2.2 per GPU.
      ASSERT_TRUE(o["rent_cost"].is_number()) << o.dump();
      EXPECT_NEAR(o["rent_cost"].get<double>(), std::ceil(o["run_hours"].get<double>() - 1e-9) * 2.2 * o["gpus"].get<int>(), 1e-6);
    }
    if (p == nullptr || !p->purchase_per_gpu) {
      EXPECT_TRUE(o["own_capex"].is_null()) << o["gpu"];
      continue;
    }
    ++priced;
    EXPECT_NEAR(o["own_capex"].get<double>(), *p->purchase_per_gpu * o["gpus"].get<int>(), 1e-6) << o["gpu"];
    // Straight-line over 3 years of round-the-clock use, plus energy at board power.
    const double hours = o["run_hours"].get<double>();
    const double capex = o["own_capex"].get<double>() / (3 * 12 * 730.0) * hours;
    const double energy = gpu->tdp_watts.value_or(0) * o["gpus"].get<int>() / 1000.0 * hours * 0.8;
    EXPECT_NEAR(o["own_cost"].get<double>(), capex + energy, 1e-6) << o["gpu"];
    cheapest = std::min(cheapest, o["own_cost"].get<double>());
  }
  EXPECT_GE(priced, 2);

  // The text shows the same amounts, written in yuan.
  auto t = test::run_tfrig(base);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("prices: " + path + ", CNY"), std::string::npos) << t.out;
  // The cost section lists the first 10 options (and the cheapest).
  const std::string section = t.out.substr(std::min(t.out.size(), t.out.find("Time and cost of the run")));
  ASSERT_FALSE(section.empty()) << t.out;
  for (size_t i = 0; i < cost["options"].size() && i < 10; ++i) {
    const auto& o = cost["options"][i];
    if (o["own_cost"].is_number()) {
      EXPECT_NE(section.find(plan::format_money(o["own_cost"].get<double>(), "CNY")), std::string::npos) << o["gpu"] << section;
    }
    if (o["rent_cost"].is_number()) {
      EXPECT_NE(section.find(plan::format_money(o["rent_cost"].get<double>(), "CNY")), std::string::npos) << o["gpu"] << section;
    }
  }
  EXPECT_EQ(section.find("USD"), std::string::npos) << section;
  EXPECT_EQ(section.find('$'), std::string::npos) << section;

  // In dollars: refused without a rate, then every book amount at the rate.
  auto usd = base;
  usd.insert(usd.end(), {"--currency", "USD", "--format", "json"});
  auto refused = test::run_tfrig(usd);
  EXPECT_EQ(refused.exit_code, 64) << refused.err;
  EXPECT_NE(refused.err.find("--exchange-rate CNY/USD=RATE"), std::string::npos) << refused.err;
  usd.insert(usd.end(), {"--exchange-rate", "CNY/USD=0.14"});
  auto converted = test::run_tfrig(usd);
  ASSERT_EQ(converted.exit_code, 0) << converted.err;
  const auto u = nlohmann::json::parse(converted.out)["run_cost"];
  EXPECT_EQ(u["currency"], "USD");
  ASSERT_TRUE(u["exchange_rate"].is_object());
  EXPECT_EQ(u["exchange_rate"]["from"], "CNY");
  EXPECT_DOUBLE_EQ(u["exchange_rate"]["rate"].get<double>(), 0.14);
  ASSERT_EQ(u["options"].size(), cost["options"].size());
  for (size_t i = 0; i < u["options"].size(); ++i) {
    if (!cost["options"][i]["own_capex"].is_number()) continue;
    // The book's purchase prices convert at the rate (--kwh is in the output's currency).
    EXPECT_NEAR(u["options"][i]["own_capex"].get<double>(), cost["options"][i]["own_capex"].get<double>() * 0.14, 1e-6);
  }
}

TEST(PlanCost, UnknownRentOrBuyNameIsRefusedWithTheNearestNames) {
  auto r = test::run_tfrig({"plan", "--model", "resnet50", "--epochs", "1", "--rent", "RTX 4090X=1.5"});
  EXPECT_EQ(r.exit_code, 64) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("--rent"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'RTX 4090X'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("NVIDIA GeForce RTX 4090"), std::string::npos) << r.err;

  auto b = test::run_tfrig({"plan", "--model", "resnet50", "--epochs", "1", "--buy", "H2O=100000"});
  EXPECT_EQ(b.exit_code, 64) << b.err;
  EXPECT_NE(b.err.find("--buy"), std::string::npos) << b.err;
  EXPECT_NE(b.err.find("NVIDIA H20"), std::string::npos) << b.err;

  auto zh = test::run_tfrig(test::with_zh_lang({"plan", "--model", "resnet50", "--epochs", "1", "--rent", "RTX 4090X=1.5"}));
  EXPECT_EQ(zh.exit_code, 64) << zh.err;
  EXPECT_NE(zh.err.find("最接近"), std::string::npos) << zh.err;

  // A name several GPUs contain suggests those first.
  auto a100 = test::run_tfrig({"plan", "--model", "resnet50", "--epochs", "1", "--rent", "a100=2.5"});
  EXPECT_EQ(a100.exit_code, 64) << a100.err;
  EXPECT_NE(a100.err.find("nearest: NVIDIA A100"), std::string::npos) << a100.err;

  // A short name of a catalog GPU is fine.
  auto ok = test::run_tfrig({"plan", "--model", "resnet50", "--epochs", "1", "--rent", "rtx 4090=1.5", "--format", "json"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
}

// The clouds' own words in Chinese: 按量付费 for the hourly rent, 包年包月 for
// a monthly price.
TEST(PlanCost, ChineseOutputUsesTheCloudsBillingTerms) {
  test::TempDir dir;
  test::write_file(dir.file("cn.yaml"), R"(currency: CNY
gpus:
  NVIDIA GeForce RTX 4090 D: {rent_per_hour: 2.2, rent_per_month: 1200, source: "test figures"}
)");
  auto r = test::run_tfrig(test::with_zh_lang({"plan", "--model", "resnet50", "--batch", "64", "--epochs", "1", "--prices", dir.file("cn.yaml"),
                                               "--runs-per-month", "4", "--top", "1"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("按量付费"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("包年包月"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("¥"), std::string::npos) << r.out;
}

// The GPUs sold in China are ranked like every other: memory decides what
// fits, the published peaks give a rate (the FP32 rate where no tensor
// figure was published), board power sizes the PSU.
TEST(PlanChinaGpus, RankedWithTheirOwnFigures) {
  auto r = test::run_tfrig({"plan", "--model", "bert_large", "--batch", "32", "--precision", "mixed_float16", "--all", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::map<std::string, nlohmann::json> by_id;
  for (const auto& g : j["gpus"]) by_id[g["id"].get<std::string>()] = g;
  for (const char* id : {"rtx-4090-d", "rtx-5090-d", "rtx-5090-d-v2", "h20", "l20"}) {
    ASSERT_TRUE(by_id.count(id)) << id << " is not ranked";
    const auto& g = by_id[id];
    const auto& spec = cn_catalog_gpu(id);
    EXPECT_EQ(g["memory_bytes"].get<uint64_t>(), spec.memory_bytes) << id;
    ASSERT_TRUE(g["est_samples_per_s_per_gpu"].is_number()) << id;
    EXPECT_GT(g["est_samples_per_s_per_gpu"].get<double>(), 0) << id;
  }
  // More memory fits a larger batch: H20 (96 GB) over L20 (48 GB) over RTX 4090 D (24 GB).
  EXPECT_GT(by_id["h20"]["max_batch_per_gpu"].get<uint64_t>(), by_id["l20"]["max_batch_per_gpu"].get<uint64_t>());
  EXPECT_GT(by_id["l20"]["max_batch_per_gpu"].get<uint64_t>(), by_id["rtx-4090-d"]["max_batch_per_gpu"].get<uint64_t>());
  EXPECT_GT(by_id["rtx-5090-d"]["max_batch_per_gpu"].get<uint64_t>(), by_id["rtx-5090-d-v2"]["max_batch_per_gpu"].get<uint64_t>());
  // The cut-down 4090 D is not faster than the 4090 it derives from.
  EXPECT_LE(by_id["rtx-4090-d"]["est_samples_per_s_per_gpu"].get<double>(), by_id["rtx-4090"]["est_samples_per_s_per_gpu"].get<double>());
  // No US MSRP was published for the China-only cards: no price-performance figure is made up.
  for (const char* id : {"rtx-4090-d", "rtx-5090-d", "rtx-5090-d-v2"}) EXPECT_TRUE(by_id[id]["launch_price_usd"].is_null()) << id;
}

}  // namespace
}  // namespace tfrig
