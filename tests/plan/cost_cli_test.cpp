// tfrig plan's time-and-cost options end to end, and the example price book
// against the GPU catalog.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "knowledge/knowledge.h"
#include "plan/catalog_adapter.h"
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
  EXPECT_NE(t.out.find(" x NVIDIA GeForce RTX 4090, USD "), std::string::npos) << t.out;
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

}  // namespace
}  // namespace tfrig
