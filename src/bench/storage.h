// The storage benchmark and the file-reading pieces it shares with the
// tests: sequential O_DIRECT read, random 4 KiB reads at queue depth 1 and
// 32 (io_uring, or a pool of pread threads where io_uring is refused),
// buffered re-read, and the parallel small-file read that decides whether a
// GPU training on millions of images is fed.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/benchmark.h"
#include "core/result.h"

namespace tfrig::bench {

// ImageNet's training set (ILSVRC2012_img_train.tar) holds 1,281,167 JPEGs in
// about 138 GiB, about 110 KiB per image: the file size of a typical
// small-file dataset (image-net.org download page; also the figure quoted by
// NVIDIA DALI and tf.data tuning guides).
inline constexpr uint64_t kImageNetAverageFileBytes = 110 * 1024;

struct FileReadStats {
  uint64_t files = 0;  // read to the end
  uint64_t bytes = 0;
  uint64_t vanished = 0;      // gone between listing and reading (ENOENT)
  uint64_t failed = 0;        // any other error
  core::Message first_error;  // "PATH: open failed: ..." (empty: none)
  double seconds = 0;
};

// Reads every file to its end with `threads` threads taking the next file
// from a shared counter (what `xargs -P N cat` does). A file that vanishes
// or fails is counted, never fatal.
FileReadStats read_files_parallel(const std::vector<std::string>& files, int threads,
                                  const std::atomic<bool>& cancelled);

// The regular files under `dir` (recursively, symlinks not followed), sorted,
// at most max_files. Errors name the directory.
core::Result<std::vector<std::string>> list_dataset(const std::string& dir, size_t max_files);

// The regular files under a dataset folder and their bytes, all of them (at
// most kMaxDatasetFiles): its size for plan and pipeline, whatever sample of
// it list_dataset reads. A symlink to a file counts (a folder of links is a
// dataset too); unreadable entries are skipped; errors name the folder.
struct DatasetTotals {
  uint64_t files = 0;
  uint64_t bytes = 0;
};
inline constexpr uint64_t kMaxDatasetFiles = 100'000'000;
core::Result<DatasetTotals> dataset_totals(const std::string& dir);

// Asks the kernel to drop these files' clean pages (posix_fadvise DONTNEED).
void drop_page_cache(const std::vector<std::string>& files);
// Fraction of the pages of (up to `sample` of) these files that are resident
// in the page cache (mmap + mincore); -1 when it cannot be told.
double resident_fraction(const std::vector<std::string>& files, size_t sample);

struct IoRun {
  uint64_t ops = 0;
  uint64_t bytes = 0;
  double seconds = 0;
  std::string engine;  // "io_uring" or "pread-threads"
};

// Reads `block`-byte blocks from fd for `seconds`, `depth` in flight,
// sequentially (wrapping at the end) or at random aligned offsets.
// io_uring first; a pool of `depth` pread threads where io_uring is refused
// (seccomp in containers, io_uring_disabled sysctl).
core::Result<IoRun> timed_read(int fd, uint64_t file_bytes, uint32_t block, int depth, bool random, double seconds,
                               uint64_t seed, bool allow_uring = true);

std::unique_ptr<Benchmark> make_storage_benchmark();

}  // namespace tfrig::bench
