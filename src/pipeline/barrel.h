// The barrel: the input pipeline's stages and the GPU as staves, each a rate
// in samples/s. With prefetch every stage runs at once, so training moves at
// the rate of the shortest stave (the "barrel effect" of the configuration
// guide, docs/guide.md); the GPU is busy for the share of time its demand is met.
// Pure functions over given rates: no measurement here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/message.h"

namespace tfrig::pipeline {

// Where a rate comes from: measured here, estimated from a catalog or a
// published figure scaled, or assumed (a user-given or default figure).
enum class Origin { kMeasured, kEstimated, kAssumed };
std::string_view origin_name(Origin o);                         // "measured" | "estimated" | "assumed"
std::optional<Origin> origin_from_name(std::string_view name);  // nullopt for another word
// The words the terminal shows for an origin and a stage name (JSON keeps the names).
std::string origin_label(Origin o);
std::string stage_label(std::string_view name);
// The same as messages, for a text rendered later in the output's language.
core::Message origin_message(Origin o);
core::Message stage_message(std::string_view name);

// Stage names of the JSON contract (docs/pipeline.md).
inline constexpr const char* kStorage = "storage";
inline constexpr const char* kDecode = "decode";
inline constexpr const char* kHostMemory = "host_memory";
inline constexpr const char* kHostToDevice = "host_to_device";
inline constexpr const char* kGpu = "gpu";

struct Stage {
  std::string name;
  double samples_per_s = 0;
  Origin origin = Origin::kMeasured;
  core::Message detail;  // how it was obtained; rendered by each output in its language
};

struct Barrel {
  std::vector<Stage> stages;         // input stages in pipeline order, then "gpu" (its rate is the GPU's demand)
  double gpu_demand = 0;             // samples/s the GPU(s) consume when never starved
  std::string bottleneck;            // the shortest stave; "gpu" when every input stage keeps up
  double input_rate = 0;             // the slowest input stage
  double predicted_utilization = 0;  // min(1, input_rate / gpu_demand)
  double training_rate = 0;          // min(input_rate, gpu_demand)
};

// Builds the barrel from the stages; the one named "gpu" is the demand.
// Stages with a rate <= 0 are kept but ignored (unknown). Without a gpu
// stage the demand is 0 and utilisation is 0.
Barrel evaluate(std::vector<Stage> stages);

// The same barrel with one stage's rate replaced (added if absent).
Barrel with_stage(const Barrel& b, const Stage& stage);

const Stage* find_stage(const Barrel& b, std::string_view name);

// Each stave's rate as a share of the GPU's demand (>= 1 keeps up).
double share_of_demand(const Barrel& b, const Stage& s);

// Without prefetch (and without parallel stages) each sample passes the
// stages one after another: time per sample = sum of 1/rate over the input
// stages + 1/demand, and the GPU is busy 1/demand of it (tf.data
// performance guide: prefetch makes step time max(train, input) instead of
// the sum).
double serial_utilization(const Barrel& b);

// Seconds per epoch of `samples` at the barrel's training rate.
std::optional<double> epoch_seconds(const Barrel& b, double samples);

}  // namespace tfrig::pipeline
