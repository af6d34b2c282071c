#include "bench/storage.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "bench_test_util.h"

namespace tfrig::bench {
namespace {

using testing::TempDir;

TEST(ReadFilesParallel, ReadsEveryByteOfEveryFile) {
  TempDir dir;
  std::vector<std::string> files;
  uint64_t expected = 0;
  for (int i = 0; i < 40; ++i) {
    std::string data(static_cast<size_t>(1000 + i * 5000), 'a');
    testing::write_file(dir.file("f" + std::to_string(i)), data);
    files.push_back(dir.file("f" + std::to_string(i)));
    expected += data.size();
  }
  std::atomic<bool> cancelled{false};
  FileReadStats s = read_files_parallel(files, 3, cancelled);
  EXPECT_EQ(s.files, 40u);
  EXPECT_EQ(s.bytes, expected);
  EXPECT_EQ(s.vanished, 0u);
  EXPECT_EQ(s.failed, 0u);
}

TEST(ReadFilesParallel, AFileThatVanishedIsCountedAndTheRestAreRead) {
  TempDir dir;
  std::vector<std::string> files;
  for (int i = 0; i < 5; ++i) {
    testing::write_file(dir.file("f" + std::to_string(i)), "hello");
    files.push_back(dir.file("f" + std::to_string(i)));
  }
  // Listed, then deleted by someone else before the read.
  ASSERT_EQ(::unlink(files[2].c_str()), 0);
  std::atomic<bool> cancelled{false};
  FileReadStats s = read_files_parallel(files, 2, cancelled);
  EXPECT_EQ(s.files, 4u);
  EXPECT_EQ(s.vanished, 1u);
  EXPECT_EQ(s.failed, 0u);
  EXPECT_EQ(s.bytes, 20u);
}

TEST(ReadFilesParallel, AnUnreadableEntryIsAFailureWithItsPath) {
  TempDir dir;
  testing::write_file(dir.file("ok"), "x");
  std::filesystem::create_directory(dir.file("a-directory"));
  std::atomic<bool> cancelled{false};
  // read(2) on a directory fails with EISDIR: counted, named, not fatal.
  FileReadStats s = read_files_parallel({dir.file("ok"), dir.file("a-directory")}, 1, cancelled);
  EXPECT_EQ(s.files, 1u);
  EXPECT_EQ(s.failed, 1u);
  EXPECT_NE(core::english(s.first_error).find("a-directory"), std::string::npos);
}

TEST(ListDataset, ListsRegularFilesRecursivelyWithoutFollowingSymlinks) {
  TempDir dir, outside;
  std::filesystem::create_directories(dir.file("a/b"));
  testing::write_file(dir.file("a/b/1.jpg"), "1");
  testing::write_file(dir.file("2.jpg"), "2");
  testing::write_file(outside.file("3.jpg"), "3");
  ASSERT_EQ(::symlink(outside.file("3.jpg").c_str(), dir.file("link.jpg").c_str()), 0);
  auto r = list_dataset(dir.path(), 100);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0], dir.file("2.jpg"));
  EXPECT_EQ((*r)[1], dir.file("a/b/1.jpg"));
  EXPECT_FALSE(list_dataset(dir.file("missing"), 10));
}

// The folder's size for plan and pipeline: every regular file and its bytes,
// recursively; a path that is not a folder is refused with its name.
TEST(DatasetTotals, CountsEveryFileAndRefusesANonFolder) {
  TempDir dir;
  std::filesystem::create_directories(dir.file("a/b"));
  testing::write_file(dir.file("a/b/1.jpg"), "12345");
  testing::write_file(dir.file("2.jpg"), "123");
  auto t = dataset_totals(dir.path());
  ASSERT_TRUE(t) << t.error().to_string();
  EXPECT_EQ(t->files, 2u);
  EXPECT_EQ(t->bytes, 8u);
  auto not_folder = dataset_totals(dir.file("2.jpg"));
  ASSERT_FALSE(not_folder);
  EXPECT_EQ(not_folder.error().code, core::ErrorCode::kNotFound);
  EXPECT_NE(not_folder.error().to_string().find("2.jpg"), std::string::npos) << not_folder.error().to_string();
}

TEST(ResidentFraction, SeesPagesAfterAReadAndTellsUnknownFiles) {
  TempDir dir;
  testing::write_file(dir.file("f"), std::string(64 * 1024, 'z'));
  std::atomic<bool> cancelled{false};
  read_files_parallel({dir.file("f")}, 1, cancelled);
  double r = resident_fraction({dir.file("f")}, 1);
  EXPECT_GE(r, 0.0);
  EXPECT_LE(r, 1.0);
  EXPECT_EQ(resident_fraction({dir.file("missing")}, 1), -1);
}

class TimedReadTest : public ::testing::TestWithParam<bool> {};

TEST_P(TimedReadTest, ReadsWholeBlocksAtTheRequestedDepth) {
  TempDir dir;
  constexpr uint64_t kSize = 1 << 20;
  testing::write_file(dir.file("f"), std::string(kSize, 'q'));
  int fd = ::open(dir.file("f").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  bool uring = GetParam();
  auto r = timed_read(fd, kSize, 4096, 4, true, 0.05, 1, uring);
  ::close(fd);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_GT(r->ops, 0u);
  EXPECT_EQ(r->bytes, r->ops * 4096);
  if (!uring) {
    EXPECT_EQ(r->engine, "pread-threads");
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, TimedReadTest, ::testing::Values(true, false));

TEST(TimedRead, AFileSmallerThanABlockIsRefused) {
  auto r = timed_read(0, 100, 4096, 1, false, 0.01, 1);
  EXPECT_FALSE(r);
}

}  // namespace
}  // namespace tfrig::bench
