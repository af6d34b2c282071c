#include "watch/sampler.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/text.h"
#include "gpulib/nvml.h"
#include "knowledge/pcie.h"

namespace tfrig::watch {

long clock_ticks_per_second() {
  long t = ::sysconf(_SC_CLK_TCK);
  return t > 0 ? t : 100;
}

ProcSampler::ProcSampler(const core::SysRoot& root, std::optional<int64_t> pid, long ticks_per_second)
    : root_(root), pid_(pid), ticks_(ticks_per_second > 0 ? ticks_per_second : 100) {
  // Whole disks are the entries of /sys/block; partitions would count the
  // same reads twice. loop, ram and zram devices are not storage.
  if (auto names = root_.list_dir("sys/block")) {
    for (const auto& n : *names) {
      if (core::starts_with(n, "loop") || core::starts_with(n, "ram") || core::starts_with(n, "zram")) continue;
      whole_disks_.push_back(n);
    }
  }
}

void ProcSampler::note(const std::string& problem) {
  if (std::find(problems_.begin(), problems_.end(), problem) == problems_.end()) problems_.push_back(problem);
}

bool ProcSampler::read_pid_stat(int64_t pid, PidStats& stats) {
  const std::string rel = fmt::format("proc/{}/stat", pid);
  auto text = root_.read_text(rel, 4096);
  if (!text) return false;  // exited between the listing and the read
  auto st = parse_pid_stat(*text, root_.full_path(rel));
  if (!st) {
    note(st.error().to_string());
    return false;
  }
  stats.emplace(st->pid, *st);
  return true;
}

// Fast path: the kernel's children lists (/proc/PID/task/TID/children,
// CONFIG_PROC_CHILDREN, on in the common distribution kernels) walk only
// the tree.
void ProcSampler::walk_children_lists(PidStats& stats, ChildLinks& children) {
  std::vector<int64_t> todo = {*pid_};
  std::set<int64_t> visited;
  while (!todo.empty()) {
    const int64_t p = todo.back();
    todo.pop_back();
    if (!visited.insert(p).second || !read_pid_stat(p, stats)) continue;
    auto tasks = root_.list_dir(fmt::format("proc/{}/task", p));
    if (!tasks) continue;
    for (const auto& t : *tasks) {
      auto text = root_.read_text(fmt::format("proc/{}/task/{}/children", p, t), 1u << 20);
      if (!text) continue;
      for (auto c : core::split_ws(*text)) {
        if (auto child = core::parse_u64(c); child && *child <= 4194304) {
          children[p].push_back(static_cast<int64_t>(*child));
          todo.push_back(static_cast<int64_t>(*child));
        }
      }
    }
  }
}

// Without children lists: one pass over every /proc/N/stat finds the parent
// links. False when /proc cannot be listed.
bool ProcSampler::scan_every_pid(PidStats& stats, ChildLinks& children) {
  auto entries = root_.list_dir("proc");
  if (!entries) {
    note(entries.error().to_string());
    return false;
  }
  for (const auto& name : *entries) {
    auto pid = core::parse_u64(name);
    if (!pid || *pid > 4194304) continue;
    if (read_pid_stat(static_cast<int64_t>(*pid), stats)) {
      if (auto it = stats.find(static_cast<int64_t>(*pid)); it != stats.end())
        children[it->second.ppid].push_back(it->second.pid);
    }
  }
  return true;
}

// One process of the tree: its CPU ticks, bytes read (another user's process
// hides them), and per thread the CPU it wanted and whether it is blocked.
ProcSampler::Proc ProcSampler::read_proc(int64_t pid, const PidStat& st) {
  Proc proc;
  proc.task = Task{st.utime + st.stime, st.cutime + st.cstime, st.ppid};
  proc.threads = st.threads;
  const std::string dir = fmt::format("proc/{}", pid);
  if (auto io = root_.read_text(dir + "/io", 4096)) {
    if (auto parsed = parse_pid_io(*io, root_.full_path(dir + "/io"))) {
      proc.read_bytes = parsed->read_bytes;
    } else {
      note(parsed.error().to_string());
    }
  } else if (io.error().code == core::ErrorCode::kPermissionDenied) {
    note(trf("{} (another user's process: its reads are not counted)", io.error().to_string()));
  }
  auto tasks = root_.list_dir(dir + "/task");
  if (!tasks) return proc;
  for (const auto& t : *tasks) {
    const std::string rel = dir + "/task/" + t + "/stat";
    auto text = root_.read_text(rel, 4096);
    if (!text) continue;
    if (auto ts = parse_pid_stat(*text, root_.full_path(rel))) {
      double demand = static_cast<double>(ts->utime + ts->stime) * 1e9 / static_cast<double>(ticks_);
      const std::string sched = dir + "/task/" + t + "/schedstat";
      if (auto sched_text = root_.read_text(sched, 256)) {
        if (auto parsed = parse_schedstat(*sched_text, root_.full_path(sched))) {
          demand = static_cast<double>(parsed->run_ns) + static_cast<double>(parsed->wait_ns);
        }
      }
      proc.thread_demand_ns[ts->pid] = demand;
      if (ts->state == 'D') ++proc.blocked;
    }
  }
  return proc;
}

// The watched process and its descendants: the parent links found, then each
// process of the tree read from the root down.
std::map<int64_t, ProcSampler::Proc> ProcSampler::read_tree() {
  std::map<int64_t, Proc> tree;
  if (!pid_) return tree;
  ChildLinks children;
  PidStats stats;
  if (root_.exists(fmt::format("proc/{}/task/{}/children", *pid_, *pid_))) {
    walk_children_lists(stats, children);
  } else if (!scan_every_pid(stats, children)) {
    return tree;
  }
  if (stats.find(*pid_) == stats.end()) {
    root_gone_ = true;
    return tree;
  }
  std::vector<int64_t> todo = {*pid_};
  std::set<int64_t> seen;
  while (!todo.empty()) {
    int64_t p = todo.back();
    todo.pop_back();
    if (!seen.insert(p).second) continue;
    auto found = stats.find(p);
    if (found == stats.end()) continue;  // a child that exited while the tree was walked
    tree.emplace(p, read_proc(p, found->second));
    if (auto it = children.find(p); it != children.end()) {
      for (int64_t c : it->second) todo.push_back(c);
    }
  }
  return tree;
}

namespace {

// Each core's busy and iowait share of the interval between two /proc/stat
// reads; the counters only grow, so a smaller value is read as no time.
CpuSample cpu_delta(const ProcStat& last, const ProcStat& now) {
  CpuSample c;
  const size_t n = std::min(now.cores.size(), last.cores.size());
  c.cores = static_cast<int>(n);
  for (size_t i = 0; i < n; ++i) {
    const CpuTimes& a = last.cores[i];
    const CpuTimes& b = now.cores[i];
    const double total = b.total() > a.total() ? static_cast<double>(b.total() - a.total()) : 0.0;
    const double busy = b.busy() > a.busy() ? static_cast<double>(b.busy() - a.busy()) : 0.0;
    // iowait may go backwards on some kernels (proc(5): "not reliable").
    const double io = b.iowait > a.iowait ? static_cast<double>(b.iowait - a.iowait) : 0.0;
    const double fb = total > 0 ? std::min(1.0, busy / total) : 0.0;
    const double fi = total > 0 ? std::min(1.0, io / total) : 0.0;
    c.core_busy.push_back(fb);
    c.core_iowait.push_back(fi);
    c.busy_cores += fb;
    c.iowait_cores += fi;
  }
  return c;
}

// Bytes read per second, busy share and queue depth of each whole disk seen
// in both reads.
std::vector<DiskSample> disk_deltas(const std::map<std::string, DiskStat>& last,
                                    const std::map<std::string, DiskStat>& now, double elapsed) {
  std::vector<DiskSample> out;
  for (const auto& [name, d] : now) {
    auto l = last.find(name);
    if (l == last.end()) continue;
    DiskSample ds;
    ds.name = name;
    const uint64_t sectors = d.sectors_read >= l->second.sectors_read ? d.sectors_read - l->second.sectors_read : 0;
    ds.read_bytes_per_s = static_cast<double>(sectors) * 512.0 / elapsed;
    const uint64_t ticks_ms = d.io_ticks_ms >= l->second.io_ticks_ms ? d.io_ticks_ms - l->second.io_ticks_ms : 0;
    ds.util = std::min(1.5, static_cast<double>(ticks_ms) / (elapsed * 1000.0));
    ds.in_flight = d.in_flight;
    out.push_back(std::move(ds));
  }
  return out;
}

}  // namespace

// /proc/stat's per-core counters; nullopt (noted) when unreadable.
std::optional<ProcStat> ProcSampler::read_proc_stat() {
  if (auto text = root_.read_text("proc/stat", 1u << 20)) {
    auto parsed = parse_proc_stat(*text, root_.full_path("proc/stat"));
    if (parsed) return std::move(*parsed);
    note(parsed.error().to_string());
  } else {
    note(text.error().to_string());
  }
  return std::nullopt;
}

// /proc/diskstats for the whole disks only (partitions would count the same
// reads twice).
std::map<std::string, DiskStat> ProcSampler::read_disks() {
  std::map<std::string, DiskStat> disks;
  if (auto text = root_.read_text("proc/diskstats", 4u << 20)) {
    if (auto parsed = parse_diskstats(*text, root_.full_path("proc/diskstats"))) {
      for (auto& d : *parsed) {
        if (whole_disks_.empty() || std::find(whole_disks_.begin(), whole_disks_.end(), d.name) != whole_disks_.end()) {
          disks.emplace(d.name, d);
        }
      }
    } else {
      note(parsed.error().to_string());
    }
  } else {
    note(text.error().to_string());
  }
  return disks;
}

// The watched tree's CPU, demand, blocked threads and reads over the
// interval; nullopt when the tree is empty (the root process is gone).
std::optional<ProcessSample> ProcSampler::process_delta(const std::map<int64_t, Proc>& before,
                                                        const std::map<int64_t, Proc>& now, long ticks_per_second,
                                                        double elapsed) {
  ProcessSample p;
  const double tick_s = 1.0 / static_cast<double>(ticks_per_second);
  double ticks = 0, read = 0, hottest = 0, demand = 0;
  bool read_known = false;
  for (const auto& [pid, proc] : now) {
    ++p.processes;
    p.threads += proc.threads;
    auto last = before.find(pid);
    if (last != before.end()) {
      const Proc& l = last->second;
      ticks += static_cast<double>(proc.task.ticks) - static_cast<double>(l.task.ticks);
      ticks += static_cast<double>(proc.task.child_ticks) - static_cast<double>(l.task.child_ticks);
      if (proc.read_bytes && l.read_bytes) {
        read += static_cast<double>(*proc.read_bytes) - static_cast<double>(*l.read_bytes);
        read_known = true;
      }
    } else {
      ticks += static_cast<double>(proc.task.ticks + proc.task.child_ticks);
      if (proc.read_bytes) {
        read += static_cast<double>(*proc.read_bytes);
        read_known = true;
      }
    }
    for (const auto& [tid, ns] : proc.thread_demand_ns) {
      double d = ns;
      if (last != before.end()) {
        if (auto lt = last->second.thread_demand_ns.find(tid); lt != last->second.thread_demand_ns.end()) {
          d -= lt->second;
        }
      }
      d = std::max(0.0, d);
      hottest = std::max(hottest, d);
      demand += d;
    }
    p.blocked_threads += proc.blocked;
  }
  // A child that exited and was waited for moved its whole life into its
  // parent's cutime/cstime and read_bytes; what we saw of it before is
  // taken back out so it is not counted twice. The parent may have exited
  // too and been waited for in turn (sh -> timeout -> worker): what
  // counts is that some ancestor we saw is still in the tree.
  auto reaped_into_tree = [&](const Proc& gone) {
    int64_t ancestor = gone.task.ppid;
    for (size_t depth = 0; depth <= before.size(); ++depth) {
      if (now.count(ancestor) != 0) return true;
      auto up = before.find(ancestor);
      if (up == before.end()) return false;
      ancestor = up->second.task.ppid;
    }
    return false;
  };
  for (const auto& [pid, l] : before) {
    if (now.count(pid) != 0 || !reaped_into_tree(l)) continue;
    ticks -= static_cast<double>(l.task.ticks + l.task.child_ticks);
    if (l.read_bytes) read -= static_cast<double>(*l.read_bytes);
  }
  p.cpu_cores = std::max(0.0, ticks * tick_s / elapsed);
  p.hottest_thread_cores = std::min(1.0, hottest / 1e9 / elapsed);
  p.cpu_demand_cores = std::max(p.cpu_cores, demand / 1e9 / elapsed);
  if (read_known) p.read_bytes_per_s = std::max(0.0, read / elapsed);
  if (now.empty()) return std::nullopt;
  return p;
}

// Reads every counter now and, from the second call on, turns the
// difference from the previous call into a sample.
std::optional<Sample> ProcSampler::take(double t, double elapsed) {
  std::optional<ProcStat> stat = read_proc_stat();
  std::map<std::string, DiskStat> disks = read_disks();
  auto tree = read_tree();

  std::optional<Sample> out;
  if (primed_ && elapsed > 0) {
    Sample s;
    s.t = t;
    if (stat && last_stat_) s.cpu = cpu_delta(*last_stat_, *stat);
    if (pid_) s.process = process_delta(last_tree_, tree, ticks_, elapsed);
    s.disks = disk_deltas(last_disks_, disks, elapsed);
    out = std::move(s);
  }
  primed_ = true;
  if (stat) last_stat_ = std::move(stat);
  last_disks_ = std::move(disks);
  if (pid_ && !root_gone_) last_tree_ = std::move(tree);
  return out;
}

// ---- GPU poller ----

GpuPoller::GpuPoller() = default;
GpuPoller::~GpuPoller() { stop(); }

bool GpuPoller::start(double interval_s, const std::optional<std::string>& library_override) {
  auto opened = gpulib::Nvml::open(library_override);
  if (!opened) {
    status_ = fmt::format("NVML {}: {}", gpulib::failure_state_name(opened.error().failure), opened.error().detail);
    return false;
  }
  nvml_ = std::move(*opened);
  auto counted = nvml_->device_count();
  if (!counted) {
    status_ = fmt::format("NVML {}: {}", gpulib::failure_state_name(counted.error().failure), counted.error().detail);
    nvml_.reset();
    return false;
  }
  const unsigned count = *counted;
  if (count == 0) {
    status_ = N_("NVML no_device: the driver sees no GPU");  // a recording keeps English; shown translated
    nvml_.reset();
    return false;
  }
  for (unsigned i = 0; i < count; ++i) {
    GpuInfo gi;
    gi.index = i;
    if (auto h = nvml_->handle(i)) {
      gi.name = nvml_->name(*h).value_or("");
      auto gen = nvml_->pcie_link_gen(*h, false);
      auto width = nvml_->pcie_link_width(*h, false);
      if (gen && width)
        gi.pcie_link_bytes_per_s =
            knowledge::pcie_link_bytes_per_second(static_cast<int>(*gen), static_cast<int>(*width));
    }
    info_.push_back(std::move(gi));
  }
  latest_ = poll_once();
  thread_ = std::thread([this, interval_s] { loop(interval_s); });
  return true;
}

void GpuPoller::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::vector<GpuSample> GpuPoller::latest() const {
  std::lock_guard lock(mutex_);
  return latest_;
}

std::vector<GpuSample> GpuPoller::poll_once() {
  std::vector<GpuSample> out;
  for (const GpuInfo& gi : info_) {
    GpuSample g;
    g.index = gi.index;
    auto h = nvml_->handle(gi.index);
    if (h) {
      if (auto u = nvml_->utilization(*h)) {
        g.util_percent = u->gpu;
        g.memory_util_percent = u->memory;
      }
      if (auto m = nvml_->memory(*h)) g.memory_used_bytes = m->second;
      // NVML reports PCIe throughput in KB/s (taken as KiB/s, NVML's unit
      // convention elsewhere).
      if (auto rx = nvml_->pcie_throughput_kbps(*h, gpulib::nvml::kPcieUtilRxBytes))
        g.pcie_rx_bytes_per_s = *rx * 1024.0;
      if (auto tx = nvml_->pcie_throughput_kbps(*h, gpulib::nvml::kPcieUtilTxBytes))
        g.pcie_tx_bytes_per_s = *tx * 1024.0;
      if (auto c = nvml_->clock(*h, gpulib::nvml::kClockSm)) g.sm_clock_mhz = *c;
      if (auto p = nvml_->power_usage_milliwatts(*h)) g.power_watts = *p / 1000.0;
    }
    out.push_back(g);
  }
  polls_.fetch_add(1);
  return out;
}

void GpuPoller::loop(double interval_s) {
  const auto period = std::chrono::duration<double>(std::max(0.05, interval_s));
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (wake_.wait_for(lock, period, [this] { return stopping_; })) break;
    lock.unlock();
    auto samples = poll_once();
    lock.lock();
    latest_ = std::move(samples);
  }
}

}  // namespace tfrig::watch
