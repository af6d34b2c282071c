#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>

#include "plan/measurements.h"
#include "plan/throughput.h"
#include "plan_test_support.h"

namespace tfrig::plan {
namespace {

using test::fixture;
using test::fixture_gpus;
using test::model_workload;

nlohmann::json row(const char* precision, double sps, const char* gpu = "h100-sxm5") {
  return {{"model", "resnet50"},    {"image_size", 224},
          {"seq_len", 0},           {"framework", "tensorflow"},
          {"precision", precision}, {"gpu_id", gpu},
          {"gpu_count", 1},         {"batch", 256},
          {"samples_per_s", sps},   {"source", "example:README.md@0"}};
}

TEST(PlanMeasurements, EmbeddedRowsParseAndCiteASource) {
  const Measurements& m = builtin_measurements();
  EXPECT_GT(m.throughput.size(), 150u);
  EXPECT_GT(m.batch_limits.size(), 50u);
  size_t tensorflow = 0;
  const std::regex pinned("[0-9a-f]{40}");
  // Or a GitHub issue or pull-request comment, named by its reporter (docs/knowledge.md).
  const std::regex thread(
      R"(^https://github\.com/[^/ ]+/[^/ ]+/(issues|pull)/[0-9]+(#[a-z_]+-?[0-9]+)? \(.*@[A-Za-z0-9-]+)");
  for (const ThroughputRow& r : m.throughput) {
    EXPECT_TRUE(std::regex_search(r.source, pinned) || std::regex_search(r.source, thread)) << r.source;
    EXPECT_EQ(r.gpu_count, 1) << r.source;
    if (r.framework == "tensorflow") ++tensorflow;
  }
  EXPECT_GE(tensorflow, 40u);
  for (const BatchLimitRow& r : m.batch_limits) EXPECT_TRUE(std::regex_search(r.source, pinned)) << r.source;
}

TEST(PlanMeasurements, PrecisionIsAnExplicitColumnNeverGuessed) {
  nlohmann::json doc = {{"throughput", nlohmann::json::array({row("AMP mixed precision", 100)})},
                        {"batch_limits", nlohmann::json::array()}};
  auto m = parse_measurements(doc);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().where, "plan_measurements.json: throughput[0].precision");
  EXPECT_NE(m.error().message.find("fp32, tf32 or mixed_float16"), std::string::npos);
  doc["throughput"][0]["precision"] = "tf32";
  auto ok = parse_measurements(doc);
  ASSERT_TRUE(ok) << ok.error().to_string();
  EXPECT_EQ(ok->throughput[0].precision, MeasuredPrecision::kTf32);
}

// A batch limit may carry the TF_DEVICE_MIN_SYS_MEMORY_IN_MB its container set
// and names its release; a reserve that is not a whole number of MiB is refused by name.
TEST(PlanMeasurements, BatchLimitReserveAndReleaseAreParsedOrRefused) {
  nlohmann::json limit = {{"model", "bert_large"},
                          {"image_size", 0},
                          {"seq_len", 384},
                          {"framework", "tensorflow"},
                          {"framework_detail", "TensorFlow 2 (NGC tensorflow:21.02-py3)"},
                          {"precision", "fp32"},
                          {"optimizer", "adam"},
                          {"gpu_id", "tesla-v100-sxm2-16gb"},
                          {"batch", 3},
                          {"outcome", "fits"},
                          {"source", "example:README.md@0"},
                          {"tf_min_system_memory_mib", 2048}};
  auto ok =
      parse_measurements({{"throughput", nlohmann::json::array()}, {"batch_limits", nlohmann::json::array({limit})}});
  ASSERT_TRUE(ok) << ok.error().to_string();
  EXPECT_EQ(ok->batch_limits[0].tf_min_system_memory_mib, std::optional<uint64_t>(2048));
  EXPECT_EQ(tf_reserve_rule(ok->batch_limits[0].framework_detail), TfReserveRule::kLargerOfBoth);
  for (const nlohmann::json& bad : {nlohmann::json(-1), nlohmann::json(1.5), nlohmann::json("2048")}) {
    limit["tf_min_system_memory_mib"] = bad;
    auto refused =
        parse_measurements({{"throughput", nlohmann::json::array()}, {"batch_limits", nlohmann::json::array({limit})}});
    ASSERT_FALSE(refused) << bad;
    EXPECT_EQ(refused.error().where, "plan_measurements.json: batch_limits[0].tf_min_system_memory_mib");
  }
  limit["tf_min_system_memory_mib"] = 2048;
  limit["accumulation_steps"] = 4096;
  auto accumulated =
      parse_measurements({{"throughput", nlohmann::json::array()}, {"batch_limits", nlohmann::json::array({limit})}});
  ASSERT_TRUE(accumulated) << accumulated.error().to_string();
  EXPECT_EQ(accumulated->batch_limits[0].accumulation_steps, 4096);
  limit["accumulation_steps"] = 0;
  auto refused =
      parse_measurements({{"throughput", nlohmann::json::array()}, {"batch_limits", nlohmann::json::array({limit})}});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().where, "plan_measurements.json: batch_limits[0].accumulation_steps");
  limit["accumulation_steps"] = 1;
  limit["optimizer_ops"] = "separate";
  auto unsourced =
      parse_measurements({{"throughput", nlohmann::json::array()}, {"batch_limits", nlohmann::json::array({limit})}});
  ASSERT_FALSE(unsourced);
  EXPECT_EQ(unsourced.error().where, "plan_measurements.json: batch_limits[0].optimizer_ops_basis");
  limit["optimizer_ops_basis"] = "example:optimization.py@0: AdamWeightDecayOptimizer in Python ops";
  auto separate =
      parse_measurements({{"throughput", nlohmann::json::array()}, {"batch_limits", nlohmann::json::array({limit})}});
  ASSERT_TRUE(separate) << separate.error().to_string();
  EXPECT_TRUE(separate->batch_limits[0].separate_update_ops);
}

// An out-of-memory row is evidence only if its own table does not show a
// batch with at least as much work fitting in the same conditions: for a
// transformer, at least as many tokens at a sequence at least as long (the
// activations grow with tokens, the attention scores with tokens x length);
// for an image model, at least as large a batch of the same images. A
// "maximum + 1" read from a table whose maxima are not the largest batch that
// fits (google-research/bert's Titan X powers of two) fails here.
TEST(PlanMeasurements, NoOutOfMemoryRowIsContradictedByItsOwnTable) {
  const Measurements& m = builtin_measurements();
  auto same_run = [](const BatchLimitRow& a, const BatchLimitRow& b) {
    return a.source == b.source && a.model == b.model && a.gpu == b.gpu && a.gpu_id == b.gpu_id &&
           a.precision == b.precision && a.xla == b.xla && a.optimizer == b.optimizer &&
           a.framework_detail == b.framework_detail && a.image_size == b.image_size &&
           a.accumulation_steps == b.accumulation_steps && a.tf_min_system_memory_mib == b.tf_min_system_memory_mib;
  };
  auto at_least_as_much = [](const BatchLimitRow& fit, const BatchLimitRow& oom) {
    if (oom.seq_len == 0) return fit.batch >= oom.batch;
    return fit.seq_len >= oom.seq_len &&
           static_cast<int64_t>(fit.batch) * fit.seq_len >= static_cast<int64_t>(oom.batch) * oom.seq_len;
  };
  size_t oom = 0;
  for (const BatchLimitRow& o : m.batch_limits) {
    if (o.fits) continue;
    ++oom;
    for (const BatchLimitRow& f : m.batch_limits) {
      if (f.fits && same_run(f, o)) {
        EXPECT_FALSE(at_least_as_much(f, o))
            << o.source << ": " << o.model << " batch " << o.batch << " at " << o.seq_len
            << " out of memory, but batch " << f.batch << " at " << f.seq_len << " fits";
      }
    }
  }
  EXPECT_GE(oom, 30u);
}

TEST(PlanMeasurements, MissingFieldNamesArrayIndexAndField) {
  nlohmann::json bad = row("fp32", 100);
  bad.erase("gpu_count");
  auto m = parse_measurements(
      {{"throughput", nlohmann::json::array({row("fp32", 1), bad})}, {"batch_limits", nlohmann::json::array()}});
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().where, "plan_measurements.json: throughput[1].gpu_count");
}

// A throughput row may say which optimizer the run used (it sets the
// per-step update traffic); a value that is not one is refused by name.
TEST(PlanMeasurements, ThroughputRowOptimizerIsParsedOrRefused) {
  nlohmann::json r = row("fp32", 100);
  r["optimizer"] = "momentum";
  r["accumulation_steps"] = 4;
  auto ok = parse_measurements(
      {{"throughput", nlohmann::json::array({row("fp32", 1), r})}, {"batch_limits", nlohmann::json::array()}});
  ASSERT_TRUE(ok) << ok.error().to_string();
  EXPECT_EQ(ok->throughput[0].optimizer, Optimizer::kAdam);  // absent: adam
  EXPECT_EQ(ok->throughput[1].optimizer, Optimizer::kMomentum);
  EXPECT_EQ(ok->throughput[0].accumulation_steps, 1);
  EXPECT_EQ(ok->throughput[1].accumulation_steps, 4);
  auto w = throughput_row_workload(ok->throughput[1]);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->batch, 256u);
  EXPECT_EQ(w->optimizer, Optimizer::kMomentum);
  r["optimizer"] = "lamb";
  auto bad =
      parse_measurements({{"throughput", nlohmann::json::array({r})}, {"batch_limits", nlohmann::json::array()}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "plan_measurements.json: throughput[0].optimizer");
}

// A row may say its optimizer ran as separate element-wise ops (BERT's
// Python AdamWeightDecayOptimizer): the update then moves each parameter
// kSeparateUpdateBytesPerParameter instead of a fused kernel's bytes, and
// every embedded row that says so cites the optimizer's code. Any other
// value is refused by name.
TEST(PlanMeasurements, SeparateOptimizerOpsAreParsedAndCostMore) {
  nlohmann::json r = row("fp32", 100);
  r["optimizer_ops"] = "separate";
  auto unsourced =
      parse_measurements({{"throughput", nlohmann::json::array({r})}, {"batch_limits", nlohmann::json::array()}});
  ASSERT_FALSE(unsourced);
  EXPECT_EQ(unsourced.error().where, "plan_measurements.json: throughput[0].optimizer_ops_basis");
  r["optimizer_ops_basis"] = "example:optimization.py@0: AdamWeightDecayOptimizer in Python ops";
  auto ok = parse_measurements(
      {{"throughput", nlohmann::json::array({row("fp32", 1), r})}, {"batch_limits", nlohmann::json::array()}});
  ASSERT_TRUE(ok) << ok.error().to_string();
  EXPECT_FALSE(ok->throughput[0].separate_update_ops);
  ASSERT_TRUE(ok->throughput[1].separate_update_ops);
  auto fused = throughput_row_workload(ok->throughput[0]);
  auto separate = throughput_row_workload(ok->throughput[1]);
  ASSERT_TRUE(fused && separate);
  EXPECT_TRUE(separate->separate_update_ops);
  // Adam: the fused update moves the variable and its two slots once each way (24 bytes).
  const double params = static_cast<double>(separate->trainable_params);
  EXPECT_NEAR(update_bytes_per_step(*separate) - update_bytes_per_step(*fused),
              params * (kSeparateUpdateBytesPerParameter - 24.0), params * 1e-9);
  // With gradient accumulation the update runs once per accumulation cycle.
  EXPECT_LT(update_bytes_per_step(*separate, 64), update_bytes_per_step(*separate));
  r["optimizer_ops"] = "python";
  auto bad =
      parse_measurements({{"throughput", nlohmann::json::array({r})}, {"batch_limits", nlohmann::json::array()}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "plan_measurements.json: throughput[0].optimizer_ops");
  size_t separate_rows = 0;
  for (const ThroughputRow& x : builtin_measurements().throughput) {
    if (!x.separate_update_ops) continue;
    ++separate_rows;
    // NVIDIA's TF1 BERT (LAMB / AdamWeightDecay in Python ops): its own README, and OneFlow DLPerf's and the
    // Paddle team's (PaddlePaddle/Perf) reproductions of it.
    const bool nvidia_tf1_bert = x.source.find("/TensorFlow/LanguageModeling/BERT/") != std::string::npos ||
                                 (x.source.find("PaddlePaddle/Perf/blob/") != std::string::npos &&
                                  x.source.find("/Bert/OtherReports/TensorFlow/") != std::string::npos);
    EXPECT_TRUE(nvidia_tf1_bert) << x.source;
  }
  EXPECT_GT(separate_rows, 0u);
}

// The old table classed any precision text containing "AMP" as mixed, so
// "FP32 (TF32 ... AMP...)" rows matched and the mixed figure of H100
// ResNet-50 became the median of an AMP row and a TF32 row
// ((2791 + 1895) / 2 = 2343). Each precision now only sees its own rows.
TEST(PlanMeasurements, MixedPrecisionIsNotTheMedianOfAnAmpAndATf32Row) {
  const auto gpus = fixture_gpus();
  auto m = parse_measurements({{"throughput", nlohmann::json::array({row("mixed_float16", 2791), row("tf32", 1895)})},
                               {"batch_limits", nlohmann::json::array()}});
  ASSERT_TRUE(m) << m.error().to_string();
  ThroughputModel model;
  model.rows = m->throughput;
  model.calibration = default_calibration();
  const GpuCandidate& h100 = fixture(gpus, "h100-sxm5");
  const auto amp = gpu_throughput(model_workload("resnet50", Precision::kMixedFloat16, 256), h100, model);
  ASSERT_TRUE(amp);
  EXPECT_EQ(amp->basis, "measured");
  EXPECT_DOUBLE_EQ(amp->samples_per_s, 2791.0);
  const auto fp32 = gpu_throughput(model_workload("resnet50", Precision::kFp32, 256), h100, model);
  ASSERT_TRUE(fp32);
  EXPECT_EQ(fp32->basis, "measured");
  EXPECT_DOUBLE_EQ(fp32->samples_per_s, 1895.0);
  EXPECT_EQ(fp32->math, "TF32");
  // A GPU without TF32 never takes a TF32 row for fp32.
  GpuCandidate v100 = fixture(gpus, "tesla-v100-sxm2-16gb");
  v100.id = "h100-sxm5";
  EXPECT_TRUE(matching_rows(model.rows, model_workload("resnet50", Precision::kFp32, 256), v100).empty());
}

TEST(PlanMeasurements, EmbeddedLookupsNeverMixPrecisionsOrFrameworks) {
  const auto gpus = fixture_gpus();
  const Measurements& m = builtin_measurements();
  for (const GpuCandidate& g : gpus) {
    for (Precision p : {Precision::kFp32, Precision::kMixedFloat16}) {
      for (const char* id : {"resnet50", "bert_large", "bert_base", "efficientnet_b0"}) {
        for (const ThroughputRow* r : matching_rows(m.throughput, model_workload(id, p, 8), g)) {
          EXPECT_EQ(r->framework, "tensorflow");
          EXPECT_EQ(r->precision == MeasuredPrecision::kMixedFloat16, p == Precision::kMixedFloat16) << r->source;
        }
      }
    }
  }
  // RTX 4090 ResNet-50 mixed precision has PyTorch rows only (Lambda): the
  // plan estimates it instead of taking them as TensorFlow's.
  const auto t = gpu_throughput(model_workload("resnet50", Precision::kMixedFloat16, 256),
                                fixture(fixture_gpus(), "rtx-4090"), builtin_throughput_model());
  ASSERT_TRUE(t);
  EXPECT_EQ(t->basis, "estimated");
  EXPECT_GT(t->high, t->samples_per_s);
  EXPECT_LT(t->low, t->samples_per_s);
}

// Rows of one publication (one README's tables, one benchmark's CSV files)
// form one group for leave-one-source-out validation, whatever the anchor,
// commit, file name or note.
TEST(PlanMeasurements, SourceGroupIsTheRepositoryFolder) {
  EXPECT_EQ(
      source_group(
          "https://github.com/NVIDIA/DeepLearningExamples/blob/9de48bc9ca8ce635960620478a39dd332ed74ff6/"
          "TensorFlow/LanguageModeling/BERT/README.md#pre-training-training-performance-single-node-on-dgx-1-16gb"),
      "NVIDIA/DeepLearningExamples/TensorFlow/LanguageModeling/BERT");
  EXPECT_EQ(
      source_group(
          "https://github.com/LambdaColdStorage/lambda-tensorflow-benchmark/blob/e086e0e7d88a19991642d0774793693d4b7cbe46/"
          "tf-train-throughput-fp16.csv (batch sizes: tf-train-bs-fp16.csv)"),
      "LambdaColdStorage/lambda-tensorflow-benchmark");
  // A row read from one of the same repository's raw logs cites the logs
  // folder with the log in the note: the same publication, so the same group.
  EXPECT_EQ(
      source_group(
          "https://github.com/LambdaColdStorage/lambda-tensorflow-benchmark/tree/e086e0e7d88a19991642d0774793693d4b7cbe46/"
          "logs (Gold_6230-GeForce_RTX_2080_Ti_trt_TF2_2.logs/syn-replicated-fp16-1gpus/resnet50-128/throughput/1)"),
      "LambdaColdStorage/lambda-tensorflow-benchmark");
  EXPECT_EQ(source_group("google-research/bert:README.md@eedf5716ce1268e56f0a50264a88cafad334ac61"),
            "google-research/bert");
  EXPECT_EQ(source_group(
                "NVIDIA/DeepLearningExamples:TensorFlow2/Classification/ConvNets/efficientnet_v1/B0/training/AMP/"
                "train_benchmark_8xA100-80G.sh@2132ae7b022e665507251dadc571b2677f04db1e (--train_batch_size per GPU)"),
            "NVIDIA/DeepLearningExamples/TensorFlow2/Classification/ConvNets/efficientnet_v1/B0/training/AMP");
  EXPECT_EQ(source_group("https://www.example.org/blog/2020/rtx-3090-benchmarks.html"), "www.example.org/blog/2020");
  // An issue thread: one group per reporter (their own machine and run), never
  // one for the whole thread; the reporter is the "@login" of the note.
  EXPECT_EQ(
      source_group("https://github.com/tensorflow/benchmarks/issues/67#issuecomment-336838410 (comment by @adeagle, "
                   "2017-10-16)"),
      "tensorflow/benchmarks/issues/67 @adeagle");
  EXPECT_EQ(source_group("https://github.com/tensorflow/benchmarks/issues/67 (comment by @someone-else, 2017-10-17)"),
            "tensorflow/benchmarks/issues/67 @someone-else");
  EXPECT_EQ(source_group("https://github.com/tensorflow/benchmarks/pull/63 (description by @tfboyd, 2017-10-05)"),
            "tensorflow/benchmarks/pull/63 @tfboyd");
  // The embedded rows come from several groups.
  std::set<std::string> groups;
  for (const ThroughputRow& r : builtin_measurements().throughput) groups.insert(source_group(r.source));
  EXPECT_GE(groups.size(), 8u);
}

// Issue 29: a published row is used as measured only in the conditions it
// was measured in. NVIDIA's TF1 ResNet-50 tables ran with XLA (1270 img/s,
// AMP, V100 16GB, batch 256); a plan without XLA does not get that figure
// back as "measured", and basis_detail names the row and why.
TEST(PlanMeasurements, MeasuredLookupRespectsXlaBatchAndGeneration) {
  const auto gpus = fixture_gpus();
  const GpuCandidate& h100 = fixture(gpus, "h100-sxm5");
  auto with = [](nlohmann::json r, const char* key, nlohmann::json v) {
    r[key] = std::move(v);
    return r;
  };
  auto model_of = [](const nlohmann::json& rows) {
    auto m = parse_measurements({{"throughput", rows}, {"batch_limits", nlohmann::json::array()}});
    EXPECT_TRUE(m) << m.error().to_string();
    ThroughputModel model;
    model.rows = m ? m->throughput : std::vector<ThroughputRow>{};
    model.calibration = default_calibration();
    return model;
  };
  const Workload w = model_workload("resnet50", Precision::kMixedFloat16, 256);
  // XLA differs: the model's estimate, the row named as not used.
  const auto xla_model = model_of(nlohmann::json::array({with(row("mixed_float16", 2791), "xla", true)}));
  const auto t = gpu_throughput(w, h100, xla_model);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->basis, "estimated");
  EXPECT_NE(t->samples_per_s, 2791.0);
  EXPECT_NE(core::english(t->detail).find("not used: XLA on (request: off)"), std::string::npos)
      << core::english(t->detail);
  Workload wx = w;
  wx.xla = true;
  const auto tx = gpu_throughput(wx, h100, xla_model);
  ASSERT_TRUE(tx);
  EXPECT_EQ(tx->basis, "measured");
  EXPECT_DOUBLE_EQ(tx->samples_per_s, 2791.0);
  // TensorFlow 1.x: not taken for the TensorFlow 2 the plan is for.
  const auto tf1 = gpu_throughput(
      w, h100,
      model_of(nlohmann::json::array(
          {with(row("mixed_float16", 2791), "framework_detail", "TensorFlow 1.15 (NGC tensorflow:20.06-tf1-py3)")})));
  ASSERT_TRUE(tf1);
  EXPECT_EQ(tf1->basis, "estimated");
  EXPECT_NE(core::english(tf1->detail).find("TensorFlow 1.15"), std::string::npos) << core::english(tf1->detail);
  // Batch 24 for a plan at 256: the row times the model's batch factor (> 1:
  // the step's update spread over more samples), and the detail says so.
  const auto small_row = model_of(nlohmann::json::array({with(row("mixed_float16", 2000), "batch", 24)}));
  const auto tb = gpu_throughput(w, h100, small_row);
  ASSERT_TRUE(tb);
  EXPECT_EQ(tb->basis, "estimated");
  EXPECT_GT(tb->samples_per_s, 2000.0);
  EXPECT_NE(core::english(tb->detail).find("batch factor"), std::string::npos) << core::english(tb->detail);
  EXPECT_LT(tb->low, tb->samples_per_s);
  EXPECT_GT(tb->high, tb->samples_per_s);
  // Within the stated factor (2x) the row is taken as measured.
  const auto near =
      gpu_throughput(w, h100, model_of(nlohmann::json::array({with(row("mixed_float16", 2000), "batch", 160)})));
  ASSERT_TRUE(near);
  EXPECT_EQ(near->basis, "measured");
  EXPECT_DOUBLE_EQ(near->samples_per_s, 2000.0);
}

// The embedded NVIDIA TF1 ResNet-50 row (V100 16GB, AMP + XLA, 1270 img/s)
// is no answer for a TensorFlow 2 plan without XLA. Since the fifth corpus
// extension the corpus has TensorFlow 2 rows of that GPU without XLA (OneFlow's
// DLPerf runs of the Model Garden ResNet-50, batch 128-320): those answer it.
TEST(PlanMeasurements, EmbeddedXlaRowIsNotMeasuredForAPlanWithoutXla) {
  const auto gpus = fixture_gpus();
  const GpuCandidate& v100 = fixture(gpus, "tesla-v100-sxm2-16gb");
  const auto t =
      gpu_throughput(model_workload("resnet50", Precision::kMixedFloat16, 256), v100, builtin_throughput_model());
  ASSERT_TRUE(t);
  EXPECT_NE(t->samples_per_s, 1270.0) << core::english(t->detail);
  if (t->basis == "measured") {
    EXPECT_NE(core::english(t->detail).find("XLA off"), std::string::npos) << core::english(t->detail);
    EXPECT_EQ(core::english(t->detail).find("nvidia-dgx-1-8x-v100-16g"), std::string::npos) << core::english(t->detail);
  } else {
    EXPECT_NE(core::english(t->detail).find("not used"), std::string::npos) << core::english(t->detail);
  }
}

// Issue 29, part 5: every TensorFlow row says when its software stack was
// released and how that was derived; the fitted stack-age factor is applied
// to a published row's own stack in validation, never to a plan (today's
// stack, the reference year: factor 1).
TEST(PlanMeasurements, EveryTensorFlowRowHasAStackYearAndThePlanUsesTodays) {
  const Measurements& m = builtin_measurements();
  double newest = 0;
  for (const ThroughputRow& r : m.throughput) {
    if (r.framework != "tensorflow") continue;
    EXPECT_GE(r.stack_year, 2015.0) << r.table_row << " " << r.source;
    EXPECT_FALSE(r.stack_year_basis.empty()) << r.table_row << " " << r.source;
    newest = std::max(newest, r.stack_year);
  }
  const Calibration& c = builtin_throughput_model().calibration;
  EXPECT_DOUBLE_EQ(c.reference_year, newest);
  EXPECT_DOUBLE_EQ(stack_factor(c, 0), 1.0);
  EXPECT_DOUBLE_EQ(stack_factor(c, c.reference_year), 1.0);
  // A stack two years older: the fitted factor per year, squared.
  EXPECT_NEAR(stack_factor(c, c.reference_year - 2), 1.0 / (c.stack_factor_per_year * c.stack_factor_per_year), 1e-12);
  const auto gpus = fixture_gpus();
  const GpuCandidate& v100 = fixture(gpus, "tesla-v100-sxm2-16gb");
  const Workload w = model_workload("resnet50", Precision::kMixedFloat16, 256);
  const auto today = estimate_throughput(w, v100, c);
  const auto at_reference = estimate_throughput(w, v100, c, 1, c.reference_year);
  const auto old = estimate_throughput(w, v100, c, 1, 2017.375);
  ASSERT_TRUE(today && at_reference && old);
  EXPECT_DOUBLE_EQ(today->samples_per_s, at_reference->samples_per_s);
  EXPECT_EQ(today->detail, at_reference->detail);
  EXPECT_NEAR(old->samples_per_s / today->samples_per_s, stack_factor(c, 2017.375), 1e-9);
  EXPECT_NE(core::english(old->detail).find("2017.4"), std::string::npos) << core::english(old->detail);
  // A stack_year without its derivation is a bad row naming the field.
  nlohmann::json r = row("fp32", 100);
  r["stack_year"] = 2019.625;
  auto bad =
      parse_measurements({{"throughput", nlohmann::json::array({r})}, {"batch_limits", nlohmann::json::array()}});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().to_string().find("stack_year_basis"), std::string::npos) << bad.error().to_string();
  r["stack_year_basis"] = "NGC tensorflow:19.08";
  r["stack_year"] = 1999;
  bad = parse_measurements({{"throughput", nlohmann::json::array({r})}, {"batch_limits", nlohmann::json::array()}});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().to_string().find("stack_year"), std::string::npos) << bad.error().to_string();
}

}  // namespace
}  // namespace tfrig::plan
