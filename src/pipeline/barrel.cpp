#include "pipeline/barrel.h"

#include <algorithm>
#include <limits>

#include "core/i18n.h"
#include "core/name_table.h"

namespace tfrig::pipeline {

// A stave's origin in JSON (origin_label below has the words shown to a reader).
constexpr core::NameTable<Origin, 3> kOriginNames{{{
    {Origin::kMeasured, "measured"},
    {Origin::kEstimated, "estimated"},
    {Origin::kAssumed, "assumed"},
}}};
static_assert(kOriginNames.unique());

std::string_view origin_name(Origin o) { return kOriginNames.name(o, "assumed"); }

std::optional<Origin> origin_from_name(std::string_view name) { return kOriginNames.value(name); }

core::Message origin_message(Origin o) {
  switch (o) {
    case Origin::kMeasured: return core::Message::in_context(NC_("origin", "measured"));
    case Origin::kEstimated: return core::Message::in_context(NC_("origin", "estimated"));
    case Origin::kAssumed: return core::Message::in_context(NC_("origin", "assumed"));
  }
  return core::Message("{}", std::string(origin_name(o)));
}

core::Message stage_message(std::string_view name) {
  if (name == kStorage) return core::Message::in_context(NC_("pipeline stage", "storage"));
  if (name == kDecode) return core::Message::in_context(NC_("pipeline stage", "decode"));
  if (name == kHostMemory) return core::Message::in_context(NC_("pipeline stage", "host_memory"));
  if (name == kHostToDevice) return core::Message::in_context(NC_("pipeline stage", "host_to_device"));
  if (name == kGpu) return core::Message::in_context(NC_("pipeline stage", "gpu"));
  if (name == "all") return core::Message::in_context(NC_("pipeline stage", "all"));
  return core::Message("{}", std::string(name));
}

// The terminal's words: the process's language, which is the reader's.
std::string origin_label(Origin o) { return core::render(origin_message(o), core::i18n::language()); }

std::string stage_label(std::string_view name) { return core::render(stage_message(name), core::i18n::language()); }

Barrel evaluate(std::vector<Stage> stages) {
  Barrel b;
  // The GPU stave goes last whatever the order given.
  std::stable_partition(stages.begin(), stages.end(), [](const Stage& s) { return s.name != kGpu; });
  b.stages = std::move(stages);
  double slowest = std::numeric_limits<double>::infinity();
  std::string slowest_name;
  for (const Stage& s : b.stages) {
    if (s.name == kGpu) {
      b.gpu_demand = std::max(0.0, s.samples_per_s);
      continue;
    }
    if (!(s.samples_per_s > 0)) continue;
    if (s.samples_per_s < slowest) {
      slowest = s.samples_per_s;
      slowest_name = s.name;
    }
  }
  b.input_rate = slowest_name.empty() ? 0 : slowest;
  if (b.gpu_demand <= 0) {
    b.bottleneck = slowest_name;
    b.training_rate = b.input_rate;
    return b;
  }
  if (slowest_name.empty() || b.input_rate >= b.gpu_demand) {
    b.bottleneck = kGpu;
    b.predicted_utilization = 1.0;
    b.training_rate = b.gpu_demand;
    if (slowest_name.empty()) b.input_rate = 0;
  } else {
    b.bottleneck = slowest_name;
    b.predicted_utilization = b.input_rate / b.gpu_demand;
    b.training_rate = b.input_rate;
  }
  return b;
}

Barrel with_stage(const Barrel& b, const Stage& stage) {
  std::vector<Stage> stages = b.stages;
  auto it = std::find_if(stages.begin(), stages.end(), [&](const Stage& s) { return s.name == stage.name; });
  if (it != stages.end()) {
    *it = stage;
  } else {
    stages.push_back(stage);
  }
  return evaluate(std::move(stages));
}

const Stage* find_stage(const Barrel& b, std::string_view name) {
  for (const Stage& s : b.stages) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

double share_of_demand(const Barrel& b, const Stage& s) {
  if (b.gpu_demand <= 0) return 0;
  return s.samples_per_s / b.gpu_demand;
}

double serial_utilization(const Barrel& b) {
  if (b.gpu_demand <= 0) return 0;
  double per_sample = 1.0 / b.gpu_demand;
  for (const Stage& s : b.stages) {
    if (s.name == kGpu || !(s.samples_per_s > 0)) continue;
    per_sample += 1.0 / s.samples_per_s;
  }
  return (1.0 / b.gpu_demand) / per_sample;
}

std::optional<double> epoch_seconds(const Barrel& b, double samples) {
  if (!(b.training_rate > 0) || !(samples > 0)) return std::nullopt;
  return samples / b.training_rate;
}

}  // namespace tfrig::pipeline
