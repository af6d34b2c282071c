// A measured figure from a source nobody re-checked says so where plan uses
// it (issue 33): the rows' sources carry "verified" in plan_measurements.json.
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <sstream>

#include "plan/measurements.h"
#include "plan/throughput.h"
#include "plan_test_support.h"
#include "test_paths.h"

namespace tfrig::plan {
namespace {

using test::fixture;
using test::fixture_gpus;
using test::model_workload;

nlohmann::json shipped_measurements() {
  std::ifstream in(std::string(TFRIG_TEST_DATA) + "/../../data/knowledge/plan_measurements.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

// A TensorFlow 2 source with XLA rows (the plan assumes TensorFlow 2, so a TF 1.x row is never "measured").
constexpr const char* kResnetReadme = "lambda-tensorflow-benchmark:tf-train-throughput-fp16.csv@e086e0e7";

std::optional<Throughput> a100_resnet50_amp(const nlohmann::json& doc) {
  auto m = parse_measurements(doc);
  if (!m) return std::nullopt;
  ThroughputModel model;
  model.rows = m->throughput;
  model.calibration = default_calibration();
  Workload w = model_workload("resnet50", Precision::kMixedFloat16, 96);
  w.xla = true;  // Lambda's RTX 3090 row ran with XLA (TF_XLA_FLAGS in its log)
  // RTX 3090 (NVIDIA's GA102 datasheet: 24 GB, 936 GB/s, 35.6 TFLOPS fp32, 71 fp16 tensor dense, 350 W).
  const GpuCandidate rtx3090 = test::gpu("rtx-3090", "NVIDIA GeForce RTX 3090", 24, 936, 35.6, 35.6, 71, 71, 350, Segment::kConsumer, 1499);
  return gpu_throughput(w, rtx3090, model);
}

TEST(PlanMeasurementVerification, EveryShippedTensorflowRowHasAVerifiedSource) {
  for (const ThroughputRow& r : builtin_measurements().throughput) {
    if (r.framework == "tensorflow") {
      EXPECT_TRUE(r.source_verified) << r.source;
    }
  }
}

TEST(PlanMeasurementVerification, AnUnverifiedSourceIsSaidWhereItsRowIsMeasured) {
  nlohmann::json doc = shipped_measurements();
  const auto checked = a100_resnet50_amp(doc);
  ASSERT_TRUE(checked);
  ASSERT_EQ(checked->basis, "measured");
  EXPECT_EQ(core::english(checked->detail).find("unverified"), std::string::npos) << core::english(checked->detail);

  bool marked = false;
  for (auto& s : doc["sources"]) {
    if (s["id"] == kResnetReadme) {
      s["verified"]["method"] = "none";
      marked = true;
    }
  }
  ASSERT_TRUE(marked);
  const auto unchecked = a100_resnet50_amp(doc);
  ASSERT_TRUE(unchecked);
  EXPECT_EQ(unchecked->basis, "measured");
  EXPECT_NE(core::english(unchecked->detail).find("unverified"), std::string::npos) << core::english(unchecked->detail);

  // A source without "verified" at all counts as unverified too.
  for (auto& s : doc["sources"]) {
    if (s["id"] == kResnetReadme) s.erase("verified");
  }
  const auto silent = a100_resnet50_amp(doc);
  ASSERT_TRUE(silent);
  EXPECT_NE(core::english(silent->detail).find("unverified"), std::string::npos) << core::english(silent->detail);
}

TEST(PlanMeasurementVerification, ABadVerificationMethodIsRefusedWithItsPlace) {
  nlohmann::json doc = shipped_measurements();
  doc["sources"][0]["verified"]["method"] = "trust me";
  auto m = parse_measurements(doc);
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().where.find("sources[0].verified.method"), std::string::npos) << m.error().to_string();
}

}  // namespace
}  // namespace tfrig::plan
