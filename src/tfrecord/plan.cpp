#include "tfrecord/plan.h"

#include <numeric>
#include <random>

#include <fmt/format.h>

namespace tfrig::tfrecord {

uint64_t estimated_record_bytes(const SourceItem& item) {
  // 16 bytes of framing + ~160 bytes of standard keys and values + the
  // filename and label text twice over for safety + extras.
  uint64_t extra = 0;
  for (const auto& [key, f] : item.extras) {
    extra += key.size() + 8;
    for (const auto& b : f.bytes) extra += b.size() + 2;
    extra += f.floats.size() * 4 + f.ints.size() * 10;
  }
  return item.size_bytes + 16 + 160 + item.filename.size() + item.label_text.size() + extra;
}

void deterministic_shuffle(std::vector<uint32_t>& v, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (size_t i = v.size(); i > 1; --i) {
    // Unbiased draw in [0, i) by rejection (the top of the range that does
    // not divide evenly is thrown away).
    const uint64_t n = i;
    const uint64_t limit = UINT64_MAX - (UINT64_MAX % n);
    uint64_t r;
    do {
      r = rng();
    } while (r >= limit);
    std::swap(v[i - 1], v[static_cast<size_t>(r % n)]);
  }
}

Plan plan_shards(const Dataset& ds, const PlanOptions& options) {
  std::vector<uint32_t> order(ds.items.size());
  std::iota(order.begin(), order.end(), 0u);
  if (options.shuffle) deterministic_shuffle(order, options.seed);
  Plan plan;
  ShardPlan cur;
  for (uint32_t idx : order) {
    uint64_t est = estimated_record_bytes(ds.items[idx]);
    if (!cur.items.empty() && cur.estimated_bytes + est > options.shard_size_bytes) {
      cur.index = static_cast<uint32_t>(plan.shards.size());
      plan.shards.push_back(std::move(cur));
      cur = ShardPlan{};
    }
    cur.items.push_back(idx);
    cur.estimated_bytes += est;
  }
  if (!cur.items.empty()) {
    cur.index = static_cast<uint32_t>(plan.shards.size());
    plan.shards.push_back(std::move(cur));
  }
  return plan;
}

std::string shard_file_name(const std::string& prefix, uint32_t index, uint32_t count) {
  return fmt::format("{}-{:05d}-of-{:05d}.tfrecord", prefix, index, count);
}

bool shard_in_slice(uint32_t shard, uint32_t slice_index, uint32_t num_slices) {
  return num_slices <= 1 || shard % num_slices == slice_index;
}

}  // namespace tfrig::tfrecord
