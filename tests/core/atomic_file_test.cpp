#include "core/atomic_file.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "test_support.h"

namespace tfrig::core {
namespace {

using tfrig::test::list_dir;
using tfrig::test::path_exists;
using tfrig::test::read_file;
using tfrig::test::TempDir;
using tfrig::test::write_file;

bool has_temp_file(const std::string& dir) {
  for (const auto& name : list_dir(dir)) {
    if (name.find(".tmp-") != std::string::npos) return true;
  }
  return false;
}

TEST(AtomicFile, ContentLandsAndNoTempIsLeft) {
  TempDir dir;
  const std::string path = dir.file("snap.json");
  ASSERT_TRUE(write_file_atomic(path, "{\"a\": 1}\n").has_value());
  EXPECT_EQ(read_file(path), "{\"a\": 1}\n");
  EXPECT_EQ(list_dir(dir.path()), (std::vector<std::string>{"snap.json"}));
}

TEST(AtomicFile, ReplacesAnExistingFileAndAppliesTheMode) {
  TempDir dir;
  const std::string path = dir.file("out");
  write_file(path, "old content that is longer");
  ASSERT_TRUE(write_file_atomic(path, "new", 0600).has_value());
  EXPECT_EQ(read_file(path), "new");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_FALSE(has_temp_file(dir.path()));
}

TEST(AtomicFile, WriterInPiecesCommits) {
  TempDir dir;
  const std::string path = dir.file("shard");
  auto w = AtomicWriter::open(path);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->path(), path);
  EXPECT_TRUE(path_exists(w->temp_path()));
  EXPECT_FALSE(path_exists(path));  // nothing under the final name before commit
  ASSERT_TRUE(w->write("abc").has_value());
  ASSERT_TRUE(w->write("def").has_value());
  EXPECT_EQ(w->bytes_written(), 6u);
  const std::string temp = w->temp_path();
  ASSERT_TRUE(w->commit().has_value());
  EXPECT_EQ(read_file(path), "abcdef");
  EXPECT_FALSE(path_exists(temp));
  // Writing or committing again is an error, not a crash.
  EXPECT_FALSE(w->write("x").has_value());
  EXPECT_FALSE(w->commit().has_value());
}

TEST(AtomicFile, AbortRemovesTheTempAndIsIdempotent) {
  TempDir dir;
  auto w = AtomicWriter::open(dir.file("x"));
  ASSERT_TRUE(w.has_value());
  ASSERT_TRUE(w->write("partial").has_value());
  const std::string temp = w->temp_path();
  ASSERT_TRUE(path_exists(temp));
  w->abort();
  EXPECT_FALSE(path_exists(temp));
  w->abort();
  EXPECT_TRUE(list_dir(dir.path()).empty());
}

TEST(AtomicFile, DestroyedWithoutCommitLeavesNothing) {
  TempDir dir;
  {
    auto w = AtomicWriter::open(dir.file("x"));
    ASSERT_TRUE(w.has_value());
    ASSERT_TRUE(w->write("partial").has_value());
    AtomicWriter moved = std::move(*w);  // the moved-from writer must not remove the moved temp
    EXPECT_TRUE(path_exists(moved.temp_path()));
  }
  EXPECT_TRUE(list_dir(dir.path()).empty());
}

TEST(AtomicFile, MissingDirectoryFailsNamingThePath) {
  TempDir dir;
  const std::string path = dir.file("no/such/dir/out.json");
  auto st = write_file_atomic(path, "x");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().where, path);
  EXPECT_EQ(st.error().code, ErrorCode::kNotFound);
  EXPECT_NE(st.error().message.find("No such file"), std::string::npos) << st.error().message;
  EXPECT_TRUE(list_dir(dir.path()).empty());
}

TEST(AtomicFile, RenameOntoADirectoryFailsAndLeavesNoTemp) {
  TempDir dir;
  ASSERT_EQ(::mkdir(dir.file("target").c_str(), 0755), 0);
  auto st = write_file_atomic(dir.file("target"), "x");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().where, dir.file("target"));
  EXPECT_EQ(list_dir(dir.path()), (std::vector<std::string>{"target"}));
}

}  // namespace
}  // namespace tfrig::core
