// The barrel model, what-ifs and advice on given rates: pure functions.
#include <gtest/gtest.h>

#include "pipeline/advice.h"
#include "pipeline/barrel.h"
#include "pipeline/whatif.h"

namespace tfrig::pipeline {
namespace {

Barrel example(double storage, double decode, double gpu) {
  return evaluate({{kGpu, gpu, Origin::kEstimated, {}},
                   {kStorage, storage, Origin::kMeasured, {}},
                   {kDecode, decode, Origin::kMeasured, {}},
                   {kHostToDevice, 40000, Origin::kEstimated, {}}});
}

TEST(PipelineBarrel, ShortestStaveSetsUtilization) {
  const Barrel b = example(300, 1200, 1000);
  EXPECT_EQ(b.bottleneck, kStorage);
  EXPECT_DOUBLE_EQ(b.predicted_utilization, 0.3);  // docs/guide.md: the 30% GPU
  EXPECT_DOUBLE_EQ(b.training_rate, 300);
  EXPECT_EQ(b.stages.back().name, kGpu);  // the GPU stave goes last
  EXPECT_DOUBLE_EQ(share_of_demand(b, *find_stage(b, kDecode)), 1.2);
}

TEST(PipelineBarrel, GpuIsTheBottleneckWhenInputKeepsUpAndUtilizationCaps) {
  const Barrel b = example(5000, 3000, 1000);
  EXPECT_EQ(b.bottleneck, kGpu);
  EXPECT_DOUBLE_EQ(b.predicted_utilization, 1.0);
  EXPECT_DOUBLE_EQ(b.training_rate, 1000);
}

TEST(PipelineBarrel, UnknownStagesAreIgnoredAndNoDemandGivesZero) {
  Barrel b = evaluate({{kStorage, 0, Origin::kMeasured, {}}, {kDecode, 500, Origin::kMeasured, {}}, {kGpu, 1000, Origin::kAssumed, {}}});
  EXPECT_EQ(b.bottleneck, kDecode);
  EXPECT_DOUBLE_EQ(b.predicted_utilization, 0.5);
  b = evaluate({{kDecode, 500, Origin::kMeasured, {}}});
  EXPECT_DOUBLE_EQ(b.predicted_utilization, 0);
  EXPECT_EQ(b.bottleneck, kDecode);
}

TEST(PipelineBarrel, WithoutPrefetchTheStagesAdd) {
  // 1/1000 + 1/2000 + 1/2000 + (1/40000) per sample; GPU busy 1/1000 of it.
  const Barrel b = example(2000, 2000, 1000);
  const double expect = (1.0 / 1000) / (1.0 / 1000 + 1.0 / 2000 + 1.0 / 2000 + 1.0 / 40000);
  EXPECT_NEAR(serial_utilization(b), expect, 1e-12);
  EXPECT_LT(serial_utilization(b), b.predicted_utilization);
}

TEST(PipelineBarrel, EpochTimeAndReplacingAStage) {
  const Barrel b = example(300, 1200, 1000);
  EXPECT_NEAR(*epoch_seconds(b, 1281167), 1281167.0 / 300, 1e-6);
  EXPECT_FALSE(epoch_seconds(b, 0));
  const Barrel c = with_stage(b, Stage{kStorage, 2500, Origin::kMeasured, core::Message("TFRecord")});
  EXPECT_EQ(c.bottleneck, kGpu);
  EXPECT_DOUBLE_EQ(c.predicted_utilization, 1.0);
}

WhatIfInputs inputs() {
  WhatIfInputs in;
  in.tfrecord_samples_per_s = 2500;
  in.warm_storage_samples_per_s = 4000;
  in.fits_in_ram = false;
  in.dataset_bytes = 138e9;
  in.avg_sample_bytes = 110 * 1024;
  in.decode_per_core = 100;
  in.cores = 8;
  in.gpu_demand_mixed = 2500;
  return in;
}

TEST(PipelineWhatIf, EachChangeFromItsNumber) {
  const Barrel b = example(300, 1200, 1000);
  const auto w = what_ifs(b, inputs());
  auto get = [&](const std::string& id) -> const WhatIf& {
    auto it = std::find_if(w.begin(), w.end(), [&](const WhatIf& x) { return x.id == id; });
    EXPECT_NE(it, w.end()) << id;
    return *it;
  };
  EXPECT_DOUBLE_EQ(get("tfrecord").predicted_utilization, 1.0);
  EXPECT_FALSE(get("cache").applicable);  // 138 GB does not fit
  EXPECT_DOUBLE_EQ(get("cache").predicted_utilization, b.predicted_utilization);
  // Mixed precision raises the demand to 2500: storage 300 -> 12%.
  EXPECT_NEAR(get("mixed_precision").predicted_utilization, 300.0 / 2500, 1e-12);
  // 1 GbE: 117.7 MB/s of goodput / 110 KiB = 1045 samples/s: just keeps up
  // (capped at 100%); decode (1200/s) is not the limit either.
  EXPECT_NEAR(network_bytes_per_s(1) / (110 * 1024), 1044.8, 0.1);
  EXPECT_DOUBLE_EQ(get("network_1gbe").predicted_utilization, 1.0);
  EXPECT_EQ(get("network_1gbe").bottleneck, kGpu);
  EXPECT_NEAR(network_bytes_per_s(10), 1.1769e9, 1e6);
  EXPECT_NEAR(get("nvme").predicted_utilization, 1.0, 1e-12);
}

TEST(PipelineWhatIf, CheapestChangeIsTheCodeChangeWhenItIsEnough) {
  const Barrel b = example(300, 1200, 1000);
  auto fix = cheapest_fix(b, inputs());
  ASSERT_TRUE(fix);
  EXPECT_EQ(fix->id, "tfrecord");
  EXPECT_GE(fix->predicted_utilization, 0.9);
}

TEST(PipelineWhatIf, MoreCoresFromThePerCoreRate) {
  // Decode-bound: 400/s on 4 cores (100/s each), GPU wants 1000/s: 5 more
  // cores bring decode to 900 = 90%.
  const Barrel b = example(5000, 400, 1000);
  WhatIfInputs in = inputs();
  in.cores = 4;
  auto fix = cheapest_fix(b, in);
  ASSERT_TRUE(fix);
  EXPECT_EQ(fix->id, "more_cores");
  EXPECT_EQ(core::english(fix->change), "5 more CPU cores");
  EXPECT_NEAR(fix->predicted_utilization, 0.9, 1e-12);
}

TEST(PipelineWhatIf, PairsWhenNoSingleChangeIsEnough) {
  // Storage and decode both short: TFRecord alone leaves decode short, more
  // cores alone leave storage short; together they reach the target.
  const Barrel b = example(300, 400, 1000);
  WhatIfInputs in = inputs();
  in.avg_sample_bytes = 0;  // no NVMe/network what-if
  auto fix = cheapest_fix(b, in);
  ASSERT_TRUE(fix);
  EXPECT_EQ(fix->id, "tfrecord+more_cores");
  EXPECT_FALSE(cheapest_fix(example(5000, 5000, 1000), in));  // already there
}

TEST(PipelineAdvice, ShortStavesShortestFirstWithTheirCode) {
  const auto advice = advise(example(300, 600, 1000), false);
  ASSERT_GE(advice.size(), 3u);
  EXPECT_EQ(advice[0].stage, kStorage);
  EXPECT_NE(core::english(advice[0].code).find("TFRecordDataset"), std::string::npos);
  EXPECT_NE(core::english(advice[0].fix).find("tfrig pack"), std::string::npos);
  EXPECT_EQ(advice[1].stage, kDecode);
  EXPECT_NE(core::english(advice[1].code).find("num_parallel_calls=tf.data.AUTOTUNE"), std::string::npos);
  EXPECT_NE(core::english(advice.back().code).find("prefetch"), std::string::npos);
  const auto fed = advise(example(5000, 5000, 1000), false);
  EXPECT_EQ(fed.front().stage, kGpu);
  EXPECT_NE(core::english(fed.front().code).find("mixed_float16"), std::string::npos);
}

}  // namespace
}  // namespace tfrig::pipeline
