// Regression tests for the knowledge audit (issue 33, docs/knowledge-audit.md):
// the corrected rows stay corrected, every measurement source says how it was
// checked, and a fact the knowledge base marks uncertain reaches the reader as
// uncertain (compat text and JSON), with how to settle it on the machine.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "knowledge/compat.h"
#include "knowledge/knowledge.h"
#include "test_paths.h"

namespace tfrig::knowledge {
namespace {

using core::Version;
using nlohmann::json;

json data_file(const char* name) {
  const auto path = std::filesystem::path(TFRIG_TEST_DATA).parent_path().parent_path() / "data" / "knowledge" / name;
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ---- plan_measurements.json: the rows the audit corrected ----

TEST(KnowledgeAudit, LambdaV100RowsAreSxm3WithoutXla) {
  // LambdaColdStorage/lambda-tensorflow-benchmark@e086e0e7: the 'V100 32GB' CSV
  // rows come from logs/Platinum-Tesla_V100-SXM3-32GB_HP16_TF2_2.logs (TF 2.2.0,
  // no "Compiled cluster using XLA!"); the other systems' logs do compile with XLA.
  const json doc = data_file("plan_measurements.json");
  size_t v100 = 0, others = 0;
  for (const char* kind : {"throughput", "batch_limits"}) {
    for (const auto& r : doc[kind]) {
      const std::string source = r["source"];
      if (!contains(source, "lambda-tensorflow-benchmark")) continue;
      // The CSV rows the audit checked; the raw-log rows of issue 29's second extension
      // (logs/...) carry each log's own XLA setting.
      if (!contains(source, ".csv")) continue;
      const std::string table_row = r["table_row"];
      if (table_row.rfind("V100 32GB,", 0) == 0) {
        ++v100;
        EXPECT_FALSE(r["xla"].get<bool>()) << kind << " " << table_row;
        EXPECT_EQ(r["gpu_id"], "tesla-v100-sxm2-32gb") << table_row;
        EXPECT_TRUE(contains(r["gpu"].get<std::string>(), "SXM3")) << r["gpu"];
        EXPECT_TRUE(contains(r["framework_detail"].get<std::string>(), "2.2.0")) << r["framework_detail"];
      } else {
        ++others;
        EXPECT_TRUE(r["xla"].get<bool>()) << kind << " " << table_row;
      }
    }
  }
  EXPECT_EQ(v100, 16u);    // throughput 150 157 185 186 199 200 243 250, batch limits 45 51 78 79 92 93 136 143
  EXPECT_EQ(others, 94u);  // 110 Lambda TensorFlow rows in all
}

TEST(KnowledgeAudit, ElectraRowsHaveXlaOnlyWithAmp) {
  // DeepLearningExamples@49e23b45 ELECTRA scripts/run_squad.sh: `--amp --xla` only when precision is amp.
  const json doc = data_file("plan_measurements.json");
  size_t n = 0;
  for (const char* kind : {"throughput", "batch_limits"}) {
    for (const auto& r : doc[kind]) {
      if (!contains(r["source"].get<std::string>(), "ELECTRA/README.md")) continue;
      ++n;
      EXPECT_EQ(r["xla"].get<bool>(), r["precision"] == "mixed_float16") << kind << " " << r["table_row"];
    }
  }
  // 12 rows of the 20.07 README (49e23b45) and 3 of the 20.06 one (5d36b4fd), whose run_squad.sh does the same.
  EXPECT_EQ(n, 15u);
}

TEST(KnowledgeAudit, EfficientNetTf32ScriptKeepsItsLeadingSpace) {
  // NVIDIA's file is "B0/training/TF32/ train_benchmark_8xA100-80G.sh" (a space first).
  const auto& k = builtin();
  const MeasurementSource* src = nullptr;
  for (const auto& s : k.measurement_sources()) {
    if (contains(s.path, "B0/training/TF32/")) src = &s;
  }
  ASSERT_NE(src, nullptr);
  EXPECT_TRUE(contains(src->path, "TF32/ train_benchmark_8xA100-80G.sh")) << src->path;
  EXPECT_TRUE(contains(src->url, "TF32/%20train_benchmark_8xA100-80G.sh")) << src->url;
  const json doc = data_file("plan_measurements.json");
  size_t cited = 0;
  for (const auto& r : doc["batch_limits"]) {
    if (src->cites(r["source"].get<std::string>())) {
      ++cited;
      EXPECT_TRUE(contains(r["source"].get<std::string>(), "https://github.com/NVIDIA/DeepLearningExamples/blob/")) << r["source"];
    }
  }
  EXPECT_EQ(cited, 1u);
}

TEST(KnowledgeAudit, EveryRowCitesExactlyOneSourceThatSaysHowItWasChecked) {
  const auto& k = builtin();
  const json doc = data_file("plan_measurements.json");
  std::map<std::string, size_t> per_source;
  for (const char* kind : {"throughput", "batch_limits"}) {
    for (size_t i = 0; i < doc[kind].size(); ++i) {
      const json& r = doc[kind][i];
      const std::string source = r["source"];
      size_t n = 0;
      for (const auto& s : k.measurement_sources()) n += s.cites(source) ? 1 : 0;
      EXPECT_EQ(n, 1u) << kind << "[" << i << "] " << source;
      const MeasurementSource* s = k.measurement_source_for(source);
      if (!s) continue;
      ++per_source[s->id];
      // No TensorFlow row -- what plan calibrates on and quotes as "measured" --
      // comes from a source nobody re-checked.
      if (r["framework"] == "tensorflow") {
        EXPECT_TRUE(s->verified_at_all()) << s->id;
      }
    }
  }
  for (size_t i = 0; i < doc["sources"].size(); ++i) {
    const json& s = doc["sources"][i];
    ASSERT_TRUE(s.contains("verified")) << s["id"];
    EXPECT_FALSE(s["verified"].value("note", "").empty()) << s["id"];
    const auto& m = k.measurement_sources()[i];
    // The counts docs/knowledge-audit.md reports are the rows the source has.
    if (m.verified_at_all()) {
      EXPECT_EQ(m.rows_checked, per_source[m.id]) << m.id;
    }
    EXPECT_LE(m.rows_changed, per_source[m.id]) << m.id;
  }
}

TEST(KnowledgeAudit, VerificationMethodIsValidatedAtLoad) {
  json doc = data_file("plan_measurements.json");
  doc["sources"][2]["verified"]["method"] = "looked fine";
  auto bad = parse_measurement_sources(doc, "plan_measurements.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "plan_measurements.json: sources[2].verified.method");
  doc["sources"][2]["verified"] = json{{"method", "readme"}, {"rows_checked", -3}};
  bad = parse_measurement_sources(doc, "plan_measurements.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "plan_measurements.json: sources[2].verified.rows_checked");
  doc["sources"][2].erase("verified");
  auto ok = parse_measurement_sources(doc, "plan_measurements.json");
  ASSERT_TRUE(ok) << ok.error().to_string();
  EXPECT_EQ((*ok)[2].verified, Verification::kNone);  // no field: not verified
}

// Issue 29: a GitHub issue or pull-request comment is a source -- the thread,
// the comment's anchor (or its author and date when none is known) and the
// quoted log line -- checked at load like a file at a commit.
TEST(KnowledgeAudit, IssueCommentSourcesAreCitedAndCheckedAtLoad) {
  json doc = data_file("plan_measurements.json");
  json thread = {{"id", "tensorflow/benchmarks#67 @adeagle"},
                 {"repo", "tensorflow/benchmarks"},
                 {"thread", "issues/67"},
                 {"comment", "issuecomment-336838410"},
                 {"author", "adeagle"},
                 {"date", "2017-10-16"},
                 {"quote", "total images/sec: 82.04"},
                 {"verified", {{"method", "readme"}, {"note", "the quoted line"}}}};
  doc["sources"].push_back(thread);
  const size_t i = doc["sources"].size() - 1;
  auto ok = parse_measurement_sources(doc, "plan_measurements.json");
  ASSERT_TRUE(ok) << ok.error().to_string();
  const MeasurementSource& m = (*ok)[i];
  EXPECT_TRUE(m.is_thread());
  EXPECT_TRUE(
      m.cites("https://github.com/tensorflow/benchmarks/issues/67#issuecomment-336838410 (comment by @adeagle)"));
  EXPECT_TRUE(m.cites("https://github.com/tensorflow/benchmarks/issues/67#issuecomment-336838410"));
  EXPECT_FALSE(m.cites("https://github.com/tensorflow/benchmarks/issues/67#issuecomment-3368384100"));
  EXPECT_FALSE(m.cites("https://github.com/tensorflow/benchmarks/issues/671#issuecomment-336838410"));
  EXPECT_FALSE(m.cites("https://github.com/tensorflow/benchmarks/issues/67 (comment by @adeagle)"));
  // No anchor known: the author in the row's note names the comment.
  doc["sources"][i].erase("comment");
  ok = parse_measurement_sources(doc, "plan_measurements.json");
  ASSERT_TRUE(ok) << ok.error().to_string();
  EXPECT_TRUE((*ok)[i].cites("https://github.com/tensorflow/benchmarks/issues/67 (comment by @adeagle, 2017-10-16)"));
  EXPECT_FALSE((*ok)[i].cites("https://github.com/tensorflow/benchmarks/issues/67 (comment by @adeagle2, 2017-10-16)"));
  EXPECT_FALSE(
      (*ok)[i].cites("https://github.com/tensorflow/benchmarks/issues/67#issuecomment-1 (comment by @adeagle)"));
  // Each missing or malformed field is an error naming it.
  const std::pair<const char*, json> kBad[] = {
      {"thread", "issue/67"},       {"thread", "issues/67a"},      {"author", ""},
      {"author", "two words"},      {"date", "16 Oct 2017"},       {"quote", ""},
      {"comment", "comment-12345"}, {"commit", "0123456789abcdef"}};
  for (const auto& [key, value] : kBad) {
    json d = doc;
    d["sources"][i][key] = value;
    auto bad = parse_measurement_sources(d, "plan_measurements.json");
    ASSERT_FALSE(bad) << key;
    EXPECT_EQ(bad.error().where, "plan_measurements.json: sources[" + std::to_string(i) + "]." + key) << key;
  }
}

// Thread sources: each row names its reporter, so leave-one-source-out holds
// out one reporter's runs, and the quoted line holds the row's figure.
TEST(KnowledgeAudit, ThreadRowsNameTheirReporterAndQuoteTheirFigure) {
  const auto& k = builtin();
  const json doc = data_file("plan_measurements.json");
  for (size_t i = 0; i < doc["throughput"].size(); ++i) {
    const json& r = doc["throughput"][i];
    const MeasurementSource* s = k.measurement_source_for(r["source"].get<std::string>());
    if (!s || !s->is_thread()) continue;
    EXPECT_TRUE(contains(r["source"].get<std::string>(), "@" + s->author)) << i;
    EXPECT_TRUE(contains(s->quote, fmt::format("{}", r["samples_per_s"].get<double>()))) << i << " " << s->id;
  }
}

// ---- gpus.json ----

TEST(KnowledgeAudit, A16PowerIsPerGpuLikeTheRestOfItsRow) {
  // NVIDIA A16 datasheet: 250 W maximum for the board of four GPUs; NVML shows four devices.
  auto m = builtin().find_gpu("NVIDIA A16");
  ASSERT_TRUE(m && m->spec);
  ASSERT_TRUE(m->spec->tdp_w);
  EXPECT_DOUBLE_EQ(*m->spec->tdp_w, 62.5);
  ASSERT_TRUE(m->spec->vram_gib);
  EXPECT_DOUBLE_EQ(*m->spec->vram_gib, 16);  // per GPU too
}

TEST(KnowledgeAudit, H800Fp32StaysNullWithItsReasonInTheData) {
  const json doc = data_file("gpus.json");
  bool found = false;
  for (const auto& g : doc["gpus"]) {
    if (g["id"] != "h800-sxm5") continue;
    found = true;
    EXPECT_TRUE(g["fp32_tflops"].is_null());
    ASSERT_TRUE(g.contains("null_reasons")) << g.dump();
    EXPECT_TRUE(contains(g["null_reasons"]["fp32_tflops"].get<std::string>(), "primary"));
  }
  EXPECT_TRUE(found);
}

// ---- the GPUs sold in China (issue 31) ----

// Each row is found by the PCI id and NVML name NVIDIA's open kernel modules
// list for it (ogkm), cites its sources, and every peak it leaves null says
// why (no figure of another card stands in).
TEST(KnowledgeAudit, ChinaMarketGpusCarrySourcesAndNullReasons) {
  const json doc = data_file("gpus.json");
  const std::pair<const char*, uint32_t> kRows[] = {
      {"rtx-4090-d", 0x2685}, {"rtx-5090-d", 0x2B87}, {"rtx-5090-d-v2", 0x2B8C}, {"h20", 0x2329}, {"l20", 0x26BA}};
  const auto& k = builtin();
  for (const auto& [id, pci] : kRows) {
    const json* row = nullptr;
    for (const auto& g : doc["gpus"]) {
      if (g["id"] == id) row = &g;
    }
    ASSERT_NE(row, nullptr) << id;
    const json& g = *row;
    auto by_pci = k.find_gpu_by_pci_id(pci);
    ASSERT_TRUE(by_pci && by_pci->spec) << id;
    EXPECT_EQ(by_pci->spec->id, id);
    for (const auto& alias : g["aliases"]) {
      auto by_name = k.find_gpu(alias.get<std::string>());
      ASSERT_TRUE(by_name && by_name->spec) << alias;
      EXPECT_EQ(by_name->spec->id, id) << alias;
    }
    ASSERT_GE(g["sources"].size(), 2u) << id;
    EXPECT_TRUE(contains(g["sources"][0].get<std::string>(), "ogkm")) << id;
    for (const char* field : {"vram_gib", "memory_bandwidth_gbs", "fp32_tflops", "fp16_tensor_tflops_dense", "bf16_tensor_tflops_dense",
                              "tf32_tensor_tflops_dense", "tdp_w"}) {
      if (!g[field].is_null()) continue;
      ASSERT_TRUE(g.contains("null_reasons") && g["null_reasons"].contains(field)) << id << " leaves " << field << " null without a reason";
      EXPECT_GT(g["null_reasons"][field].get<std::string>().size(), 10u) << id << " " << field;
    }
    // Memory, bandwidth, FP32 and board power are what plan ranks on: each is sourced.
    for (const char* field : {"vram_gib", "memory_bandwidth_gbs", "fp32_tflops", "tdp_w"}) EXPECT_TRUE(g[field].is_number()) << id << " " << field;
    if (g["segment"] == "consumer" && g["launch_price_usd"].is_null()) {
      EXPECT_TRUE(g["null_reasons"].contains("launch_price_usd")) << id << ": a GeForce card without a US MSRP says why";
    }
  }
  // The China variants are their own rows, not the global cards' figures.
  auto d = k.find_gpu("NVIDIA GeForce RTX 4090 D");
  auto full = k.find_gpu("NVIDIA GeForce RTX 4090");
  ASSERT_TRUE(d && d->spec && full && full->spec);
  EXPECT_NE(d->spec->id, full->spec->id);
  EXPECT_LT(*d->spec->fp32_tflops, *full->spec->fp32_tflops);
  EXPECT_LT(*d->spec->tdp_w, *full->spec->tdp_w);
}

// ---- uncertain kernel lists ----

TEST(KnowledgeAudit, ComputeTargetsCarrySassToo) {
  // compute_80 in the build list is sm_80 SASS plus PTX (TF cuda_configure.bzl): on
  // 2.4-2.14 an Ampere or Ada GPU runs native sm_80 code; only CC 9.0+ JIT-compiles.
  const auto& k = builtin();
  auto v = [](const char* s) { return *Version::parse(s); };
  EXPECT_EQ(k.kernel_support(v("2.14.0"), v("8.0")).detail, "sm_80 SASS");
  EXPECT_EQ(k.kernel_support(v("2.14.0"), v("8.9")).detail, "sm_80 SASS");
  EXPECT_FALSE(k.kernel_support(v("2.14.0"), v("8.6")).uncertain);
  EXPECT_EQ(k.kernel_support(v("2.14.0"), v("9.0")).support, KernelSupport::kPtxJit);
  EXPECT_EQ(k.kernel_support(v("2.17.0"), v("9.0")).detail, "sm_90 SASS");
  EXPECT_EQ(k.kernel_support(v("2.17.0"), v("12.0")).support, KernelSupport::kPtxJit);
  EXPECT_EQ(k.kernel_support(v("2.14.0"), v("8.9")).targets, "sm_35, sm_50, sm_60, sm_70, sm_75, compute_80");
}

TEST(KnowledgeAudit, Tf215NamesBothCandidateListsWhereTheyDisagree) {
  // CC 8.9: sm_80 SASS under both candidate lists -- one (uncertain) answer.
  const auto ada = builtin().kernel_support(*Version::parse("2.15.0"), *Version::parse("8.9"));
  EXPECT_TRUE(ada.uncertain);
  EXPECT_EQ(ada.support, KernelSupport::kSass);
  EXPECT_EQ(ada.detail, "sm_80 SASS");
  EXPECT_FALSE(ada.alternative);
  // CC 9.0: PTX compute_80 under the first, sm_90 SASS under the second.
  const auto hopper = builtin().kernel_support(*Version::parse("2.15.0"), *Version::parse("9.0"));
  EXPECT_TRUE(hopper.uncertain);
  EXPECT_EQ(hopper.support, KernelSupport::kPtxJit);
  ASSERT_TRUE(hopper.alternative);
  EXPECT_EQ(*hopper.alternative, KernelSupport::kSass);
  EXPECT_EQ(hopper.alternative_detail, "sm_90 SASS");
  EXPECT_EQ(hopper.targets, "sm_50, sm_60, sm_70, sm_75, compute_80");
  EXPECT_EQ(hopper.alternative_targets, "sm_50, sm_60, sm_70, sm_80, compute_90");
}

TEST(KnowledgeAudit, Compat215OnH100NamesBothOutcomes) {
  CompatQuery q;
  q.tf = "2.15";
  q.gpu = "NVIDIA H100 80GB HBM3";
  const auto a = check_compat(builtin(), q);
  const CompatCheck* g = a.find("gpu");
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(g->uncertain);
  EXPECT_TRUE(contains(core::english(g->reason), "PTX compute_80 only (JIT)")) << core::english(g->reason);
  EXPECT_TRUE(contains(core::english(g->reason), "sm_90 SASS")) << core::english(g->reason);
  EXPECT_TRUE(contains(core::english(g->reason), "sm_50, sm_60, sm_70, sm_80, compute_90")) << core::english(g->reason);
}

TEST(KnowledgeAudit, InstalledWheelListIsAuthoritative) {
  // build_info.py's cuda_compute_capabilities as TF 2.16 prints it.
  const std::vector<std::string> tf216{"sm_50", "sm_60", "sm_70", "sm_80", "compute_90"};
  auto v = kernel_support_from_targets(tf216, *Version::parse("8.9"));
  ASSERT_TRUE(v);
  EXPECT_FALSE(v->uncertain);
  EXPECT_TRUE(v->from_build_info);
  EXPECT_EQ(v->support, KernelSupport::kSass);
  EXPECT_EQ(v->detail, "sm_80 SASS");
  auto blackwell = kernel_support_from_targets({"sm_60", "sm_70", "sm_80", "sm_89", "compute_90"}, *Version::parse("12.0"));
  ASSERT_TRUE(blackwell);
  EXPECT_EQ(blackwell->support, KernelSupport::kPtxJit);
  auto big = kernel_support_from_targets({"sm_100", "compute_120"}, *Version::parse("10.0"));
  ASSERT_TRUE(big);
  EXPECT_EQ(big->detail, "sm_100 SASS");
  // compute_90 carries sm_90 SASS: an H100 runs natively on TF 2.16's list.
  auto hopper = kernel_support_from_targets(tf216, *Version::parse("9.0"));
  ASSERT_TRUE(hopper);
  EXPECT_EQ(hopper->detail, "sm_90 SASS");
  EXPECT_EQ(hopper->targets, "sm_50, sm_60, sm_70, sm_80, compute_90");
  EXPECT_FALSE(kernel_support_from_targets({"gfx90a", "sm_x"}, *Version::parse("8.0")));
}

CompatQuery gpu_query(const char* tf, const char* gpu) {
  CompatQuery q;
  q.tf = tf;
  q.gpu = gpu;
  return q;
}

TEST(KnowledgeAudit, Compat215On4090DoesNotStateTheJitFlatly) {
  const auto a = check_compat(builtin(), gpu_query("2.15", "NVIDIA GeForce RTX 4090"));
  const CompatCheck* g = a.find("gpu");
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(g->uncertain);
  EXPECT_EQ(g->verdict, "caveats");
  // The old flat sentence is gone; both outcomes and the way to check are there.
  EXPECT_FALSE(contains(core::english(g->reason), "PTX compute_80 only (JIT); the first start")) << core::english(g->reason);
  EXPECT_TRUE(contains(core::english(g->reason), "uncertain")) << core::english(g->reason);
  EXPECT_TRUE(contains(core::english(g->reason), "sm_80 SASS")) << core::english(g->reason);  // native under either candidate list
  EXPECT_FALSE(contains(core::english(g->reason), "JIT")) << core::english(g->reason);
  EXPECT_TRUE(contains(core::english(g->check), "get_build_info")) << core::english(g->check);
  EXPECT_TRUE(contains(core::english(g->check), "build_info.py")) << core::english(g->check);
  const std::string text = compat_to_text(a, "en");
  EXPECT_TRUE(contains(text, "uncertain")) << text;
  EXPECT_TRUE(contains(text, "get_build_info")) << text;
  const json j = compat_to_json(a, "en");
  bool seen = false;
  for (const auto& c : j["checks"]) {
    if (c["part"] != "gpu") continue;
    seen = true;
    EXPECT_EQ(c["uncertain"], true);
    EXPECT_TRUE(c["check"].is_string());
  }
  EXPECT_TRUE(seen);
}

TEST(KnowledgeAudit, CompatHedgesEveryInferredKernelListAndOnlyThose) {
  // 2.17's list is marked uncertain (2.20/2.21 from secondary logs): "probably".
  const auto inferred = check_compat(builtin(), gpu_query("2.17", "NVIDIA GeForce RTX 4090"));
  ASSERT_NE(inferred.find("gpu"), nullptr);
  EXPECT_TRUE(inferred.find("gpu")->uncertain);
  EXPECT_TRUE(contains(core::english(inferred.find("gpu")->reason), "probably")) << core::english(inferred.find("gpu")->reason);
  // 2.14's list is primary: the H100's JIT is stated as a fact, with no hedge.
  const auto primary = check_compat(builtin(), gpu_query("2.14", "NVIDIA H100 80GB HBM3"));
  ASSERT_NE(primary.find("gpu"), nullptr);
  EXPECT_FALSE(primary.find("gpu")->uncertain);
  EXPECT_TRUE(primary.find("gpu")->check.empty());
  EXPECT_TRUE(contains(core::english(primary.find("gpu")->reason), "PTX compute_80 only (JIT); the first start JIT-compiles every kernel"))
      << core::english(primary.find("gpu")->reason);
  EXPECT_EQ(compat_to_json(primary, "en")["checks"][1]["uncertain"], false);
}

TEST(KnowledgeAudit, MatrixJsonCarriesTheUncertaintyNextToTheKernels) {
  const json j = compat_matrix_json(builtin());
  bool seen = false;
  for (const auto& r : j["rows"]) {
    if (r["tf"] != "2.15.0") continue;
    seen = true;
    EXPECT_EQ(r["kernels_uncertain"], true);
    ASSERT_EQ(r["kernels_alternatives"].size(), 1u);
    EXPECT_EQ(r["kernels_alternatives"][0]["ptx"], json::array({"9.0"}));
  }
  EXPECT_TRUE(seen);
  EXPECT_TRUE(contains(compat_matrix_text(builtin(), "en"), "build_info.py"));
}

}  // namespace
}  // namespace tfrig::knowledge
