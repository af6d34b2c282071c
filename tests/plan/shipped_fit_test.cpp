// The shipped calibration (data/knowledge/plan_fit.json, plan/shipped_fit.h)
// must be the fit of the shipped data by this build's fit: a change to
// plan_measurements.json, gpus.json or the fit that was not followed by
// `bash scripts/gen_plan_validation.sh` fails here, instead of plans
// silently using a stale calibration.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <set>

#include "core/atomic_file.h"
#include "plan/catalog_adapter.h"
#include "plan/measurements.h"
#include "plan/shipped_fit.h"
#include "plan/throughput.h"

namespace tfrig::plan {
namespace {

// Every number of two calibrations, relative to the larger.
void expect_same(const Calibration& a, const Calibration& b, double tolerance) {
  const nlohmann::json ja = calibration_to_json(a), jb = calibration_to_json(b);
  const auto flat_a = ja.flatten(), flat_b = jb.flatten();
  ASSERT_EQ(flat_a.size(), flat_b.size());
  for (auto it = flat_a.begin(); it != flat_a.end(); ++it) {
    const double x = it->get<double>(), y = flat_b.at(it.key()).get<double>();
    EXPECT_LE(std::abs(x - y), tolerance * std::max({std::abs(x), std::abs(y), 1e-300}))
        << it.key() << ": " << x << " vs " << y;
  }
}

TEST(PlanFit, ShippedFitIsTheFitOfTheShippedData) {
  const std::vector<GpuCandidate> gpus = plan_gpus_from_catalog();
  const auto& rows = builtin_measurements().throughput;
  const std::string fingerprint = fit_fingerprint(rows, gpus);
  const Calibration fresh = fresh_fit_calibration(rows, gpus);
  if (const char* out = std::getenv("TFRIG_PLAN_FIT_OUT")) {  // scripts/gen_plan_validation.sh
    const auto written = core::write_file_atomic(out, shipped_fit_document(fresh, fingerprint).dump(2) + "\n");
    ASSERT_TRUE(written) << written.error().to_string();
    GTEST_SKIP() << "wrote " << out << "; rebuild to embed it";
  }
  const auto shipped = shipped_calibration(fingerprint);
  ASSERT_TRUE(shipped.has_value()) << "data/knowledge/plan_fit.json was not made from this data (fingerprint "
                                   << fingerprint << "): run `bash scripts/gen_plan_validation.sh`";
  // The same build's fit gives the same bits; 1e-9 leaves room for another compiler's rounding.
  expect_same(*shipped, fresh, 1e-9);
  EXPECT_EQ(shipped->rows, fresh.rows);
  // And the built-in model (every plan) uses it.
  expect_same(builtin_throughput_model().calibration, *shipped, 0);
}

TEST(PlanFit, CalibrationRoundTripsThroughJson) {
  Calibration c = default_calibration();
  c.compute_efficiency[1][2] = 0.123456789012345678;
  c.kernel_seconds = 3.3e-6;
  c.band_low = 0.7;
  c.rows = 42;
  const auto back = calibration_from_json(nlohmann::json::parse(calibration_to_json(c).dump()));
  ASSERT_TRUE(back.has_value());
  expect_same(*back, c, 0);
  EXPECT_EQ(back->rows, 42);
  EXPECT_FALSE(calibration_from_json(nlohmann::json{{"rows", 1}}).has_value());
  EXPECT_FALSE(calibration_from_json(nlohmann::json{{"compute_efficiency", "x"}}).has_value());
}

TEST(PlanFit, OtherDataIsFittedAfresh) {
  const std::vector<GpuCandidate> gpus = plan_gpus_from_catalog();
  // Three sources' rows: a small fit, not the shipped one.
  std::vector<ThroughputRow> rows;
  std::set<std::string> groups;
  for (const ThroughputRow& r : builtin_measurements().throughput) {
    if (r.framework != "tensorflow" || r.gpu_count != 1) continue;
    const std::string g = source_group(r.source);
    if (groups.size() < 3 || groups.count(g) > 0) {
      groups.insert(g);
      rows.push_back(r);
    }
  }
  ASSERT_FALSE(rows.empty());
  EXPECT_NE(fit_fingerprint(rows, gpus), fit_fingerprint(builtin_measurements().throughput, gpus));
  expect_same(fit_calibration(rows, gpus), fresh_fit_calibration(rows, gpus), 0);
  // One published figure changed changes the fingerprint.
  std::vector<ThroughputRow> changed = rows;
  changed.front().samples_per_s *= 1.01;
  EXPECT_NE(fit_fingerprint(changed, gpus), fit_fingerprint(rows, gpus));
}

}  // namespace
}  // namespace tfrig::plan
