#include "core/sysroot.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <gtest/gtest.h>

#include "test_support.h"

namespace tfrig::core {
namespace {

using tfrig::test::TempDir;
using tfrig::test::write_file;

bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

TEST(SysRoot, FullPathJoinsWithExactlyOneSlash) {
  SysRoot live("/", {});
  EXPECT_TRUE(live.is_live());
  EXPECT_EQ(live.full_path("proc/cpuinfo"), "/proc/cpuinfo");
  EXPECT_EQ(live.full_path("/proc/cpuinfo"), "/proc/cpuinfo");
  EXPECT_EQ(live.full_path("//proc"), "/proc");
  EXPECT_EQ(live.full_path(""), "/");

  SysRoot fixture("/data/roots/x/", {});
  EXPECT_FALSE(fixture.is_live());
  EXPECT_EQ(fixture.root(), "/data/roots/x");
  EXPECT_EQ(fixture.full_path("proc/cpuinfo"), "/data/roots/x/proc/cpuinfo");
  EXPECT_EQ(fixture.full_path("/proc/cpuinfo"), "/data/roots/x/proc/cpuinfo");
  EXPECT_EQ(fixture.full_path(""), "/data/roots/x");
  EXPECT_EQ(fixture.full_path("/"), "/data/roots/x");

  SysRoot slashes("/r///", {});
  EXPECT_EQ(slashes.full_path("a"), "/r/a");
  SysRoot empty("", {});
  EXPECT_TRUE(empty.is_live());
  EXPECT_EQ(empty.full_path("etc"), "/etc");
}

TEST(SysRoot, EnvironmentComesFromTheGivenMap) {
  SysRoot root("/x", SysRoot::EnvMap{{"CUDA_HOME", "/usr/local/cuda"}});
  EXPECT_EQ(root.env("CUDA_HOME"), "/usr/local/cuda");
  EXPECT_FALSE(root.env("PATH_THAT_IS_NOT_SET").has_value());
}

TEST(SysRoot, ReadTextReadsWholeFileAndReadLineTrimsTheFirstLine) {
  TempDir dir;
  write_file(dir.file("a"), "  first line \nsecond\n");
  write_file(dir.file("nul"), std::string("0-3\n\0", 5));
  SysRoot root(dir.path(), {});
  EXPECT_EQ(root.read_text("a").value(), "  first line \nsecond\n");
  EXPECT_EQ(root.read_text("/a").value(), "  first line \nsecond\n");
  EXPECT_EQ(root.read_line("a").value(), "first line");
  // sysfs masks with a NUL after the newline (hwloc fixtures).
  EXPECT_EQ(root.read_line("nul").value(), "0-3");
}

TEST(SysRoot, MissingFileIsNotFoundWithTheFullPath) {
  TempDir dir;
  SysRoot root(dir.path(), {});
  auto r = root.read_text("proc/nothing");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(r.error().where, dir.path() + "/proc/nothing");
  EXPECT_TRUE(contains(r.error().message, "No such file")) << r.error().message;
  EXPECT_TRUE(contains(r.error().to_string(), dir.path() + "/proc/nothing: ")) << r.error().to_string();
}

TEST(SysRoot, DirectoryIsRefusedWithTheFullPath) {
  TempDir dir;
  ASSERT_EQ(::mkdir(dir.file("version").c_str(), 0755), 0);
  SysRoot root(dir.path(), {});
  auto r = root.read_text("version");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().where, dir.path() + "/version");
  EXPECT_TRUE(contains(r.error().message, "directory")) << r.error().message;
  EXPECT_FALSE(root.read_line("version").has_value());
}

TEST(SysRoot, FifoIsRefusedWithoutBlocking) {
  TempDir dir;
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0644), 0) << std::strerror(errno);
  SysRoot root(dir.path(), {});
  // Nobody writes to the FIFO: a blocking open or read would hang here.
  auto r = root.read_text("fifo");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().where, dir.path() + "/fifo");
  EXPECT_TRUE(contains(r.error().message, "FIFO")) << r.error().message;
}

TEST(SysRoot, DeviceIsRefused) {
  SysRoot root("/", {});
  auto r = root.read_text("dev/null");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().where, "/dev/null");
  EXPECT_TRUE(contains(r.error().message, "not a regular file")) << r.error().message;
}

TEST(SysRoot, SymlinkLoopIsAnErrorNamingThePath) {
  TempDir dir;
  ASSERT_EQ(::symlink("b", dir.file("a").c_str()), 0);
  ASSERT_EQ(::symlink("a", dir.file("b").c_str()), 0);
  ASSERT_EQ(::symlink("self", dir.file("self").c_str()), 0);
  SysRoot root(dir.path(), {});
  for (const char* name : {"a", "self"}) {
    auto r = root.read_text(name);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().where, dir.path() + "/" + name);
    EXPECT_TRUE(contains(r.error().message, "symlink loop")) << r.error().message;
  }
  EXPECT_FALSE(root.exists("a"));
  EXPECT_EQ(root.read_link("a").value(), "b");
}

TEST(SysRoot, SymlinkLoopInTheBrokenFixture) {
  SysRoot root(tfrig::test::root_dir("broken"), {});
  auto r = root.read_text("sys/block/loop0/size");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().where, tfrig::test::root_dir("broken") + "/sys/block/loop0/size");
  EXPECT_TRUE(contains(r.error().message, "symlink loop")) << r.error().message;
}

TEST(SysRoot, MaxBytesIsAnInclusiveLimit) {
  TempDir dir;
  write_file(dir.file("f"), std::string(100, 'x'));
  write_file(dir.file("big"), std::string(40000, 'y'));  // more than one read() buffer
  SysRoot root(dir.path(), {});
  EXPECT_EQ(root.read_text("f", 100).value().size(), 100u);
  auto r = root.read_text("f", 99);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().where, dir.path() + "/f");
  EXPECT_TRUE(contains(r.error().message, "99")) << r.error().message;
  EXPECT_EQ(root.read_text("big").value().size(), 40000u);
  EXPECT_FALSE(root.read_text("big", 20000).has_value());
}

TEST(SysRoot, ListDirIsSortedWithoutDots) {
  TempDir dir;
  write_file(dir.file("b"), "");
  write_file(dir.file("a"), "");
  ASSERT_EQ(::mkdir(dir.file("c").c_str(), 0755), 0);
  SysRoot root(dir.path(), {});
  EXPECT_EQ(root.list_dir("").value(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(root.is_dir("c"));
  EXPECT_FALSE(root.is_dir("a"));
  EXPECT_TRUE(root.exists("a"));
  auto missing = root.list_dir("nope");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(missing.error().where, dir.path() + "/nope");
  auto link = root.read_link("a");
  ASSERT_FALSE(link.has_value());
  EXPECT_EQ(link.error().where, dir.path() + "/a");
}

TEST(SysRoot, ErrnoErrorMapsCodes) {
  EXPECT_EQ(errno_error(ENOENT, "/p", "open").code, ErrorCode::kNotFound);
  EXPECT_EQ(errno_error(ENOTDIR, "/p", "open").code, ErrorCode::kNotFound);
  EXPECT_EQ(errno_error(EACCES, "/p", "open").code, ErrorCode::kPermissionDenied);
  EXPECT_EQ(errno_error(EPERM, "/p", "open").code, ErrorCode::kPermissionDenied);
  EXPECT_EQ(errno_error(EIO, "/p", "read").code, ErrorCode::kIo);
  auto e = errno_error(ELOOP, "/p", "open");
  EXPECT_EQ(e.where, "/p");
  EXPECT_TRUE(contains(e.message, "open failed: ")) << e.message;
  EXPECT_TRUE(contains(e.message, "(symlink loop)")) << e.message;
  EXPECT_EQ(error_code_name(ErrorCode::kParse), "parse_error");
  EXPECT_EQ((Error{ErrorCode::kIo, "", "just this"}).to_string(), "just this");
}

}  // namespace
}  // namespace tfrig::core
