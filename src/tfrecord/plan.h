// Shard planning: which source file goes into which shard, decided before
// any byte is written, from the listing alone. Every machine that plans the
// same dataset with the same --seed and --shard-size gets the same plan, so
// `--shard-index I --num-shards N` slices (shard j belongs to slice j mod N)
// together write exactly the shards of a single run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tfrecord/dataset.h"

namespace tfrig::tfrecord {

struct PlanOptions {
  uint64_t shard_size_bytes = 200ull * 1000 * 1000;  // --shard-size 200MB (decimal, as the issue states it)
  bool shuffle = true;
  uint64_t seed = 0;
};

struct ShardPlan {
  uint32_t index = 0;
  std::vector<uint32_t> items;  // indexes into Dataset::items, in write order
  uint64_t estimated_bytes = 0;
};

struct Plan {
  std::vector<ShardPlan> shards;
};

// Estimated framed size of one record: the file, the framing (16 bytes) and
// the Example's keys and small features (a generous constant per record).
uint64_t estimated_record_bytes(const SourceItem& item);

Plan plan_shards(const Dataset& ds, const PlanOptions& options);

// Deterministic Fisher-Yates: std::mt19937_64 is fully specified by the C++
// standard ([rand.predef]: the 10000th output is 9981545732273789042), but
// std::shuffle and the distributions are not, so the index draw is ours.
void deterministic_shuffle(std::vector<uint32_t>& v, uint64_t seed);

// "PREFIX-00003-of-00128.tfrecord" (the TFDS / tf.data sharding convention).
std::string shard_file_name(const std::string& prefix, uint32_t index, uint32_t count);

bool shard_in_slice(uint32_t shard, uint32_t slice_index, uint32_t num_slices);

}  // namespace tfrig::tfrecord
