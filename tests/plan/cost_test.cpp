// Time and money of a training run (plan/cost.h, plan/prices.h): the case
// study's shape from its own numbers, the billing and amortization
// arithmetic, monotonicity, and price files that are wrong.
#include <gtest/gtest.h>

#include <cmath>

#include "core/i18n.h"
#include "plan/cost.h"
#include "plan/cost_report.h"
#include "plan/prices.h"

namespace tfrig::plan {
namespace {

GpuCandidate gpu(std::string id, std::string name, double tdp) {
  GpuCandidate g;
  g.id = std::move(id);
  g.name = std::move(name);
  g.tdp_watts = tdp;
  return g;
}

RateBand exact(double r) { return RateBand{r, r, r, "measured"}; }

RunSpec imagenet_epochs(double epochs) {
  RunSpec run;
  run.epochs = epochs;
  run.dataset_samples = 1281167;  // ImageNet-1k training images
  return run;
}

TEST(Billing, RoundsUpToTheUnitAndTheMinimum) {
  EXPECT_DOUBLE_EQ(billed_hours(2.0, Billing::kPerHour, 0), 2.0);  // exact hours are not rounded up
  EXPECT_DOUBLE_EQ(billed_hours(2.01, Billing::kPerHour, 0), 3.0);
  EXPECT_DOUBLE_EQ(billed_hours(0.1, Billing::kPerMinute, 0), 0.1);
  EXPECT_NEAR(billed_hours(0.1001, Billing::kPerMinute, 0), 7.0 / 60.0, 1e-12);
  EXPECT_NEAR(billed_hours(10.5 / 3600.0, Billing::kPerSecond, 0), 11.0 / 3600.0, 1e-12);
  // A 60-second minimum (per-second billing with a one-minute floor).
  EXPECT_NEAR(billed_hours(10.0 / 3600.0, Billing::kPerSecond, 1.0 / 60.0), 1.0 / 60.0, 1e-12);
}

// The case study: a team on a cloud RTX 3090 ran at 30% GPU utilization
// because small files starved the GPU; a balanced setup with an RTX 4090 ran
// at 95% and was released after each training run. The test takes those
// numbers (utilization 30% and 95%, equal raw GPU rates so that only the
// pipeline differs) and derives speed and cost from them by hand.
TEST(CaseStudy, StarvedGpuVersusBalancedAndReleased) {
  const double raw = 1000;  // samples/s either GPU could take
  RunSpec before = imagenet_epochs(30);
  before.input_rate = 0.30 * raw;  // the starved pipeline: 30% utilization
  RunSpec after = imagenet_epochs(30);
  after.input_rate = 0.95 * raw;
  after.runs_per_month = 4;
  before.runs_per_month = 4;

  PriceBook prices;
  prices.gpus["NVIDIA GeForce RTX 3090"].rent_per_gpu_hour = 0.50;
  prices.gpus["NVIDIA GeForce RTX 4090"].rent_per_gpu_hour = 0.70;
  const OptionCost c3090 = cost_option(gpu("rtx-3090", "NVIDIA GeForce RTX 3090", 350), 1, exact(raw), before, prices);
  const OptionCost c4090 = cost_option(gpu("rtx-4090", "NVIDIA GeForce RTX 4090", 450), 1, exact(raw), after, prices);

  EXPECT_NEAR(c3090.utilization, 0.30, 1e-12);
  EXPECT_NEAR(c4090.utilization, 0.95, 1e-12);
  const double speedup = c3090.run_hours / c4090.run_hours;
  EXPECT_NEAR(speedup, 0.95 / 0.30, 1e-9);  // "training ran 3x as fast" (+200%)
  EXPECT_GT(speedup, 2.9);
  EXPECT_LT(speedup, 3.3);

  // Hours by hand: 30 epochs x 1,281,167 images at 300/s and 950/s.
  const double h3090 = 30.0 * 1281167 / 300.0 / 3600.0;
  const double h4090 = 30.0 * 1281167 / 950.0 / 3600.0;
  EXPECT_NEAR(c3090.run_hours, h3090, 1e-9);
  EXPECT_NEAR(c4090.run_hours, h4090, 1e-9);
  // Time lost to the input pipeline: the run at 300/s minus the run at 1000/s.
  EXPECT_NEAR(c3090.hours_lost_to_input, h3090 - 30.0 * 1281167 / 1000.0 / 3600.0, 1e-9);

  // Before: a server kept around the clock. After: four runs a month, each
  // billed by the started hour and then released.
  const double month_before = 365.0 * 24.0 / 12.0 * 0.50;
  const double month_after = 4 * std::ceil(h4090) * 0.70;
  ASSERT_TRUE(c3090.rent_month_reserved);
  ASSERT_TRUE(c4090.rent_month_released);
  EXPECT_NEAR(*c3090.rent_month_reserved, month_before, 1e-9);
  EXPECT_NEAR(*c4090.rent_month_released, month_after, 1e-9);
  // With these prices the bill falls by the share that follows from them
  // (the case study reports 40% with its own prices and usage).
  EXPECT_NEAR(1.0 - *c4090.rent_month_released / *c3090.rent_month_reserved, 1.0 - month_after / month_before, 1e-12);
  EXPECT_LT(*c4090.rent_month_released, *c3090.rent_month_reserved);
  // Money lost to the starved pipeline on one 3090 run: its billed hours
  // minus those of the same run fed at full speed.
  ASSERT_TRUE(c3090.rent_lost_to_input);
  EXPECT_NEAR(*c3090.rent_lost_to_input, (std::ceil(h3090) - std::ceil(30.0 * 1281167 / 1000.0 / 3600.0)) * 0.50, 1e-9);
}

TEST(Cost, OwnedAmortizationPowerAndBreakEven) {
  PriceBook prices;
  prices.gpus["rtx-4090"].purchase_per_gpu = 1600;
  prices.gpus["rtx-4090"].rent_per_gpu_hour = 0.70;
  prices.server_purchase = 4000;
  prices.server_watts = 300;
  prices.power_price_per_kwh = 0.20;
  prices.hours_per_month = 200;
  prices.amortization_years = 3;
  RunSpec run;
  run.steps = 100000;
  run.batch = 256;
  const OptionCost c = cost_option(gpu("rtx-4090", "NVIDIA GeForce RTX 4090", 450), 2, exact(2000), run, prices);
  const double hours = 100000.0 * 256 / 2000 / 3600;
  EXPECT_NEAR(c.run_hours, hours, 1e-9);
  EXPECT_DOUBLE_EQ(c.epoch_hours, 0);  // given in steps: no epochs
  ASSERT_TRUE(c.own_capex && c.own_cost && c.own_energy_kwh && c.own_energy_cost && c.own_month);
  EXPECT_DOUBLE_EQ(*c.own_capex, 2 * 1600 + 4000);
  const double watts = 2 * 450 + 300;
  EXPECT_NEAR(*c.own_energy_kwh, watts / 1000 * hours, 1e-9);
  EXPECT_NEAR(*c.own_energy_cost, watts / 1000 * hours * 0.20, 1e-9);
  EXPECT_NEAR(*c.own_cost, 7200.0 / (36 * 200) * hours + watts / 1000 * hours * 0.20, 1e-9);
  EXPECT_NEAR(*c.own_month, 7200.0 / 36 + watts / 1000 * 0.20 * 200, 1e-9);
  // Break-even: 7200 + m x energy = m x rent for 200 h a month of two GPUs.
  ASSERT_TRUE(c.breakeven_months);
  const double rent_month = 200 * 0.70 * 2;
  const double energy_month = watts / 1000 * 0.20 * 200;
  EXPECT_NEAR(*c.breakeven_months, 7200 / (rent_month - energy_month), 1e-9);
  ASSERT_TRUE(c.rent_cost && c.cost_per_1k_samples);
  EXPECT_NEAR(*c.cost_per_1k_samples, std::min(*c.rent_cost, *c.own_cost) / (100000.0 * 256) * 1000, 1e-12);
}

TEST(Cost, NoBreakEvenWhenEnergyAloneCostsMoreThanRent) {
  PriceBook prices;
  prices.gpus["x"].purchase_per_gpu = 1000;
  prices.gpus["x"].rent_per_gpu_hour = 0.01;
  prices.power_price_per_kwh = 1.0;
  prices.hours_per_month = 100;
  RunSpec run = imagenet_epochs(1);
  const OptionCost c = cost_option(gpu("x", "X", 400), 1, exact(1000), run, prices);
  EXPECT_FALSE(c.breakeven_months);
}

// The notes and the prices' source are messages: one cost table renders as
// English JSON and Chinese text, with no language switch between.
TEST(Cost, NotesAndSourceRenderInEachOutputsLanguage) {
  PriceBook prices;
  prices.source = core::Message(N_("command line"));
  prices.gpus["NVIDIA GeForce RTX 4090"].purchase_per_gpu = 1599;  // no server price, no --kwh: two notes
  CostTable t;
  t.run = imagenet_epochs(10);
  t.prices_source = prices.source;
  t.options.push_back(cost_option(gpu("rtx-4090", "NVIDIA GeForce RTX 4090", 450), 1, exact(1000), t.run, prices));
  t.notes.push_back(
      core::Message(N_("owned: written off over {0:g} years (assumed; amortization_years in the price file)"), 4.0));
  const OptionCost& c = t.options.front();
  ASSERT_GE(c.notes.size(), 2u);
  EXPECT_EQ(core::english(c.notes.front()),
            "owned: no server price given (server.purchase): the GPUs alone are amortized");
  const auto en = cost_to_json(t, "en");
  EXPECT_EQ(en["prices_source"], "command line");
  EXPECT_EQ(en["options"][0]["notes"][0],
            "owned: no server price given (server.purchase): the GPUs alone are amortized");
  EXPECT_EQ(en["notes"][0], "owned: written off over 4 years (assumed; amortization_years in the price file)");
  const auto zh = cost_to_json(t, "zh_CN");
  EXPECT_EQ(zh["prices_source"], core::render(prices.source, "zh_CN"));
  EXPECT_NE(zh["prices_source"], "command line");
  EXPECT_NE(zh["options"][0]["notes"][0], en["options"][0]["notes"][0]);
  const std::string text = render_cost_text(t, 10, "zh_CN");
  EXPECT_NE(text.find(core::render(t.notes.front(), "zh_CN")), std::string::npos) << text;
  EXPECT_EQ(text.find("written off over"), std::string::npos) << text;
}

TEST(Cost, UnpricedOptionHasTimeButNoMoney) {
  const OptionCost c = cost_option(gpu("x", "X", 400), 1, exact(1000), imagenet_epochs(2), PriceBook{});
  EXPECT_GT(c.run_hours, 0);
  EXPECT_FALSE(c.rent_cost);
  EXPECT_FALSE(c.own_cost);
  EXPECT_FALSE(c.cost_per_1k_samples);
}

TEST(Cost, BandAndDeadlineUseTheSlowEnd) {
  RunSpec run = imagenet_epochs(10);
  run.deadline_hours = 10;
  const RateBand band{400, 300, 500, "estimated"};
  const OptionCost c = cost_option(gpu("x", "X", 300), 1, band, run, PriceBook{});
  EXPECT_NEAR(c.run_hours_low, 10.0 * 1281167 / 500 / 3600, 1e-9);
  EXPECT_NEAR(c.run_hours_high, 10.0 * 1281167 / 300 / 3600, 1e-9);
  EXPECT_NEAR(c.run_hours, 10.0 * 1281167 / 400 / 3600, 1e-9);  // 8.9 h: fits the 10 h deadline...
  EXPECT_FALSE(c.meets_deadline);                                  // ...but 11.9 h at the slow end does not
}

TEST(Cost, MoreEpochsNeverCostLessAndHigherUtilizationNeverCostsMore) {
  PriceBook prices;
  prices.gpus["x"].rent_per_gpu_hour = 1.3;
  prices.gpus["x"].purchase_per_gpu = 9000;
  prices.power_price_per_kwh = 0.3;
  prices.billing = Billing::kPerMinute;
  double last_rent = 0, last_own = 0;
  for (double epochs = 0.5; epochs <= 40; epochs += 0.5) {
    const OptionCost c = cost_option(gpu("x", "X", 300), 1, exact(700), imagenet_epochs(epochs), prices);
    ASSERT_TRUE(c.rent_cost && c.own_cost);
    EXPECT_GE(*c.rent_cost, last_rent) << epochs;
    EXPECT_GE(*c.own_cost, last_own) << epochs;
    last_rent = *c.rent_cost;
    last_own = *c.own_cost;
  }
  double last = std::numeric_limits<double>::infinity();
  for (double util = 0.05; util <= 1.0; util += 0.05) {
    RunSpec run = imagenet_epochs(5);
    run.input_rate = util * 700;
    const OptionCost c = cost_option(gpu("x", "X", 300), 1, exact(700), run, prices);
    ASSERT_TRUE(c.rent_cost);
    EXPECT_LE(*c.rent_cost, last) << util;
    last = *c.rent_cost;
  }
}

TEST(Cost, CheapestOptionMeetingTheDeadline) {
  PriceBook prices;
  prices.gpus["slow"].rent_per_gpu_hour = 0.2;
  prices.gpus["fast"].rent_per_gpu_hour = 2.0;
  prices.gpus["mid"].rent_per_gpu_hour = 0.9;
  RunSpec run = imagenet_epochs(20);
  run.deadline_hours = 12;
  std::vector<OptionCost> options = {
      cost_option(gpu("slow", "Slow", 100), 1, exact(300), run, prices),   // 23.7 h: misses
      cost_option(gpu("fast", "Fast", 700), 1, exact(3000), run, prices),  // 2.4 h at 2.0
      cost_option(gpu("mid", "Mid", 300), 1, exact(1200), run, prices),    // 5.9 h at 0.9
  };
  EXPECT_FALSE(options[0].meets_deadline);
  const auto best = cheapest_meeting_deadline(options);
  ASSERT_TRUE(best);
  EXPECT_EQ(options[*best].gpu_name, "Mid");
}

TEST(PriceBook, ReadsYamlAndJsonAlike) {
  const std::string yaml = R"(currency: EUR
as_of: 2026-11-01
billing: per_minute
minimum_billed_minutes: 1
power_price_per_kwh: 0.25
hours_per_month: 160
amortization_years: 4
storage_per_month: 80
server:
  purchase: 5000
  watts: 350
gpus:
  NVIDIA GeForce RTX 4090:
    rent_per_hour: 0.69
    purchase: 1799
    billing: per_second
  rtx-3090: 0.44
)";
  auto y = parse_price_book(yaml, "prices.yaml");
  ASSERT_TRUE(y) << y.error().to_string();
  EXPECT_EQ(y->currency, "EUR");
  EXPECT_EQ(y->billing, Billing::kPerMinute);
  EXPECT_NEAR(y->minimum_billed_hours, 1.0 / 60, 1e-12);
  EXPECT_EQ(*y->power_price_per_kwh, 0.25);
  EXPECT_EQ(y->amortization_years, 4);
  EXPECT_FALSE(y->amortization_assumed);
  EXPECT_EQ(*y->server_purchase, 5000);
  const GpuPrice* p = find_price(*y, gpu("rtx-4090", "NVIDIA GeForce RTX 4090", 450));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(*p->rent_per_gpu_hour, 0.69);
  EXPECT_EQ(*p->billing, Billing::kPerSecond);
  const GpuPrice* q = find_price(*y, gpu("rtx-3090", "NVIDIA GeForce RTX 3090", 350));
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(*q->rent_per_gpu_hour, 0.44);

  auto j = parse_price_book(R"({"gpus": {"GeForce RTX 4090": {"rent_per_hour": 0.5}}, "power_price_per_kwh": 0.1})", "p.json");
  ASSERT_TRUE(j) << j.error().to_string();
  // "NVIDIA " and case are ignored when matching names.
  EXPECT_NE(find_price(*j, gpu("rtx-4090", "NVIDIA GeForce RTX 4090", 450)), nullptr);
}

TEST(PriceBook, BadFilesNameTheFileAndField) {
  struct Case {
    const char* text;
    const char* where;
    const char* what;
  };
  const Case cases[] = {
      {"gpus:\n  RTX 4090:\n    rent_per_hour: cheap\n", "p.yaml: gpus.RTX 4090.rent_per_hour", "expected a number"},
      {"gpus:\n  RTX 4090:\n    rent_per_hour: -1\n", "p.yaml: gpus.RTX 4090.rent_per_hour", "expected a number"},
      {"gpus:\n  RTX 4090:\n    rent_per_hour: .nan\n", "p.yaml: gpus.RTX 4090.rent_per_hour", "expected a number"},
      {"gpus:\n  RTX 4090:\n    rent: 1\n", "p.yaml: gpus.RTX 4090.rent", "unknown field"},
      {"gpus:\n  RTX 4090: {}\n", "p.yaml: gpus.RTX 4090", "gives none of"},
      {"power_price_per_kwh: 1e9\n", "p.yaml: power_price_per_kwh", "expected a number"},
      {"billing: weekly\n", "p.yaml: billing", "per_second"},
      {"amortization_years: 0\n", "p.yaml: amortization_years", "more than 0"},
      {"hours_per_month: 800\n", "p.yaml: hours_per_month", "expected a number"},
      {"server: 5000\n", "p.yaml: server", "expected a map"},
      {"gpu:\n  x: 1\n", "p.yaml: gpu", "unknown field"},
      {"- a\n- b\n", "p.yaml", "expected a map"},
      {"gpus: [1, 2\n", "p.yaml:", "not valid YAML"},
  };
  for (const Case& c : cases) {
    auto r = parse_price_book(c.text, "p.yaml");
    ASSERT_FALSE(r) << c.text;
    EXPECT_EQ(r.error().code, core::ErrorCode::kParse) << c.text;
    EXPECT_NE(r.error().where.find(c.where), std::string::npos) << c.text << " -> " << r.error().to_string();
    EXPECT_NE(r.error().message.find(c.what), std::string::npos) << c.text << " -> " << r.error().to_string();
  }
  auto bad_json = parse_price_book("{\"gpus\": ", "p.json");
  ASSERT_FALSE(bad_json);
  EXPECT_EQ(bad_json.error().where, "p.json");
}

// A YAML file may hold any bytes: a wrong value that is not UTF-8 is named
// in the error, never thrown on (found by fuzz_price_book).
TEST(PriceBook, InvalidUtf8ValueIsAnErrorNotACrash) {
  for (const char* text : {"gpus:\n  RTX 4090:\n    rent_per_hour: \"\xcf\x28\"\n", "billing: \xff\xfe\n",
                           "gpus:\n  \xcf\x28:\n    purchase: x\xcf\n"}) {
    auto r = parse_price_book(text, "p.yaml");
    ASSERT_FALSE(r) << text;
    EXPECT_EQ(r.error().code, core::ErrorCode::kParse);
  }
}

TEST(PriceBook, SingleFlags) {
  PriceBook book;
  ASSERT_TRUE(apply_rent_flag(book, "NVIDIA GeForce RTX 4090=0.60"));
  ASSERT_TRUE(apply_buy_flag(book, "NVIDIA GeForce RTX 4090=1599"));
  const GpuPrice* p = find_price(book, gpu("rtx-4090", "NVIDIA GeForce RTX 4090", 450));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(*p->rent_per_gpu_hour, 0.60);
  EXPECT_EQ(*p->purchase_per_gpu, 1599);
  for (const char* bad : {"RTX 4090", "=1", "RTX 4090=", "RTX 4090=abc", "RTX 4090=-2", "RTX 4090=nan", "RTX 4090=inf"}) {
    auto s = apply_rent_flag(book, bad);
    ASSERT_FALSE(s) << bad;
    EXPECT_EQ(s.error().code, core::ErrorCode::kInvalidArgument);
    EXPECT_EQ(s.error().where, "--rent");
  }
}

}  // namespace
}  // namespace tfrig::plan
