// core::MemoryTree and the SysRoot over it: the backend a capture is served
// from. Every answer must be the one the same tree on disk gives (lstat/stat,
// readlink, opendir, realpath), links resolved inside the tree only.
#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/memory_tree.h"
#include "core/sysroot.h"

namespace tfrig::core {
namespace {

using Type = MemoryTree::Type;

std::shared_ptr<MemoryTree> sample_tree() {
  auto t = std::make_shared<MemoryTree>();
  EXPECT_FALSE(t->add("usr/lib/os-release", Type::kFile, "ID=debian\n"));
  EXPECT_FALSE(t->add("etc/os-release", Type::kLink, "../usr/lib/os-release"));
  EXPECT_FALSE(t->add("lib", Type::kLink, "usr/lib"));
  EXPECT_FALSE(t->add("abs", Type::kLink, "/usr/lib/os-release"));
  EXPECT_FALSE(t->add("loop/a", Type::kLink, "b"));
  EXPECT_FALSE(t->add("loop/b", Type::kLink, "a"));
  EXPECT_FALSE(t->add("dangling", Type::kLink, "nowhere"));
  EXPECT_FALSE(t->add("dev/nvidia0", Type::kFile));
  EXPECT_FALSE(t->add("proc", Type::kDir));
  return t;
}

TEST(MemoryTree, ResolvesLinksInsideTheTreeOnly) {
  auto t = sample_tree();
  MemoryTree::Found f;
  ASSERT_EQ(t->resolve("etc/os-release", true, f), 0);
  EXPECT_EQ(f.path, "usr/lib/os-release");
  ASSERT_EQ(t->resolve("/lib/os-release", true, f), 0);
  EXPECT_EQ(f.path, "usr/lib/os-release");
  ASSERT_EQ(t->resolve("abs", true, f), 0);  // an absolute target starts at the tree's root
  EXPECT_EQ(f.path, "usr/lib/os-release");
  ASSERT_EQ(t->resolve("etc/os-release", false, f), 0);
  EXPECT_EQ(f.node->type, Type::kLink);
  bool escaped = false;
  ASSERT_EQ(t->resolve("../../../usr/lib/os-release", true, f, &escaped), 0);  // "/.." is "/"
  EXPECT_TRUE(escaped);
  EXPECT_EQ(f.path, "usr/lib/os-release");
  EXPECT_EQ(t->resolve("loop/a", true, f), ELOOP);
  EXPECT_EQ(t->resolve("dangling", true, f), ENOENT);
  EXPECT_EQ(t->resolve("usr/lib/os-release/x", true, f), ENOTDIR);
  EXPECT_EQ(t->resolve("usr/lib/os-release/..", true, f), ENOTDIR);
  EXPECT_EQ(t->resolve("missing", true, f), ENOENT);
}

TEST(MemoryTree, RefusesWhatADiskTreeCouldNotHold) {
  MemoryTree t;
  EXPECT_TRUE(t.add("", Type::kFile, "x"));
  EXPECT_TRUE(t.add("/etc/x", Type::kFile, "x"));
  EXPECT_TRUE(t.add("a/../b", Type::kFile, "x"));
  EXPECT_FALSE(t.add("s", Type::kLink, "."));
  EXPECT_TRUE(t.add("s/x", Type::kFile, "x"));  // under a link
  EXPECT_FALSE(t.add("f", Type::kFile, "1"));
  EXPECT_TRUE(t.add("f/x", Type::kFile, "x"));  // under a file
  EXPECT_TRUE(t.add("f", Type::kFile, "2"));    // other bytes
  EXPECT_TRUE(t.add("f", Type::kDir));          // another type
  EXPECT_FALSE(t.add("f", Type::kFile, "1"));   // the same again
  EXPECT_FALSE(t.add("d/x", Type::kFile, "x"));
  EXPECT_FALSE(t.add("d", Type::kDir));  // named after its contents
  EXPECT_TRUE(t.add("d", Type::kFile, ""));
}

TEST(MemorySysRoot, AnswersLikeTheSameTreeOnDisk) {
  SysRoot root(sample_tree(), "m.tar.gz:", {});
  EXPECT_FALSE(root.is_live());
  EXPECT_EQ(root.read_text("etc/os-release").value_or("?"), "ID=debian\n");
  EXPECT_EQ(root.read_line("/lib/os-release").value_or("?"), "ID=debian");
  auto big = root.read_text("usr/lib/os-release", 4);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().where, "m.tar.gz:/usr/lib/os-release");
  auto dir = root.read_text("proc");
  ASSERT_FALSE(dir);
  auto missing = root.read_text("proc/cpuinfo");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(missing.error().where, "m.tar.gz:/proc/cpuinfo");
  EXPECT_EQ(root.list_dir("").value_or(std::vector<std::string>{}),
            (std::vector<std::string>{"abs", "dangling", "dev", "etc", "lib", "loop", "proc", "usr"}));
  EXPECT_EQ(root.list_dir("lib").value_or(std::vector<std::string>{}), std::vector<std::string>{"os-release"});
  EXPECT_FALSE(root.list_dir("dev/nvidia0"));
  EXPECT_EQ(root.read_link("lib").value_or("?"), "usr/lib");
  EXPECT_FALSE(root.read_link("usr"));
  EXPECT_EQ(root.kind_of("lib"), SysRoot::Kind::kLink);
  EXPECT_EQ(root.kind_of("lib/os-release"), SysRoot::Kind::kFile);
  EXPECT_EQ(root.kind_of("usr"), SysRoot::Kind::kDir);
  EXPECT_EQ(root.kind_of("dangling"), SysRoot::Kind::kLink);
  EXPECT_EQ(root.kind_of("nope"), SysRoot::Kind::kMissing);
  EXPECT_TRUE(root.exists("etc/os-release"));
  EXPECT_FALSE(root.exists("dangling"));
  EXPECT_TRUE(root.is_dir("lib"));
  EXPECT_TRUE(root.is_file("abs"));
  EXPECT_FALSE(root.is_file("usr"));
  EXPECT_TRUE(root.accessible("dev/nvidia0", 4));
  EXPECT_FALSE(root.accessible("dev/nvidia1", 4));
  EXPECT_EQ(root.real_path("etc/os-release").value_or("?"), "/usr/lib/os-release");
  EXPECT_EQ(root.real_path("").value_or("?"), "/");
  EXPECT_FALSE(root.real_path("loop/a"));
}

}  // namespace
}  // namespace tfrig::core
