#include "bench/history.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>

#include "bench_test_util.h"

namespace tfrig::bench {
namespace {

using testing::TempDir;

BenchReport sample_report(const std::string& machine, double median) {
  BenchReport r;
  r.context.machine_id = machine;
  r.context.hostname = "host-" + machine;
  r.context.timestamp = "2026-11-30T05:00:00Z";
  r.context.tool_version = "0.1.0";
  r.context.governor = "performance";
  r.context.warnings = {core::Message("{}", "debug build")};
  Measurement ok;
  ok.id = "memory";
  ok.metric = "triad_1_thread";
  ok.unit = "GB/s";
  ok.samples = {median - 1, median, median + 1};
  ok.median = median;
  ok.min = median - 1;
  ok.max = median + 1;
  ok.cv = 0.05;
  ok.params = {{"threads", 1}, {"array_bytes", 268435456}};
  ok.notes = {core::Message("{}", "a note")};
  r.results.push_back(ok);
  Measurement skipped;
  skipped.id = "gemm";
  skipped.metric = "fp16";
  skipped.unit = "TFLOPS";
  skipped.status = Status::kSkipped;
  skipped.reason = core::Message("{}", "libcuda.so.1 not found: no NVIDIA driver");
  r.results.push_back(skipped);
  return r;
}

TEST(History, ARunRoundTripsWithItsContextAndResults) {
  TempDir dir;
  auto h = History::open(dir.file("sub/dir/history.db"));  // directories are created
  ASSERT_TRUE(h) << h.error().to_string();
  auto id = h->record(sample_report("m1", 10));
  ASSERT_TRUE(id) << id.error().to_string();
  auto back = h->load(*id);
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back->context.machine_id, "m1");
  EXPECT_EQ(back->context.hostname, "host-m1");
  ASSERT_TRUE(back->context.governor.has_value());
  EXPECT_EQ(*back->context.governor, "performance");
  ASSERT_EQ(back->context.warnings.size(), 1u);
  EXPECT_EQ(core::english(back->context.warnings[0]), "debug build");
  ASSERT_EQ(back->results.size(), 2u);
  const Measurement& m = back->results[0];
  EXPECT_EQ(m.id, "memory");
  EXPECT_EQ(m.metric, "triad_1_thread");
  EXPECT_EQ(m.status, Status::kOk);
  EXPECT_DOUBLE_EQ(m.median, 10);
  EXPECT_EQ(m.samples, (std::vector<double>{9, 10, 11}));
  EXPECT_EQ(m.params["array_bytes"], 268435456);
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_EQ(core::english(m.notes[0]), "a note");
  EXPECT_EQ(back->results[1].status, Status::kSkipped);
  EXPECT_EQ(core::english(back->results[1].reason), "libcuda.so.1 not found: no NVIDIA driver");
}

TEST(History, PreviousIsTheLatestEarlierOkRunOnTheSameMachine) {
  TempDir dir;
  auto h = History::open(dir.file("h.db"));
  ASSERT_TRUE(h);
  auto first = h->record(sample_report("m1", 10));
  ASSERT_TRUE(h->record(sample_report("other-machine", 99)));
  auto second = h->record(sample_report("m1", 12));
  ASSERT_TRUE(first && second);

  auto prev = h->previous("m1", "memory", "triad_1_thread", *second);
  ASSERT_TRUE(prev);
  ASSERT_TRUE(prev->has_value());
  EXPECT_DOUBLE_EQ((*prev)->median, 10);
  EXPECT_EQ((*prev)->run_id, *first);

  auto latest = h->previous("m1", "memory", "triad_1_thread", INT64_MAX);
  ASSERT_TRUE(latest && latest->has_value());
  EXPECT_DOUBLE_EQ((*latest)->median, 12);

  // Skipped results are never a baseline; unknown machines have none.
  auto skipped = h->previous("m1", "gemm", "fp16", INT64_MAX);
  ASSERT_TRUE(skipped);
  EXPECT_FALSE(skipped->has_value());
  auto none = h->previous("m9", "memory", "triad_1_thread", INT64_MAX);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
}

TEST(History, SurvivesReopeningAndRefusesANewerSchema) {
  TempDir dir;
  std::string path = dir.file("h.db");
  {
    auto h = History::open(path);
    ASSERT_TRUE(h);
    ASSERT_TRUE(h->record(sample_report("m1", 10)));
  }
  {
    auto h = History::open(path);
    ASSERT_TRUE(h);
    auto prev = h->previous("m1", "memory", "triad_1_thread", INT64_MAX);
    ASSERT_TRUE(prev && prev->has_value());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto h = History::open(path);
  ASSERT_FALSE(h);
  EXPECT_NE(h.error().message.find("newer"), std::string::npos);
}

TEST(History, AFileThatIsNotADatabaseIsAClearError) {
  TempDir dir;
  testing::write_file(dir.file("junk.db"), std::string(4096, 'j'));
  auto h = History::open(dir.file("junk.db"));
  ASSERT_FALSE(h);
  EXPECT_EQ(h.error().where, dir.file("junk.db"));
}

TEST(History, DefaultPathFollowsXdgThenHome) {
  const char* old_xdg = std::getenv("XDG_DATA_HOME");
  const char* old_home = std::getenv("HOME");
  std::string saved_xdg = old_xdg != nullptr ? old_xdg : "";
  std::string saved_home = old_home != nullptr ? old_home : "";
  ::setenv("XDG_DATA_HOME", "/x/data", 1);
  EXPECT_EQ(default_history_path(), "/x/data/tfrig/history.db");
  ::setenv("XDG_DATA_HOME", "relative/ignored", 1);
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(default_history_path(), "/home/u/.local/share/tfrig/history.db");
  if (old_xdg != nullptr) {
    ::setenv("XDG_DATA_HOME", saved_xdg.c_str(), 1);
  } else {
    ::unsetenv("XDG_DATA_HOME");
  }
  if (old_home != nullptr) {
    ::setenv("HOME", saved_home.c_str(), 1);
  } else {
    ::unsetenv("HOME");
  }
}

}  // namespace
}  // namespace tfrig::bench
