#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <string_view>
#include <utility>
#include <sstream>

#include "plan/catalog_adapter.h"
#include "plan/validation.h"
#include "test_paths.h"

namespace tfrig::plan {
namespace {

// Published out-of-memory batches tfrig still calls "fits" (docs/plan.md,
// "What is still wrong"): FP32 BERT-Large SQuAD fine-tuning at 384 tokens under XLA
// auto-clustering in NVIDIA's TF1 and TF2 BERT READMEs. They are listed, not
// left out: the page counts them, a fix must take them off this list, and any
// other out-of-memory batch called "fits" fails. (The third, TF1 pre-training
// at 128 tokens batch 16, left the list on 2026-12-08 when the gradient
// accumulators its run held were counted.)
constexpr std::pair<std::string_view, int> kKnownOomCalledFits[] = {
    {"9de48bc9ca8ce635960620478a39dd332ed74ff6/TensorFlow/LanguageModeling/BERT/README.md#fine-tuning-training-"
     "performance-for-squad-v11-on-dgx-1-16gb",
     4},
    {"7ee81a1686ec01a2ee81b1e6e96e64a99c4962c9/TensorFlow2/LanguageModeling/BERT/README.md#fine-tuning-training-"
     "performance-for-squad-v11-on-nvidia-dgx-1-v100-8x-v100-32gb",
     12},
};

bool is_known_oom_called_fits(const BatchLimitRow& row) {
  for (const auto& [source, batch] : kKnownOomCalledFits) {
    if (row.batch == batch && row.source.ends_with(source)) return true;
  }
  return false;
}

const ValidationReport& report() {
  static const ValidationReport kReport = [] {
    const std::vector<GpuCandidate> gpus = plan_gpus_from_catalog();
    return validate(builtin_measurements(), gpus);
  }();
  return kReport;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double recorded(const std::string& page, const std::string& key) {
  const std::regex re(key + "=([0-9.]+)");
  std::smatch m;
  if (!std::regex_search(page, m, re)) return -1;
  return std::stod(m[1].str());
}

// docs/plan-validation.md records the held-out figures; a change to the model
// or the data that makes them worse fails here. TFRIG_PLAN_VALIDATION_OUT=FILE
// (scripts/gen_plan_validation.sh) writes the regenerated page.
void held_out_error_did_not_grow(const ValidationReport& r) {
  const std::string page = render_validation_markdown(r);
  if (const char* out = std::getenv("TFRIG_PLAN_VALIDATION_OUT")) {
    const std::string tmp = std::string(out) + ".tmp";
    {
      std::ofstream f(tmp);
      f << page;
      ASSERT_TRUE(f.good()) << tmp;
    }
    ASSERT_EQ(std::rename(tmp.c_str(), out), 0) << out;
  }
  const std::string docs = std::string(TFRIG_TEST_DATA) + "/../../docs/plan-validation.md";
  const std::string committed = read(docs);
  ASSERT_FALSE(committed.empty()) << docs;
  constexpr double kSlack = 0.0005;  // rounding of the recorded figures
  const double median = recorded(committed, "held_out_median_error");
  const double worst = recorded(committed, "held_out_worst_error");
  const double gpu_out = recorded(committed, "gpu_out_median_error");
  const double model_out = recorded(committed, "model_out_median_error");
  const double respected = recorded(committed, "boundaries_respected");
  ASSERT_GE(median, 0) << "no recorded figures in " << docs;
  // The headline: every row of a source held out together.
  const double source_median = recorded(committed, "source_out_median_error");
  ASSERT_GE(source_median, 0) << "no leave-one-source-out figures in " << docs;
  EXPECT_LE(r.source_out_summary.median_error, source_median + kSlack);
  EXPECT_GE(static_cast<double>(r.source_out_summary.within_25), recorded(committed, "source_out_within_25"));
  EXPECT_GE(static_cast<double>(r.source_out_summary.in_band), recorded(committed, "source_out_in_band"));
  EXPECT_LE(r.held_out_summary.median_error, median + kSlack);
  EXPECT_LE(r.held_out_summary.worst_error, worst + kSlack);
  EXPECT_LE(r.gpu_out_summary.median_error, gpu_out + kSlack);
  EXPECT_LE(r.model_out_summary.median_error, model_out + kSlack);
  EXPECT_GE(static_cast<double>(r.boundaries_respected), respected);
  // Fewer held-out estimates within 25% is a regression too (the goal counts them).
  EXPECT_GE(static_cast<double>(r.gpu_out_summary.within_25), recorded(committed, "gpu_out_within_25"));
  EXPECT_GE(static_cast<double>(r.model_out_summary.within_25), recorded(committed, "model_out_within_25"));
  // The goal (90% of boundaries respected) is reported in docs/plan-validation.md,
  // not asserted: a published batch that contradicts the model is recorded,
  // never left out to keep a figure. A regression below the recorded figure fails above.
  EXPECT_LE(static_cast<double>(r.oom_called_fits), recorded(committed, "oom_called_fits"));
  EXPECT_LE(recorded(committed, "oom_called_fits"), static_cast<double>(std::size(kKnownOomCalledFits)));
}

// One test, so one process computes the report: validate() refits the
// calibration some 500 times (every held-out group, each with its own
// leave-one-source-out band), and ctest runs every test in a process of its
// own, so three tests computed it three times (about 75 s each under
// AddressSanitizer). The three checks below are its sections.
TEST(PlanValidation, AgainstPublishedMeasurements) {
  const ValidationReport& r = report();
  {
    // The one thing a plan must never do: call a batch that published
    // training ran out of memory with "fits".
    SCOPED_TRACE("no published out-of-memory batch is called fits");
    ASSERT_GT(r.oom_cases, 5u);
    size_t known_seen = 0;
    for (const BoundaryCase& c : r.boundaries) {
      if (c.row.fits) continue;
      if (is_known_oom_called_fits(c.row)) {
        // Still wrong: when the model gets it right, take it off the list.
        EXPECT_TRUE(c.said_fits) << "no longer called fits, remove it from kKnownOomCalledFits: " << c.row.source;
        ++known_seen;
        continue;
      }
      EXPECT_FALSE(c.said_fits) << c.row.model << " batch " << c.row.batch << " on " << c.row.gpu << ": "
                                << c.row.table_row;
    }
    EXPECT_EQ(known_seen, std::size(kKnownOomCalledFits));
  }
  {
    SCOPED_TRACE("every held-out row is estimated");
    EXPECT_GE(r.calibration.size(), 100u);
    EXPECT_EQ(r.leave_gpu_out.size(), r.calibration.size());
    EXPECT_EQ(r.leave_model_out.size(), r.calibration.size());
    EXPECT_EQ(r.leave_source_out.size(), r.calibration.size());
    EXPECT_GE(r.sources, 8u);
    for (const ThroughputCase& c : r.leave_gpu_out) {
      EXPECT_GT(c.estimate, 0);
      EXPECT_LE(c.low, c.estimate);
      EXPECT_GE(c.high, c.estimate);
    }
  }
  SCOPED_TRACE("the held-out error did not grow");
  held_out_error_did_not_grow(r);
}

}  // namespace
}  // namespace tfrig::plan
