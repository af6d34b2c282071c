#include "pipeline/whatif.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/message.h"
#include "core/units.h"
#include "plan/server.h"

namespace tfrig::pipeline {

double nvme_bytes_per_s() { return plan::kNvmeSmallReadBytesPerS; }

double network_bytes_per_s(double gbit) { return gbit * 1e9 / 8.0 * (1448.0 / 1538.0); }

namespace {

// One candidate change: applies itself to a barrel.
struct Change {
  std::string id;
  core::Message change;
  Origin origin;
  core::Message detail;
  int cost_rank;
  bool applicable;
  std::function<Barrel(const Barrel&)> apply;
};

Stage storage_stage(double rate, Origin origin, std::string detail) {
  return Stage{kStorage, rate, origin, core::Message(std::move(detail))};
}

int cores_needed(const Barrel& base, const WhatIfInputs& in) {
  // Decode scales with cores (per-core rate measured); the smallest K extra
  // cores that lift decode to the target share of the demand.
  const Stage* decode = find_stage(base, kDecode);
  if (decode == nullptr || in.decode_per_core <= 0 || base.gpu_demand <= 0) return 0;
  const double need = in.target_utilization * base.gpu_demand - decode->samples_per_s;
  if (need <= 0) return 0;
  return static_cast<int>(std::ceil(need / in.decode_per_core));
}

std::vector<Change> changes(const Barrel& base, const WhatIfInputs& in) {
  std::vector<Change> out;
  const double per_sample = in.avg_sample_bytes > 0 ? in.avg_sample_bytes : 0;
  // Code changes first (cost rank 0-1): cache, TFRecord, mixed precision.
  if (in.warm_storage_samples_per_s) {
    const bool fits = in.fits_in_ram.value_or(false);
    out.push_back({"cache", core::Message(N_("cache the dataset in RAM (dataset.cache())")), Origin::kMeasured,
                   fits ? core::Message(N_("storage at the measured page-cache re-read rate, {0:.0f} samples/s"),
                                        *in.warm_storage_samples_per_s)
                        : core::Message(N_("the dataset ({0}) does not fit in available memory"),
                                        core::format_bytes_binary(static_cast<uint64_t>(in.dataset_bytes))),
                   0, fits, [r = *in.warm_storage_samples_per_s](const Barrel& b) {
                     return with_stage(b, storage_stage(r, Origin::kMeasured, "cached in RAM"));
                   }});
  }
  if (in.tfrecord_samples_per_s && !in.input_is_tfrecord) {
    out.push_back({"tfrecord", core::Message(N_("pack into TFRecord shards (tfrig pack) and stream them")),
                   Origin::kMeasured,
                   core::Message(N_("a sample packed with tfrig pack and read cold: {0:.0f} samples/s"),
                                 *in.tfrecord_samples_per_s),
                   0, true, [r = *in.tfrecord_samples_per_s](const Barrel& b) {
                     return with_stage(b, storage_stage(r, Origin::kMeasured, "TFRecord shards streamed"));
                   }});
  }
  if (in.gpu_demand_mixed && !in.already_mixed) {
    out.push_back(
        {"mixed_precision", core::Message(N_("mixed precision (mixed_float16)")), Origin::kEstimated,
         core::Message(N_("the GPU's demand becomes {0:.0f} samples/s: the GPU gets faster, the input must keep up"),
                       *in.gpu_demand_mixed),
         1, true, [d = *in.gpu_demand_mixed](const Barrel& b) {
           return with_stage(b, Stage{kGpu, d, Origin::kEstimated, core::Message("mixed precision")});
         }});
  }
  // Hardware (cost rank 2+): cores, NVMe, network storage.
  if (const int k = cores_needed(base, in); k > 0 && find_stage(base, kDecode) != nullptr) {
    const double rate = find_stage(base, kDecode)->samples_per_s + k * in.decode_per_core;
    out.push_back({"more_cores",
                   core::Message::plural(NP_("{} more CPU core", "{} more CPU cores"), static_cast<uint64_t>(k), k),
                   Origin::kMeasured,
                   core::Message(N_("decode + augment at the measured {0:.0f} samples/s per core: {1:.0f} samples/s"),
                                 in.decode_per_core, rate),
                   2, true, [rate](const Barrel& b) {
                     return with_stage(b, Stage{kDecode, rate, Origin::kMeasured, core::Message("more cores")});
                   }});
  } else if (in.cores > 0 && in.decode_per_core > 0 && find_stage(base, kDecode) != nullptr) {
    const double rate = find_stage(base, kDecode)->samples_per_s + in.cores * in.decode_per_core;
    out.push_back({"more_cores",
                   core::Message::plural(NP_("{} more CPU core (twice as many)", "{} more CPU cores (twice as many)"),
                                         static_cast<uint64_t>(in.cores), in.cores),
                   Origin::kMeasured,
                   core::Message(N_("decode + augment at the measured {0:.0f} samples/s per core"), in.decode_per_core),
                   2, true, [rate](const Barrel& b) {
                     return with_stage(b, Stage{kDecode, rate, Origin::kMeasured, core::Message("more cores")});
                   }});
  }
  if (per_sample > 0) {
    const double nvme = nvme_bytes_per_s() / per_sample;
    out.push_back({"nvme", core::Message(N_("data on a local NVMe SSD")), Origin::kEstimated,
                   // TRANSLATORS: {0} a read rate, {1} the bytes of one sample, {2} the samples/s that gives.
                   core::Message(N_("{0} of ~{1} reads (plan's NVMe figure): {2:.0f} samples/s"),
                                 core::format_rate(nvme_bytes_per_s()),
                                 core::format_bytes_binary(static_cast<uint64_t>(per_sample)), nvme),
                   3, true,
                   [nvme](const Barrel& b) { return with_stage(b, storage_stage(nvme, Origin::kEstimated, "NVMe")); }});
    for (double gbit : {1.0, 10.0, 25.0}) {
      const double rate = network_bytes_per_s(gbit) / per_sample;
      out.push_back({fmt::format("network_{:.0f}gbe", gbit),
                     core::Message(N_("data on network storage over {0:.0f} GbE"), gbit), Origin::kEstimated,
                     // TRANSLATORS: {0} a network rate, {1} the bytes of one sample, {2} the samples/s that gives.
                     core::Message(N_("{0} of TCP goodput / {1} per sample: {2:.0f} samples/s"),
                                   core::format_rate(network_bytes_per_s(gbit)),
                                   core::format_bytes_binary(static_cast<uint64_t>(per_sample)), rate),
                     gbit >= 25 ? 5 : 4, true, [rate](const Barrel& b) {
                       return with_stage(b, storage_stage(rate, Origin::kEstimated, "network storage"));
                     }});
    }
  }
  return out;
}

WhatIf result_of(const Change& c, const Barrel& after) {
  WhatIf w;
  w.id = c.id;
  w.change = c.change;
  w.origin = c.origin;
  w.detail = c.detail;
  w.cost_rank = c.cost_rank;
  w.applicable = c.applicable;
  w.predicted_utilization = after.predicted_utilization;
  w.gpu_demand = after.gpu_demand;
  w.training_rate = after.training_rate;
  w.bottleneck = after.bottleneck;
  return w;
}

}  // namespace

std::vector<WhatIf> what_ifs(const Barrel& base, const WhatIfInputs& in) {
  std::vector<WhatIf> out;
  for (const Change& c : changes(base, in)) {
    out.push_back(result_of(c, c.applicable ? c.apply(base) : base));
  }
  return out;
}

std::optional<WhatIf> cheapest_fix(const Barrel& base, const WhatIfInputs& in) {
  if (base.predicted_utilization >= in.target_utilization) return std::nullopt;
  std::vector<Change> cs = changes(base, in);
  // Mixed precision raises the demand: it never fixes an input-bound run.
  cs.erase(std::remove_if(cs.begin(), cs.end(),
                          [](const Change& c) {
                            return !c.applicable || c.id == "mixed_precision" || c.id.rfind("network_", 0) == 0;
                          }),
           cs.end());
  std::stable_sort(cs.begin(), cs.end(), [](const Change& a, const Change& b) { return a.cost_rank < b.cost_rank; });
  for (const Change& c : cs) {
    Barrel after = c.apply(base);
    if (after.predicted_utilization >= in.target_utilization) return result_of(c, after);
  }
  // Pairs, cheapest total rank first.
  std::optional<WhatIf> best;
  int best_rank = 1 << 20;
  for (size_t i = 0; i < cs.size(); ++i) {
    for (size_t j = i + 1; j < cs.size(); ++j) {
      Barrel after = cs[j].apply(cs[i].apply(base));
      const int rank = cs[i].cost_rank + cs[j].cost_rank;
      if (after.predicted_utilization >= in.target_utilization && rank < best_rank) {
        Change both{cs[i].id + "+" + cs[j].id,
                    core::Message(N_("{0} and {1}"), cs[i].change, cs[j].change),
                    cs[i].origin == Origin::kMeasured && cs[j].origin == Origin::kMeasured ? Origin::kMeasured
                                                                                           : Origin::kEstimated,
                    core::Message(N_("{0}; {1}"), cs[i].detail, cs[j].detail),
                    rank,
                    true,
                    {}};
        best = result_of(both, after);
        best_rank = rank;
      }
    }
  }
  return best;
}

}  // namespace tfrig::pipeline
