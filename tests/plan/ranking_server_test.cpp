#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/units.h"
#include "plan/catalog_adapter.h"
#include "plan/plan.h"
#include "plan/render.h"
#include "plan/server.h"
#include "plan/throughput.h"
#include "plan_test_support.h"

namespace tfrig::plan {
namespace {

using test::fixture;
using test::fixture_gpus;
using test::model_workload;

TEST(PlanRanking, MeasuredWhereTheReferenceHasARow) {
  const auto gpus = fixture_gpus();
  const Workload w = model_workload("resnet50", Precision::kMixedFloat16, 384);
  // plan_measurements.json: Lambda's tf_cnn_benchmarks ResNet-50 fp16 on the
  // V100 32GB (SXM3) under TensorFlow 2.2.0 without XLA, batch 384: 1276 img/s.
  GpuCandidate v100_32 = fixture(gpus, "tesla-v100-sxm2-16gb");
  v100_32.id = "tesla-v100-sxm2-32gb";
  v100_32.memory_bytes = 32 * core::kGiB;
  const GpuChoice v100 = judge_gpu(w, v100_32, gpus);
  ASSERT_TRUE(v100.per_gpu);
  EXPECT_EQ(v100.per_gpu->basis, "measured") << core::english(v100.per_gpu->detail);
  EXPECT_DOUBLE_EQ(v100.per_gpu->samples_per_s, 1276.0);
  // NVIDIA's A100 row (2375 img/s) ran TensorFlow 1.15 with XLA: no answer
  // for a TensorFlow 2 plan without XLA (issue 29).
  const GpuChoice a100 = judge_gpu(w, fixture(gpus, "a100-sxm4-40gb"), gpus);
  ASSERT_TRUE(a100.per_gpu);
  EXPECT_EQ(a100.per_gpu->basis, "estimated");
  EXPECT_NE(core::english(a100.per_gpu->detail).find("not used: XLA on"), std::string::npos);
  const GpuChoice t4 = judge_gpu(w, fixture(gpus, "tesla-t4"), gpus);
  ASSERT_TRUE(t4.per_gpu);
  EXPECT_EQ(t4.per_gpu->basis, "estimated");
  EXPECT_GT(t4.per_gpu->samples_per_s, 0);
  EXPECT_LT(t4.per_gpu->samples_per_s, a100.per_gpu->samples_per_s);
}

TEST(PlanRanking, DepthwiseCnnsAreMemoryBound) {
  const auto gpus = fixture_gpus();
  const Workload w = model_workload("efficientnet_b0", Precision::kMixedFloat16, 256);
  const GpuChoice c = judge_gpu(w, fixture(gpus, "a100-sxm4-40gb"), gpus);
  ASSERT_TRUE(c.per_gpu);
  EXPECT_EQ(c.per_gpu->basis, "estimated");
  EXPECT_EQ(c.per_gpu->bound, "memory") << core::english(c.per_gpu->detail);
  EXPECT_EQ(core::english(c.per_gpu->detail).rfind("memory-bound", 0), 0u) << core::english(c.per_gpu->detail);
  EXPECT_GT(sample_cost(w).cuda_core_flops, 0);
  EXPECT_EQ(sample_cost(model_workload("resnet50", Precision::kFp32, 1)).cuda_core_flops, 0);
  EXPECT_GT(memory_traffic_per_sample(model_workload("bert_base", Precision::kFp32, 1)),
            memory_traffic_per_sample(model_workload("bert_base", Precision::kMixedFloat16, 1)));
}

// Winograd's saving applies to dense 3x3 stride-1 convolutions only: nearly
// all of VGG-16's work, about half of ResNet-50's (its 3x3 convolutions sit
// between 1x1 ones), none of a grouped (ResNeXt) or depthwise (MobileNet) 3x3.
TEST(PlanThroughput, WinogradCountsDense3x3Stride1ConvolutionsOnly) {
  auto share = [](const char* id) {
    const SampleCost c = sample_cost(model_workload(id, Precision::kFp32, 1));
    return c.winograd_flops / c.flops;
  };
  EXPECT_GT(share("vgg16"), 0.95);
  EXPECT_GT(share("resnet50"), 0.3);
  EXPECT_LT(share("resnet50"), 0.7);
  EXPECT_LT(share("resnext101_32x4d"), share("resnet101"));
  EXPECT_EQ(share("mobilenet_v2"), 0.0);
}

// cuDNN's autotuner keeps FP32 CUDA-core algorithms (Winograd) where they beat
// TF32, as on GeForce Ampere (equal FP32 and TF32 peaks); on an A100 (TF32 at
// 8x FP32) TF32 wins and the FP32 rate does not matter.
TEST(PlanThroughput, AutotuneKeepsFp32WhereTf32IsNoFaster) {
  const auto gpus = fixture_gpus();
  const Calibration& c = builtin_throughput_model().calibration;
  const Workload vgg = model_workload("vgg16", Precision::kFp32, 64, Optimizer::kSgd);
  for (const char* id : {"rtx-3060-12gb", "a100-sxm4-40gb"}) {
    GpuCandidate g = fixture(gpus, id);
    const auto with_fp32 = estimate_throughput(vgg, g, c);
    g.fp32_tflops = 0.5;  // an FP32 path too slow to pick
    const auto tf32_only = estimate_throughput(vgg, g, c);
    ASSERT_TRUE(with_fp32 && tf32_only);
    EXPECT_EQ(with_fp32->math, "TF32");
    if (std::string(id) == "rtx-3060-12gb") {
      EXPECT_GT(with_fp32->samples_per_s, 1.2 * tf32_only->samples_per_s);
    } else {
      EXPECT_NEAR(with_fp32->samples_per_s / tf32_only->samples_per_s, 1.0, 1e-9);
    }
  }
}

// The step's weight, gradient and optimizer traffic is paid once per step, so
// a small batch runs slower per sample (DeepLearningExamples TensorFlow2 BERT-
// large SQuAD fp32: 9.8 sequences/s at batch 3 on V100 16GB, 11.1 at batch 8
// on V100 32GB), and Adam moves more than momentum, momentum more than SGD.
TEST(PlanThroughput, SmallBatchesPayTheUpdateOnFewerSamples) {
  const auto gpus = fixture_gpus();
  GpuCandidate v100 = fixture(gpus, "tesla-v100-sxm2-16gb");
  v100.id = "not-measured";
  const auto small =
      gpu_throughput(model_workload("bert_large", Precision::kFp32, 3), v100, builtin_throughput_model());
  const auto large =
      gpu_throughput(model_workload("bert_large", Precision::kFp32, 8), v100, builtin_throughput_model());
  ASSERT_TRUE(small && large);
  EXPECT_LT(small->samples_per_s, large->samples_per_s);
  const double ratio = small->samples_per_s / large->samples_per_s;
  EXPECT_GT(ratio, 0.7) << "published 9.8 / 11.1 = 0.88";
  auto update = [](Optimizer o, Precision p) { return update_bytes_per_step(model_workload("resnet50", p, 1, o)); };
  EXPECT_GT(update(Optimizer::kAdam, Precision::kFp32), update(Optimizer::kMomentum, Precision::kFp32));
  EXPECT_GT(update(Optimizer::kMomentum, Precision::kFp32), update(Optimizer::kSgd, Precision::kFp32));
  EXPECT_GT(update(Optimizer::kSgd, Precision::kMixedFloat16), update(Optimizer::kSgd, Precision::kFp32));
  // Gradient accumulation pays the update once per accumulation_steps batches
  // but adds the accumulator's read and write to every batch.
  const Workload adam = model_workload("bert_large", Precision::kMixedFloat16, 64);
  EXPECT_LT(update_bytes_per_step(adam, 1024), update_bytes_per_step(adam, 1));
  EXPECT_GT(
      update_bytes_per_step(adam, 1024),
      update_bytes_per_step(model_workload("bert_large", Precision::kMixedFloat16, 64, Optimizer::kSgd), 1) * 0.5);
  // Per GPU: the batch is split over the GPUs asked for.
  Workload two = model_workload("resnet50", Precision::kFp32, 257);
  two.gpus = 2;
  EXPECT_EQ(per_gpu_batch(two), 129u);
}

// A product's operands per FLOP fall with its width: two convolutions of the
// same work, one 32 channels wide and one 512, move about 1 + K/N operand
// elements per output; Inception v3's narrow branches move more per FLOP
// than ResNet-50's bottlenecks. Depthwise convolutions read kernel-area
// inputs per output.
TEST(PlanThroughput, NarrowProductsMoveMoreOperandBytesPerFlop) {
  auto conv = [](uint64_t n, uint64_t k, uint64_t positions) {
    Layer l;
    l.kind = LayerKind::kConv;
    l.out_elems = positions * n;
    l.macs = positions * n * k;
    l.params = n * k;
    return l;
  };
  Workload narrow = model_workload("resnet50", Precision::kMixedFloat16, 1);
  Workload wide = narrow;
  narrow.layers = {conv(32, 288, 8192)};  // 32 channels, K = 288, 8192 positions
  wide.layers = {conv(512, 288, 512)};    // the same MACs, 512 channels
  ASSERT_EQ(narrow.layers[0].macs, wide.layers[0].macs);
  // 3 passes x out x (1 + K/N) x 2 bytes.
  EXPECT_DOUBLE_EQ(operand_bytes_per_sample(narrow), 3.0 * 2 * (32.0 * 8192) * (1 + 288.0 / 32));
  EXPECT_GT(operand_bytes_per_sample(narrow), 5 * operand_bytes_per_sample(wide));
  auto per_flop = [](const char* id) {
    const SampleCost c = sample_cost(model_workload(id, Precision::kMixedFloat16, 1));
    return c.operand_bytes / c.flops;
  };
  EXPECT_GT(per_flop("inception_v3"), per_flop("resnet50"));
  EXPECT_GT(per_flop("mobilenet_v2"), per_flop("resnet50"));
  // Transformers: the attention core's 64-wide heads and the sequence.
  EXPECT_GT(operand_bytes_per_sample(model_workload("bert_base", Precision::kFp32, 1)), 0);
}

// Every kernel of a step costs a fixed time whatever the batch: per sample it
// weighs on small batches, and more on a model of many layers.
TEST(PlanThroughput, KernelCostWeighsOnSmallBatches) {
  EXPECT_GT(kernels_per_step(model_workload("inception_v3", Precision::kFp32, 1)),
            kernels_per_step(model_workload("resnet50", Precision::kFp32, 1)));
  EXPECT_GT(kernels_per_step(model_workload("bert_large", Precision::kFp32, 1)),
            kernels_per_step(model_workload("bert_base", Precision::kFp32, 1)));
  const auto gpus = fixture_gpus();
  const GpuCandidate a100 = fixture(gpus, "a100-sxm4-40gb");
  Calibration free = builtin_throughput_model().calibration;
  free.kernel_seconds = 0;
  Calibration costly = free;
  costly.kernel_seconds = 20e-6;
  auto rate = [&](uint64_t batch, const Calibration& c) {
    return estimate_throughput(model_workload("resnet50", Precision::kMixedFloat16, batch), a100, c)->samples_per_s;
  };
  const double small_loss = rate(8, costly) / rate(8, free);
  const double large_loss = rate(256, costly) / rate(256, free);
  EXPECT_LT(small_loss, large_loss);
  EXPECT_LT(large_loss, 1.0);
  EXPECT_GT(builtin_throughput_model().calibration.kernel_seconds, 0);
}

TEST(PlanRanking, CalibrationIsPlausibleAndShowsABand) {
  const Calibration& c = builtin_throughput_model().calibration;
  EXPECT_GE(c.rows, 40);
  for (const auto& fam : c.compute_efficiency) {
    for (double e : fam) {
      EXPECT_GT(e, 0.02);
      EXPECT_LE(e, 1.0);
    }
  }
  for (double m : c.memory_efficiency) {
    EXPECT_GT(m, 0.05);
    EXPECT_LE(m, 1.0);
  }
  // Operands come from caches at least as fast as from DRAM; a kernel's
  // fixed cost is microseconds, not milliseconds.
  EXPECT_GE(c.operand_bandwidth, 1.0);
  EXPECT_GT(c.kernel_seconds, 1e-7);
  EXPECT_LT(c.kernel_seconds, 1e-4);
  EXPECT_LT(c.band_low, 1.0);
  EXPECT_GT(c.band_high, 1.0);
}

// TF32 and FP16 no longer come out the same on Ampere: published AMP is about
// 2-3x TF32 for BERT (DeepLearningExamples TensorFlow BERT-large SQuAD on
// A100 40GB: 102.3 vs 61.4 sequences/s).
TEST(PlanRanking, MixedPrecisionIsFasterThanTf32OnAmpere) {
  const auto gpus = fixture_gpus();
  GpuCandidate a100 = fixture(gpus, "a100-sxm4-40gb");
  a100.id = "not-measured";
  auto at = [&](Precision p, bool xla) {
    Workload w = model_workload("bert_base", p, 32);
    w.xla = xla;
    return gpu_throughput(w, a100, builtin_throughput_model());
  };
  const auto tf32 = at(Precision::kFp32, true), amp = at(Precision::kMixedFloat16, true);
  ASSERT_TRUE(tf32 && amp);
  EXPECT_EQ(tf32->math, "TF32");
  EXPECT_EQ(amp->math, "FP16 tensor");
  EXPECT_GT(amp->samples_per_s / tf32->samples_per_s, 1.5);
  // Without XLA the unfused element-wise ops move bytes that half-precision
  // math does not speed up as much: mixed precision still wins, by less.
  const auto tf32_ops = at(Precision::kFp32, false), amp_ops = at(Precision::kMixedFloat16, false);
  ASSERT_TRUE(tf32_ops && amp_ops);
  EXPECT_GT(amp_ops->samples_per_s / tf32_ops->samples_per_s, 1.0);
  EXPECT_LT(amp_ops->samples_per_s / tf32_ops->samples_per_s, amp->samples_per_s / tf32->samples_per_s);
}

// Issue 29, part 4: the batch asked for is judged with its uncertainty:
// the largest safe batch "fits", the next one never does (borderline while
// the estimate alone still fits), and the JSON carries the verdict.
TEST(PlanRanking, RequestedBatchInsideTheUncertaintyIsBorderlineNeverFits) {
  const auto gpus = fixture_gpus();
  const GpuCandidate& v100 = fixture(gpus, "tesla-v100-sxm2-16gb");
  Workload w = model_workload("bert_large", Precision::kMixedFloat16, 1);
  const uint64_t safe = max_batch_that_fits(w, usable_gpu_bytes(v100));
  ASSERT_GT(safe, 0u);
  w.batch = safe;
  EXPECT_EQ(judge_gpu(w, v100, gpus).requested_verdict, MemoryVerdict::kFits);
  bool saw_borderline = false;
  for (uint64_t b = safe + 1; b <= safe + 4; ++b) {
    w.batch = b;
    const GpuChoice c = judge_gpu(w, v100, gpus);
    EXPECT_EQ(c.requested_batch_per_gpu, b);
    EXPECT_NE(c.requested_verdict, MemoryVerdict::kFits) << b;
    if (c.requested_verdict == MemoryVerdict::kBorderline) {
      saw_borderline = true;
      EXPECT_EQ(c.max_batch_per_gpu, safe);
      EXPECT_LE(c.batch_per_gpu, safe);  // spread over more GPUs
    }
  }
  // 10% of BERT-large's memory at these batches is more than one sample's.
  EXPECT_TRUE(saw_borderline);
}

// Issue 29, part 5: on Pascal (P100-era stacks: TensorFlow 1.x, cuDNN 5-7)
// the band reaches 1/1.5 of the estimate; on Volta it stays the fitted band.
TEST(PlanThroughput, PascalBandReachesOldStackRates) {
  const std::vector<GpuCandidate> gpus = plan_gpus_from_catalog();
  auto find = [&](const std::string& id) {
    return *std::find_if(gpus.begin(), gpus.end(), [&](const GpuCandidate& g) { return g.id == id; });
  };
  const Workload w = model_workload("resnet50", Precision::kFp32, 64);
  const auto p100 = estimate_throughput(w, find("tesla-p100-pcie-16gb"), builtin_throughput_model().calibration);
  const auto v100 = estimate_throughput(w, find("tesla-v100-sxm2-16gb"), builtin_throughput_model().calibration);
  ASSERT_TRUE(p100 && v100);
  // The low end reaches at least 1/1.5 of the estimate on Pascal, and never
  // sits above a newer GPU's (the fitted band itself may already reach lower,
  // now that TensorFlow 1.x rows on P100 are among the fitted rows).
  EXPECT_LE(p100->low / p100->samples_per_s, kOldStackBandLow + 1e-9);
  EXPECT_LE(p100->low / p100->samples_per_s, v100->low / v100->samples_per_s + 1e-9);
  EXPECT_NE(core::english(p100->detail).find("P100"), std::string::npos);
}

// Issue 29: without XLA, BERT's unfused element-wise work (bias adds, GELU,
// layer norm, softmax, casts, dropout) is counted op by op; XLA fuses it.
TEST(PlanThroughput, UnfusedElementwiseWorkSlowsTransformersWithoutXla) {
  Workload w = model_workload("bert_large", Precision::kMixedFloat16, 32);
  w.xla = true;
  EXPECT_EQ(elementwise_bytes_per_sample(w), 0.0);
  const double fused = memory_traffic_per_sample(w);
  w.xla = false;
  const double ops = elementwise_bytes_per_sample(w);
  // BERT-large at 384: per layer and sample s*h = 393,216 and a*s^2 =
  // 2,359,296 elements; the op list gives hundreds of bytes per element.
  EXPECT_GT(ops, 24 * 200.0 * 384 * 1024);
  EXPECT_DOUBLE_EQ(memory_traffic_per_sample(w), fused + ops);
  // CNN layer lists are not affected.
  EXPECT_EQ(elementwise_bytes_per_sample(model_workload("resnet50", Precision::kMixedFloat16, 32)), 0.0);
}

TEST(PlanRanking, GpusNeededFollowsMemory) {
  const auto gpus = fixture_gpus();
  const Workload w = model_workload("bert_base", Precision::kMixedFloat16, 256);
  const GpuChoice c = judge_gpu(w, fixture(gpus, "rtx-3060-12gb"), gpus);
  ASSERT_TRUE(c.fits);
  EXPECT_GT(c.gpus_needed, 1);
  EXPECT_GE(static_cast<uint64_t>(c.gpus_needed) * c.max_batch_per_gpu, 256u);
  EXPECT_LE(c.batch_per_gpu, c.max_batch_per_gpu);
  EXPECT_TRUE(fits_in(c.memory, usable_gpu_bytes(c.gpu)));
}

// BERT-large at sequence 384 with Adam and no XLA does not fit a 12 GB card:
// google-research/bert's README reports batch 0 at 384 on a 12 GB Titan X.
TEST(PlanRanking, BertLargeAt384DoesNotFitTwelveGigabytes) {
  const auto gpus = fixture_gpus();
  const GpuChoice c =
      judge_gpu(model_workload("bert_large", Precision::kFp32, 8), fixture(gpus, "rtx-3060-12gb"), gpus);
  EXPECT_FALSE(c.fits);
}

TEST(PlanRanking, OrdersAsAsked) {
  const auto gpus = fixture_gpus();
  const Workload w = model_workload("resnet50", Precision::kMixedFloat16, 64);
  const auto by_mem = rank_gpus(w, gpus, RankBy::kMemory);
  for (size_t i = 1; i < by_mem.size(); ++i) {
    if (by_mem[i].fits && by_mem[i - 1].fits) {
      EXPECT_GE(by_mem[i - 1].gpu.memory_bytes, by_mem[i].gpu.memory_bytes);
    }
  }
  const auto by_speed = rank_gpus(w, gpus, RankBy::kSpeed);
  for (size_t i = 1; i < by_speed.size(); ++i) {
    if (by_speed[i].fits && by_speed[i - 1].fits) {
      EXPECT_GE(by_speed[i - 1].per_gpu->samples_per_s, by_speed[i].per_gpu->samples_per_s);
    }
  }
  const auto by_price = rank_gpus(w, gpus, RankBy::kPricePerformance);
  // Priced (consumer) cards come first; unpriced ones after.
  EXPECT_TRUE(by_price.front().samples_per_s_per_kusd.has_value());
}

TEST(PlanRanking, NothingFitsForHugeModelsOnOneGpu) {
  const auto gpus = fixture_gpus();
  const Workload w = model_workload("llama_13b", Precision::kMixedFloat16, 1);
  for (const GpuChoice& c : rank_gpus(w, gpus, RankBy::kSpeed)) {
    EXPECT_FALSE(c.fits) << c.gpu.id;
    EXPECT_EQ(c.gpus_needed, 0);
  }
}

TEST(PlanServer, DimmLayoutRoundsUp) {
  auto l = dimm_layout_for(160 * core::kGiB, 12, 1);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->total_bytes, 192 * core::kGiB);  // 12 x 16 GB
  auto d = dimm_layout_for(100 * core::kGiB, 2, 2);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->total_bytes, 128 * core::kGiB);  // 4 x 32 GB
  EXPECT_FALSE(dimm_layout_for(4096 * core::kGiB, 2, 2));
}

TEST(PlanServer, BalancesTheBarrel) {
  const auto gpus = fixture_gpus();
  Workload w = model_workload("resnet50", Precision::kMixedFloat16, 1024);
  w.gpus = 4;
  const GpuChoice c = judge_gpu(w, fixture(gpus, "a100-sxm4-80gb"), gpus);
  DataOptions data;
  data.storage_separate = true;
  data.price_per_gpu_hour = 2.0;
  const ServerPlan s = balance_server(w, c, data);
  EXPECT_EQ(s.gpus, 4);
  EXPECT_GE(s.ram_bytes, 2u * 4 * 80 * core::kGiB);  // docs/guide.md: 2x GPU memory
  EXPECT_GE(s.pcie_lanes, 64);                       // x16 per GPU
  EXPECT_GE(s.cpu_cores, 16);                        // docs/guide.md: the minimum
  EXPECT_GE(s.cpu_cores_needed, static_cast<int>(s.samples_per_s / 300.0));
  ASSERT_TRUE(s.network_gbits);
  EXPECT_NEAR(s.read_bytes_per_s, s.samples_per_s * 108000.0, 1.0);
  EXPECT_GE(s.psu_watts, 4 * 400);
  ASSERT_TRUE(s.cost_per_epoch);
  EXPECT_NEAR(*s.cost_per_epoch, s.epoch_seconds / 3600.0 * 2.0 * 4, 1e-9);
  // A measured decode rate replaces the assumed one.
  data.decode_rate_per_core = 1000;
  data.decode_rate_source = "tfrig bench decode";
  const ServerPlan m = balance_server(w, c, data);
  EXPECT_LT(m.cpu_cores_needed, s.cpu_cores_needed);
  EXPECT_EQ(m.per_core_basis, "measured (tfrig bench decode)");
}

TEST(PlanJson, CarriesTheContract) {
  const auto gpus = fixture_gpus();
  const PlanResult r =
      make_plan(model_workload("resnet50", Precision::kMixedFloat16, 256), gpus, RankBy::kPricePerformance, {});
  const nlohmann::json j = to_json(r, "en");
  for (const char* k :
       {"total_bytes", "weights_bytes", "gradients_bytes", "optimizer_bytes", "activations_bytes", "overhead_bytes"}) {
    ASSERT_TRUE(j["memory"].contains(k)) << k;
    EXPECT_TRUE(j["memory"][k].is_number_unsigned()) << k;
  }
  const uint64_t parts = j["memory"]["weights_bytes"].get<uint64_t>() + j["memory"]["gradients_bytes"].get<uint64_t>() +
                         j["memory"]["optimizer_bytes"].get<uint64_t>() +
                         j["memory"]["activations_bytes"].get<uint64_t>() +
                         j["memory"]["overhead_bytes"].get<uint64_t>();
  EXPECT_EQ(parts, j["memory"]["total_bytes"].get<uint64_t>());
  ASSERT_EQ(j["gpus"].size(), gpus.size());
  for (const auto& g : j["gpus"]) {
    for (const char* k : {"name", "fits", "gpus_needed", "max_batch_per_gpu", "est_samples_per_s", "basis"})
      EXPECT_TRUE(g.contains(k)) << k;
    const std::string basis = g["basis"];
    EXPECT_TRUE(basis == "measured" || basis == "estimated") << basis;
  }
}

TEST(PlanCatalogAdapter, CoversTheReference) {
  const auto gpus = plan_gpus_from_catalog();
  EXPECT_GE(gpus.size(), 40u);
  for (const GpuCandidate& g : gpus) {
    EXPECT_GT(g.memory_bytes, 0u) << g.id;
    EXPECT_TRUE(g.fp32_tflops || g.fp16_tflops) << g.id;
  }
  // The guide's examples are all there.
  for (const char* id :
       {"tesla-t4", "rtx-3060-12gb", "rtx-4060-ti-16gb", "rtx-4090", "rtx-a5000", "a100-sxm4-80gb", "h800-sxm5"}) {
    EXPECT_TRUE(std::any_of(gpus.begin(), gpus.end(), [&](const GpuCandidate& g) { return g.id == id; })) << id;
  }
}

// A machine with one GPU as NVML names it, the rest unknown.
inventory::Inventory one_gpu_inventory(const char* name, uint64_t memory_bytes) {
  inventory::Inventory inv;
  inventory::Gpu g;
  g.name = name;
  g.memory_total_bytes = memory_bytes;
  inv.gpus.push_back(g);
  return inv;
}

TEST(PlanMachine, JudgesAnInventory) {
  const auto gpus = fixture_gpus();
  inventory::Inventory inv = one_gpu_inventory("NVIDIA GeForce RTX 4090", 24 * core::kGiB);
  inv.gpus[0].pcie_link_width_current = 8;
  inv.cpu.physical_cores = 8;
  inv.memory.total_bytes = 32 * core::kGiB;
  const Workload w = model_workload("resnet50", Precision::kMixedFloat16, 256);
  const MachineVerdict v = judge_machine(inv, core::verbatim("test"), w, gpus, {});
  ASSERT_EQ(v.gpus.size(), 1u);
  EXPECT_EQ(v.gpus[0].gpu.id, "rtx-4090");
  EXPECT_FALSE(v.shortest.empty());
  bool ram_short = false, pcie_short = false;
  for (const Stave& s : v.staves) {
    if (s.name == "RAM") ram_short = s.verdict == "short";  // 32 GiB < 2 x 24 GiB
    if (s.name == "PCIe") pcie_short = s.verdict == "short";
  }
  EXPECT_TRUE(ram_short);
  EXPECT_TRUE(pcie_short);
}

// A machine with TensorFlow 2.4 installed: its allocator keeps 6% of an
// 80 GB A100 (4.7 GiB), not today's 1.5 GiB; the verdicts use that, and say so.
TEST(PlanMachine, InstalledTensorFlowSetsTheReserve) {
  const auto gpus = fixture_gpus();
  inventory::Inventory inv = one_gpu_inventory("NVIDIA A100-SXM4-80GB", 80 * core::kGiB);
  const Workload w = model_workload("resnet50", Precision::kMixedFloat16, 256);
  const MachineVerdict today = judge_machine(inv, core::verbatim("test"), w, gpus, {});
  inventory::PythonEnvironment env;
  env.prefix = "/opt/conda";
  env.tensorflow = inventory::TensorFlowInstall{};
  env.tensorflow->version = "2.4.1";
  inv.python.environments.push_back(env);
  const MachineVerdict old = judge_machine(inv, core::verbatim("test"), w, gpus, {});
  ASSERT_EQ(today.gpus.size(), 1u);
  ASSERT_EQ(old.gpus.size(), 1u);
  EXPECT_EQ(old.gpus[0].gpu.tf_reserve, TfReserveRule::kSixPercent);
  EXPECT_LT(old.gpus[0].max_batch_per_gpu, today.gpus[0].max_batch_per_gpu);
  bool said = false;
  for (const core::Message& n : old.notes)
    said = said || core::render(n, "en").find("TensorFlow 2.4.1") != std::string::npos;
  EXPECT_TRUE(said);
  // The version is another machine's text: it cannot forge a line or reach a terminal raw.
  inv.python.environments[0].tensorflow->version = "2.4.1\x1b]0;t\x07\nforged | row";
  for (const core::Message& n : judge_machine(inv, core::verbatim("test"), w, gpus, {}).notes) {
    const std::string text = core::render(n, "en");
    EXPECT_EQ(text.find('\n'), std::string::npos) << text;
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  }
}

// A snapshot is another machine's file: a data path with a pipe, a newline
// and a terminal escape stays inside its Markdown cell and reaches no terminal raw.
TEST(PlanMachine, MarkdownCellsHoldForeignPaths) {
  const auto gpus = fixture_gpus();
  inventory::Inventory inv = one_gpu_inventory("NVIDIA GeForce RTX 4090", 24 * core::kGiB);
  inventory::DataPath d;
  d.path = "/data|x\nforged | row\x1b]0;title\x07";
  d.device_kind = "nvme";
  inv.storage.data_paths.push_back(d);
  PlanResult r =
      make_plan(model_workload("resnet50", Precision::kMixedFloat16, 256), gpus, RankBy::kPricePerformance, {});
  r.machine = judge_machine(inv, core::verbatim("snapshot s.json"), r.workload, gpus, {});
  const std::string md = render_markdown(r, {});
  EXPECT_EQ(md.find('\x1b'), std::string::npos);
  EXPECT_EQ(md.find('\x07'), std::string::npos);
  size_t storage_rows = 0;
  std::string line;
  for (size_t pos = 0, next; pos < md.size(); pos = next + 1) {
    next = md.find('\n', pos);
    if (next == std::string::npos) next = md.size();
    line = md.substr(pos, next - pos);
    if (line.find("/data") == std::string::npos) continue;
    ++storage_rows;
    EXPECT_NE(line.find("/data\\|x"), std::string::npos) << line;  // the pipe escaped
    // Four cells: the row's unescaped pipes are its five borders.
    size_t borders = 0;
    for (size_t i = 0; i < line.size(); ++i) borders += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
    EXPECT_EQ(borders, 5u) << line;
  }
  EXPECT_EQ(storage_rows, 1u) << md;
}

// NVML's names as real machines print them (nvidia-smi -q -x <product_name>,
// test fixtures): whole words decide, never a substring ("A10" in "A100").
// The catalog row the inventory's GPU is matched to: by name (when given),
// else by PCI device id, with the memory NVML reports.
std::string catalog_id(const std::vector<GpuCandidate>& gpus, const char* name, uint32_t device_id, double memory_gib) {
  inventory::Gpu g;
  if (name != nullptr) g.name = name;
  if (device_id != 0) g.pci_device_id = device_id;
  if (memory_gib > 0) g.memory_total_bytes = static_cast<uint64_t>(memory_gib * static_cast<double>(core::kGiB));
  return candidate_for(g, gpus).id;
}

TEST(PlanMachine, MatchesNvmlNamesToTheCatalogByWholeWords) {
  const auto gpus = plan_gpus_from_catalog();
  ASSERT_FALSE(gpus.empty());
  auto id_of = [&](const char* name, double memory_gib) { return catalog_id(gpus, name, 0, memory_gib); };
  EXPECT_EQ(id_of("NVIDIA A100-SXM4-80GB", 80), "a100-sxm4-80gb");
  EXPECT_EQ(id_of("NVIDIA A100-SXM4-40GB", 40), "a100-sxm4-40gb");
  EXPECT_EQ(id_of("Tesla T4", 15), "tesla-t4");
  EXPECT_EQ(id_of("NVIDIA GeForce RTX 3080", 10), "rtx-3080-10gb");
  EXPECT_EQ(id_of("GeForce RTX 2080 Ti", 11), "rtx-2080-ti");
  EXPECT_EQ(id_of("NVIDIA GeForce RTX 3060", 8), "rtx-3060-8gb");
  EXPECT_EQ(id_of("NVIDIA GeForce RTX 3060", 12), "rtx-3060-12gb");
  EXPECT_EQ(id_of("NVIDIA H100 80GB HBM3", 80), "h100-sxm5");
  // Parts the catalog does not hold stay unknown instead of borrowing a
  // neighbour's figures.
  EXPECT_EQ(id_of("NVIDIA A10G", 24), "unknown");
  EXPECT_EQ(id_of("NVIDIA GeForce RTX 3060 Laptop GPU", 6), "unknown");
  EXPECT_EQ(id_of("NVIDIA RTX 4000 SFF Ada Generation", 20), "unknown");
  EXPECT_EQ(id_of("Quadro P400", 2), "unknown");
}

// Issue 29's catalog rows for Lambda's published runs. NVIDIA's
// open-gpu-kernel-modules README gives the Quadro RTX 6000 and 8000 the same
// device ids 1E30 and 1E78 (only the subsystem ids differ, which the
// inventory does not carry): the memory NVML reports decides, as for the A2
// and A16. Memory sizes as TensorFlow printed them in Lambda's logs
// (lambda-tensorflow-benchmark@e086e0e7: "deviceMemorySize: 47.46GiB" for the
// RTX 8000, "10.92GiB" for the GTX 1080 Ti).
TEST(PlanMachine, QuadroRtx6000And8000ShareDeviceIdsAndMemoryDecides) {
  const auto gpus = plan_gpus_from_catalog();
  auto by_id = [&](uint32_t device_id, double memory_gib) { return catalog_id(gpus, nullptr, device_id, memory_gib); };
  EXPECT_EQ(by_id(0x1E30, 47.46), "quadro-rtx-8000");
  EXPECT_EQ(by_id(0x1E30, 23.6), "quadro-rtx-6000");
  EXPECT_EQ(by_id(0x1E78, 47.46), "quadro-rtx-8000");
  EXPECT_EQ(by_id(0x1E78, 23.6), "quadro-rtx-6000");
  EXPECT_EQ(by_id(0x1E36, 23.6), "quadro-rtx-6000");
  EXPECT_EQ(by_id(0x1B06, 10.92), "gtx-1080-ti");  // pci.ids: GP102 [GeForce GTX 1080 Ti]
  EXPECT_EQ(by_id(0x2484, 7.8), "rtx-3070");       // pci.ids: GA104 [GeForce RTX 3070]
  auto by_name = [&](const char* name, double memory_gib) { return catalog_id(gpus, name, 0, memory_gib); };
  // The names TensorFlow's device lines give in those logs.
  EXPECT_EQ(by_name("Quadro RTX 8000", 47.46), "quadro-rtx-8000");
  EXPECT_EQ(by_name("Quadro RTX 6000", 23.6), "quadro-rtx-6000");
  EXPECT_EQ(by_name("GeForce GTX 1080 Ti", 10.92), "gtx-1080-ti");
  EXPECT_EQ(by_name("GeForce RTX 3070", 7.8), "rtx-3070");
  // The Ada workstation card keeps its own row.
  EXPECT_EQ(by_name("NVIDIA RTX 6000 Ada Generation", 47.5), "rtx-6000-ada");
  // Pascal has no tensor cores: mixed precision is planned at the FP32 rate.
  const auto gtx = std::find_if(gpus.begin(), gpus.end(), [](const GpuCandidate& c) { return c.id == "gtx-1080-ti"; });
  ASSERT_NE(gtx, gpus.end());
  EXPECT_FALSE(gtx->fp16_tflops.has_value());
  ASSERT_TRUE(gtx->fp32_tflops.has_value());
  EXPECT_NEAR(*gtx->fp32_tflops, 11.34, 1e-9);
}

TEST(PlanMachine, FallsBackToPciDevices) {
  const auto gpus = fixture_gpus();
  inventory::Inventory inv;
  inventory::PciDevice d;
  d.address = "0000:01:00.0";
  d.vendor_id = 0x10de;
  d.device_id = 0x2684;
  d.is_gpu = true;
  d.link_width_current = 16;
  inv.pci.devices.push_back(d);
  inv.cpu.physical_cores = 32;
  inv.memory.total_bytes = 128 * core::kGiB;
  const MachineVerdict v =
      judge_machine(inv, core::verbatim("test"), model_workload("resnet50", Precision::kMixedFloat16, 128), gpus, {});
  ASSERT_EQ(v.gpus.size(), 1u);
  EXPECT_EQ(v.gpus[0].gpu.id, "rtx-4090");
  EXPECT_TRUE(v.shortest.empty()) << v.shortest;
}

TEST(PlanMachine, NoGpuMeansTheGpuStaveIsShort) {
  const auto gpus = fixture_gpus();
  inventory::Inventory inv;
  inv.cpu.physical_cores = 64;
  inv.memory.total_bytes = 512 * core::kGiB;
  const MachineVerdict v =
      judge_machine(inv, core::verbatim("test"), model_workload("bert_base", Precision::kFp32, 8), gpus, {});
  EXPECT_EQ(v.shortest, "GPU");
  EXPECT_FALSE(v.notes.empty());
}

}  // namespace
}  // namespace tfrig::plan
