// Which slice of a pack this run writes: `--shard-index I --num-shards N`,
// or `--shard-index auto` from the batch system's environment, so one
// command line serves every task of a Slurm job array or a Kubernetes
// Indexed Job.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace tfrig::tfrecord {

struct Slice {
  uint32_t index = 0;
  uint32_t count = 1;
  std::string origin;  // "--shard-index", "SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"
};

using GetEnv = std::function<const char*(const char*)>;

// index_text is a number or "auto"; num_shards is --num-shards when given.
// auto reads, in order:
//   Slurm job arrays (sbatch(1), OUTPUT ENVIRONMENT VARIABLES):
//     SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_STEP and
//     SLURM_ARRAY_TASK_COUNT: slice (ID - MIN) / STEP of COUNT, so
//     --array=1-16 and --array=0-30:2 work as --array=0-15 does;
//   Kubernetes Indexed Jobs (the Job docs, "Completion mode"):
//     JOB_COMPLETION_INDEX, with the count from --num-shards (the Job's
//     completions, which the pod is not told).
// Fails naming the variable or option when the slice is not determined or
// the index is not below the count.
core::Result<Slice> resolve_slice(std::string_view index_text, std::optional<uint32_t> num_shards,
                                  const GetEnv& getenv);

}  // namespace tfrig::tfrecord
