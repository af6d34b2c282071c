// Training throughput of a GPU: published measured rates where they exist
// (../shared/reference/training_throughput.yaml), else an estimate from the
// GPU's peak at the precision and a model-utilisation factor calibrated on
// those same measured rows. Every rate says which it is.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "plan/gpu_candidate.h"
#include "plan/model.h"

namespace tfrig::plan {

enum class PrecisionClass { kFp32, kMixed };
PrecisionClass precision_class(Precision p);

struct MeasuredRate {
  const char* model_key;  // "resnet50", "bert_large@384"
  const char* gpu_id;     // gpus.yaml id
  PrecisionClass precision;
  double samples_per_s;   // median of the rows used
  int rows;
  bool tensorflow;        // true when the rows used are TensorFlow rows
  const char* source;     // one of the rows' sources
};

std::span<const MeasuredRate> measured_rates();
const MeasuredRate* find_measured_rate(std::string_view model_key, std::string_view gpu_id, PrecisionClass p);

// Dense peak TFLOPS the precision runs at on this GPU: TF32 tensor cores for
// fp32 where present (TensorFlow enables TF32 by default since 2.4:
// tf.config.experimental.enable_tensor_float_32_execution), FP16/BF16
// tensor cores under mixed precision, else the FP32 CUDA-core figure.
std::optional<double> peak_tflops(const GpuCandidate& gpu, Precision p);

struct Throughput {
  double samples_per_s = 0;  // one GPU
  std::string basis;         // "measured" | "estimated"
  std::string detail;        // where the number comes from
};

// The fraction of the roofline bound (min of FLOPs at peak, DRAM traffic at
// 70% of bandwidth) that training reaches: the median over the measured rows
// of the nearest reference model (ResNet-50 for CNNs, BERT-large for
// transformers) of measured / bound. For transformers this is the model
// FLOPs utilisation.
double calibrated_utilisation(Family family, PrecisionClass p, std::span<const GpuCandidate> gpus);

// Bytes of activations a layer-list model moves through DRAM per training
// sample (0 for transformers, whose estimate is compute-bound).
double memory_traffic_per_sample(const Workload& w);

std::optional<Throughput> gpu_throughput(const Workload& w, const GpuCandidate& gpu, std::span<const GpuCandidate> gpus);

}  // namespace tfrig::plan
