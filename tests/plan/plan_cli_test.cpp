// The tfrig binary's plan command end to end.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace tfrig {
namespace {

TEST(PlanCli, ResNet50JsonContract) {
  auto r = test::run_tfrig(
      {"plan", "--model", "resnet50", "--batch", "256", "--precision", "mixed_float16", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["memory"]["total_bytes"].get<uint64_t>(), 0u);
  ASSERT_FALSE(j["gpus"].empty());
  EXPECT_TRUE(j["gpus"][0]["fits"].get<bool>());
  EXPECT_FALSE(j["server"].is_null());
}

TEST(PlanCli, TextAndMarkdown) {
  auto t = test::run_tfrig({"plan", "--model", "gpt2", "--batch", "8", "--top", "3"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("GPU memory of one replica"), std::string::npos);
  EXPECT_NE(t.out.find("Balanced server"), std::string::npos);
  auto m = test::run_tfrig(
      {"plan", "--model", "vit_b16", "--format", "markdown", "--price-per-hour", "2.5", "--storage-separate"});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_NE(m.out.find("| **total** |"), std::string::npos);
  EXPECT_NE(m.out.find("Network"), std::string::npos);
}

// --accumulation-steps: one float32 accumulator per trainable variable on a
// line of its own, in the JSON's gradients term, and no effect at 1.
TEST(PlanCli, GradientAccumulationAddsItsAccumulators) {
  const std::vector<std::string> base = {"plan", "--model",     "bert_large",    "--seq-len", "128", "--batch",
                                         "16",   "--precision", "mixed_float16", "--format",  "json"};
  auto plain = test::run_tfrig(base);
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--accumulation-steps", "256"});
  auto accumulated = test::run_tfrig(args);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(accumulated.exit_code, 0) << accumulated.err;
  const auto p = nlohmann::json::parse(plain.out);
  const auto a = nlohmann::json::parse(accumulated.out);
  EXPECT_EQ(a["accumulation_steps"].get<int>(), 256);
  EXPECT_EQ(a["memory"]["gradients_bytes"].get<uint64_t>() - p["memory"]["gradients_bytes"].get<uint64_t>(),
            a["model"]["trainable_params"].get<uint64_t>() * 4);
  auto text = test::run_tfrig({"plan", "--model", "bert_large", "--batch", "16", "--accumulation-steps", "256"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("gradient accumulators"), std::string::npos);
  EXPECT_NE(text.out.find("summed over 256 batches"), std::string::npos);
  EXPECT_EQ(test::run_tfrig({"plan", "--model", "bert_large", "--accumulation-steps", "0"}).exit_code, 64);
}

TEST(PlanCli, KerasSummary) {
  auto r = test::run_tfrig({"plan", "--keras-summary", test::data_dir() + "/keras_summary/keras3_box_functional.txt",
                            "--batch", "128", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["model"]["params"].get<uint64_t>(), 372234u);
}

TEST(PlanCli, UsageErrors) {
  EXPECT_EQ(test::run_tfrig({"plan"}).exit_code, 64);
  EXPECT_EQ(test::run_tfrig({"plan", "--model", "nope"}).exit_code, 64);
  EXPECT_EQ(test::run_tfrig({"plan", "--model", "resnet50", "--precision", "fp8"}).exit_code, 64);
  EXPECT_EQ(test::run_tfrig({"plan", "--keras-summary", "/nonexistent/summary.txt"}).exit_code, 66);
  EXPECT_EQ(test::run_tfrig({"plan", "--keras-summary", test::data_dir() + "/keras_summary/README.md"}).exit_code, 65);
  auto list = test::run_tfrig({"plan", "--list-models"});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find("llama_13b"), std::string::npos);
}

// --knowledge DIR with a plan_measurements.json: its rows are the measured
// ones and the calibration is refitted on them; a bad row is named.
TEST(PlanCli, KnowledgeDirReplacesTheMeasurements) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tfrig-plan-knowledge-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  nlohmann::json row = {{"model", "resnet50"},
                        {"image_size", 224},
                        {"seq_len", 0},
                        {"framework", "tensorflow"},
                        {"precision", "mixed_float16"},
                        {"gpu_id", "rtx-4090"},
                        {"gpu_count", 1},
                        {"batch", 256},
                        {"samples_per_s", 1234.0},
                        {"source", "example/repo:README.md@0123456789012345678901234567890123456789"}};
  nlohmann::json doc = {{"schema", "tfrig.knowledge.plan_measurements/1"},
                        {"throughput", nlohmann::json::array({row})},
                        {"batch_limits", nlohmann::json::array()}};
  const std::string file = (dir / "plan_measurements.json").string();
  test::write_file(file, doc.dump());
  // At the row's batch: a row is measured only within 2x of the plan's batch per GPU.
  auto r = test::run_tfrig({"--knowledge", dir.string(), "plan", "--model", "resnet50", "--batch", "256", "--precision",
                            "mixed_float16", "--format", "json", "--all"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  bool seen = false;
  const nlohmann::json plan = nlohmann::json::parse(r.out);
  for (const auto& g : plan["gpus"]) {
    if (g["id"] != "rtx-4090") continue;
    seen = true;
    EXPECT_EQ(g["basis"], "measured");
    EXPECT_DOUBLE_EQ(g["est_samples_per_s_per_gpu"].get<double>(), 1234.0);
    EXPECT_EQ(g["math"], "FP16 tensor");
  }
  EXPECT_TRUE(seen);
  doc["throughput"][0]["precision"] = "AMP mixed precision";
  test::write_file(file, doc.dump());
  auto bad = test::run_tfrig({"--knowledge", dir.string(), "plan", "--model", "resnet50"});
  EXPECT_EQ(bad.exit_code, 65);
  EXPECT_NE(bad.err.find(file + ": throughput[0].precision"), std::string::npos) << bad.err;
  std::filesystem::remove_all(dir);
}

TEST(PlanCli, HereOnAFixtureRoot) {
  for (const std::string& name : test::root_names()) {
    auto r =
        test::run_tfrig({"--root", test::root_dir(name), "plan", "--model", "resnet50", "--here", "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_TRUE(j.contains("machine")) << name;
    EXPECT_FALSE(j["machine"]["staves"].empty()) << name;
    break;  // one root is enough here; the others are covered by doctor
  }
}

}  // namespace
}  // namespace tfrig
