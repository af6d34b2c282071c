#include <gtest/gtest.h>

#include "core/units.h"
#include "plan/measurements.h"
#include "plan/memory.h"
#include "plan/model_catalog.h"
#include "plan_test_support.h"

namespace tfrig::plan {
namespace {

using test::fixture;
using test::fixture_gpus;
using test::model_workload;

std::vector<std::string> all_ids() {
  std::vector<std::string> ids;
  for (const CatalogModel& m : model_catalog()) ids.push_back(m.id);
  return ids;
}

TEST(PlanMemory, GrowsWithBatch) {
  for (const std::string& id : all_ids()) {
    for (Precision p : {Precision::kFp32, Precision::kMixedFloat16}) {
      Workload w = model_workload(id, p, 1);
      uint64_t last = 0;
      for (uint64_t b : {1u, 2u, 8u, 32u}) {
        const MemoryBreakdown m = estimate_memory(w, b);
        EXPECT_GT(m.total_bytes, last) << id << " batch " << b;
        EXPECT_GT(m.activations_bytes, 0u) << id;
        last = m.total_bytes;
      }
    }
  }
}

TEST(PlanMemory, MixedPrecisionNeedsLessActivationMemory) {
  for (const std::string& id : all_ids()) {
    const uint64_t fp32 = estimate_memory(model_workload(id, Precision::kFp32, 8), 8).activations_bytes;
    const uint64_t fp16 = estimate_memory(model_workload(id, Precision::kMixedFloat16, 8), 8).activations_bytes;
    const uint64_t bf16 = estimate_memory(model_workload(id, Precision::kMixedBfloat16, 8), 8).activations_bytes;
    EXPECT_LT(fp16, fp32) << id;
    EXPECT_EQ(fp16, bf16) << id;
  }
}

TEST(PlanMemory, AdamNeedsMoreThanSgd) {
  for (const std::string& id : all_ids()) {
    const auto sgd = estimate_memory(model_workload(id, Precision::kFp32, 4, Optimizer::kSgd), 4);
    const auto mom = estimate_memory(model_workload(id, Precision::kFp32, 4, Optimizer::kMomentum), 4);
    const auto adam = estimate_memory(model_workload(id, Precision::kFp32, 4, Optimizer::kAdam), 4);
    const auto adafactor = estimate_memory(model_workload(id, Precision::kFp32, 4, Optimizer::kAdafactor), 4);
    EXPECT_GT(adam.total_bytes, mom.total_bytes) << id;
    EXPECT_GT(mom.total_bytes, sgd.total_bytes) << id;
    EXPECT_LT(adafactor.optimizer_bytes, mom.optimizer_bytes) << id;
    // two float32 slots (Keras's optimizers update in one fused kernel or
    // under XLA), and a hand-written update run op by op without XLA keeps
    // new copies of them
    EXPECT_EQ(adam.optimizer_bytes, 8 * model_workload(id, Precision::kFp32, 4).trainable_params) << id;
    Workload separate = model_workload(id, Precision::kFp32, 4, Optimizer::kAdam);
    separate.separate_update_ops = true;
    EXPECT_EQ(estimate_memory(separate, 4).optimizer_bytes, 2 * 8 * separate.trainable_params) << id;
    separate.xla = true;
    EXPECT_EQ(estimate_memory(separate, 4).optimizer_bytes, 8 * separate.trainable_params) << id;
  }
}

TEST(PlanMemory, MixedPrecisionKeepsFloat32MasterWeights) {
  const auto m = estimate_memory(model_workload("bert_base", Precision::kMixedFloat16, 8), 8);
  EXPECT_EQ(m.weights_bytes, 2 * 109482240u);
  EXPECT_EQ(m.master_weights_bytes, 4 * 109482240u);
  // float32 gradients and the unscaled copy the loss-scale optimizer makes
  EXPECT_EQ(m.gradients_bytes, 2 * 4 * 109482240u);
  const auto f = estimate_memory(model_workload("bert_base", Precision::kFp32, 8), 8);
  EXPECT_EQ(f.master_weights_bytes, 0u);
  EXPECT_EQ(m.contract_weights() + m.gradients_bytes + m.optimizer_bytes + m.activations_bytes + m.contract_overhead(),
            m.total_bytes);
}

TEST(PlanMemory, LargestBatchFitsAndOneMoreDoesNot) {
  const auto gpus = fixture_gpus();
  for (const std::string& id : all_ids()) {
    for (Precision p : {Precision::kFp32, Precision::kMixedFloat16}) {
      for (const GpuCandidate& g : gpus) {
        const Workload w = model_workload(id, p, 1);
        const uint64_t usable = usable_gpu_bytes(g);
        const uint64_t b = max_batch_that_fits(w, usable);
        if (b == 0) {
          EXPECT_FALSE(fits_in(estimate_memory(w, 1), usable)) << id << " on " << g.id;
          continue;
        }
        EXPECT_TRUE(fits_in(estimate_memory(w, b), usable)) << id << " on " << g.id;
        EXPECT_FALSE(fits_in(estimate_memory(w, b + 1), usable)) << id << " on " << g.id;
        // the uncertainty is on top of the estimate
        EXPECT_LE(estimate_memory(w, b).total_bytes + estimate_memory(w, b).uncertainty_bytes, usable)
            << id << " on " << g.id;
      }
    }
  }
}

// TensorFlow without fused attention keeps more than the fused-kernel count
// of Korthikanti et al. 2022 (34*sbh + 5*a*s^2*b bytes at 16 bit): per layer
// 68*sbh + 14*a*s^2*b under mixed precision and 120*sbh + 16*a*s^2*b at fp32
// (memory.cpp lists the tensors); full recomputation keeps the layer input.
TEST(PlanMemory, TransformerLayerKeepsWhatTensorFlowKeeps) {
  TransformerConfig c{TransformerKind::kDecoder, 1, 0, 1024, 16, 4096, 0, true, false, 0};
  const uint64_t s = 512, b = 4, h = 1024, a = 16;
  EXPECT_EQ(transformer_layer_activation_bytes(c, s, b, Precision::kMixedFloat16, Recompute::kNone),
            s * b * h * 68 + 14 * a * s * s * b);
  EXPECT_GT(transformer_layer_activation_bytes(c, s, b, Precision::kMixedFloat16, Recompute::kNone),
            s * b * h * 34 + 5 * a * s * s * b);
  EXPECT_EQ(transformer_layer_activation_bytes(c, s, b, Precision::kMixedFloat16, Recompute::kSelective),
            s * b * h * 68);
  EXPECT_EQ(transformer_layer_activation_bytes(c, s, b, Precision::kMixedFloat16, Recompute::kFull), 2 * s * b * h);
  EXPECT_EQ(transformer_layer_activation_bytes(c, s, b, Precision::kFp32, Recompute::kNone),
            s * b * h * 120 + 16 * a * s * s * b);
  // under XLA: the fused count of Korthikanti et al. (34sbh + 5as^2b at 16
  // bit), with every dropout mask held as its e-byte random tensor (stateful
  // RNG ops are not auto-clustered), the GELU's tanh held (XLA does not
  // duplicate an expensive producer) and the layer norms' inputs in float32:
  // 48sbh + 6as^2b at 16 bit, 88sbh + 12as^2b at fp32
  EXPECT_EQ(transformer_layer_activation_bytes(c, s, b, Precision::kMixedFloat16, Recompute::kNone, true),
            s * b * h * 48 + 6 * a * s * s * b);
  EXPECT_GT(transformer_layer_activation_bytes(c, s, b, Precision::kMixedFloat16, Recompute::kNone, true),
            s * b * h * 34 + 5 * a * s * s * b);
  EXPECT_LT(transformer_layer_activation_bytes(c, s, b, Precision::kMixedFloat16, Recompute::kNone, true),
            s * b * h * 68 + 14 * a * s * s * b);
  EXPECT_EQ(transformer_layer_activation_bytes(c, s, b, Precision::kFp32, Recompute::kNone, true),
            s * b * h * 88 + 12 * a * s * s * b);
  // without dropout: no masks, no scaled copies
  c.dropout = false;
  EXPECT_EQ(transformer_layer_activation_bytes(c, s, b, Precision::kMixedFloat16, Recompute::kNone),
            s * b * h * 60 + 6 * a * s * s * b);
}

// Gradient accumulation holds one float32 accumulator per trainable variable
// for the whole run; one step per update holds none.
TEST(PlanMemory, GradientAccumulationAddsOneFloat32CopyOfTheTrainableVariables) {
  Workload w = model_workload("bert_large", Precision::kMixedFloat16, 8);
  const MemoryBreakdown plain = estimate_memory(w, 8);
  w.accumulation_steps = 4096;
  const MemoryBreakdown accumulated = estimate_memory(w, 8);
  EXPECT_EQ(accumulated.gradients_bytes - plain.gradients_bytes, w.trainable_params * 4);
  EXPECT_EQ(accumulated.activations_bytes, plain.activations_bytes);
  EXPECT_GT(accumulated.total_bytes, plain.total_bytes);
}

// tensorflow/core/common_runtime/gpu/gpu_device.cc MinSystemMemory.
TEST(PlanMemory, TensorFlowReservesByComputeCapability) {
  EXPECT_EQ(tf_reserved_bytes(12 * core::kGiB, 6), 500 * core::kMiB);
  EXPECT_EQ(tf_reserved_bytes(16 * core::kGiB, 7), 1050 * core::kMiB);
  EXPECT_EQ(tf_reserved_bytes(80 * core::kGiB, 8), 1536 * core::kMiB);
  EXPECT_EQ(tf_reserved_bytes(core::kGiB, 8), 225 * core::kMiB);
  GpuCandidate v100;
  v100.architecture = "Volta";
  v100.memory_bytes = 16 * core::kGiB;
  EXPECT_EQ(usable_gpu_bytes(v100),
            static_cast<uint64_t>(16.0 * 0.98 * static_cast<double>(core::kGiB)) - 1050 * core::kMiB);
}

// Releases before 2.5 kept a share of the free memory (pull request 44810
// replaced "the current 6% policy"; TensorFlow 1.x kept 5%), with a 300 MiB floor.
TEST(PlanMemory, TensorFlowReserveFollowsTheRelease) {
  const uint64_t free16 = 16 * core::kGiB;
  EXPECT_EQ(tf_reserved_bytes(free16, 7, TfReserveRule::kFivePercent), static_cast<uint64_t>(0.05 * 16 * core::kGiB));
  EXPECT_EQ(tf_reserved_bytes(free16, 7, TfReserveRule::kSixPercent), static_cast<uint64_t>(0.06 * 16 * core::kGiB));
  EXPECT_EQ(tf_reserved_bytes(3 * core::kGiB, 7, TfReserveRule::kFivePercent), 300 * core::kMiB);  // the floor
  EXPECT_EQ(tf_reserved_bytes(80 * core::kGiB, 8, TfReserveRule::kLargerOfBoth),
            static_cast<uint64_t>(0.06 * 80 * core::kGiB));
  EXPECT_EQ(tf_reserved_bytes(4 * core::kGiB, 8, TfReserveRule::kLargerOfBoth), 1536 * core::kMiB);
  EXPECT_EQ(tf_reserved_bytes(core::kGiB, 7, TfReserveRule::kSixPercent), 225 * core::kMiB);
  EXPECT_EQ(tf_reserve_rule_of_version("1.15.5"), TfReserveRule::kFivePercent);
  EXPECT_EQ(tf_reserve_rule_of_version("2.4.1"), TfReserveRule::kSixPercent);
  EXPECT_EQ(tf_reserve_rule_of_version("2.5.0"), TfReserveRule::kByComputeCapability);
  EXPECT_EQ(tf_reserve_rule_of_version("2.16.1"), TfReserveRule::kByComputeCapability);
  EXPECT_EQ(tf_reserve_rule_of_version("2"), TfReserveRule::kLargerOfBoth);
  EXPECT_EQ(tf_reserve_rule_of_version("nightly"), TfReserveRule::kLargerOfBoth);
  // TF_DEVICE_MIN_SYS_MEMORY_IN_MB replaces the rule.
  EXPECT_EQ(usable_gpu_bytes(16 * core::kGiB, 7, TfReserveRule::kByComputeCapability, 2048),
            static_cast<uint64_t>(16.0 * 0.98 * static_cast<double>(core::kGiB)) - 2048 * core::kMiB);
}

// A published row names its release as its source does.
TEST(PlanMemory, ReserveRuleOfAPublishedRun) {
  EXPECT_EQ(tf_reserve_rule("TensorFlow 1.11.0"), TfReserveRule::kFivePercent);
  EXPECT_EQ(tf_reserve_rule("TensorFlow 1.x (NGC tensorflow:19.08-py3)"), TfReserveRule::kFivePercent);
  EXPECT_EQ(tf_reserve_rule("TensorFlow 2.3.0, tensorflow/models r2.3.0"), TfReserveRule::kSixPercent);
  EXPECT_EQ(tf_reserve_rule("TensorFlow 2 (NGC tensorflow:20.07-tf2-py3)"), TfReserveRule::kSixPercent);
  EXPECT_EQ(tf_reserve_rule("TensorFlow 2 (NGC tensorflow:21.02-py3)"), TfReserveRule::kLargerOfBoth);
  EXPECT_EQ(tf_reserve_rule("TensorFlow 2.4.1 (tf_cnn_benchmarks)"), TfReserveRule::kSixPercent);
  EXPECT_EQ(tf_reserve_rule("TensorFlow 2.13"), TfReserveRule::kByComputeCapability);
  EXPECT_EQ(tf_reserve_rule(""), TfReserveRule::kLargerOfBoth);
}

// "fits" means estimate + uncertainty fits: a batch whose bare estimate fits
// but whose margin does not is "does not fit".
TEST(PlanMemory, FitsOnlyWithItsUncertainty) {
  const Workload w = model_workload("bert_base", Precision::kMixedFloat16, 8);
  const MemoryBreakdown m = estimate_memory(w, 8);
  ASSERT_GT(m.uncertainty_bytes, 0u);
  EXPECT_EQ(m.uncertainty_bytes, static_cast<uint64_t>(0.10 * static_cast<double>(m.total_bytes)));
  EXPECT_FALSE(fits_in(m, m.total_bytes));
  EXPECT_FALSE(fits_in(m, m.total_bytes + m.uncertainty_bytes - 1));
  EXPECT_TRUE(fits_in(m, m.total_bytes + m.uncertainty_bytes));
}

TEST(PlanMemory, RecomputationSavesMemory) {
  Workload w = model_workload("gpt2_xl", Precision::kMixedFloat16, 8);
  const uint64_t none = activation_bytes(w, 8);
  w.recompute = Recompute::kSelective;
  const uint64_t selective = activation_bytes(w, 8);
  w.recompute = Recompute::kFull;
  const uint64_t full = activation_bytes(w, 8);
  EXPECT_LT(selective, none);
  EXPECT_LT(full, selective);
}

// Published measured peak memory, within 25%.
// mankasto/iLRG issue #1 (2023-04-25): ResNet-50 on ImageNet at batch 512
// "reached 40G" of GPU memory on one A800-80G (nvidia-smi's figure, which
// counts MiB: 40 GiB), and batch 1024 did not fit in 80 GB.
TEST(PlanMemory, ResNet50Batch512MatchesPublishedMeasurement) {
  Workload w = model_workload("resnet50", Precision::kFp32, 512, Optimizer::kMomentum);
  const double est = static_cast<double>(estimate_memory(w, 512).total_bytes) / static_cast<double>(core::kGiB);
  EXPECT_NEAR(est / 40.0, 1.0, 0.25) << est << " GiB";
  EXPECT_GT(estimate_memory(w, 1024).total_bytes, usable_gpu_bytes(80 * core::kGiB));
}

// Batch sizes published as running (so they must fit in the estimate):
//  - NVIDIA DeepLearningExamples TensorFlow ResNet-50 v1.5 README: V100 16GB
//    trains at batch 128 (FP32) and 256 (AMP); A100 40GB at 256 (TF32 and AMP).
//  - NVIDIA/caffe issue #470 (drnikolaev, 2018-01-17): pure fp16 ResNet-50
//    "fits batch of 128 ... on a GPU with 16GB of memory".
//  - NVIDIA DeepLearningExamples TensorFlow2 BERT README, SQuAD v1.1
//    fine-tuning (seq 384): A100 80GB at batch 76 (AMP) and 38 (TF32);
//    V100 16GB at batch 6 (AMP) and 3 (FP32); V100 32GB at 12 (AMP) and 8 (FP32).
TEST(PlanMemory, PublishedBatchSizesFit) {
  const auto gpus = fixture_gpus();
  const GpuCandidate& v100 = fixture(gpus, "tesla-v100-sxm2-16gb");
  const GpuCandidate& a100_40 = fixture(gpus, "a100-sxm4-40gb");
  const GpuCandidate& a100_80 = fixture(gpus, "a100-sxm4-80gb");
  // NVIDIA's TensorFlow scripts run with XLA (--use_xla / TF_XLA_FLAGS).
  auto max_batch = [](const std::string& id, Precision p, Optimizer o, const GpuCandidate& g) {
    Workload w = model_workload(id, p, 1, o);
    w.xla = true;
    return max_batch_that_fits(w, usable_gpu_bytes(g));
  };
  EXPECT_GE(max_batch("resnet50", Precision::kFp32, Optimizer::kMomentum, v100), 128u);
  EXPECT_GE(max_batch("resnet50", Precision::kMixedFloat16, Optimizer::kMomentum, v100), 256u);
  EXPECT_GE(max_batch("resnet50", Precision::kMixedFloat16, Optimizer::kMomentum, a100_40), 256u);
  EXPECT_GE(max_batch("resnet50", Precision::kFp32, Optimizer::kMomentum, a100_40), 256u);
  EXPECT_GE(max_batch("bert_large", Precision::kMixedFloat16, Optimizer::kAdam, a100_80), 76u);
  EXPECT_GE(max_batch("bert_large", Precision::kFp32, Optimizer::kAdam, a100_80), 38u);
  EXPECT_GE(max_batch("bert_large", Precision::kMixedFloat16, Optimizer::kAdam, v100), 6u);
  EXPECT_GE(max_batch("bert_large", Precision::kFp32, Optimizer::kAdam, v100), 3u);
  // ... and not wildly more than published practice: a 16 GB V100 cannot take
  // BERT-large at batch 64 / seq 384 in fp32.
  EXPECT_LT(max_batch("bert_large", Precision::kFp32, Optimizer::kAdam, v100), 16u);
}

TEST(PlanMemory, Llama7BDoesNotFitOneSmallGpu) {
  const auto gpus = fixture_gpus();
  const Workload w = model_workload("llama_7b", Precision::kMixedBfloat16, 1);
  // 6.7B params x (2 + 4 + 4 + 8) bytes = 121 GB of model state alone.
  EXPECT_EQ(max_batch_that_fits(w, usable_gpu_bytes(fixture(gpus, "rtx-4090"))), 0u);
  EXPECT_EQ(max_batch_that_fits(w, usable_gpu_bytes(fixture(gpus, "h100-sxm5"))), 0u);
}

}  // namespace
}  // namespace tfrig::plan
