// Each what-if's effect on a run's time and cost (pipeline/run_cost.h).
#include <gtest/gtest.h>

#include <cmath>

#include "pipeline/run_cost.h"

namespace tfrig::pipeline {
namespace {

Report starved_report() {
  Report r;
  // Storage delivers 350 samples/s to a GPU that takes 1,000: 35% busy.
  r.barrel = evaluate({Stage{kStorage, 350, Origin::kMeasured, {}}, Stage{kDecode, 2000, Origin::kMeasured, {}},
                       Stage{kGpu, 1000, Origin::kEstimated, {}}});
  r.dataset_samples = 1281167;
  WhatIf pack;
  pack.id = "tfrecord";
  pack.change = core::Message("pack into TFRecord");
  pack.predicted_utilization = 0.96;
  pack.gpu_demand = 1000;
  pack.training_rate = 960;
  pack.applicable = true;
  // Mixed precision doubles the GPU's demand; storage still delivers 350/s,
  // so the run takes as long as measured (17.5% of the new demand), not twice
  // as long (17.5% of the old demand, as it was computed once).
  WhatIf mixed;
  mixed.id = "mixed_precision";
  mixed.change = core::Message("mixed precision (mixed_float16)");
  mixed.predicted_utilization = 0.175;
  mixed.gpu_demand = 2000;
  mixed.training_rate = 350;
  mixed.applicable = true;
  WhatIf nvme;
  nvme.id = "nvme";
  nvme.change = core::Message("move the data to NVMe");
  nvme.applicable = false;  // not measured here: no row
  r.what_ifs = {pack, nvme, mixed};
  return r;
}

TEST(RunCost, EachWhatIfOnTheSameScale) {
  plan::GpuCandidate gpu;
  gpu.id = "rtx-4090";
  gpu.name = "NVIDIA GeForce RTX 4090";
  gpu.tdp_watts = 450;
  plan::PriceBook prices;
  prices.billing = plan::Billing::kPerMinute;
  prices.source = core::Message("{}", "test prices");
  prices.gpus["NVIDIA GeForce RTX 4090"].rent_per_gpu_hour = 0.60;
  plan::RunSpec run;
  run.epochs = 20;
  const Report r = starved_report();
  ASSERT_NEAR(r.barrel.predicted_utilization, 0.35, 1e-12);
  const RunCostTable t = cost_what_ifs(r, gpu, 1, run, prices);
  ASSERT_EQ(t.rows.size(), 3u);  // as measured + the applicable what-ifs
  const double samples = 20.0 * 1281167;
  EXPECT_NEAR(t.rows[0].cost.run_hours, samples / 350 / 3600, 1e-9);
  EXPECT_NEAR(t.rows[1].cost.run_hours, samples / 960 / 3600, 1e-9);
  EXPECT_NEAR(t.rows[2].cost.run_hours, samples / 350 / 3600, 1e-9);
  EXPECT_NEAR(t.rows[2].cost.utilization, 0.175, 1e-12);
  ASSERT_TRUE(t.rows[0].cost.rent_cost && t.rows[1].cost.rent_cost);
  EXPECT_NEAR(*t.rows[0].cost.rent_cost, std::ceil(samples / 350 / 60) / 60 * 0.60, 1e-9);
  EXPECT_NEAR(*t.rows[1].cost.rent_cost, std::ceil(samples / 960 / 60) / 60 * 0.60, 1e-9);
  const std::string text = render_run_cost_text(t, "en");
  EXPECT_NE(text.find("pack into TFRecord: GPU 35% -> 96%, run 20.3 h -> 7.4 h, rented cost $12.21 -> $4.45"), std::string::npos) << text;
  const auto j = run_cost_json(t, "en");
  EXPECT_EQ(j["rows"][1]["id"], "tfrecord");
  EXPECT_NEAR(j["rows"][1]["gpu_utilization"].get<double>(), 0.96, 1e-12);
}

TEST(RunCost, NothingWithoutADatasetOrDemand) {
  Report r = starved_report();
  r.dataset_samples = 0;
  plan::RunSpec run;
  run.epochs = 1;
  EXPECT_TRUE(cost_what_ifs(r, plan::GpuCandidate{}, 1, run, plan::PriceBook{}).rows.empty());
}

}  // namespace
}  // namespace tfrig::pipeline
