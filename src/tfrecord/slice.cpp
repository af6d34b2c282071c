#include "tfrecord/slice.h"

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/text.h"
#include "core/try.h"

namespace tfrig::tfrecord {

namespace {

using core::ErrorCode;

core::Result<uint32_t> number(const char* text, const char* name) {
  auto v = core::parse_u64(core::trim(text ? text : ""));
  if (!v || *v > UINT32_MAX) {
    return core::fail(ErrorCode::kInvalidArgument, name,
                      trf("expected a non-negative integer, got '{}'", text ? text : ""));
  }
  return static_cast<uint32_t>(*v);
}

core::Result<Slice> checked(Slice s) {
  if (s.count == 0) return core::fail(ErrorCode::kInvalidArgument, "--num-shards", _("expected at least 1"));
  if (s.index >= s.count) {
    return core::fail(ErrorCode::kInvalidArgument, s.origin,
                      trf("slice {} is not below the number of slices {}", s.index, s.count));
  }
  return s;
}

core::Result<Slice> from_slurm(const GetEnv& getenv, std::optional<uint32_t> num_shards) {
  auto id = TFRIG_TRY(number(getenv("SLURM_ARRAY_TASK_ID"), "SLURM_ARRAY_TASK_ID"));
  uint32_t min = 0, step = 1;
  if (const char* m = getenv("SLURM_ARRAY_TASK_MIN")) {
    auto v = TFRIG_TRY(number(m, "SLURM_ARRAY_TASK_MIN"));
    min = v;
  }
  if (const char* st = getenv("SLURM_ARRAY_TASK_STEP")) {
    auto v = TFRIG_TRY(number(st, "SLURM_ARRAY_TASK_STEP"));
    step = v == 0 ? 1 : v;
  }
  if (id < min || (id - min) % step != 0) {
    return core::fail(ErrorCode::kInvalidArgument, "SLURM_ARRAY_TASK_ID",
                      trf("task {} is not on the array's grid (min {}, step {})", id, min, step));
  }
  Slice s{(id - min) / step, 0, "SLURM_ARRAY_TASK_ID"};
  if (const char* c = getenv("SLURM_ARRAY_TASK_COUNT")) {
    auto count = TFRIG_TRY(number(c, "SLURM_ARRAY_TASK_COUNT"));
    if (num_shards && *num_shards != count) {
      return core::fail(ErrorCode::kInvalidArgument, "--num-shards",
                        trf("{} differs from the job array's SLURM_ARRAY_TASK_COUNT {}", *num_shards, count));
    }
    s.count = count;
  } else if (num_shards) {
    s.count = *num_shards;
  } else {
    return core::fail(ErrorCode::kInvalidArgument, "--num-shards",
                      _("needed: SLURM_ARRAY_TASK_COUNT is not set, so give the job array's size"));
  }
  return checked(s);
}

}  // namespace

core::Result<Slice> resolve_slice(std::string_view index_text, std::optional<uint32_t> num_shards,
                                  const GetEnv& getenv) {
  if (index_text != "auto") {
    auto index = core::parse_u64(core::trim(index_text));
    if (!index || *index > UINT32_MAX) {
      return core::fail(ErrorCode::kInvalidArgument, "--shard-index",
                        trf("expected a slice number or 'auto', got '{}'", index_text));
    }
    return checked(Slice{static_cast<uint32_t>(*index), num_shards.value_or(1), "--shard-index"});
  }
  if (getenv("SLURM_ARRAY_TASK_ID")) return from_slurm(getenv, num_shards);
  if (const char* k8s = getenv("JOB_COMPLETION_INDEX")) {
    auto index = TFRIG_TRY(number(k8s, "JOB_COMPLETION_INDEX"));
    if (!num_shards) {
      return core::fail(ErrorCode::kInvalidArgument, "--num-shards",
                        _("needed with JOB_COMPLETION_INDEX: give the Indexed Job's completions"));
    }
    return checked(Slice{index, *num_shards, "JOB_COMPLETION_INDEX"});
  }
  return core::fail(ErrorCode::kInvalidArgument, "--shard-index auto",
                    _("neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed "
                      "Job) is set"));
}

}  // namespace tfrig::tfrecord
