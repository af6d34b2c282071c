// The errors of `tfrig plan` and `tfrig pipeline` in Chinese: for each bad
// command line the exit code is the one English gives, the message is Chinese
// and still names the option, file or field at fault, and English is unchanged.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/i18n.h"
#include "plan/measurements.h"
#include "test_support.h"

namespace tfrig {
namespace {

// Every locale variable set, so the caller's own environment never decides.
test::RunOptions c_locale(const std::string& cwd) {
  test::RunOptions o;
  o.cwd = cwd;
  o.env = {"LANGUAGE=", "LC_ALL=", "LC_MESSAGES=", "LANG=C"};
  return o;
}

// True when the text holds a CJK ideograph (U+4E00..U+9FFF: E4..E9 lead bytes).
bool has_chinese(const std::string& s) {
  for (size_t i = 0; i + 2 < s.size(); ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b >= 0xE4 && b <= 0xE9 && (static_cast<unsigned char>(s[i + 1]) & 0xC0) == 0x80) return true;
  }
  return false;
}

struct BadLine {
  std::vector<std::string> args;
  int exit_code;
  std::string names;    // the option, file or field the message must name (both languages)
  std::string chinese;  // a phrase of the Chinese message
  std::string english;  // a phrase of the English message, as it was before translation
};

// Bad input files, each wrong in one place.
struct BadFiles {
  test::TempDir dir;
  BadFiles() {
    test::write_file(dir.file("summary.txt"), "hello, not a model.summary()\n");
    test::write_file(dir.file("pipeline.json"), "{}\n");
    test::write_file(dir.file("stages.json"), R"({"stages": [{"name": "decode", "samples_per_s": -1}]})");
    test::write_file(dir.file("gpus.yaml"), "gpus: [1, 2]\n");
    test::write_file(dir.file("field.yaml"), "currency: USD\ncolour: red\n");
    test::write_file(dir.file("syntax.yaml"), "gpus: [\n");
    test::write_file(dir.file("hours.yaml"), "hours_per_month: 9999\n");
    test::write_file(dir.file("billing.yaml"), "billing: per_fortnight\n");
    test::write_file(dir.file("neither.yaml"), "gpus:\n  \"NVIDIA GeForce RTX 4090\": {note: cheap}\n");
  }
};

std::vector<BadLine> bad_plan_lines() {
  const std::vector<std::string> r50 = {"plan", "--model", "resnet50"};
  auto with = [&r50](std::vector<std::string> more) {
    std::vector<std::string> a = r50;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  return {
      {{"plan", "--model", "nosuch"}, 64, "--model", "未知模型“nosuch”", "unknown model 'nosuch'"},
      {{"plan", "--model", "resnet50", "--params", "1000"}, 64, "--params", "只能给一个", "give exactly one of"},
      {with({"--precision", "fp8"}), 64, "--precision", "应为 fp32", "expected fp32"},
      {with({"--optimizer", "lion"}), 64, "--optimizer", "应为 sgd", "expected sgd"},
      {with({"--recompute", "half"}), 64, "--recompute", "应为 none", "expected none"},
      {with({"--batch", "0"}), 64, "--batch", "之间的整数", "is not a whole number from 1 to"},
      {with({"--sample-bytes", "zz"}), 64, "--sample-bytes", "值“zz”不是大小", "value 'zz' is not a size"},
      {with({"--epochs", "1", "--deadline", "3x"}), 64, "--deadline", "应为时长", "expected a duration"},
      {with({"--epochs", "1", "--steps", "10"}), 64, "--steps", "只能给一个", "not both"},
      {with({"--rent", "NVIDIA GeForce RTX 4090=1"}), 64, "--epochs", "需要训练的长度", "need the length of the run"},
      {with({"--rent", "no price"}), 64, "--rent", "GPU 名称=价格", "GPU NAME=PRICE"},
      {with({"--buy", "RTX=lots"}), 64, "--buy", "实际价格为“lots”", "found price 'lots'"},
      {{"plan", "--model", "vit_b16", "--image-size", "100"}, 64, "--image-size", "整数倍", "multiple of its patch size 16"},
      {{"plan", "--model", "bert_base", "--seq-len", "2000000"}, 64, "--seq-len", "序列长度应在", "expected a sequence length"},
      {{"plan", "--keras-summary", "summary.txt"}, 65, "summary.txt", "没有找到层的行", "no layer rows found"},
      {with({"--epochs", "1", "--pipeline", "pipeline.json"}), 65, "pipeline.json: stages", "缺失", "missing"},
      {with({"--epochs", "1", "--pipeline", "stages.json"}), 65, "stages.json: stages[0].samples_per_s", "速率应不小于 0", "expected a rate of 0 or more"},
      {with({"--epochs", "1", "--prices", "gpus.yaml"}), 65, "gpus.yaml: gpus", "应为从 GPU 名称到其价格的映射", "expected a map from GPU name"},
      {with({"--epochs", "1", "--prices", "field.yaml"}), 65, "field.yaml: colour", "未知字段", "unknown field"},
      {with({"--epochs", "1", "--prices", "syntax.yaml"}), 65, "syntax.yaml:", "不是有效的 YAML", "not valid YAML"},
      {with({"--epochs", "1", "--prices", "hours.yaml"}), 65, "hours.yaml: hours_per_month", "之间的数字", "expected a number from 0 to 744"},
      {with({"--epochs", "1", "--prices", "billing.yaml"}), 65, "billing.yaml: billing", "应为 per_second", "expected per_second"},
      {with({"--epochs", "1", "--prices", "neither.yaml"}), 65, "neither.yaml: gpus.NVIDIA GeForce RTX 4090", "rent_per_hour、rent_per_month 和 purchase 一个都没有",
       "gives none of"},
  };
}

std::vector<BadLine> bad_pipeline_lines() {
  const std::string gpu = "NVIDIA GeForce RTX 4090";
  return {
      {{"pipeline", "--data", ".", "--model", "resnet50", "--samples-per-s", "10"}, 64, "--samples-per-s", "只能给一个", "not both"},
      {{"pipeline", "--data", ".", "--gpu", "nosuch", "--model", "resnet50"}, 64, "--gpu", "“nosuch”", "'nosuch' is not in the GPU catalog"},
      {{"pipeline", "--data", ".", "--gpu", gpu, "--model", "nosuch"}, 64, "--model", "“nosuch”", "'nosuch' is not a built-in model"},
      {{"pipeline", "--data", "no-such-dir", "--samples-per-s", "10"}, 66, "no-such-dir", "不是目录", "not a directory"},
      {{"pipeline", "--data", ".", "--samples-per-s", "10", "--rent", "no price"}, 64, "--rent", "GPU 名称=价格", "GPU NAME=PRICE"},
      {{"pipeline", "--data", ".", "--samples-per-s", "10", "--rent", gpu + "=1"}, 64, "--epochs", "训练长度", "needs its length"},
      {{"pipeline", "--data", ".", "--samples-per-s", "10", "--epochs", "1", "--prices", "field.yaml"}, 65, "field.yaml: colour", "未知字段",
       "unknown field"},
  };
}

void expect_translated(const BadLine& line, const std::string& cwd) {
  std::string shown;
  for (const auto& a : line.args) shown += a + " ";
  SCOPED_TRACE(shown);
  std::vector<std::string> zh_args = {"--lang", "zh_CN"};
  zh_args.insert(zh_args.end(), line.args.begin(), line.args.end());
  const auto en = test::run_tfrig(line.args, c_locale(cwd));
  const auto zh = test::run_tfrig(zh_args, c_locale(cwd));
  EXPECT_EQ(en.exit_code, line.exit_code) << en.err;
  EXPECT_EQ(zh.exit_code, en.exit_code) << zh.err;
  EXPECT_TRUE(en.out.empty() && zh.out.empty()) << en.out << zh.out;
  EXPECT_NE(en.err.find(line.names), std::string::npos) << en.err;
  EXPECT_NE(en.err.find(line.english), std::string::npos) << en.err;
  EXPECT_FALSE(has_chinese(en.err)) << en.err;
  // A value refused while the options are read (CLI11's check) says 选项; one refused later, 错误：.
  EXPECT_TRUE(zh.err.find("错误：") != std::string::npos || zh.err.find("tfrig: 选项 ") != std::string::npos) << zh.err;
  EXPECT_NE(zh.err.find(line.names), std::string::npos) << zh.err;
  EXPECT_NE(zh.err.find(line.chinese), std::string::npos) << zh.err;
  EXPECT_EQ(zh.err.find(line.english), std::string::npos) << zh.err;
}

TEST(PlanErrorsI18n, BadPlanCommandLinesFailTheSameWayInChinese) {
  BadFiles files;
  for (const BadLine& line : bad_plan_lines()) expect_translated(line, files.dir.path());
}

TEST(PlanErrorsI18n, BadPipelineCommandLinesFailTheSameWayInChinese) {
  BadFiles files;
  for (const BadLine& line : bad_pipeline_lines()) expect_translated(line, files.dir.path());
}

TEST(PlanErrorsI18n, ListModelsInChineseKeepsIdsAndColumns) {
  const auto en = test::run_tfrig({"plan", "--list-models"}, c_locale(""));
  const auto zh = test::run_tfrig({"--lang", "zh_CN", "plan", "--list-models"}, c_locale(""));
  ASSERT_EQ(en.exit_code, 0) << en.err;
  ASSERT_EQ(zh.exit_code, 0) << zh.err;
  EXPECT_NE(en.out.find("Built-in models (--model):\n  resnet50         ResNet-50              25636712 params  224 px\n"), std::string::npos)
      << en.out;
  EXPECT_NE(zh.out.find("内置模型（--model）：\n  resnet50         ResNet-50              25636712 个参数  224 像素\n"), std::string::npos) << zh.out;
  EXPECT_NE(zh.out.find("bert_base"), std::string::npos) << zh.out;
}

// The measurements file that --knowledge may bring: its errors name the row and field.
TEST(PlanErrorsI18n, MeasurementsFileErrorsNameTheRowInChinese) {
  const auto doc = nlohmann::json::parse(R"({"throughput": [{"model": "resnet50", "gpu_id": "rtx-4090", "gpu_count": 1,
      "framework": "tf", "precision": "fp8", "source": "x", "image_size": 224, "seq_len": 0, "samples_per_s": 100}], "batch_limits": []})");
  const auto en = plan::parse_measurements(doc);
  core::i18n::set_language("zh_CN");
  const auto zh = plan::parse_measurements(doc);
  core::i18n::set_language("en");
  ASSERT_FALSE(en.has_value());
  ASSERT_FALSE(zh.has_value());
  EXPECT_EQ(zh.error().where, en.error().where);
  EXPECT_NE(en.error().where.find("throughput[0].precision"), std::string::npos) << en.error().to_string();
  EXPECT_EQ(en.error().message, "expected fp32, tf32 or mixed_float16, found \"fp8\"");
  EXPECT_EQ(zh.error().message, "应为 fp32、tf32 或 mixed_float16，实际为“fp8”");
}

}  // namespace
}  // namespace tfrig
