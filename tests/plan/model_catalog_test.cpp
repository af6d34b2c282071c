#include <cmath>

#include <gtest/gtest.h>

#include "plan/model_catalog.h"
#include "plan_test_support.h"

namespace tfrig::plan {
namespace {

uint64_t sum_params(const std::vector<Layer>& layers) {
  uint64_t s = 0;
  for (const Layer& l : layers) s += l.params;
  return s;
}

// The CNNs built layer by layer add up to the Keras Applications totals.
TEST(ModelCatalog, ResNetParamsMatchKerasApplications) {
  EXPECT_EQ(sum_params(build_resnet(50, 224)), 25636712u);
  EXPECT_EQ(sum_params(build_resnet(101, 224)), 44707176u);
  EXPECT_EQ(sum_params(build_resnet(152, 224)), 60419944u);
}

// VGG16 as Keras Applications counts it; ResNeXt-101 32x4d and its SE variant
// as timm counts them (trainable: BN scale and offset, not the moving
// statistics, which the catalog total adds as Keras does).
TEST(ModelCatalog, VggAndResNeXtParamsMatchPublishedCounts) {
  EXPECT_EQ(sum_params(build_vgg16(224)), 138357544u);
  EXPECT_EQ(sum_params(build_inception_v3(299)), 23851784u);
  // Keras InceptionV3: 23,817,352 trainable (BN without scale keeps beta only).
  EXPECT_EQ(test::model_workload("inception_v3", Precision::kFp32, 1).trainable_params, 23817352u);
  for (bool se : {false, true}) {
    uint64_t moving = 0;
    const std::vector<Layer> layers = build_resnext101_32x4d(224, se);
    for (const Layer& l : layers) {
      if (l.kind == LayerKind::kBatchNorm) moving += l.params / 2;
    }
    EXPECT_EQ(sum_params(layers) - moving, se ? 48955416u : 44177704u) << se;
    EXPECT_EQ(sum_params(layers), find_model(se ? "se_resnext101_32x4d" : "resnext101_32x4d")->published_params);
  }
}

TEST(ModelCatalog, MobileNetV2ParamsMatchKerasApplications) { EXPECT_EQ(sum_params(build_mobilenet_v2(224)), 3538984u); }

TEST(ModelCatalog, EfficientNetParamsWithinOnePercent) {
  const double b0 = static_cast<double>(sum_params(build_efficientnet(1.0, 1.0, 224)));
  const double b4 = static_cast<double>(sum_params(build_efficientnet(1.4, 1.8, 380)));
  EXPECT_NEAR(b0 / 5330571.0, 1.0, 0.01) << b0;
  EXPECT_NEAR(b4 / 19466823.0, 1.0, 0.01) << b4;
}

TEST(ModelCatalog, ResNet50ForwardFlopsMatchThePaper) {
  // He et al. 2016, Table 1: ResNet-50 3.8 x 10^9 FLOPs (multiply-adds).
  Workload w = test::model_workload("resnet50", Precision::kFp32, 1);
  const double macs = forward_flops_per_sample(w) / 2;
  EXPECT_NEAR(macs / 3.8e9, 1.0, 0.12) << macs;
}

TEST(ModelCatalog, TransformerParamsMatchPublishedCounts) {
  for (const CatalogModel& m : model_catalog()) {
    if (m.family != Family::kTransformer) continue;
    int positions = m.default_seq_len;
    if (m.transformer->kind == TransformerKind::kVision) {
      const int side = m.default_image_size / m.transformer->patch;
      positions = side * side + 1;
    }
    if (m.transformer->kind == TransformerKind::kEncoder) positions = 512;   // BERT's position table
    if (m.transformer->kind == TransformerKind::kDecoder && !m.transformer->gated_mlp) positions = 1024;  // GPT-2
    EXPECT_EQ(transformer_params(*m.transformer, positions), m.published_params) << m.id;
  }
}

TEST(ModelCatalog, EveryModelOfTheIssueIsThere) {
  for (const char* id : {"resnet50", "resnet101", "efficientnet_b0", "efficientnet_b4", "mobilenet_v2", "vit_b16", "vit_l16", "bert_base",
                         "bert_large", "gpt2", "gpt2_medium", "gpt2_large", "gpt2_xl", "t5_base", "llama_7b", "llama_13b"}) {
    EXPECT_NE(find_model(id), nullptr) << id;
  }
  EXPECT_EQ(find_model("ResNet-50"), find_model("resnet50"));
  EXPECT_EQ(find_model("nope"), nullptr);
}

TEST(ModelCatalog, ViTSequenceFollowsImageSize) {
  auto w = catalog_workload(*find_model("vit_b16"), 384, 0);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->seq_len, 24 * 24 + 1);
  EXPECT_FALSE(catalog_workload(*find_model("vit_b16"), 200, 0));
}

TEST(ModelCatalog, TransformerFromParamsIsClose) {
  const TransformerConfig c = transformer_from_params(1500000000, 50257);
  const double n = 12.0 * c.layers * c.hidden * c.hidden;
  EXPECT_NEAR(n / 1.5e9, 1.0, 0.25);
  EXPECT_EQ(c.hidden % 64, 0);
}

}  // namespace
}  // namespace tfrig::plan
