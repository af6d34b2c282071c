// Golden outputs of the plan for every catalog model at two precisions,
// against the fixture GPUs (so a change of the catalog does not move them).
// TFRIG_UPDATE_GOLDEN=1 rewrites the files under tests/data/golden/plan/.
#include <gtest/gtest.h>

#include "golden.h"
#include "plan/model_catalog.h"
#include "plan/plan.h"
#include "plan/render.h"
#include "plan_test_support.h"
#include "test_support.h"

namespace tfrig::plan {
namespace {

void check_golden(const std::string& name, const std::string& actual) {
  EXPECT_TRUE(tfrig::test::matches_golden(tfrig::test::golden_path("plan/" + name), actual));
}

class PlanGolden : public ::testing::TestWithParam<std::tuple<std::string, Precision>> {};

TEST_P(PlanGolden, TextOutput) {
  const auto& [id, precision] = GetParam();
  const auto gpus = test::fixture_gpus();
  Workload w = test::model_workload(id, precision, 32);
  const PlanResult r = make_plan(w, gpus, RankBy::kPricePerformance, {});
  RenderOptions o;
  o.all_gpus = true;
  check_golden(id + "_" + std::string(precision_name(precision)) + ".txt", render_text(r, o));
}

std::vector<std::tuple<std::string, Precision>> cases() {
  std::vector<std::tuple<std::string, Precision>> out;
  for (const CatalogModel& m : model_catalog()) {
    out.emplace_back(m.id, Precision::kFp32);
    out.emplace_back(m.id, Precision::kMixedFloat16);
  }
  return out;
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<std::string, Precision>>& p) {
  return std::get<0>(p.param) + "_" + std::string(precision_name(std::get<1>(p.param)));
}

INSTANTIATE_TEST_SUITE_P(EveryModel, PlanGolden, ::testing::ValuesIn(cases()), case_name);

TEST(PlanGoldenJson, ResNet50MixedFloat16) {
  const auto gpus = test::fixture_gpus();
  const PlanResult r =
      make_plan(test::model_workload("resnet50", Precision::kMixedFloat16, 256), gpus, RankBy::kPricePerformance, {});
  check_golden("resnet50_mixed_float16_batch256.json", to_json(r, "en").dump(2) + "\n");
  check_golden("resnet50_mixed_float16_batch256.md", render_markdown(r, {}));
}

}  // namespace
}  // namespace tfrig::plan
