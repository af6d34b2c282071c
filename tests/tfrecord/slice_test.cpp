// --shard-index I|auto --num-shards N -> the slice this run packs.
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "tfrecord/slice.h"

namespace tfrig::tfrecord {
namespace {

GetEnv env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(Slice, ExplicitIndexAndCount) {
  auto s = resolve_slice("2", 4u, env({}));
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->index, 2u);
  EXPECT_EQ(s->count, 4u);
  EXPECT_EQ(resolve_slice("0", std::nullopt, env({}))->count, 1u);
  EXPECT_FALSE(resolve_slice("4", 4u, env({})).has_value());
  EXPECT_FALSE(resolve_slice("-1", 4u, env({})).has_value());
  EXPECT_FALSE(resolve_slice("two", 4u, env({})).has_value());
  EXPECT_FALSE(resolve_slice("0", 0u, env({})).has_value());
}

TEST(Slice, SlurmArrayWithOffsetAndStep) {
  // sbatch --array=0-3
  auto a = resolve_slice("auto", std::nullopt, env({{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}));
  ASSERT_TRUE(a.has_value()) << a.error().to_string();
  EXPECT_EQ(a->index, 3u);
  EXPECT_EQ(a->count, 4u);
  EXPECT_EQ(a->origin, "SLURM_ARRAY_TASK_ID");
  // sbatch --array=10-40:10 (IDs 10, 20, 30, 40)
  auto b = resolve_slice("auto", 4u,
                         env({{"SLURM_ARRAY_TASK_ID", "30"}, {"SLURM_ARRAY_TASK_MIN", "10"}, {"SLURM_ARRAY_TASK_STEP", "10"},
                              {"SLURM_ARRAY_TASK_COUNT", "4"}}));
  ASSERT_TRUE(b.has_value()) << b.error().to_string();
  EXPECT_EQ(b->index, 2u);
  // Off the grid, a count that contradicts --num-shards, no count at all.
  EXPECT_FALSE(resolve_slice("auto", std::nullopt,
                             env({{"SLURM_ARRAY_TASK_ID", "15"}, {"SLURM_ARRAY_TASK_MIN", "10"}, {"SLURM_ARRAY_TASK_STEP", "10"},
                                  {"SLURM_ARRAY_TASK_COUNT", "4"}}))
                   .has_value());
  auto clash = resolve_slice("auto", 3u, env({{"SLURM_ARRAY_TASK_ID", "0"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}));
  ASSERT_FALSE(clash.has_value());
  EXPECT_EQ(clash.error().where, "--num-shards");
  EXPECT_FALSE(resolve_slice("auto", std::nullopt, env({{"SLURM_ARRAY_TASK_ID", "0"}})).has_value());
  EXPECT_EQ(resolve_slice("auto", 2u, env({{"SLURM_ARRAY_TASK_ID", "1"}}))->index, 1u);
}

TEST(Slice, KubernetesIndexedJobNeedsTheCount) {
  auto k = resolve_slice("auto", 16u, env({{"JOB_COMPLETION_INDEX", "15"}}));
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(k->index, 15u);
  EXPECT_EQ(k->origin, "JOB_COMPLETION_INDEX");
  EXPECT_FALSE(resolve_slice("auto", std::nullopt, env({{"JOB_COMPLETION_INDEX", "0"}})).has_value());
  EXPECT_FALSE(resolve_slice("auto", 16u, env({{"JOB_COMPLETION_INDEX", "16"}})).has_value());
  auto none = resolve_slice("auto", 4u, env({}));
  ASSERT_FALSE(none.has_value());
  EXPECT_NE(none.error().message.find("JOB_COMPLETION_INDEX"), std::string::npos);
}

}  // namespace
}  // namespace tfrig::tfrecord
