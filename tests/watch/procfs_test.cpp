// The /proc parsers on real captures (prometheus/procfs fixtures in
// tests/data/roots/procfs-fixtures) and on literal edge cases.
#include <gtest/gtest.h>

#include "core/sysroot.h"
#include "core/text.h"
#include "test_support.h"
#include "watch/procfs.h"

namespace tfrig::watch {
namespace {

core::SysRoot fixtures() { return core::SysRoot(test::root_dir("procfs-fixtures")); }

TEST(WatchProcfs, ProcStatFromCapture) {
  auto root = fixtures();
  auto text = root.read_text("proc/stat");
  ASSERT_TRUE(text) << text.error().to_string();
  auto st = parse_proc_stat(*text, "stat");
  ASSERT_TRUE(st) << st.error().to_string();
  // Every "cpuN" line of the capture becomes one core.
  size_t cores = 0;
  for (auto line : core::split_lines(*text)) {
    if (line.size() > 3 && line.substr(0, 3) == "cpu" && line[3] != ' ') ++cores;
  }
  EXPECT_EQ(st->cores.size(), cores);
  EXPECT_GT(st->all.total(), st->all.busy());
  EXPECT_GT(st->all.idle, 0u);
}

TEST(WatchProcfs, PidStatAndIoFromCapture) {
  auto root = fixtures();
  auto st = parse_pid_stat(*root.read_text("proc/26231/stat"), "26231/stat");
  ASSERT_TRUE(st) << st.error().to_string();
  // 26231 (vim) R 5392 ... fields 14-17: 1677 44 158 99; field 20: 1 thread.
  EXPECT_EQ(st->pid, 26231);
  EXPECT_EQ(st->ppid, 5392);
  EXPECT_EQ(st->state, 'R');
  EXPECT_EQ(st->utime, 1677u);
  EXPECT_EQ(st->stime, 44u);
  EXPECT_EQ(st->cutime, 158u);
  EXPECT_EQ(st->cstime, 99u);
  EXPECT_EQ(st->threads, 1u);
  auto io = parse_pid_io(*root.read_text("proc/26231/io"), "26231/io");
  ASSERT_TRUE(io) << io.error().to_string();
  EXPECT_EQ(io->read_bytes, 1024u);
  EXPECT_EQ(io->rchar, 750339u);
}

TEST(WatchProcfs, CommandNameWithSpacesAndParentheses) {
  auto st = parse_pid_stat("42 (my (odd) prog) S 1 42 42 0 -1 0 0 0 0 0 7 3 -5 2 20 0 4 0 100 0 0", "x");
  ASSERT_TRUE(st) << st.error().to_string();
  EXPECT_EQ(st->pid, 42);
  EXPECT_EQ(st->ppid, 1);
  EXPECT_EQ(st->utime, 7u);
  EXPECT_EQ(st->cutime, 0u);  // negative in the file: read as 0
  EXPECT_EQ(st->threads, 4u);
}

TEST(WatchProcfs, DiskstatsFromCapture) {
  auto root = fixtures();
  auto d = parse_diskstats(*root.read_text("proc/diskstats"), "diskstats");
  ASSERT_TRUE(d) << d.error().to_string();
  ASSERT_FALSE(d->empty());
  bool found = false;
  for (const auto& disk : *d) {
    if (disk.name == "sda") {
      found = true;
      EXPECT_GT(disk.sectors_read, 0u);
    }
  }
  EXPECT_TRUE(found);
}

TEST(WatchProcfs, ErrorsNameTheFileAndWhat) {
  auto a = parse_proc_stat("intr 1 2 3\n", "/proc/stat");
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().to_string().find("/proc/stat"), std::string::npos);
  auto b = parse_pid_stat("12 (x) S 1 2", "/proc/12/stat");
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().to_string().find("/proc/12/stat"), std::string::npos);
  auto c = parse_diskstats("8 0 sda 1 2 x 4 5 6 7 8 9 10 11\n", "/proc/diskstats");
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().to_string().find("/proc/diskstats:1"), std::string::npos);
  EXPECT_FALSE(parse_pid_io("rchar: 5\n", "io"));
}

}  // namespace
}  // namespace tfrig::watch
