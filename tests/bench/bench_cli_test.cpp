// End to end: the tfrig binary as a child process.
#include <gtest/gtest.h>

#include "test_paths.h"
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "bench_test_util.h"
#include "test_paths.h"

namespace tfrig::bench {
namespace {

using testing::TempDir;

const nlohmann::json* find_result(const nlohmann::json& doc, const std::string& id, const std::string& metric) {
  for (const auto& r : doc["results"]) {
    if (r["id"] == id && r["metric"] == metric) return &r;
  }
  return nullptr;
}

bool has_scratch_dir(const std::string& dir) {
  for (const auto& e : testing::entries(dir)) {
    if (e.rfind("tfrig-bench-", 0) == 0) return true;
  }
  return false;
}

// Ctrl-C (SIGINT) and SIGTERM in the middle of the storage benchmark: the
// child stops, removes its scratch directory and exits 128+signal.
class BenchInterrupt : public ::testing::TestWithParam<int> {};

TEST_P(BenchInterrupt, LeavesNoScratchFiles) {
  TempDir io, target;
  int sig = GetParam();
  testing::Child child = testing::start_tfrig(
      {"bench", "storage", "--dir", target.path(), "--size", "64MiB", "--files", "400", "--repetitions", "1000",
       "--budget", "600", "--sample-seconds", "0.2", "--no-history"},
      io.path());
  ASSERT_GT(child.pid, 0);
  // Wait until the scratch directory holds files, then interrupt.
  bool started = testing::wait_until([&] {
    for (const auto& e : testing::entries(target.path())) {
      if (e.rfind("tfrig-bench-", 0) == 0 && testing::entries(target.file(e)).size() >= 2) return true;
    }
    return false;
  });
  ASSERT_TRUE(started) << testing::read_file(child.err_path);
  ASSERT_EQ(::kill(child.pid, sig), 0);
  int rc = testing::wait_child(child);
  EXPECT_EQ(rc, 128 + sig) << testing::read_file(child.err_path);
  EXPECT_FALSE(has_scratch_dir(target.path())) << "left behind in " << target.path();
  EXPECT_TRUE(testing::entries(target.path()).empty());
}

INSTANTIATE_TEST_SUITE_P(Signals, BenchInterrupt, ::testing::Values(SIGINT, SIGTERM));

TEST(BenchCli, JsonFollowsTheContractAndGpuBenchmarksSkipWithTheReason) {
  TempDir io;
  auto r = testing::run_tfrig({"bench", "crc32c", "pcie", "gemm", "--format", "json", "--quick", "--repetitions", "2",
                               "--sample-seconds", "0.05", "--no-history"},
                              io.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_TRUE(doc["context"].is_object());
  EXPECT_TRUE(doc["context"].contains("machine_id"));
  const auto* crc = find_result(doc, "crc32c", "crc32c");
  ASSERT_NE(crc, nullptr);
  EXPECT_EQ((*crc)["status"], "ok");
  EXPECT_EQ((*crc)["unit"], "GB/s");
  EXPECT_GT((*crc)["median"].get<double>(), 0);
  EXPECT_EQ((*crc)["samples"].size(), 2u);
  for (const char* metric : {"h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable"}) {
    ASSERT_NE(find_result(doc, "pcie", metric), nullptr) << metric;
  }
  for (const char* metric : {"fp32", "tf32", "fp16", "bf16"}) ASSERT_NE(find_result(doc, "gemm", metric), nullptr);
  const auto* pcie = find_result(doc, "pcie", "h2d_pinned");
  if (!std::filesystem::exists("/dev/nvidiactl")) {
    EXPECT_EQ((*pcie)["status"], "skipped");
    EXPECT_TRUE((*pcie)["median"].is_null());
    EXPECT_FALSE((*pcie)["reason"].get<std::string>().empty());
  }
}

// The memory benchmark's team (the caller and two jthreads, parked between
// passes) runs every metric and is stopped and joined at the end: the
// process exits on its own with every result.
TEST(BenchCli, MemoryTeamRunsEveryMetricAndStops) {
  TempDir io;
  auto r = testing::run_tfrig({"bench", "memory", "--format", "json", "--quick", "--threads", "3", "--repetitions", "2",
                               "--sample-seconds", "0.05", "--no-history"},
                              io.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  for (const char* metric : {"copy_1_thread", "triad_1_thread", "copy_all_threads", "triad_all_threads"}) {
    const auto* m = find_result(doc, "memory", metric);
    ASSERT_NE(m, nullptr) << metric;
    EXPECT_EQ((*m)["status"], "ok") << metric << ": " << (*m)["reason"];
    EXPECT_GT((*m)["median"].get<double>(), 0) << metric;
  }
}

TEST(BenchCli, AMissingDriverLibraryIsNamedInTheSkipReason) {
  TempDir io;
  ::setenv("TFRIG_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
  auto r = testing::run_tfrig({"bench", "pcie", "--format", "json", "--no-history"}, io.path());
  ::unsetenv("TFRIG_CUDA_LIBRARY");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  const auto* m = find_result(doc, "pcie", "h2d_pinned");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ((*m)["status"], "skipped");
  EXPECT_EQ((*m)["reason"], "/nonexistent/libcuda.so.1 not found: no NVIDIA driver");
}

TEST(BenchCli, ADirectoryWithoutWritePermissionFailsStorageAndTheOthersStillRun) {
  TempDir io, target;
  bool root = ::geteuid() == 0;
  if (root) {
    // As root we drop to "nobody" in the child; it must reach the binary and
    // write its output files, but not the target.
    ASSERT_EQ(::chmod(io.path().c_str(), 0777), 0);
    ASSERT_EQ(::chmod(target.path().c_str(), 0755), 0);
  } else {
    ASSERT_EQ(::chmod(target.path().c_str(), 0555), 0);
  }
  auto r = testing::run_tfrig({"bench", "crc32c", "storage", "--dir", target.path(), "--format", "json", "--quick",
                               "--repetitions", "1", "--sample-seconds", "0.05", "--no-history"},
                              io.path(), root);
  if (root && r.exit_code == 98) GTEST_SKIP() << "nobody cannot execute " << TFRIG_BINARY;
  ASSERT_EQ(r.exit_code, 2) << r.err;  // some metrics failed
  auto doc = nlohmann::json::parse(r.out);
  const auto* seq = find_result(doc, "storage", "seq_read_direct");
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ((*seq)["status"], "failed");
  EXPECT_NE((*seq)["reason"].get<std::string>().find("not writable"), std::string::npos) << (*seq)["reason"];
  const auto* crc = find_result(doc, "crc32c", "crc32c");
  ASSERT_NE(crc, nullptr);
  EXPECT_EQ((*crc)["status"], "ok");
  EXPECT_TRUE(testing::entries(target.path()).empty());
}

// A read-only filesystem: a real one, mounted for the test (tmpfs, ro) where
// this process may mount (root in a container that allows it); skipped
// elsewhere, saying why.
TEST(BenchCli, AReadOnlyFilesystemFailsStorageWithThatReasonAndTheOthersStillRun) {
  TempDir io, target;
  if (::mount("tfrig-test", target.path().c_str(), "tmpfs", MS_RDONLY, "size=1m") != 0) {
    GTEST_SKIP() << "cannot mount a read-only tmpfs here: " << std::strerror(errno);
  }
  auto r = testing::run_tfrig({"bench", "crc32c", "storage", "--dir", target.path(), "--format", "json", "--quick",
                               "--repetitions", "1", "--sample-seconds", "0.05", "--no-history"},
                              io.path());
  ::umount(target.path().c_str());
  ASSERT_EQ(r.exit_code, 2) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  const auto* seq = find_result(doc, "storage", "seq_read_direct");
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ((*seq)["status"], "failed");
  EXPECT_NE((*seq)["reason"].get<std::string>().find("read-only filesystem"), std::string::npos) << (*seq)["reason"];
  EXPECT_NE((*seq)["reason"].get<std::string>().find(target.path()), std::string::npos) << (*seq)["reason"];
  const auto* crc = find_result(doc, "crc32c", "crc32c");
  ASSERT_NE(crc, nullptr);
  EXPECT_EQ((*crc)["status"], "ok");
}

TEST(BenchCli, RefusesToWriteIntoAFileOrAPseudoFilesystem) {
  TempDir io;
  testing::write_file(io.file("a-file"), "x");
  for (const std::string& dir : {io.file("a-file"), std::string("/proc")}) {
    auto r = testing::run_tfrig({"bench", "storage", "--dir", dir, "--format", "json", "--no-history"}, io.path());
    ASSERT_EQ(r.exit_code, 2) << r.err;
    auto doc = nlohmann::json::parse(r.out);
    for (const auto& m : doc["results"]) {
      EXPECT_EQ(m["status"], "failed");
      EXPECT_NE(m["reason"].get<std::string>().find(dir), std::string::npos) << m["reason"];
    }
  }
  EXPECT_EQ(testing::read_file(io.file("a-file")), "x");
}

TEST(BenchCli, SmallFilesAndDecodeOnTheUsersDataWithACorruptJpeg) {
  TempDir io, data, target;
  // Only a corrupt JPEG and a non-JPEG: decode fails with a reason naming
  // them, while storage still reads both as files.
  testing::write_file(data.file("broken.jpg"), std::string("\xFF\xD8\xFF\xE0 not really a jpeg", 22));
  testing::write_file(data.file("b.bin"), std::string(50000, 'b'));
  auto r = testing::run_tfrig({"bench", "decode", "storage", "--data", data.path(), "--dir", target.path(), "--quick",
                               "--format", "json", "--repetitions", "1", "--warmup", "0", "--sample-seconds", "0.05",
                               "--no-history"},
                              io.path());
  auto doc = nlohmann::json::parse(r.out);
  const auto* dec = find_result(doc, "decode", "decode_1_core");
  ASSERT_NE(dec, nullptr);
  EXPECT_EQ((*dec)["status"], "failed");
  std::string reason = (*dec)["reason"].get<std::string>();
  EXPECT_NE(reason.find("no decodable JPEG"), std::string::npos) << reason;
  EXPECT_NE(reason.find("broken.jpg"), std::string::npos) << reason;
  EXPECT_NE(reason.find("b.bin"), std::string::npos) << reason;
  const auto* small = find_result(doc, "storage", "small_files_warm");
  ASSERT_NE(small, nullptr);
  EXPECT_EQ((*small)["status"], "ok") << (*small)["reason"];
  EXPECT_EQ((*small)["params"]["files"], 2);
  // The user's data is never written to.
  EXPECT_EQ(testing::entries(data.path()).size(), 2u);
  EXPECT_TRUE(testing::entries(target.path()).empty());
}

TEST(BenchCli, HistoryRecordsRunsAndCompareShowsThePreviousMedian) {
  TempDir io;
  std::vector<std::string> args = {"bench", "crc32c", "--format", "json", "--repetitions", "1", "--warmup", "0",
                                   "--sample-seconds", "0.02", "--history", io.file("h.db"), "--compare"};
  auto first = testing::run_tfrig(args, io.path());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto doc1 = nlohmann::json::parse(first.out);
  EXPECT_FALSE(find_result(doc1, "crc32c", "crc32c")->contains("previous"));
  auto second = testing::run_tfrig(args, io.path());
  ASSERT_EQ(second.exit_code, 0) << second.err;
  auto doc2 = nlohmann::json::parse(second.out);
  const auto* m = find_result(doc2, "crc32c", "crc32c");
  ASSERT_TRUE(m->contains("previous"));
  EXPECT_DOUBLE_EQ((*m)["previous"]["median"].get<double>(),
                   find_result(doc1, "crc32c", "crc32c")->at("median").get<double>());
  EXPECT_TRUE((*m)["previous"]["change_percent"].is_number());
}

TEST(BenchCli, NotEnoughFreeSpaceIsRefusedBeforeWritingAndTheRestStillRuns) {
  TempDir io, target;
  // 1000 TiB: more than any test machine has free.
  auto r = testing::run_tfrig({"bench", "storage", "--dir", target.path(), "--size", "1000TiB", "--files", "20",
                               "--format", "json", "--repetitions", "1", "--warmup", "0", "--sample-seconds", "0.05",
                               "--no-history"},
                              io.path());
  ASSERT_EQ(r.exit_code, 2) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  for (const char* metric : {"seq_read_direct", "rand4k_qd1", "rand4k_qd32", "buffered_reread"}) {
    const auto* m = find_result(doc, "storage", metric);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ((*m)["status"], "failed");
    EXPECT_NE((*m)["reason"].get<std::string>().find("not enough free space"), std::string::npos) << (*m)["reason"];
  }
  const auto* small = find_result(doc, "storage", "small_files");
  ASSERT_NE(small, nullptr);
  EXPECT_EQ((*small)["status"], "ok") << (*small)["reason"];
  EXPECT_TRUE(testing::entries(target.path()).empty());
}

TEST(BenchCli, UnknownBenchmarkIsAUsageError) {
  TempDir io;
  auto r = testing::run_tfrig({"bench", "warp-drive", "--no-history"}, io.path());
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("warp-drive"), std::string::npos);
}

}  // namespace
}  // namespace tfrig::bench

namespace tfrig::bench {
namespace {

// pcie and gemm through the fake driver and cuBLASLt (tests/bench/fake_cuda.cpp):
// every call the benchmarks make is argument-checked, and at exit everything
// they allocated, retained or created must have been released.
TEST(BenchCli, GpuBenchmarksRunAgainstTheFakeDriverAndReleaseEverything) {
  TempDir io;
  ::setenv("TFRIG_CUDA_LIBRARY", TFRIG_FAKE_CUDA, 1);
  ::setenv("TFRIG_CUBLASLT_LIBRARY", TFRIG_FAKE_CUDA, 1);
  ::setenv("FAKE_CUDA_REPORT", io.file("fake.txt").c_str(), 1);
  auto r = testing::run_tfrig({"bench", "pcie", "gemm", "--quick", "--format", "json", "--repetitions", "2",
                               "--warmup", "1", "--no-history"},
                              io.path());
  ::unsetenv("TFRIG_CUDA_LIBRARY");
  ::unsetenv("TFRIG_CUBLASLT_LIBRARY");
  ::unsetenv("FAKE_CUDA_REPORT");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  auto doc = nlohmann::json::parse(r.out);
  for (const char* metric : {"h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable"}) {
    const auto* m = find_result(doc, "pcie", metric);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ((*m)["status"], "ok") << metric << ": " << (*m)["reason"];
    EXPECT_EQ((*m)["samples"].size(), 2u);
    EXPECT_EQ((*m)["params"]["gpu"], "Fake GPU");
  }
  for (const char* metric : {"fp32", "tf32", "fp16", "bf16"}) {
    const auto* m = find_result(doc, "gemm", metric);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ((*m)["status"], "ok") << metric << ": " << (*m)["reason"];
    EXPECT_EQ((*m)["params"]["compute_capability"], "9.0");
  }
  EXPECT_EQ(testing::read_file(io.file("fake.txt")),
            "device=0 pinned=0 retained=0 streams=0 lt_handles=0 lt_descs=0 lt_layouts=0 lt_prefs=0 errors=0\n");
}

TEST(BenchCli, ADriverThatSeesNoGpuSkipsWithThatReason) {
  TempDir io;
  ::setenv("TFRIG_CUDA_LIBRARY", TFRIG_FAKE_CUDA, 1);
  ::setenv("FAKE_CUDA_DEVICES", "0", 1);
  auto r = testing::run_tfrig({"bench", "pcie", "--format", "json", "--no-history"}, io.path());
  ::unsetenv("TFRIG_CUDA_LIBRARY");
  ::unsetenv("FAKE_CUDA_DEVICES");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  const auto* m = find_result(doc, "pcie", "h2d_pinned");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ((*m)["status"], "skipped");
  EXPECT_EQ((*m)["reason"], "the NVIDIA driver sees no CUDA device");
}

TEST(BenchCli, ALibraryWithoutTheDriverSymbolsIsNamed) {
  TempDir io;
  ::setenv("TFRIG_CUDA_LIBRARY", "libc.so.6", 1);
  auto r = testing::run_tfrig({"bench", "pcie", "--format", "json", "--no-history"}, io.path());
  ::unsetenv("TFRIG_CUDA_LIBRARY");
  auto doc = nlohmann::json::parse(r.out);
  const auto* m = find_result(doc, "pcie", "h2d_pinned");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ((*m)["status"], "skipped");
  EXPECT_NE((*m)["reason"].get<std::string>().find("lacks cuInit"), std::string::npos) << (*m)["reason"];
}

}  // namespace
}  // namespace tfrig::bench
