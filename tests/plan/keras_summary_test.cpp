#include <gtest/gtest.h>

#include <limits>

#include "plan/keras_summary.h"
#include "plan/memory.h"
#include "test_support.h"

namespace tfrig::plan {
namespace {

KerasSummary parse_fixture(const std::string& name) {
  const std::string text = tfrig::test::read_file(tfrig::test::data_dir() + "/keras_summary/" + name);
  auto s = parse_keras_summary(text);
  EXPECT_TRUE(s) << name << ": " << (s ? "" : s.error().to_string());
  return s ? *s : KerasSummary{};
}

uint64_t sum(const KerasSummary& s) {
  uint64_t n = 0;
  for (const auto& l : s.layers) n += l.params;
  return n;
}

TEST(KerasSummary, Keras2StandaloneCollapsedColumns) {
  const KerasSummary s = parse_fixture("keras2_standalone_collapsed_cnn.txt");
  ASSERT_EQ(s.layers.size(), 8u);
  EXPECT_EQ(s.layers[1].name, "max_pooling2d_1");
  EXPECT_EQ(s.layers[1].type, "MaxPooling2D");
  EXPECT_EQ(s.layers[4].params, 36928u);
  EXPECT_EQ(s.total_params, 93322u);
  EXPECT_EQ(sum(s), 93322u);
  EXPECT_EQ(s.layout, "keras2-columns");
}

TEST(KerasSummary, TfKeras22TruncatedType) {
  const KerasSummary s = parse_fixture("tf_keras_2_2_mnist_convnet.txt");
  EXPECT_EQ(s.model_name, "sequential");
  ASSERT_EQ(s.layers.size(), 7u);
  EXPECT_EQ(s.layers[3].name, "max_pooling2d_1");
  EXPECT_EQ(s.layers[3].type, "MaxPooling2");  // Keras 2 cut it at the column
  EXPECT_EQ(keras_layer_kind(s.layers[3].type, s.layers[3].name), LayerKind::kPool);
  ASSERT_EQ(s.layers[0].shape.size(), 4u);
  EXPECT_FALSE(s.layers[0].shape[0].has_value());
  EXPECT_EQ(s.layers[0].shape[3], 32);
  EXPECT_EQ(s.total_params, 34826u);
  EXPECT_EQ(s.trainable_params, 34826u);
  EXPECT_EQ(s.non_trainable_params, 0u);
  EXPECT_TRUE(s.warnings.empty());
}

TEST(KerasSummary, Keras2IndentedNotebookOutput) {
  const KerasSummary s = parse_fixture("keras2_theano_notebook_indented.txt");
  EXPECT_EQ(s.model_name, "sequential_1");
  ASSERT_EQ(s.layers.size(), 13u);
  EXPECT_EQ(s.layers[1].type, "ZeroPaddin");
  EXPECT_EQ(s.layers[8].params, 2703616u);
  EXPECT_EQ(sum(s), 2830427u);
}

TEST(KerasSummary, TfKeras29WrappedNames) {
  const KerasSummary s = parse_fixture("tf_keras_2_9_wrapped_names.txt");
  ASSERT_EQ(s.layers.size(), 6u);
  EXPECT_EQ(s.layers[0].type, "InputLayer");
  ASSERT_EQ(s.layers[0].shape.size(), 2u);  // [(None, 1)]
  EXPECT_EQ(s.layers[1].name, "vectorize_layer");
  EXPECT_EQ(s.layers[1].type, "TextVectorization");
  EXPECT_EQ(s.layers[3].type, "GlobalAveragePooling1D");
  EXPECT_EQ(s.total_params, 114u);
  EXPECT_EQ(sum(s), 114u);
}

TEST(KerasSummary, Keras3BoxTable) {
  const KerasSummary s = parse_fixture("keras3_box_functional.txt");
  EXPECT_EQ(s.layout, "keras3-box");
  EXPECT_EQ(s.model_name, "functional");
  ASSERT_EQ(s.layers.size(), 8u);
  EXPECT_EQ(s.layers[0].type, "InputLayer");
  EXPECT_EQ(s.layers[3].params, 73856u);
  EXPECT_EQ(s.layers[6].name, "global_average_pooling2d");
  EXPECT_EQ(s.layers[6].type, "GlobalAveragePooling2D");
  EXPECT_EQ(s.total_params, 372234u);
  EXPECT_EQ(sum(s), 372234u);
  EXPECT_TRUE(s.warnings.empty());
  const KerasSummary q = parse_fixture("keras3_box_sequential.txt");
  ASSERT_EQ(q.layers.size(), 3u);
  EXPECT_EQ(q.total_params, 12730u);
}

// A compiled Keras 3 model prints "Optimizer params: N" and its "Total params"
// includes them: the weights are trainable + non-trainable, never that total.
TEST(KerasSummary, Keras3OptimizerParamsAreNotWeights) {
  const KerasSummary s = parse_fixture("keras3_compiled_optimizer_params.txt");
  ASSERT_EQ(s.layers.size(), 2u);
  EXPECT_EQ(s.total_params, 152672u);
  EXPECT_EQ(s.trainable_params, 50890u);
  EXPECT_EQ(s.non_trainable_params, 0u);
  EXPECT_EQ(s.optimizer_params, 101782u);
  EXPECT_EQ(keras_weight_count(s), 50890u);
  EXPECT_EQ(sum(s), 50890u);
  EXPECT_TRUE(s.warnings.empty()) << core::english(s.warnings.front());
  auto w = keras_workload(s, 0, "keras3_compiled_optimizer_params.txt");
  ASSERT_TRUE(w) << w.error().to_string();
  EXPECT_EQ(w->params, 50890u);
  EXPECT_EQ(w->trainable_params, 50890u);
  // Without the trainable/non-trainable lines: the total less the optimizer's slots.
  KerasSummary t = s;
  t.trainable_params.reset();
  t.non_trainable_params.reset();
  EXPECT_EQ(keras_weight_count(t), 50890u);
}

TEST(KerasSummary, WorkloadCountsActivations) {
  const KerasSummary s = parse_fixture("keras3_box_functional.txt");
  auto w = keras_workload(s, 0, "keras3_box_functional.txt");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->params, 372234u);
  EXPECT_EQ(w->image_size, 28);
  ASSERT_EQ(w->layers.size(), 8u);
  EXPECT_EQ(w->layers[1].out_elems, 26u * 26 * 64);
  EXPECT_EQ(w->layers[1].macs, 640u * 26 * 26);
  w->batch = 64;
  const MemoryBreakdown m8 = estimate_memory(*w, 8), m64 = estimate_memory(*w, 64);
  EXPECT_GT(m64.activations_bytes, m8.activations_bytes);
}

TEST(KerasSummary, RejectsWhatIsNotASummary) {
  EXPECT_FALSE(parse_keras_summary(""));
  EXPECT_FALSE(parse_keras_summary("hello\nworld\n"));
  EXPECT_FALSE(parse_keras_summary("Layer (type) Output Shape Param #\n====\n"));
  EXPECT_FALSE(parse_keras_summary(std::string(kMaxKerasSummaryBytes + 1, 'x')));
}

TEST(KerasSummary, SurvivesOddInput) {
  // Overflowing counts, shapes without a close, stray box characters.
  for (const char* text :
       {"Layer (type) Output Shape Param #\nx (Dense) (None, 3) 99999999999999999999999\n",
        "Layer (type) Output Shape Param #\nx (Dense) (None, 3 12\n",
        "\xe2\x94\x83 Layer\n\xe2\x94\x82 a \xe2\x94\x82\n\xe2\x94\x82\xe2\x94\x82\xe2\x94\x82 7 \xe2\x94\x82\n",
        "Layer (type) Output Shape Param #\nx (Dense) multiple 12\n(None, 1) 5\n"}) {
    auto s = parse_keras_summary(text);
    if (s) {
      auto w = keras_workload(*s, 0, "odd");
      (void)w;
    }
  }
  auto s = parse_keras_summary("Layer (type) Output Shape Param #\nx (Dense) multiple 12\n");
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->layers[0].shape_known);
  auto w = keras_workload(*s, 0, "m");
  ASSERT_TRUE(w);
  EXPECT_FALSE(w->notes.empty());
}

TEST(KerasSummary, RejectsSizesNoModelHas) {
  // Found by the keras_summary fuzz target: shapes whose product overflowed
  // the activation estimate (a double out of uint64 range, undefined
  // behaviour) must be refused with the line and layer named.
  auto s = parse_keras_summary("Layer (type) Output Shape Param #\nd (Dense) (None, 4000000, 4000000) 650\n");
  ASSERT_TRUE(s);
  auto w = keras_workload(*s, 0, "huge");
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().to_string().find("'d'"), std::string::npos) << w.error().to_string();
  EXPECT_NE(w.error().to_string().find("line"), std::string::npos) << w.error().to_string();
  s = parse_keras_summary("Layer (type) Output Shape Param #\nd (Dense) (None, 10) 99999999999999999\n");
  ASSERT_TRUE(s);
  EXPECT_FALSE(keras_workload(*s, 0, "params"));
  // Just under the bounds: the estimate saturates instead of wrapping.
  s = parse_keras_summary(
      "Layer (type) Output Shape Param #\na (Dense) (None, 1000000, 1000000) 10\nb (Dense) (None, 1000000, 1000000) 10\n");
  ASSERT_TRUE(s);
  w = keras_workload(*s, 0, "big");
  ASSERT_TRUE(w) << w.error().to_string();
  const MemoryBreakdown m = estimate_memory(*w, 1u << 24);
  EXPECT_EQ(m.total_bytes, std::numeric_limits<uint64_t>::max());
}

TEST(KerasSummary, NoneDimensionsTakeSeqLen) {
  auto s = parse_keras_summary(
      "Layer (type) Output Shape Param #\nemb (Embedding) (None, None, 64) 640000\nd (Dense) (None, None, 10) 650\n");
  ASSERT_TRUE(s);
  auto w = keras_workload(*s, 128, "seq");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->layers[0].out_elems, 128u * 64);
  EXPECT_EQ(w->layers[1].macs, 650u * 128);
}

}  // namespace
}  // namespace tfrig::plan
