// memory: the four STREAM kernels (McCalpin, "Memory Bandwidth and Machine
// Balance", 1995; https://www.cs.virginia.edu/stream/) with one thread and
// with every thread. Bytes are counted the STREAM way: copy and scale move
// 2 arrays, add and triad 3, each element 8 bytes, no write-allocate
// traffic counted, so the numbers line up with STREAM's.
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <thread>

#include <fmt/format.h>

#include "bench/benchmarks.h"
#include "bench/context.h"
#include "bench/runner.h"
#include "core/clock.h"
#include "core/i18n.h"
#include "core/text.h"
#include "core/units.h"

namespace tfrig::bench {

namespace {

// STREAM's rule: each array at least 4x the sum of the last-level caches, so
// no pass is served from cache. 256 MiB per array is the floor when the
// cache size is unknown (it covers 64 MiB of LLC, most single-socket parts).
constexpr uint64_t kMinArrayBytes = 256ull << 20;
constexpr uint64_t kQuickArrayBytes = 32ull << 20;
constexpr double kScalar = 3.0;  // STREAM's scalar

// The sum of the distinct L3 caches seen in sysfs, 0 when unknown.
uint64_t last_level_cache_bytes() {
  uint64_t total = 0;
  std::vector<std::string> seen;
  for (int cpu = 0; cpu < 4096; ++cpu) {
    std::string base = fmt::format("/sys/devices/system/cpu/cpu{}/cache/index3/", cpu);
    std::ifstream size_in(base + "size");
    if (!size_in) {
      if (cpu > 0 && access(fmt::format("/sys/devices/system/cpu/cpu{}", cpu).c_str(), F_OK) != 0) break;
      continue;
    }
    std::string size_text, shared;
    size_in >> size_text;
    std::ifstream shared_in(base + "shared_cpu_list");
    shared_in >> shared;
    if (std::find(seen.begin(), seen.end(), shared) != seen.end()) continue;
    seen.push_back(shared);
    if (auto bytes = core::parse_size(size_text)) total += *bytes;
  }
  return total;
}

// The CPUs this process may use, ordered so that consecutive threads land
// on different NUMA nodes: thread i of n then first-touches its slice of the
// arrays on its own node (Linux's default local allocation), and every node's
// memory controllers work at once.
std::vector<int> spread_cpus(const inventory::Inventory& inv) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  sched_getaffinity(0, sizeof(allowed), &allowed);
  std::vector<std::vector<int>> per_node;
  for (const auto& node : inv.cpu.numa_nodes) {
    std::vector<int> cpus;
    for (int c : node.cpus) {
      if (c >= 0 && c < CPU_SETSIZE && CPU_ISSET(c, &allowed)) cpus.push_back(c);
    }
    if (!cpus.empty()) per_node.push_back(std::move(cpus));
  }
  if (per_node.empty()) {
    std::vector<int> cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
    }
    per_node.push_back(std::move(cpus));
  }
  std::vector<int> out;
  for (size_t i = 0;; ++i) {
    bool any = false;
    for (const auto& node : per_node) {
      if (i < node.size()) {
        out.push_back(node[i]);
        any = true;
      }
    }
    if (!any) break;
  }
  return out;
}

// A team of threads that run one function together, so thread creation
// stays out of the timed region and each thread keeps its slice. The calling
// thread is member 0: with one thread nothing is handed over at all. Workers
// spin briefly on the generation counter before sleeping on it (C++20
// atomic wait, a futex on Linux), as GNU OpenMP's threads do (GOMP_SPINCOUNT),
// so a pass starts without a scheduler wake-up on an idle machine.
class Team {
 public:
  Team(int n, const std::vector<int>& cpus) : n_(n) {
    if (!cpus.empty()) {
      // Member 0 is the caller: pin it too (its slice's pages follow it),
      // and give its old affinity back afterwards.
      pinned_caller_ = sched_getaffinity(0, sizeof(old_affinity_), &old_affinity_) == 0;
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpus[0], &set);
      if (pinned_caller_) pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    }
    for (int i = 1; i < n; ++i) {
      int cpu = cpus.empty() ? -1 : cpus[static_cast<size_t>(i) % cpus.size()];
      threads_.emplace_back([this, i, cpu](std::stop_token stop) { loop(stop, i, cpu); });
    }
  }
  ~Team() {
    threads_.clear();  // each jthread asks its member to stop (see loop) and joins it
    if (pinned_caller_) pthread_setaffinity_np(pthread_self(), sizeof(old_affinity_), &old_affinity_);
  }
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  // Runs fn(thread_index) on every member; returns the seconds from release
  // to the last member done.
  double run(const std::function<void(int)>& fn) {
    fn_ = &fn;
    pending_.store(n_ - 1, std::memory_order_relaxed);
    core::Stopwatch watch;
    generation_.fetch_add(1, std::memory_order_release);
    generation_.notify_all();
    fn(0);
    for (int left = pending_.load(std::memory_order_acquire); left != 0;
         left = pending_.load(std::memory_order_acquire)) {
      pending_.wait(left, std::memory_order_acquire);
    }
    return watch.seconds();
  }

 private:
  // About 0.1 ms of polling before sleeping: far shorter than a pass over
  // arrays four times the cache, so it costs nothing measurable.
  static constexpr int kSpins = 20000;

  void loop(std::stop_token stop, int index, int cpu) {
    // A stop request (a jthread's destructor: ~Team, or a constructor that
    // failed half-way) wakes every member from its wait so it can return.
    std::stop_callback wake(stop, [this] {
      quit_.store(true);
      generation_.fetch_add(1, std::memory_order_release);
      generation_.notify_all();
    });
    if (cpu >= 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpu, &set);
      pthread_setaffinity_np(pthread_self(), sizeof(set), &set);  // best effort
    }
    uint64_t seen = 0;
    while (true) {
      uint64_t g = generation_.load(std::memory_order_acquire);
      for (int i = 0; g == seen && i < kSpins; ++i) g = generation_.load(std::memory_order_acquire);
      while (g == seen) {
        generation_.wait(seen, std::memory_order_acquire);
        g = generation_.load(std::memory_order_acquire);
      }
      seen = g;
      if (quit_.load()) return;
      (*fn_)(index);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
    }
  }

  int n_;
  const std::function<void(int)>* fn_ = nullptr;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> quit_{false};
  bool pinned_caller_ = false;
  cpu_set_t old_affinity_{};
  // Last, so it is destroyed first: the members are stopped and joined
  // while the state their stop callbacks touch is still alive.
  std::vector<std::jthread> threads_;
};

struct Slice {
  size_t begin, end;
};
Slice slice_of(size_t n, int parts, int index) {
  size_t per = n / static_cast<size_t>(parts);
  size_t begin = per * static_cast<size_t>(index);
  return {begin, index == parts - 1 ? n : begin + per};
}

// The kernels, written as STREAM writes them; restrict lets the compiler
// vectorise without alias checks.
void kernel_copy(double* __restrict c, const double* __restrict a, Slice s) {
  for (size_t i = s.begin; i < s.end; ++i) c[i] = a[i];
}
void kernel_scale(double* __restrict b, const double* __restrict c, Slice s) {
  for (size_t i = s.begin; i < s.end; ++i) b[i] = kScalar * c[i];
}
void kernel_add(double* __restrict c, const double* __restrict a, const double* __restrict b, Slice s) {
  for (size_t i = s.begin; i < s.end; ++i) c[i] = a[i] + b[i];
}
void kernel_triad(double* __restrict a, const double* __restrict b, const double* __restrict c, Slice s) {
  for (size_t i = s.begin; i < s.end; ++i) a[i] = b[i] + kScalar * c[i];
}

struct Arrays {
  double* a = nullptr;
  double* b = nullptr;
  double* c = nullptr;
  size_t n = 0;
  ~Arrays() {
    std::free(a);
    std::free(b);
    std::free(c);
  }
};

// The arrays' size: four times the last-level cache (at least the floor), or
// --quick's; three must fit in a quarter of the available memory, or we measure swap.
uint64_t stream_array_bytes(const RunContext& ctx, uint64_t llc) {
  uint64_t array_bytes = ctx.config.quick ? kQuickArrayBytes : std::max(kMinArrayBytes, 4 * llc);
  if (ctx.config.file_bytes > 0 && ctx.config.quick) array_bytes = ctx.config.file_bytes;
  if (auto avail = ctx.inventory.memory.available_bytes; avail && 3 * array_bytes > *avail / 4) {
    array_bytes = std::max<uint64_t>(*avail / 12, 8ull << 20);
  }
  return array_bytes;
}

// The four STREAM kernels on `threads` threads (metrics named with `who`).
void measure_stream_kernels(const RunContext& ctx, Runner& runner, Arrays& arr, int threads, const char* who,
                            const std::vector<int>& cpus, uint64_t llc, bool huge_pages) {
  Team team(threads, cpus);
  // First touch by the thread that will use each slice: its pages land on
  // that thread's NUMA node.
  team.run([&](int t) {
    Slice s = slice_of(arr.n, threads, t);
    for (size_t i = s.begin; i < s.end; ++i) {
      arr.a[i] = 1.0;
      arr.b[i] = 2.0;
      arr.c[i] = 0.0;
    }
  });
  struct Kernel {
    const char* name;
    int arrays;
    std::function<void(Slice)> body;
  };
  Kernel kernels[] = {
      {"copy", 2, [&](Slice s) { kernel_copy(arr.c, arr.a, s); }},
      {"scale", 2, [&](Slice s) { kernel_scale(arr.b, arr.c, s); }},
      {"add", 3, [&](Slice s) { kernel_add(arr.c, arr.a, arr.b, s); }},
      {"triad", 3, [&](Slice s) { kernel_triad(arr.a, arr.b, arr.c, s); }},
  };
  for (const auto& k : kernels) {
    double moved = static_cast<double>(k.arrays) * static_cast<double>(arr.n) * sizeof(double);
    nlohmann::json params = {{"threads", threads},
                             {"array_bytes", arr.n * sizeof(double)},
                             {"array_elements", arr.n},
                             {"bytes_per_pass", moved},
                             {"numa_nodes", ctx.inventory.cpu.numa_nodes.size()},
                             {"pinned", !cpus.empty()},
                             {"huge_pages_requested", huge_pages},
                             {"llc_bytes", llc > 0 ? nlohmann::json(llc) : nlohmann::json(nullptr)}};
    Measurement& m = runner.measure(fmt::format("{}_{}", k.name, who), "GB/s", params, [&]() -> core::Result<double> {
      double secs = team.run([&](int t) { k.body(slice_of(arr.n, threads, t)); });
      return moved / std::max(secs, 1e-9) / 1e9;
    });
    if (ctx.config.quick) {
      m.notes.emplace_back(N_("--quick: 32 MiB arrays may be served partly from cache; not a memory bandwidth figure"));
    } else if (llc == 0) {
      m.notes.emplace_back(N_("last-level cache size unknown: arrays sized to the 256 MiB floor"));
    }
  }
}

class MemoryBenchmark final : public Benchmark {
 public:
  std::string_view id() const override { return "memory"; }
  std::string_view description() const override {
    return N_("STREAM copy/scale/add/triad bandwidth, one thread and all threads");
  }
  std::vector<std::pair<std::string, std::string>> metrics() const override {
    std::vector<std::pair<std::string, std::string>> m;
    for (const char* who : {"1_thread", "all_threads"}) {
      for (const char* k : {"copy", "scale", "add", "triad"}) m.emplace_back(fmt::format("{}_{}", k, who), "GB/s");
    }
    return m;
  }
  std::optional<core::Message> skip_reason(const RunContext&) const override { return std::nullopt; }

  // STREAM: the arrays allocated (huge pages asked for), then the kernels on
  // one thread and on all of them.
  void run(const RunContext& ctx, Runner& runner) override {
    uint64_t llc = last_level_cache_bytes();
    uint64_t array_bytes = stream_array_bytes(ctx, llc);
    Arrays arr;
    arr.n = static_cast<size_t>(array_bytes / sizeof(double));
    // 2 MiB alignment lets the kernel back the arrays with transparent huge pages.
    constexpr size_t kAlign = 2u << 20;
    size_t bytes = (arr.n * sizeof(double) + kAlign - 1) / kAlign * kAlign;
    if (posix_memalign(reinterpret_cast<void**>(&arr.a), kAlign, bytes) != 0 ||
        posix_memalign(reinterpret_cast<void**>(&arr.b), kAlign, bytes) != 0 ||
        posix_memalign(reinterpret_cast<void**>(&arr.c), kAlign, bytes) != 0) {
      for (const auto& [metric, unit] : metrics()) {
        runner.fail(metric, unit, core::Message(N_("could not allocate 3 x {}"), core::format_bytes_binary(bytes)));
      }
      return;
    }
    // Ask for transparent huge pages where the kernel gives them only on
    // request (THP "madvise", the default of Debian and Ubuntu kernels): with
    // 4 KiB pages, a pass over 3 x 256 MiB misses the TLB every 4 KiB and
    // measures the page walker along with the DRAM. Best effort.
    bool huge_pages = true;
    for (double* p : {arr.a, arr.b, arr.c}) huge_pages = madvise(p, bytes, MADV_HUGEPAGE) == 0 && huge_pages;
    // Pinning matters only for NUMA placement; on one node it would tie a
    // thread to a CPU that another process may be using while a neighbour
    // sits idle (the scheduler, like STREAM's unpinned OpenMP threads, moves it).
    std::vector<int> cpus;
    if (ctx.inventory.cpu.numa_nodes.size() > 1) cpus = spread_cpus(ctx.inventory);
    for (int threads : {1, ctx.threads}) {
      measure_stream_kernels(ctx, runner, arr, threads, threads == 1 ? "1_thread" : "all_threads", cpus, llc,
                             huge_pages);
      if (threads == ctx.threads && threads == 1) break;  // "all threads" is one thread here
    }
    // A one-CPU run still lists the all-thread metrics, as skipped with why.
    if (ctx.threads == 1) {
      for (const char* k : {"copy", "scale", "add", "triad"}) {
        runner.skip(
            fmt::format("{}_all_threads", k), "GB/s",
            core::Message(ctx.config.threads == 1 ? N_("--threads 1 asks for one thread: see the 1_thread results")
                                                  : N_("only one CPU available: see the 1_thread results")));
      }
    }
  }
};

}  // namespace

std::unique_ptr<Benchmark> make_memory_benchmark() { return std::make_unique<MemoryBenchmark>(); }

}  // namespace tfrig::bench
