// tfrig compat against the published tables (table-driven):
// TensorFlow's tested builds, NVIDIA's CUDA driver minimums, the compute
// capabilities in the TF wheels, and the edges the issue names.
#include <gtest/gtest.h>

#include "knowledge/compat.h"

namespace tfrig::knowledge {
namespace {

struct CompatCase {
  const char* name;
  CompatQuery q;
  const char* part;          // the part under test
  const char* part_verdict;  // its expected verdict
  const char* overall;       // expected overall verdict, or nullptr to not check
};

CompatQuery Q(const char* tf, const char* driver = nullptr, const char* cuda = nullptr, const char* cudnn = nullptr,
              const char* gpu = nullptr, const char* python = nullptr, const char* os = nullptr) {
  auto o = [](const char* s) { return s ? std::optional<std::string>(s) : std::nullopt; };
  return CompatQuery{o(tf), o(driver), o(cuda), o(cudnn), o(gpu), o(python), o(os)};
}

const CompatCase kCompatCases[] = {
    // ---- driver: minor-version compatibility minimums (cuda_driver_minimums.yaml) ----
    {"driver_exactly_cuda12_minimum", Q("2.15", "525.60.13"), "driver", "yes", "yes"},
    {"driver_just_below_cuda12_minimum", Q("2.15", "525.60.12"), "driver", "no", "no"},
    {"driver_just_above_cuda12_minimum", Q("2.15", "525.60.14"), "driver", "yes", "yes"},
    {"driver_exactly_cuda11_minimum", Q("2.14", "450.80.02"), "driver", "yes", "yes"},
    {"driver_just_below_cuda11_minimum", Q("2.14", "450.80.01"), "driver", "no", "no"},
    {"driver_cuda11_ga_driver_is_not_enough", Q("2.14", "450.36.06"), "driver", "no", "no"},
    {"driver_470_runs_cuda_11_8", Q("2.13", "470.57.02"), "driver", "yes", "yes"},
    {"driver_535_runs_tf_2_17", Q("2.17", "535.104.05"), "driver", "yes", "yes"},
    {"driver_580_runs_cuda12_tf_2_21", Q("2.21", "580.65.06"), "driver", "yes", "yes"},
    {"driver_520_runs_tf_2_12", Q("2.12", "520.61.05"), "driver", "yes", "yes"},
    {"driver_exactly_cuda10_1_minimum", Q("2.3", "418.39"), "driver", "yes", "yes"},
    {"driver_below_cuda10_1_minimum", Q("2.3", "418.38"), "driver", "no", "no"},
    {"driver_exactly_cuda10_0_minimum", Q("2.0", "410.48"), "driver", "yes", "yes"},
    {"driver_below_cuda10_0_minimum", Q("2.0", "410.47"), "driver", "no", "no"},
    {"driver_cuda11_0_tf_2_4", Q("2.4", "450.80.02"), "driver", "yes", "yes"},
    {"driver_470_too_old_for_tf_2_18", Q("2.18", "470.82.01"), "driver", "no", "no"},
    {"tf_2_16_matches_2_16_1_row", Q("2.16", "545.23.06"), "driver", "yes", "yes"},
    {"tf_1_15_on_cuda_10_0", Q("1.15", "410.48"), "driver", "yes", "yes"},
    // ---- GPU: SASS / PTX in the wheels (tf_compute_capabilities.yaml) ----
    {"kepler_k80_on_tf_2_15", Q("2.15", nullptr, nullptr, nullptr, "Tesla K80"), "gpu", "no", "no"},
    {"kepler_k80_on_tf_2_14", Q("2.14", nullptr, nullptr, nullptr, "Tesla K80"), "gpu", "yes", "yes"},
    {"kepler_k80_on_tf_2_16", Q("2.16", nullptr, nullptr, nullptr, "Tesla K80"), "gpu", "no", "no"},
    {"kepler_k80_on_tf_2_21", Q("2.21", nullptr, nullptr, nullptr, "Tesla K80"), "gpu", "no", "no"},
    {"ada_4090_on_tf_2_17_native", Q("2.17", nullptr, nullptr, nullptr, "NVIDIA GeForce RTX 4090"), "gpu", "caveats", "caveats"},
    // compute_80 in 2.4-2.14's list builds sm_80 SASS too (TF cuda_configure.bzl): Ampere and Ada run natively.
    {"ada_4090_on_tf_2_14_runs_sm80", Q("2.14", nullptr, nullptr, nullptr, "NVIDIA GeForce RTX 4090"), "gpu", "yes", "yes"},
    {"a100_on_tf_2_14_runs_sm80", Q("2.14", nullptr, nullptr, nullptr, "NVIDIA A100-SXM4-80GB"), "gpu", "yes", "yes"},
    {"h100_on_tf_2_14_ptx_only", Q("2.14", nullptr, nullptr, nullptr, "NVIDIA H100"), "gpu", "caveats", "caveats"},
    {"h100_on_tf_2_21_sm90_inferred_list", Q("2.21", nullptr, nullptr, nullptr, "NVIDIA H100"), "gpu", "caveats", "caveats"},
    {"ada_4090_on_tf_2_15_inferred_list", Q("2.15", nullptr, nullptr, nullptr, "NVIDIA GeForce RTX 4090"), "gpu", "caveats", "caveats"},
    {"blackwell_5090_on_tf_2_21_ptx_only", Q("2.21", nullptr, nullptr, nullptr, "NVIDIA GeForce RTX 5090"), "gpu", "caveats", "caveats"},
    {"maxwell_980_on_tf_2_17_no_kernels", Q("2.17", nullptr, nullptr, nullptr, "GeForce GTX 980"), "gpu", "no", "no"},
    {"maxwell_980_on_tf_2_16", Q("2.16", nullptr, nullptr, nullptr, "GeForce GTX 980"), "gpu", "caveats", "caveats"},
    {"maxwell_750ti_on_tf_2_13", Q("2.13", nullptr, nullptr, nullptr, "GeForce GTX 750 Ti"), "gpu", "yes", "yes"},
    {"maxwell_750ti_on_tf_2_3_no_kernels", Q("2.3", nullptr, nullptr, nullptr, "GeForce GTX 750 Ti"), "gpu", "no", "no"},
    {"turing_t4_on_tf_2_17_uses_sm70", Q("2.17", nullptr, nullptr, nullptr, "NVIDIA T4"), "gpu", "caveats", "caveats"},
    {"turing_t4_on_tf_2_12", Q("2.12", nullptr, nullptr, nullptr, "NVIDIA T4"), "gpu", "yes", "yes"},
    {"volta_v100_on_tf_2_12", Q("2.12", nullptr, nullptr, nullptr, "NVIDIA V100"), "gpu", "yes", "yes"},
    {"pascal_p100_on_tf_2_12", Q("2.12", nullptr, nullptr, nullptr, "Tesla P100-PCIE-16GB"), "gpu", "yes", "yes"},
    {"cc_3_0_below_minimum", Q("2.12", nullptr, nullptr, nullptr, "cc:3.0"), "gpu", "no", "no"},
    {"pascal_cc_6_1_on_tf_2_21", Q("2.21", nullptr, nullptr, nullptr, "cc:6.1"), "gpu", "caveats", "caveats"},
    {"tf_2_1_kernel_list_unknown", Q("2.1", nullptr, nullptr, nullptr, "Tesla K80"), "gpu", "caveats", "caveats"},
    {"gpu_not_in_catalog", Q("2.15", nullptr, nullptr, nullptr, "Acme Tensor 1"), "gpu", "caveats", "caveats"},
    {"ampere_3090_on_tf_2_12_runs_sm80", Q("2.12", nullptr, nullptr, nullptr, "GeForce RTX 3090"), "gpu", "yes", "yes"},
    // ---- Python ranges (tf_build_matrix.yaml) ----
    {"python_3_11_in_tf_2_15", Q("2.15", nullptr, nullptr, nullptr, nullptr, "3.11"), "python", "yes", "yes"},
    {"python_3_12_just_above_tf_2_15", Q("2.15", nullptr, nullptr, nullptr, nullptr, "3.12"), "python", "no", "no"},
    {"python_3_8_just_below_tf_2_15", Q("2.15", nullptr, nullptr, nullptr, nullptr, "3.8"), "python", "no", "no"},
    {"python_3_9_just_below_tf_2_21", Q("2.21", nullptr, nullptr, nullptr, nullptr, "3.9"), "python", "no", "no"},
    {"python_3_13_in_tf_2_21", Q("2.21", nullptr, nullptr, nullptr, nullptr, "3.13"), "python", "yes", "yes"},
    {"python_3_9_in_tf_2_20", Q("2.20", nullptr, nullptr, nullptr, nullptr, "3.9"), "python", "yes", "yes"},
    {"python_3_8_in_tf_2_13", Q("2.13", nullptr, nullptr, nullptr, nullptr, "3.8"), "python", "yes", "yes"},
    {"python_3_12_in_tf_2_16", Q("2.16", nullptr, nullptr, nullptr, nullptr, "3.12"), "python", "yes", "yes"},
    {"python_3_11_just_above_tf_2_10", Q("2.10", nullptr, nullptr, nullptr, nullptr, "3.11"), "python", "no", "no"},
    // ---- platform ----
    {"windows_native_tf_2_10_has_gpu", Q("2.10", nullptr, nullptr, nullptr, nullptr, nullptr, "windows"), "os", "yes", "yes"},
    {"windows_native_tf_2_11_no_gpu", Q("2.11", nullptr, nullptr, nullptr, nullptr, nullptr, "windows"), "os", "no", "no"},
    {"wsl_tf_2_15", Q("2.15", nullptr, nullptr, nullptr, nullptr, nullptr, "wsl"), "os", "caveats", "caveats"},
    {"macos_no_cuda", Q("2.15", nullptr, nullptr, nullptr, nullptr, nullptr, "macos"), "os", "no", "no"},
    {"linux_tf_2_15", Q("2.15", nullptr, nullptr, nullptr, nullptr, nullptr, "linux"), "os", "yes", "yes"},
    // ---- system CUDA and cuDNN ----
    {"tf_2_11_cuda_11_2_cudnn_8_1", Q("2.11", nullptr, "11.2", "8.1"), "cuda", "yes", "yes"},
    {"tf_2_11_on_cuda_12_no_libcudart_11", Q("2.11", nullptr, "12.2"), "cuda", "no", "no"},
    {"tf_2_11_on_cuda_11_8_same_major", Q("2.11", nullptr, "11.8"), "cuda", "yes", "yes"},
    {"tf_2_11_on_cuda_11_0_older_minor", Q("2.11", nullptr, "11.0"), "cuda", "caveats", "caveats"},
    {"tf_2_15_with_system_cuda_13_uses_wheels", Q("2.15", nullptr, "13.0"), "cuda", "caveats", "caveats"},
    {"tf_2_15_on_cuda_12_2", Q("2.15", nullptr, "12.2"), "cuda", "yes", "yes"},
    {"tf_2_3_on_cuda_10_2_wrong_minor", Q("2.3", nullptr, "10.2"), "cuda", "no", "no"},
    {"tf_2_3_on_cuda_10_1", Q("2.3", nullptr, "10.1"), "cuda", "yes", "yes"},
    {"tf_2_11_cudnn_8_0_older_minor", Q("2.11", nullptr, nullptr, "8.0"), "cudnn", "no", "no"},
    {"tf_2_11_cudnn_7_6_wrong_major", Q("2.11", nullptr, nullptr, "7.6"), "cudnn", "no", "no"},
    {"tf_2_15_system_cudnn_9_shadow_risk", Q("2.15", nullptr, nullptr, "9.1"), "cudnn", "caveats", "caveats"},
    {"tf_2_18_cudnn_9_3", Q("2.18", nullptr, nullptr, "9.3"), "cudnn", "yes", "yes"},
    {"tf_2_18_system_cudnn_9_1_older_minor", Q("2.18", nullptr, nullptr, "9.1"), "cudnn", "caveats", "caveats"},
    {"tf_2_13_cudnn_8_6", Q("2.13", nullptr, nullptr, "8.6"), "cudnn", "yes", "yes"},
    {"tf_2_13_cudnn_8_9_newer_minor", Q("2.13", nullptr, nullptr, "8.9"), "cudnn", "yes", "yes"},
    {"cuda_12_2_with_driver_470", Q("2.15", "470.82.01", "12.2"), "cuda", "no", "no"},
    // ---- whole combinations ----
    {"issue_example_k80_on_tf_2_15", Q("2.15", "525.60.13", "12.2", "8.9", "Tesla K80", "3.11"), "gpu", "no", "no"},
    {"kepler_driver_branch_after_r470", Q("2.15", "525.60.13", "12.2", "8.9", "Tesla K80", "3.11"), "driver", "no", "no"},
    {"k80_tf_2_14_driver_470_python_3_11", Q("2.14", "470.82.01", nullptr, nullptr, "Tesla K80", "3.11"), "driver", "yes", "yes"},
    {"unknown_tf_release", Q("2.99"), "tf", "no", "no"},
    {"no_tf_means_newest", Q(nullptr), "tf", "yes", "yes"},
    {"a100_tf_2_21_driver_595_python_3_12", Q("2.21", "595.71.05", nullptr, nullptr, "NVIDIA A100-SXM4-80GB", "3.12"), "driver", "yes", "caveats"},
};

class CompatTest : public ::testing::TestWithParam<CompatCase> {};

TEST_P(CompatTest, AnswersFromThePublishedTables) {
  const auto& c = GetParam();
  auto a = check_compat(builtin(), c.q);
  const auto* part = a.find(c.part);
  ASSERT_NE(part, nullptr) << "no check for part " << c.part;
  EXPECT_EQ(part->verdict, c.part_verdict) << core::english(part->reason);
  EXPECT_FALSE(part->reason.empty());
  if (c.overall) {
    EXPECT_EQ(a.verdict, c.overall) << compat_to_text(a, "en");
  }
  if (a.verdict == "no") {
    EXPECT_FALSE(a.alternatives.empty());
  } else {
    EXPECT_TRUE(a.alternatives.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Published, CompatTest, ::testing::ValuesIn(kCompatCases),
                         [](const ::testing::TestParamInfo<CompatCase>& param_info) { return std::string(param_info.param.name); });

TEST(CompatTable, HasAtLeastSixtyCases) { EXPECT_GE(std::size(kCompatCases), 60u); }

std::string first_alternative(const CompatQuery& q) {
  auto a = check_compat(builtin(), q);
  return a.alternatives.empty() ? "" : core::english(a.alternatives.front());
}

TEST(CompatAlternatives, NewestTfForAnOldDriver) {
  EXPECT_NE(first_alternative(Q("2.17", "470.82.01", nullptr, nullptr, "NVIDIA A100-SXM4-80GB")).find("2.14.0"), std::string::npos);
}

TEST(CompatAlternatives, NewestTfForPython38) {
  EXPECT_NE(first_alternative(Q("2.15", nullptr, nullptr, nullptr, nullptr, "3.8")).find("2.13.0"), std::string::npos);
}

TEST(CompatAlternatives, NativeWindowsEndsAt210) {
  EXPECT_NE(first_alternative(Q("2.15", nullptr, nullptr, nullptr, nullptr, nullptr, "windows")).find("2.10.0"), std::string::npos);
}

TEST(CompatAlternatives, KeplerNeedsR470) {
  auto a = check_compat(builtin(), Q("2.15", "525.60.13", nullptr, nullptr, "Tesla K80"));
  bool found = false;
  for (const auto& alt : a.alternatives) found = found || (core::english(alt).find("R470") != std::string::npos && core::english(alt).find("2.14.0") != std::string::npos);
  EXPECT_TRUE(found) << compat_to_text(a, "en");
}

TEST(CompatAlternatives, MinimumDriverForTheRelease) {
  auto a = check_compat(builtin(), Q("2.15", "470.82.01"));
  bool found = false;
  for (const auto& alt : a.alternatives) found = found || core::english(alt).find("Minimum driver for TensorFlow 2.15.0: 525.60.13") != std::string::npos;
  EXPECT_TRUE(found) << compat_to_text(a, "en");
}

TEST(CompatJson, Contract) {
  auto j = compat_to_json(check_compat(builtin(), Q("2.15", "525.60.13", "12.2", "8.9", "Tesla K80", "3.11")), "en");
  EXPECT_EQ(j["verdict"], "no");
  ASSERT_TRUE(j["checks"].is_array());
  for (const auto& c : j["checks"]) {
    EXPECT_TRUE(c.contains("part"));
    EXPECT_TRUE(c["verdict"] == "yes" || c["verdict"] == "no" || c["verdict"] == "caveats");
    EXPECT_TRUE(c.contains("reason"));
  }
  EXPECT_TRUE(j["alternatives"].is_array());
}

// The answer is messages: one answer renders in either language, with no
// switch of the process's language in between (docs/i18n.md).
TEST(CompatRender, OneAnswerInBothLanguages) {
  const auto a = check_compat(builtin(), Q("2.15", "470.82.01", nullptr, nullptr, "Tesla K80"));
  ASSERT_EQ(a.verdict, "no");
  const std::string en = compat_to_text(a, "en");
  const std::string zh = compat_to_text(a, "zh_CN");
  EXPECT_NE(en.find("Nearest working combinations:"), std::string::npos) << en;
  EXPECT_NE(zh.find("最接近的可用组合"), std::string::npos) << zh;
  EXPECT_EQ(en.find("最接近的可用组合"), std::string::npos) << en;
  const auto zh_json = compat_to_json(a, "zh_CN");
  EXPECT_EQ(zh_json["verdict"], "no");
  const auto en_json = compat_to_json(a, "en");
  for (size_t i = 0; i < a.checks.size(); ++i) {
    EXPECT_EQ(en_json["checks"][i]["reason"], core::english(a.checks[i].reason));
    EXPECT_EQ(zh_json["checks"][i]["reason"], core::render(a.checks[i].reason, "zh_CN"));
  }
}

TEST(CompatMatrix, OneRowPerRelease) {
  auto j = compat_matrix_json(builtin());
  EXPECT_EQ(j["rows"].size(), builtin().tf_builds().size());
  EXPECT_NE(compat_matrix_text(builtin(), "en").find("2.15.0"), std::string::npos);
}

}  // namespace
}  // namespace tfrig::knowledge
