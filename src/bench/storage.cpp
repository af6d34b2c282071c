#include "bench/storage.h"

#include <fcntl.h>
#include <liburing.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "bench/runner.h"
#include "bench/scratch.h"
#include "core/clock.h"
#include "core/i18n.h"
#include "core/errno_text.h"
#include "core/log.h"
#include "core/sysroot.h"
#include "core/try.h"
#include "core/unique_fd.h"
#include "core/units.h"

namespace tfrig::bench {

namespace {

// O_DIRECT needs buffers and offsets aligned to the logical block size; 4 KiB
// covers every 512e and 4Kn device (Linux open(2), "O_DIRECT" notes).
constexpr size_t kDirectAlign = 4096;
constexpr uint32_t kRandomBlock = 4096;
// 1 MiB blocks: large enough that per-request overhead vanishes, the size
// fio users pass for sequential throughput.
constexpr uint32_t kSequentialBlock = 1 << 20;
// Eight 1 MiB reads in flight keep an NVMe drive streaming without turning
// the test into a queue-depth test.
constexpr int kSequentialDepth = 8;
constexpr uint64_t kDefaultFileBytes = 1ull << 30;
constexpr uint64_t kQuickFileBytes = 64ull << 20;
constexpr int kDefaultSmallFiles = 2000;
constexpr int kQuickSmallFiles = 200;
// Re-read this much through the page cache: big enough to stream, small
// enough to stay cached on any machine that trains models.
constexpr uint64_t kRereadBytes = 256ull << 20;

struct AlignedBuffer {
  explicit AlignedBuffer(size_t n) {
    if (posix_memalign(&data, kDirectAlign, n) != 0) data = nullptr;
  }
  ~AlignedBuffer() { std::free(data); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  void* data = nullptr;
};

using Fd = core::UniqueFd;  // the shared owner of a descriptor (core/unique_fd.h)

uint64_t next_random(uint64_t& state) {
  // xorshift64 (Marsaglia 2003): cheap, and only offsets depend on it.
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

core::Result<IoRun> uring_read(int fd, uint64_t file_bytes, uint32_t block, int depth, bool random, double seconds,
                               uint64_t seed, int& init_error) {
  io_uring ring{};
  int rc = io_uring_queue_init(static_cast<unsigned>(depth), &ring, 0);
  if (rc < 0) {
    init_error = -rc;
    return core::fail(core::ErrorCode::kUnsupported, "io_uring", core::Message("{}", core::errno_arg(-rc)));
  }
  uint64_t blocks = file_bytes / block;
  std::vector<std::unique_ptr<AlignedBuffer>> buffers;
  for (int i = 0; i < depth; ++i) {
    buffers.push_back(std::make_unique<AlignedBuffer>(block));
    if (buffers.back()->data == nullptr) {
      io_uring_queue_exit(&ring);
      return core::fail(core::ErrorCode::kInternal, "io_uring", core::Message(N_("out of memory for I/O buffers")));
    }
  }
  uint64_t rng = seed | 1;
  uint64_t seq_block = 0;
  auto next_offset = [&]() -> uint64_t {
    if (random) return (next_random(rng) % blocks) * block;
    uint64_t off = seq_block * block;
    seq_block = (seq_block + 1) % blocks;
    return off;
  };
  auto queue = [&](int slot) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring);
    io_uring_prep_read(sqe, fd, buffers[static_cast<size_t>(slot)]->data, block, next_offset());
    io_uring_sqe_set_data64(sqe, static_cast<uint64_t>(slot));
  };
  IoRun run;
  run.engine = "io_uring";
  for (int i = 0; i < depth; ++i) queue(i);
  core::Stopwatch watch;
  io_uring_submit(&ring);
  int inflight = depth;
  bool stopping = false;
  core::Message error;
  while (inflight > 0) {
    io_uring_cqe* cqe = nullptr;
    rc = io_uring_wait_cqe(&ring, &cqe);
    if (rc < 0) {
      if (rc == -EINTR) continue;
      error = core::Message("io_uring_wait_cqe: {}", core::errno_arg(-rc));
      break;
    }
    unsigned seen = 0;
    unsigned head = 0;
    int requeue = 0;
    io_uring_for_each_cqe(&ring, head, cqe) {
      ++seen;
      --inflight;
      if (cqe->res < 0) {
        if (error.empty()) error = core::Message("read: {}", core::errno_arg(-cqe->res));
        stopping = true;
        continue;
      }
      ++run.ops;
      run.bytes += static_cast<uint64_t>(cqe->res);
      if (!stopping) {
        queue(static_cast<int>(io_uring_cqe_get_data64(cqe)));
        ++requeue;
      }
    }
    io_uring_cq_advance(&ring, seen);
    if (!stopping && watch.seconds() >= seconds) stopping = true;
    // Requests queued before we decided to stop still go out and are drained,
    // so nothing is left in flight when the ring is torn down.
    if (requeue > 0) {
      inflight += requeue;
      io_uring_submit(&ring);
    }
  }
  run.seconds = watch.seconds();
  io_uring_queue_exit(&ring);
  if (!error.empty()) return core::fail(core::ErrorCode::kIo, "io_uring", error);
  return run;
}

core::Result<IoRun> pread_threads(int fd, uint64_t file_bytes, uint32_t block, int depth, bool random, double seconds,
                                  uint64_t seed) {
  std::atomic<uint64_t> ops{0}, bytes{0}, seq{0};
  std::atomic<int> error{0};
  uint64_t blocks = file_bytes / block;
  // The workers read until asked to stop: a jthread's stop request, made
  // below when the time is up and by its destructor on any other way out,
  // so no path leaves a worker reading.
  auto worker = [&](std::stop_token stop, uint64_t thread_seed) {
    AlignedBuffer buf(block);
    if (buf.data == nullptr) {
      error = ENOMEM;
      return;
    }
    uint64_t rng = thread_seed | 1;
    uint64_t local_ops = 0, local_bytes = 0;
    while (!stop.stop_requested()) {
      uint64_t b = random ? next_random(rng) % blocks : seq.fetch_add(1) % blocks;
      ssize_t n = ::pread(fd, buf.data, block, static_cast<off_t>(b * block));
      if (n < 0) {
        if (errno == EINTR) continue;
        error = errno;
        break;
      }
      ++local_ops;
      local_bytes += static_cast<uint64_t>(n);
    }
    ops += local_ops;
    bytes += local_bytes;
  };
  core::Stopwatch watch;
  {
    std::vector<std::jthread> threads;
    for (int i = 0; i < depth; ++i)
      threads.emplace_back(worker, seed + static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull);
    while (watch.seconds() < seconds && error.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    for (auto& t : threads) t.request_stop();
  }  // joined here
  IoRun run;
  run.engine = "pread-threads";
  run.ops = ops;
  run.bytes = bytes;
  run.seconds = watch.seconds();
  if (error.load() != 0)
    return core::fail(core::ErrorCode::kIo, "pread", core::Message("{}", core::errno_arg(error.load())));
  return run;
}

// Fills `path` with `bytes` of incompressible data (so no filesystem or
// drive compression flatters the reads), written O_DIRECT where possible so
// it does not sit in the page cache, then fsynced.
core::Status write_test_file(const std::string& path, uint64_t bytes, bool direct, const std::atomic<bool>& cancel) {
  int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | (direct ? O_DIRECT : 0);
  Fd fd(::open(path.c_str(), flags, 0600));
  if (fd.get() < 0) return tl::unexpected(core::errno_error(errno, path, "create test file"));
  AlignedBuffer buf(kSequentialBlock);
  if (buf.data == nullptr) return core::fail(core::ErrorCode::kInternal, path, core::Message(N_("out of memory")));
  uint64_t rng = 0x243F6A8885A308D3ull;  // any non-zero seed
  auto* words = static_cast<uint64_t*>(buf.data);
  for (uint64_t done = 0; done < bytes; done += kSequentialBlock) {
    if (cancel.load()) return core::fail(core::ErrorCode::kIo, path, core::Message(N_("interrupted")));
    for (size_t i = 0; i < kSequentialBlock / 8; ++i) words[i] = next_random(rng);
    size_t n = static_cast<size_t>(std::min<uint64_t>(kSequentialBlock, bytes - done));
    ssize_t w = ::pwrite(fd.get(), buf.data, n, static_cast<off_t>(done));
    if (w < 0) {
      if (errno == ENOSPC) {
        return core::fail(core::ErrorCode::kIo, path,
                          core::Message(N_("the disk filled up after {0} of {1}; use --size for a smaller test file"),
                                        core::format_bytes_decimal(done), core::format_bytes_decimal(bytes)));
      }
      return tl::unexpected(core::errno_error(errno, path, "write test file"));
    }
    if (static_cast<size_t>(w) != n)
      return core::fail(core::ErrorCode::kIo, path, core::Message(N_("short write: disk full?")));
  }
  if (::fsync(fd.get()) != 0) return tl::unexpected(core::errno_error(errno, path, "fsync"));
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
  return {};
}

core::Status write_small_files(const std::string& dir, int count, uint64_t size, const std::atomic<bool>& cancel,
                               std::vector<std::string>& out) {
  if (::mkdir(dir.c_str(), 0700) != 0) return tl::unexpected(core::errno_error(errno, dir, "mkdir"));
  std::vector<uint64_t> data((size + 7) / 8);
  uint64_t rng = 0x13198A2E03707344ull;
  for (auto& w : data) w = next_random(rng);
  for (int i = 0; i < count; ++i) {
    if (cancel.load()) return core::fail(core::ErrorCode::kIo, dir, core::Message(N_("interrupted")));
    // Layout of a typical image dataset: one file per image, numbered.
    std::string path = fmt::format("{}/img_{:07d}.jpg", dir, i);
    Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (fd.get() < 0) return tl::unexpected(core::errno_error(errno, path, "create"));
    data[static_cast<size_t>(i) % data.size()] ^= static_cast<uint64_t>(i);  // no two files alike
    ssize_t w = ::write(fd.get(), data.data(), size);
    if (w < 0 || static_cast<uint64_t>(w) != size) {
      int err = w < 0 ? errno : ENOSPC;
      if (err == ENOSPC) {
        return core::fail(
            core::ErrorCode::kIo, path,
            core::Message(N_("the disk filled up after {0} of {1} files; use --files for fewer"), i, count));
      }
      return tl::unexpected(core::errno_error(err, path, "write"));
    }
    out.push_back(path);
  }
  // One syncfs instead of a fsync per file: dirty pages cannot be dropped,
  // and the cold test needs them dropped.
  Fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dfd.get() >= 0) ::syncfs(dfd.get());
  return {};
}

class StorageBenchmark final : public Benchmark {
 public:
  std::string_view id() const override { return "storage"; }
  std::string_view description() const override {
    return N_("sequential O_DIRECT read, random 4 KiB reads at QD1/QD32, buffered re-read, parallel small-file read");
  }
  std::vector<std::pair<std::string, std::string>> metrics() const override {
    return {{"seq_read_direct", "MB/s"},    {"rand4k_qd1", "IOPS"},     {"rand4k_qd32", "IOPS"},
            {"buffered_reread", "MB/s"},    {"small_files", "files/s"}, {"small_files_mbps", "MB/s"},
            {"small_files_warm", "files/s"}};
  }
  std::optional<core::Message> skip_reason(const RunContext&) const override { return std::nullopt; }
  void run(const RunContext& ctx, Runner& runner) override;

 private:
  void run_block_tests(const RunContext& ctx, Runner& runner, const ScratchDir& scratch);
  void run_small_files(const RunContext& ctx, Runner& runner, const ScratchDir& scratch);
};

void fail_all(Runner& runner, const std::vector<std::pair<std::string, std::string>>& metrics, size_t from, size_t to,
              const core::Message& reason) {
  for (size_t i = from; i < to && i < metrics.size(); ++i) runner.fail(metrics[i].first, metrics[i].second, reason);
}

// Probe O_DIRECT with a throwaway open: tmpfs and some overlay setups refuse it.
bool direct_io_works(const ScratchDir& scratch) {
  Fd probe(::open(scratch.file(".direct-probe").c_str(), O_WRONLY | O_CREAT | O_EXCL | O_DIRECT | O_CLOEXEC, 0600));
  const bool direct = probe.get() >= 0;
  ::unlink(scratch.file(".direct-probe").c_str());
  return direct;
}

// The O_DIRECT reads of the test file: sequential, random 4 KiB at QD1 and
// QD32; io_uring where allowed, pread threads otherwise (said in a note).
void measure_direct_reads(Runner& runner, const std::string& path, uint64_t size, double secs,
                          const nlohmann::json& common) {
  bool uring_ok = true;
  auto io_sample = [&](int fd, uint32_t block, int depth, bool random, bool by_bytes, nlohmann::json* params) {
    return [=, &uring_ok]() -> core::Result<double> {
      auto r = TFRIG_TRY(
          timed_read(fd, size, block, depth, random, secs, 0x9E3779B9u + static_cast<uint64_t>(depth), uring_ok));
      if (r.engine != "io_uring") uring_ok = false;
      (*params)["engine"] = r.engine;
      double s = std::max(r.seconds, 1e-9);
      return by_bytes ? static_cast<double>(r.bytes) / s / 1e6 : static_cast<double>(r.ops) / s;
    };
  };
  Fd fd(::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC));
  if (fd.get() < 0) {
    const core::Message why = error_reason(core::errno_error(errno, path, "open O_DIRECT"));
    for (const char* metric : {"seq_read_direct", "rand4k_qd1", "rand4k_qd32"})
      runner.fail(metric, std::string(metric) == "seq_read_direct" ? "MB/s" : "IOPS", why);
    return;
  }
  struct Case {
    const char* metric;
    const char* unit;
    uint32_t block;
    int depth;
    bool random;
  };
  for (const Case& c :
       {Case{"seq_read_direct", "MB/s", kSequentialBlock, kSequentialDepth, false},
        Case{"rand4k_qd1", "IOPS", kRandomBlock, 1, true}, Case{"rand4k_qd32", "IOPS", kRandomBlock, 32, true}}) {
    nlohmann::json params = common;
    params["block_bytes"] = c.block;
    params["queue_depth"] = c.depth;
    params["o_direct"] = true;
    params["engine"] = nullptr;
    Measurement& m =
        runner.measure(c.metric, c.unit, params, io_sample(fd.get(), c.block, c.depth, c.random, !c.random, &params));
    m.params["engine"] = params["engine"];
    if (params["engine"] == "pread-threads") {
      m.notes.emplace_back(N_("io_uring was refused here (seccomp or sysctl); measured with pread threads"));
    }
  }
}

// Buffered re-read: the warm-up sample pulls the range into the page cache,
// the measured samples read it from memory through read(2).
void measure_buffered_reread(Runner& runner, const std::string& path, uint64_t size) {
  uint64_t reread = std::min(size, kRereadBytes);
  Fd bfd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (bfd.get() < 0) {
    runner.fail("buffered_reread", "MB/s", error_reason(core::errno_error(errno, path, "open")));
    return;
  }
  std::vector<char> buf(kSequentialBlock);
  int fd = bfd.get();
  Measurement& m = runner.measure("buffered_reread", "MB/s", {{"bytes", reread}, {"block_bytes", kSequentialBlock}},
                                  [&, fd]() -> core::Result<double> {
                                    core::Stopwatch w;
                                    uint64_t done = 0;
                                    while (done < reread) {
                                      ssize_t n = ::pread(fd, buf.data(), buf.size(), static_cast<off_t>(done));
                                      if (n < 0) {
                                        if (errno == EINTR) continue;
                                        return tl::unexpected(core::errno_error(errno, path, "read"));
                                      }
                                      if (n == 0) break;
                                      done += static_cast<uint64_t>(n);
                                    }
                                    return static_cast<double>(done) / std::max(w.seconds(), 1e-9) / 1e6;
                                  });
  double resident = resident_fraction({path}, 1);
  if (resident >= 0) m.params["resident_fraction"] = resident * static_cast<double>(size) / static_cast<double>(reread);
  m.notes.emplace_back(N_("served from the page cache by design: memory and syscall speed, not the disk"));
}

// The files the small-file reads use: the user's dataset (--data) or files of
// ImageNet's average size written in the scratch folder. False (and the
// metrics failed) when there are none.
bool prepare_small_files(const RunContext& ctx, Runner& runner, const ScratchDir& scratch,
                         std::vector<std::string>& files, nlohmann::json& params) {
  if (!ctx.config.data_dir.empty()) {
    size_t max_files = ctx.config.quick ? 2000 : 200000;
    auto listed = list_dataset(ctx.config.data_dir, max_files);
    if (!listed || listed->empty()) {
      const core::Message why = listed ? core::Message(N_("{}: no regular files to read"), ctx.config.data_dir)
                                       : error_reason(listed.error());
      for (const char* metric : {"small_files", "small_files_mbps", "small_files_warm"}) {
        runner.fail(metric, std::string(metric) == "small_files_mbps" ? "MB/s" : "files/s", why);
      }
      return false;
    }
    files = std::move(*listed);
    params["source"] = ctx.config.data_dir;
    return true;
  }
  int count =
      ctx.config.small_files > 0 ? ctx.config.small_files : (ctx.config.quick ? kQuickSmallFiles : kDefaultSmallFiles);
  auto space = ensure_free_space(scratch.path(), static_cast<uint64_t>(count) * (kImageNetAverageFileBytes + 4096));
  auto made =
      space ? write_small_files(scratch.file("files"), count, kImageNetAverageFileBytes, ctx.cancelled, files) : space;
  if (!made) {
    const core::Message why = error_reason(made.error());
    runner.fail("small_files", "files/s", why);
    runner.fail("small_files_mbps", "MB/s", why);
    runner.fail("small_files_warm", "files/s", why);
    return false;
  }
  params["source"] = "generated";
  params["file_bytes"] = kImageNetAverageFileBytes;
  return true;
}

// One series of small-file reads: what went wrong across its samples, said
// in its notes, and whether the cold reads really were cold.
struct SmallFileReads {
  SmallFileReads(const std::vector<std::string>& read, const RunContext& run) : files(read), ctx(run) {}

  const std::vector<std::string>& files;
  const RunContext& ctx;
  uint64_t average_bytes = 0;
  uint64_t vanished = 0, failed = 0;
  core::Message first_error;
  bool cold_held = true;

  SampleFn sample(bool cold) {
    return [this, cold]() -> core::Result<double> {
      if (cold) {
        drop_page_cache(files);
        // Dirty pages, another process's mmap or a filesystem that ignores the
        // hint keep pages resident: then this is not a cold read, and we say so.
        double r = resident_fraction(files, 64);
        if (r > 0.10) cold_held = false;
      }
      FileReadStats s = read_files_parallel(files, ctx.threads, ctx.cancelled);
      vanished = std::max(vanished, s.vanished);
      failed = std::max(failed, s.failed);
      if (first_error.empty()) first_error = s.first_error;
      if (s.files == 0) {
        return core::fail(core::ErrorCode::kIo,
                          s.first_error.empty() ? core::Message(N_("small files")) : s.first_error,
                          core::Message(N_("no file could be read")));
      }
      average_bytes = s.bytes / s.files;
      return static_cast<double>(s.files) / std::max(s.seconds, 1e-9);
    };
  }

  void add_notes(Measurement& m) const {
    if (vanished > 0) {
      m.notes.push_back(
          core::Message::plural(NP_("{} file vanished while being read (deleted or renamed by another process)",
                                    "{} files vanished while being read (deleted or renamed by another process)"),
                                vanished, vanished));
    }
    if (failed > 0) {
      m.notes.push_back(core::Message::plural(
          NP_("{0} file could not be read; first: {1}", "{0} files could not be read; first: {1}"), failed, failed,
          first_error));
    }
    m.params["vanished"] = vanished;
    m.params["failed"] = failed;
  }
};

// MB/s is the same run as files/s, seen through the average file size.
void record_small_files_mbps(Runner& runner, const Measurement& cold, uint64_t average_bytes) {
  Measurement bw = cold;
  bw.metric = "small_files_mbps";
  bw.unit = "MB/s";
  double scale = static_cast<double>(average_bytes) / 1e6;
  for (double& v : bw.samples) v *= scale;
  bw.median *= scale;
  bw.min *= scale;
  bw.max *= scale;
  bw.params["average_file_bytes"] = average_bytes;
  runner.record(std::move(bw));
}

void StorageBenchmark::run(const RunContext& ctx, Runner& runner) {
  auto metrics = this->metrics();
  auto scratch = ScratchDir::create(ctx.config.scratch_parent);
  if (!scratch) {
    fail_all(runner, metrics, 0, metrics.size(), error_reason(scratch.error()));
    return;
  }
  run_block_tests(ctx, runner, *scratch);
  run_small_files(ctx, runner, *scratch);
  if (auto s = scratch->remove(); !s) core::log(core::LogLevel::kWarn, "{}", core::describe(s.error()));
}

// The test file written (O_DIRECT where the filesystem allows it), then the
// direct reads and the buffered re-read of it.
void StorageBenchmark::run_block_tests(const RunContext& ctx, Runner& runner, const ScratchDir& scratch) {
  auto metrics = this->metrics();
  uint64_t size =
      ctx.config.file_bytes > 0 ? ctx.config.file_bytes : (ctx.config.quick ? kQuickFileBytes : kDefaultFileBytes);
  size = std::max<uint64_t>(size / kSequentialBlock, 1) * kSequentialBlock;  // whole blocks
  if (auto s = ensure_free_space(scratch.path(), size + (64ull << 20)); !s) {
    fail_all(runner, metrics, 0, 4, error_reason(s.error()));
    return;
  }
  std::string path = scratch.file("seqfile.bin");
  const bool direct = direct_io_works(scratch);
  core::log(core::LogLevel::kInfo, "{}",
            trf("storage: writing {0} test file in {1}", core::format_bytes_decimal(size), scratch.path()));
  if (auto s = write_test_file(path, size, direct, ctx.cancelled); !s) {
    fail_all(runner, metrics, 0, 4, error_reason(s.error()));
    return;
  }
  if (!direct) {
    const core::Message why(
        N_("this filesystem refuses O_DIRECT (tmpfs or overlay?): device speed cannot be told from the page cache"));
    fail_all(runner, metrics, 0, 3, why);
  } else {
    measure_direct_reads(runner, path, size, ctx.config.sample_seconds,
                         {{"file_bytes", size}, {"directory", scratch.path()}});
  }
  measure_buffered_reread(runner, path, size);
}

// Many small files read in parallel, as a training input pipeline reads
// images: cold (page cache dropped), the same in MB/s, then warm.
void StorageBenchmark::run_small_files(const RunContext& ctx, Runner& runner, const ScratchDir& scratch) {
  std::vector<std::string> files;
  nlohmann::json params;
  if (!prepare_small_files(ctx, runner, scratch, files, params)) return;
  params["files"] = files.size();
  params["parallelism"] = ctx.threads;

  SmallFileReads reads{files, ctx};
  nlohmann::json cold_params = params;
  cold_params["cold"] = true;
  Measurement& cold = runner.measure("small_files", "files/s", cold_params, reads.sample(true));
  reads.add_notes(cold);
  if (!reads.cold_held) {
    cold.params["cold"] = false;
    cold.notes.emplace_back(
        N_("the page cache kept these files despite posix_fadvise(DONTNEED): this is a warm number"));
  }
  record_small_files_mbps(runner, cold, reads.average_bytes);

  SmallFileReads warm_reads{files, ctx};
  nlohmann::json warm_params = params;
  warm_params["cold"] = false;
  Measurement& warm = runner.measure("small_files_warm", "files/s", warm_params, warm_reads.sample(false));
  warm_reads.add_notes(warm);
}

}  // namespace

FileReadStats read_files_parallel(const std::vector<std::string>& files, int threads,
                                  const std::atomic<bool>& cancelled) {
  std::atomic<size_t> next{0};
  std::atomic<uint64_t> done{0}, bytes{0}, vanished{0}, failed{0};
  std::mutex error_mutex;
  core::Message first_error;
  // 128 KiB reads: the size GNU cat uses on regular files (coreutils io_blksize).
  constexpr size_t kReadBytes = 128 * 1024;
  auto worker = [&] {
    std::vector<char> buf(kReadBytes);
    uint64_t local_done = 0, local_bytes = 0;
    while (!cancelled.load(std::memory_order_relaxed)) {
      size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= files.size()) break;
      int fd = ::open(files[i].c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        int err = errno;
        if (err == ENOENT) {
          ++vanished;
        } else {
          ++failed;
          std::lock_guard lock(error_mutex);
          if (first_error.empty()) first_error = error_reason(core::errno_error(err, files[i], "open"));
        }
        continue;
      }
      bool ok = true;
      while (true) {
        ssize_t n = ::read(fd, buf.data(), buf.size());
        if (n > 0) {
          local_bytes += static_cast<uint64_t>(n);
          continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
          ok = false;
          ++failed;
          std::lock_guard lock(error_mutex);
          if (first_error.empty()) first_error = error_reason(core::errno_error(errno, files[i], "read"));
        }
        break;
      }
      ::close(fd);
      if (ok) ++local_done;
    }
    done += local_done;
    bytes += local_bytes;
  };
  core::Stopwatch watch;
  int n = std::max(1, threads);
  {
    // The caller is worker 0; the others join when this scope ends (also
    // when a worker throws, where std::thread would call std::terminate).
    std::vector<std::jthread> pool;
    for (int t = 1; t < n; ++t) pool.emplace_back(worker);
    worker();
  }
  FileReadStats s;
  s.seconds = watch.seconds();
  s.files = done;
  s.bytes = bytes;
  s.vanished = vanished;
  s.failed = failed;
  s.first_error = first_error;
  return s;
}

core::Result<std::vector<std::string>> list_dataset(const std::string& dir, size_t max_files) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return core::fail(core::ErrorCode::kNotFound, dir, core::Message(N_("--data must be an existing directory")));
  }
  std::vector<std::string> out;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) return tl::unexpected(core::errno_error(ec.value(), dir, "list"));
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return tl::unexpected(core::errno_error(ec.value(), dir, "list"));
    std::error_code sec;
    if (it->is_symlink(sec)) continue;
    if (it->is_regular_file(sec)) out.push_back(it->path().string());
    if (out.size() >= max_files) break;
  }
  std::sort(out.begin(), out.end());
  return out;
}

core::Result<DatasetTotals> dataset_totals(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return core::fail(core::ErrorCode::kNotFound, dir, _("not a directory (--data takes the dataset's folder)"));
  DatasetTotals t;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end && t.files < kMaxDatasetFiles; it.increment(ec)) {
    std::error_code fec;
    if (!it->is_regular_file(fec) || fec) continue;
    const uint64_t size = it->file_size(fec);
    if (fec) continue;
    ++t.files;
    t.bytes += size;
  }
  if (ec) return tl::unexpected(core::errno_error(ec.value(), dir, "list"));
  return t;
}

void drop_page_cache(const std::vector<std::string>& files) {
  for (const auto& f : files) {
    int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
}

double resident_fraction(const std::vector<std::string>& files, size_t sample) {
  if (files.empty()) return -1;
  size_t step = std::max<size_t>(1, files.size() / std::max<size_t>(sample, 1));
  uint64_t pages = 0, resident = 0;
  long page = sysconf(_SC_PAGESIZE);
  for (size_t i = 0; i < files.size(); i += step) {
    int fd = ::open(files[i].c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat st {};
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
      size_t len = static_cast<size_t>(st.st_size);
      void* map = ::mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, 0);
      if (map != MAP_FAILED) {
        size_t n = (len + static_cast<size_t>(page) - 1) / static_cast<size_t>(page);
        std::vector<unsigned char> vec(n);
        if (::mincore(map, len, vec.data()) == 0) {
          pages += n;
          for (unsigned char v : vec) resident += v & 1;
        }
        ::munmap(map, len);
      }
    }
    ::close(fd);
  }
  return pages == 0 ? -1 : static_cast<double>(resident) / static_cast<double>(pages);
}

core::Result<IoRun> timed_read(int fd, uint64_t file_bytes, uint32_t block, int depth, bool random, double seconds,
                               uint64_t seed, bool allow_uring) {
  if (file_bytes < block)
    return core::fail(core::ErrorCode::kInvalidArgument, "timed_read", core::Message(N_("file smaller than a block")));
  if (allow_uring) {
    int init_error = 0;
    auto r = uring_read(fd, file_bytes, block, depth, random, seconds, seed, init_error);
    if (r || init_error == 0) return r;
    core::log(core::LogLevel::kInfo, "{}",
              trf("io_uring unavailable ({}); using pread threads", core::errno_text(init_error)));
  }
  return pread_threads(fd, file_bytes, block, depth, random, seconds, seed);
}

std::unique_ptr<Benchmark> make_storage_benchmark() { return std::make_unique<StorageBenchmark>(); }

}  // namespace tfrig::bench
