// Python packaging metadata and TensorFlow's build_info.py.
#include <gtest/gtest.h>

#include "gpu_test_support.h"
#include "probe/parse/dist_info.h"

namespace tfrig::probe::parse {
namespace {

TEST(DistInfo, TensorFlowMetadataFromTheFixtureRoot) {
  auto m = parse_dist_metadata(
      test::read_data("roots/stack-cuda12/usr/local/lib/python3.10/dist-packages/tensorflow-2.15.0.dist-info/METADATA"));
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->name, "tensorflow");
  EXPECT_EQ(m->version, "2.15.0");
  EXPECT_EQ(m->requires_python, ">=3.9");
  EXPECT_EQ(m->metadata_version, "2.1");
  ASSERT_GE(m->requires_dist.size(), 3u);
  EXPECT_EQ(m->requires_dist.back(), "nvidia-cudnn-cu12 ==8.9.4.25 ; extra == 'and-cuda'");
}

TEST(DistInfo, HeadersStopAtTheBodyAndFoldContinuations) {
  auto m = parse_dist_metadata(
      "Metadata-Version: 2.1\nname: Foo_Bar\nVersion: 1.0\nLicense: line one\n  line two\n\nVersion: 9.9 (in the body)\n");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "Foo_Bar");
  EXPECT_EQ(m->version, "1.0");
  EXPECT_FALSE(parse_dist_metadata("Name: x\n"));
  EXPECT_FALSE(parse_dist_metadata(""));
  EXPECT_FALSE(parse_dist_metadata("\nName: x\nVersion: 1\n"));  // headers end at once
}

TEST(DistInfo, Names) {
  EXPECT_EQ(normalize_dist_name("Tensorflow_CPU"), "tensorflow-cpu");
  EXPECT_EQ(normalize_dist_name("nvidia.cudnn__cu12"), "nvidia-cudnn-cu12");
  auto s = split_dist_info_dir("nvidia_cudnn_cu12-8.9.4.25.dist-info");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->first, "nvidia-cudnn-cu12");
  EXPECT_EQ(s->second, "8.9.4.25");
  EXPECT_FALSE(split_dist_info_dir("tensorflow"));
  EXPECT_FALSE(split_dist_info_dir("-1.0.dist-info"));
  EXPECT_FALSE(split_dist_info_dir("x.egg-info"));
}

TEST(TfBuildInfo, LinuxOrderedDict) {
  auto b = parse_tf_build_info(test::read_data(
      "roots/stack-cuda12/usr/local/lib/python3.10/dist-packages/tensorflow/python/platform/build_info.py"));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->cuda_version, "12.2");
  EXPECT_EQ(b->cudnn_version, "8");
  EXPECT_EQ(b->is_cuda_build, true);
  EXPECT_EQ(b->is_rocm_build, false);
  EXPECT_EQ(b->is_tensorrt_build, true);
  EXPECT_EQ(b->compute_capabilities, (std::vector<std::string>{"sm_50", "sm_60", "sm_70", "sm_75", "compute_80"}));
}

TEST(TfBuildInfo, WindowsDictAndCpuBuild) {
  // The dict form of TF 2.3-era Windows wheels.
  auto w = parse_tf_build_info(
      "build_info = {'cuda_version': '64_101', 'cudnn_version': '64_7', 'cuda_compute_capabilities': ['sm_35', "
      "'compute_70'], 'is_rocm_build': False, 'is_cuda_build': True}\n");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->cuda_version, "64_101");
  EXPECT_EQ(w->compute_capabilities.size(), 2u);
  auto cpu = parse_tf_build_info(test::read_data(
      "roots/stack-cuda12/opt/conda/envs/cpu/lib/python3.9/site-packages/tensorflow/python/platform/build_info.py"));
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->is_cuda_build, false);
  EXPECT_FALSE(cpu->cuda_version);
  EXPECT_TRUE(cpu->compute_capabilities.empty());
  EXPECT_FALSE(parse_tf_build_info("x = 1\n"));
  auto broken = parse_tf_build_info("build_info = {'cuda_version': '12.2, 'cuda_compute_capabilities': [1, 2]");
  ASSERT_TRUE(broken);
  EXPECT_TRUE(broken->compute_capabilities.empty());
}

}  // namespace
}  // namespace tfrig::probe::parse
