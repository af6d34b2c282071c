#include "bench/scratch.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "bench/storage.h"
#include "bench_test_util.h"

namespace tfrig::bench {
namespace {

using testing::TempDir;

TEST(ScratchDir, IsCreatedInsideTheParentWithAMarkerAndRemovedCompletely) {
  TempDir parent;
  std::string path;
  {
    auto s = ScratchDir::create(parent.path());
    ASSERT_TRUE(s) << s.error().to_string();
    path = s->path();
    EXPECT_EQ(std::filesystem::path(path).parent_path().string(),
              std::filesystem::canonical(parent.path()).string());
    EXPECT_EQ(std::filesystem::path(path).filename().string().rfind(kScratchPrefix, 0), 0u);
    EXPECT_TRUE(std::filesystem::exists(s->file(kScratchMarker)));
    std::filesystem::create_directory(s->file("files"));
    testing::write_file(s->file("files/a.jpg"), "x");
    testing::write_file(s->file("big.bin"), "y");
  }  // destructor removes
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(testing::entries(parent.path()).empty());
}

TEST(ScratchDir, StaleDirectoriesOfDeadRunsAreFoundNotLiveOnes) {
  TempDir parent;
  // A pid that ran and is gone: a child that exited and was reaped.
  pid_t dead = ::fork();
  ASSERT_GE(dead, 0);
  if (dead == 0) ::_exit(0);
  int status = 0;
  ASSERT_EQ(::waitpid(dead, &status, 0), dead);
  const std::string stale = parent.path() + "/" + kScratchPrefix + "killed";
  const std::string live = parent.path() + "/" + kScratchPrefix + "running";
  std::filesystem::create_directory(stale);
  std::filesystem::create_directory(live);
  testing::write_file(stale + "/" + kScratchMarker,
                      "tfrig bench scratch directory of pid " + std::to_string(dead) + "; safe to delete\n");
  testing::write_file(live + "/" + kScratchMarker,
                      "tfrig bench scratch directory of pid " + std::to_string(::getpid()) + "; safe to delete\n");
  std::filesystem::create_directory(parent.path() + "/" + kScratchPrefix + "no-marker");
  EXPECT_EQ(stale_scratch_dirs(parent.path()), std::vector<std::string>{stale});
}

TEST(ScratchDir, RemovalDoesNotFollowSymlinksOut) {
  TempDir parent, outside;
  testing::write_file(outside.file("precious.txt"), "keep me");
  auto s = ScratchDir::create(parent.path());
  ASSERT_TRUE(s);
  ASSERT_EQ(::symlink(outside.path().c_str(), s->file("link-to-dir").c_str()), 0);
  ASSERT_EQ(::symlink(outside.file("precious.txt").c_str(), s->file("link-to-file").c_str()), 0);
  ASSERT_TRUE(s->remove());
  EXPECT_EQ(testing::read_file(outside.file("precious.txt")), "keep me");
  EXPECT_TRUE(testing::entries(parent.path()).empty());
}

TEST(ScratchDir, RefusesToRemoveADirectoryThatWasSwappedUnderIt) {
  TempDir parent;
  auto s = ScratchDir::create(parent.path());
  ASSERT_TRUE(s);
  std::string path = s->path();
  // Someone replaces our directory by one of theirs under the same name.
  ASSERT_EQ(::rename(path.c_str(), parent.file("moved").c_str()), 0);
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  testing::write_file(path + "/theirs.txt", "data");
  auto r = s->remove();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("no longer"), std::string::npos);
  EXPECT_EQ(testing::read_file(path + "/theirs.txt"), "data");
}

TEST(ScratchDir, RefusesAFileADeviceAPseudoFilesystemAndAMissingPath) {
  TempDir parent;
  testing::write_file(parent.file("plain"), "x");
  auto file = ScratchDir::create(parent.file("plain"));
  ASSERT_FALSE(file);
  EXPECT_NE(file.error().message.find("not a directory"), std::string::npos);

  auto device = ScratchDir::create("/dev/null");
  ASSERT_FALSE(device);

  auto proc = ScratchDir::create("/proc");
  ASSERT_FALSE(proc);
  EXPECT_NE(proc.error().message.find("pseudo-filesystem"), std::string::npos);

  auto sys = ScratchDir::create("/sys/kernel");
  ASSERT_FALSE(sys);

  auto missing = ScratchDir::create(parent.file("does-not-exist"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().where, parent.file("does-not-exist"));
}

TEST(ScratchDir, RefusesADirectoryThisUserCannotWrite) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes anywhere; BenchCli.ReadOnlyDirectory covers this as nobody";
  TempDir parent;
  ASSERT_EQ(::chmod(parent.path().c_str(), 0555), 0);
  auto s = ScratchDir::create(parent.path());
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("not writable"), std::string::npos);
}

TEST(FreeSpace, AnImpossibleSizeIsRefusedNamingBothNumbers) {
  TempDir parent;
  auto r = ensure_free_space(parent.path(), 1ull << 60);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not enough free space"), std::string::npos);
  EXPECT_TRUE(ensure_free_space(parent.path(), 1));
}

}  // namespace
}  // namespace tfrig::bench
