// ld.so.cache in the three layouts glibc's ldconfig writes (files made by
// `ldconfig -c {new,compat,old} -r` on the stack-cuda12 fixture root).
#include <gtest/gtest.h>

#include <algorithm>

#include "gpu_test_support.h"
#include "probe/parse/ld_so_cache.h"

namespace tfrig::probe::parse {
namespace {

const LdCacheEntry* find(const LdCache& c, const std::string& soname) {
  for (const auto& e : c.entries) {
    if (e.soname == soname) return &e;
  }
  return nullptr;
}

TEST(LdSoCache, ThreeFormatsSameEntries) {
  auto fresh = parse_ld_so_cache(test::read_data("ld-so-cache/stack-cuda12.new.cache"));
  auto compat = parse_ld_so_cache(test::read_data("ld-so-cache/stack-cuda12.compat.cache"));
  auto old = parse_ld_so_cache(test::read_data("ld-so-cache/stack-cuda12.old.cache"));
  ASSERT_TRUE(fresh) << fresh.error().to_string();
  ASSERT_TRUE(compat) << compat.error().to_string();
  ASSERT_TRUE(old) << old.error().to_string();
  EXPECT_EQ(fresh->format, "new");
  EXPECT_EQ(compat->format, "compat");
  EXPECT_EQ(old->format, "old");
  ASSERT_FALSE(fresh->entries.empty());
  EXPECT_EQ(fresh->entries.size(), compat->entries.size());
  EXPECT_EQ(fresh->entries.size(), old->entries.size());
  for (const auto* c : {&*fresh, &*compat, &*old}) {
    const auto* cudart = find(*c, "libcudart.so.12");
    ASSERT_NE(cudart, nullptr) << c->format;
    EXPECT_EQ(cudart->path, "/usr/local/cuda-12.2/targets/x86_64-linux/lib/libcudart.so.12");
    EXPECT_EQ(ld_cache_abi(cudart->flags), "x86-64");
    const auto* libcuda = find(*c, "libcuda.so.1");
    ASSERT_NE(libcuda, nullptr);
    EXPECT_EQ(libcuda->path, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
    // These three were made after /opt/nccl/lib joined ld.so.conf.
    ASSERT_NE(find(*c, "libnccl.so.2"), nullptr);
    EXPECT_EQ(find(*c, "libnccl.so.2")->path, "/opt/nccl/lib/libnccl.so.2");
  }
  // The root's own cache predates it (a stale cache, as after forgetting ldconfig).
  auto root_cache = parse_ld_so_cache(test::read_data("roots/stack-cuda12/etc/ld.so.cache"));
  ASSERT_TRUE(root_cache);
  EXPECT_EQ(find(*root_cache, "libnccl.so.2"), nullptr);
}

TEST(LdSoCache, TheLiveFormatOfThisBuildMachine) {
  // The same parser reads the new format as glibc 2.36 writes it by default.
  auto c = parse_ld_so_cache(test::read_data("roots/stack-nodriver/etc/ld.so.cache"));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->format, "new");
  ASSERT_NE(find(*c, "libcudnn.so.9"), nullptr);
  EXPECT_EQ(find(*c, "libcudnn.so.9")->path, "/usr/local/cuda-13.0/lib/libcudnn.so.9");
}

TEST(LdSoCache, MalformedInputsAreErrorsNotCrashes) {
  const std::string good = test::read_data("ld-so-cache/stack-cuda12.new.cache");
  EXPECT_FALSE(parse_ld_so_cache(""));
  EXPECT_FALSE(parse_ld_so_cache("not a cache at all"));
  EXPECT_FALSE(parse_ld_so_cache(good.substr(0, 30)));         // truncated header
  EXPECT_FALSE(parse_ld_so_cache(good.substr(0, 60)));         // truncated entries
  std::string huge = good;
  huge[20] = '\xff';  // nlibs far beyond the file
  huge[21] = '\xff';
  EXPECT_FALSE(parse_ld_so_cache(huge));
  std::string bad_offset = good;
  bad_offset[48 + 4] = '\xff';  // first key offset past the end
  bad_offset[48 + 5] = '\xff';
  bad_offset[48 + 6] = '\xff';
  EXPECT_FALSE(parse_ld_so_cache(bad_offset));
  const std::string old = test::read_data("ld-so-cache/stack-cuda12.old.cache");
  EXPECT_FALSE(parse_ld_so_cache(old.substr(0, 14)));
}

TEST(LdSoConf, DirectoriesIncludesAndComments) {
  auto lines = parse_ld_so_conf(
      "# libc default configuration\ninclude /etc/ld.so.conf.d/*.conf\n\n/usr/local/lib  # trailing\n"
      "/opt/a, /opt/b\n/usr/X11R6/lib=libc6\nhwcap 0 nosegneg\ninclude\tlocal.d/*.conf other.conf\n");
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[0].include_glob, "/etc/ld.so.conf.d/*.conf");
  EXPECT_EQ(lines[1].directory, "/usr/local/lib");
  EXPECT_EQ(lines[2].directory, "/opt/a");
  EXPECT_EQ(lines[3].directory, "/opt/b");
  EXPECT_EQ(lines[4].directory, "/usr/X11R6/lib");
  EXPECT_EQ(lines[5].include_glob, "local.d/*.conf");
  EXPECT_EQ(lines[6].include_glob, "other.conf");
}

}  // namespace
}  // namespace tfrig::probe::parse
