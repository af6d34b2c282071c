#include "watch/classify.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/name_table.h"
#include "core/units.h"

namespace tfrig::watch {

// The verdicts' JSON names (verdict_label below has the words shown to a reader).
constexpr core::NameTable<Verdict, 7> kVerdictNames{{{
    {Verdict::kInputBoundCpu, "input_bound_cpu"},
    {Verdict::kInputBoundIo, "input_bound_io"},
    {Verdict::kComputeBound, "compute_bound"},
    {Verdict::kPcieBound, "pcie_bound"},
    {Verdict::kIdle, "idle"},
    {Verdict::kCpuBound, "cpu_bound"},
    {Verdict::kIoBound, "io_bound"},
}}};
static_assert(kVerdictNames.unique());

std::string_view verdict_name(Verdict v) { return kVerdictNames.name(v, "idle"); }

std::optional<Verdict> verdict_from_name(std::string_view name) { return kVerdictNames.value(name); }

// TRANSLATORS: tfrig watch's verdicts on the terminal; English shows the JSON names themselves.
core::Message verdict_message(Verdict v) {
  switch (v) {
    case Verdict::kInputBoundCpu: return core::Message::in_context(NC_("watch verdict", "input_bound_cpu"));
    case Verdict::kInputBoundIo: return core::Message::in_context(NC_("watch verdict", "input_bound_io"));
    case Verdict::kComputeBound: return core::Message::in_context(NC_("watch verdict", "compute_bound"));
    case Verdict::kPcieBound: return core::Message::in_context(NC_("watch verdict", "pcie_bound"));
    case Verdict::kIdle: return core::Message::in_context(NC_("watch verdict", "idle"));
    case Verdict::kCpuBound: return core::Message::in_context(NC_("watch verdict", "cpu_bound"));
    case Verdict::kIoBound: return core::Message::in_context(NC_("watch verdict", "io_bound"));
  }
  return core::Message::in_context(NC_("watch verdict", "idle"));
}

std::string verdict_label(Verdict v) { return core::render(verdict_message(v), core::i18n::language()); }

namespace {

struct Pressure {
  double cpu = 0;  // 1.0 = at the saturation threshold
  double io = 0;
  core::Message cpu_why;
  core::Message io_why;
};

void raise(double& score, core::Message& why, double value, core::Message text) {
  if (value > score) {
    score = value;
    why = std::move(text);
  }
}

Pressure pressure(const Sample& s, const RunInfo& info, const Thresholds& th) {
  Pressure p;
  // With a process tree watched, the CPU side is judged on the tree alone:
  // other tenants' load on a shared machine is not the pipeline's. Without
  // one, machine-wide busy and iowait are all there is.
  const bool tree = s.process.has_value();
  const bool tree_reads = tree && (s.process->read_bytes_per_s.value_or(0) > 0 || s.process->blocked_threads > 0);
  if (s.cpu && s.cpu->cores > 0) {
    if (!tree) {
      const double share = s.cpu->busy_cores / s.cpu->cores;
      raise(p.cpu, p.cpu_why, share / th.cpu_saturated,
            core::Message::plural(NP_("CPU {0:.0f}% busy over {1} core", "CPU {0:.0f}% busy over {1} cores"),
                                  static_cast<uint64_t>(s.cpu->cores), share * 100, s.cpu->cores));
    }
    if (!tree || tree_reads) {
      raise(p.io, p.io_why, s.cpu->iowait_cores / th.iowait_cores,
            core::Message(N_("{:.2f} cores' time in iowait"), s.cpu->iowait_cores));
    }
  }
  if (tree) {
    const int cores = s.cpu && s.cpu->cores > 0 ? s.cpu->cores : std::max(1, info.cpus);
    const double usable = std::max<double>(1.0, std::min<double>(static_cast<double>(s.process->threads), cores));
    const double wanted = std::max(s.process->cpu_cores, s.process->cpu_demand_cores);
    raise(p.cpu, p.cpu_why, wanted / usable / th.cpu_saturated,
          core::Message(N_("the watched processes want {0:.2f} of {1:.0f} usable cores (running {2:.2f})"), wanted,
                        usable, s.process->cpu_cores));
    raise(p.cpu, p.cpu_why, s.process->hottest_thread_cores / th.cpu_saturated,
          core::Message(N_("one thread wants {:.0f}% of a core (a serial stage)"),
                        s.process->hottest_thread_cores * 100));
    const double reads = s.process->read_bytes_per_s.value_or(0);
    if (reads >= th.reading_min_bytes_per_s && s.process->hottest_thread_cores < th.cpu_saturated) {
      const double off = 1.0 - s.process->hottest_thread_cores;
      raise(p.io, p.io_why, off / th.reading_off_cpu_share,
            core::Message(N_("reading {0} from storage while off the CPU {1:.0f}% of the time"),
                          core::format_rate(reads), off * 100));
    }
    if (s.process->blocked_threads > 0 && s.process->read_bytes_per_s.value_or(0) > 0) {
      raise(p.io, p.io_why, 1.0,
            core::Message::plural(
                NP_("{0} thread blocked on I/O while reading {1}", "{0} threads blocked on I/O while reading {1}"),
                static_cast<uint64_t>(s.process->blocked_threads), s.process->blocked_threads,
                core::format_rate(*s.process->read_bytes_per_s)));
    }
  }
  if (!tree || tree_reads) {
    for (const DiskSample& d : s.disks) {
      raise(p.io, p.io_why, d.util / th.disk_util,
            core::Message(N_("{0} busy {1:.0f}% of the time"), d.name, d.util * 100));
      if (info.disk_limit_bytes_per_s && *info.disk_limit_bytes_per_s > 0) {
        raise(p.io, p.io_why, d.read_bytes_per_s / *info.disk_limit_bytes_per_s / th.disk_limit_share,
              core::Message(N_("{0} reads {1} of its measured {2}"), d.name, core::format_rate(d.read_bytes_per_s),
                            core::format_rate(*info.disk_limit_bytes_per_s)));
      }
    }
  }
  return p;
}

std::optional<double> mean_gpu_util(const Sample& s) {
  double sum = 0;
  int n = 0;
  for (const GpuSample& g : s.gpus) {
    if (g.util_percent) {
      sum += *g.util_percent;
      ++n;
    }
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

// The highest share of its link any GPU's PCIe traffic reaches.
std::optional<std::pair<double, core::Message>> pcie_share(const Sample& s, const RunInfo& info) {
  std::optional<std::pair<double, core::Message>> best;
  for (const GpuSample& g : s.gpus) {
    auto it = std::find_if(info.gpus.begin(), info.gpus.end(), [&](const GpuInfo& i) { return i.index == g.index; });
    if (it == info.gpus.end() || !it->pcie_link_bytes_per_s || *it->pcie_link_bytes_per_s <= 0) continue;
    const double traffic = std::max(g.pcie_rx_bytes_per_s.value_or(0), g.pcie_tx_bytes_per_s.value_or(0));
    const double share = traffic / *it->pcie_link_bytes_per_s;
    if (!best || share > best->first) {
      best = std::pair{share,
                       core::Message(N_("GPU {0} PCIe at {1} of {2} ({3:.0f}%)"), g.index, core::format_rate(traffic),
                                     core::format_rate(*it->pcie_link_bytes_per_s), share * 100)};
    }
  }
  return best;
}

}  // namespace

SampleClass classify_sample(const Sample& s, const RunInfo& info, const Thresholds& th) {
  SampleClass c;
  const Pressure p = pressure(s, info, th);
  const bool cpu_sat = p.cpu >= 1.0;
  const bool io_wait = p.io >= 1.0;
  c.gpu_util_percent = mean_gpu_util(s);
  if (!c.gpu_util_percent) {
    if (cpu_sat && (!io_wait || p.cpu >= p.io)) {
      c.verdict = Verdict::kCpuBound;
      c.why = p.cpu_why;
    } else if (io_wait) {
      c.verdict = Verdict::kIoBound;
      c.why = p.io_why;
    } else {
      c.verdict = Verdict::kIdle;
      c.why = core::Message(N_("no CPU or I/O resource saturated"));
    }
    return c;
  }
  const double util = *c.gpu_util_percent;
  if (util >= th.gpu_busy_percent) {
    c.verdict = Verdict::kComputeBound;
    c.why = core::Message(N_("GPU {:.0f}% busy"), util);
    return c;
  }
  if (auto pc = pcie_share(s, info); pc && pc->first >= th.pcie_share) {
    c.verdict = Verdict::kPcieBound;
    c.why = core::Message(N_("GPU {0:.0f}% busy; {1}"), util, pc->second);
    return c;
  }
  if (util < th.gpu_idle_percent && !cpu_sat && !io_wait) {
    // The GPU idles and so does the input side. With a watched process that
    // still works a little, its input is latency-bound rather than idle.
    c.verdict = Verdict::kIdle;
    c.why = core::Message(N_("GPU {:.0f}% busy and no input resource saturated"), util);
    return c;
  }
  // The GPU waits. On whom: the side nearer its limit (both scores are 1.0
  // at their threshold). When neither is saturated the input pipeline is
  // latency-bound (too little parallelism), named after the nearer side.
  const bool cpu_side = p.cpu >= p.io;
  c.verdict = cpu_side ? Verdict::kInputBoundCpu : Verdict::kInputBoundIo;
  const core::Message& limit = cpu_side ? p.cpu_why : p.io_why;
  c.why = cpu_sat || io_wait
              ? core::Message(N_("GPU {0:.0f}% busy; {1}"), util, limit)
              : core::Message(
                    N_("GPU {0:.0f}% busy; {1} (nothing saturated: too little parallelism in the input pipeline)"),
                    util, limit);
  return c;
}

core::Message interval_message(double s) {
  if (s >= 3600 && std::fmod(s, 3600) == 0) return core::Message(N_("{:.0f} h"), s / 3600);
  if (s >= 60 && std::fmod(s, 60) == 0) return core::Message(N_("{:.0f} min"), s / 60);
  if (s < 1) return core::Message(N_("{:.0f} ms"), s * 1000);
  return core::Message(N_("{:.6g} s"), std::round(s * 1000) / 1000);
}

std::string interval_text(double s) { return core::render(interval_message(s), core::i18n::language()); }

namespace {

struct Acc {
  double gpu = 0, cpu = 0, iowait = 0, proc = 0, read = 0;
  int n_gpu = 0, n_cpu = 0, n_proc = 0, n_read = 0;
  void add(const Sample& s, const SampleClass& c) {
    if (c.gpu_util_percent) {
      gpu += *c.gpu_util_percent;
      ++n_gpu;
    }
    if (s.cpu && s.cpu->cores > 0) {
      cpu += s.cpu->busy_cores / s.cpu->cores;
      iowait += s.cpu->iowait_cores;
      ++n_cpu;
    }
    if (s.process) {
      proc += s.process->cpu_cores;
      ++n_proc;
    }
    std::optional<double> r;
    if (s.process && s.process->read_bytes_per_s) {
      r = s.process->read_bytes_per_s;
    } else if (!s.disks.empty()) {
      double sum = 0;
      for (const auto& d : s.disks) sum += d.read_bytes_per_s;
      r = sum;
    }
    if (r) {
      read += *r;
      ++n_read;
    }
  }
  void fill(Phase& p) const {
    if (n_gpu) p.gpu_util_percent = gpu / n_gpu;
    if (n_cpu) {
      p.cpu_busy_share = cpu / n_cpu;
      p.iowait_cores = iowait / n_cpu;
    }
    if (n_proc) p.process_cpu_cores = proc / n_proc;
    if (n_read) p.read_bytes_per_s = read / n_read;
  }
};

core::Message fix_for(Verdict v) {
  switch (v) {
    case Verdict::kInputBoundCpu:
    case Verdict::kCpuBound:
      return core::Message(N_("parallelise preprocessing: dataset.map(fn, num_parallel_calls=tf.data.AUTOTUNE) and "
                              ".prefetch(tf.data.AUTOTUNE); cache() decoded data that fits; more CPU cores "
                              "(tfrig pipeline measures how many)"));
    case Verdict::kInputBoundIo:
    case Verdict::kIoBound:
      return core::Message(N_(
          "read in parallel and in large files: tfrig pack into TFRecord shards, then "
          "tf.data.Dataset.from_tensor_slices(files).interleave(tf.data.TFRecordDataset, "
          "num_parallel_calls=tf.data.AUTOTUNE, deterministic=False); cache() if the data fits in RAM; faster storage"));
    case Verdict::kPcieBound:
      return core::Message(N_(
          "send less over PCIe: batch uint8 images and cast/normalise on the GPU; prefetch to the GPU "
          "(tf.data.experimental.prefetch_to_device('/gpu:0')); check the link runs at its full width and generation (tfrig doctor)"));
    case Verdict::kComputeBound:
      return core::Message(N_(
          "the GPU is the limit, as it should be: mixed precision "
          "(tf.keras.mixed_precision.set_global_policy('mixed_float16')) and XLA (jit_compile=True) make it faster"));
    case Verdict::kIdle:
      return core::Message(N_(
          "nothing to fix in the pipeline: the run was mostly idle (start-up, evaluation, or waiting on something outside)"));
  }
  return {};
}

}  // namespace

namespace {

// The recording's GPU status: an English catalog text (monitor.cpp writes
// it), shown as it is when the catalog does not hold it (a foreign file).
core::MessageArg gpu_status_message(const std::string& status) {
  core::Message m(status);
  if (core::known_message(m)) return m;
  return status;
}

// What the recording could not see, said next to the verdict.
void note_blind_spots(const Recording& rec, bool any_gpu, bool any_cpu, bool any_proc, bool any_read, Analysis& a) {
  if (!any_gpu) {
    a.blind.push_back(
        rec.info.gpu_status.empty()
            ? core::Message(N_(
                  "GPU utilisation: not reported (no GPU watched), so the verdict is about the CPU and I/O side only"))
            : core::Message(N_("GPU: {}; the verdict is about the CPU and I/O side only"),
                            gpu_status_message(rec.info.gpu_status)));
  }
  if (!any_cpu) a.blind.push_back(core::Message(N_("per-core CPU use (/proc/stat unreadable)")));
  if (rec.info.pid && !any_proc)
    a.blind.push_back(core::Message(N_("the watched process tree (gone before the second sample?)")));
  if (any_proc && !any_read)
    a.blind.push_back(
        core::Message(N_("the process tree's storage reads (/proc/PID/io unreadable: another user's process?)")));
}

// A run of samples of one label.
struct PhaseRun {
  Verdict v;
  size_t first, count;
};

// Phases: runs of equal labels, then blips shorter than min_phase_samples
// folded into the previous phase (the next one at the start).
std::vector<PhaseRun> phase_runs(const std::vector<SampleClass>& classes, const Thresholds& th) {
  std::vector<PhaseRun> runs;
  for (size_t i = 0; i < classes.size(); ++i) {
    if (!runs.empty() && runs.back().v == classes[i].verdict) {
      ++runs.back().count;
    } else {
      runs.push_back({classes[i].verdict, i, 1});
    }
  }
  const size_t min_len = static_cast<size_t>(std::max(1, th.min_phase_samples));
  while (runs.size() > 1) {
    // The shortest run below the minimum goes first, into its longer
    // neighbour (the earlier one on a tie), so blips vanish before phases do.
    size_t i = runs.size();
    for (size_t k = 0; k < runs.size(); ++k) {
      if (runs[k].count < min_len && (i == runs.size() || runs[k].count < runs[i].count)) i = k;
    }
    if (i == runs.size()) break;
    const size_t into = i == 0 ? 1 : (i + 1 < runs.size() && runs[i + 1].count > runs[i - 1].count ? i + 1 : i - 1);
    runs[into].first = std::min(runs[into].first, runs[i].first);
    runs[into].count += runs[i].count;
    runs.erase(runs.begin() + static_cast<std::ptrdiff_t>(i));
    // Neighbours that now carry the same label become one.
    for (size_t k = 1; k < runs.size();) {
      if (runs[k].v == runs[k - 1].v) {
        runs[k - 1].count += runs[k].count;
        runs.erase(runs.begin() + static_cast<std::ptrdiff_t>(k));
      } else {
        ++k;
      }
    }
  }
  return runs;
}

// One Phase per run, with its samples' figures.
void fill_phases(const Recording& rec, const std::vector<SampleClass>& classes, const std::vector<PhaseRun>& runs,
                 Analysis& a) {
  for (const PhaseRun& r : runs) {
    Phase p;
    p.verdict = r.v;
    p.samples = r.count;
    Acc acc;
    for (size_t i = r.first; i < r.first + r.count; ++i) {
      acc.add(rec.samples[i], classes[i]);
      if (p.why.empty() && classes[i].verdict == r.v) p.why = classes[i].why;
    }
    acc.fill(p);
    p.start_t = std::max(0.0, rec.samples[r.first].t - rec.info.interval_s);
    p.end_t = rec.samples[r.first + r.count - 1].t;
    a.phases.push_back(std::move(p));
  }
}

// The whole run: the most common label among active samples, if enough are.
Verdict overall_verdict(const std::vector<SampleClass>& classes, const Thresholds& th) {
  std::map<Verdict, size_t> counts;
  size_t active = 0;
  for (const auto& c : classes) {
    if (c.verdict == Verdict::kIdle) continue;
    ++counts[c.verdict];
    ++active;
  }
  if (active > 0 && static_cast<double>(active) >= th.active_share * static_cast<double>(classes.size())) {
    return std::max_element(counts.begin(), counts.end(),
                            [](const auto& x, const auto& y) { return x.second < y.second; })
        ->first;
  }
  return Verdict::kIdle;
}

// The verdict in a sentence; an input-bound run's severity is the GPU's idle
// share over its samples.
void explain_verdict(const std::vector<SampleClass>& classes, const Thresholds& th, Analysis& a) {
  if (a.verdict == Verdict::kInputBoundCpu || a.verdict == Verdict::kInputBoundIo) {
    double idle = 0;
    size_t n = 0;
    for (const auto& c : classes) {
      if (c.verdict == a.verdict && c.gpu_util_percent) {
        idle += 1.0 - *c.gpu_util_percent / 100.0;
        ++n;
      }
    }
    const double share = n ? idle / static_cast<double>(n) : 0;
    a.severity = share >= th.highly_input_bound_idle ? "highly" : "moderately";
    const bool highly = a.severity == "highly";
    const bool cpu = a.verdict == Verdict::kInputBoundCpu;
    const double high = th.highly_input_bound_idle * 100;
    const double moderate = th.moderately_input_bound_idle * 100;
    // Whole sentences: the severity and the side change the words around them in Chinese.
    if (highly && cpu) {
      a.explanation = core::Message(
          N_("HIGHLY input-bound: the GPU idled {0:.0f}% of the time while the CPU (preprocessing) side was the limit "
             "(TensorFlow's Profiler calls >= {1:.0f}% of step time waiting for input HIGHLY input-bound, >= {2:.0f}% MODERATELY)."),
          share * 100, high, moderate);
    } else if (highly) {
      a.explanation = core::Message(
          N_("HIGHLY input-bound: the GPU idled {0:.0f}% of the time while the storage side was the limit "
             "(TensorFlow's Profiler calls >= {1:.0f}% of step time waiting for input HIGHLY input-bound, >= {2:.0f}% MODERATELY)."),
          share * 100, high, moderate);
    } else if (cpu) {
      a.explanation = core::Message(
          N_("MODERATELY input-bound: the GPU idled {0:.0f}% of the time while the CPU (preprocessing) side was the limit "
             "(TensorFlow's Profiler calls >= {1:.0f}% of step time waiting for input HIGHLY input-bound, >= {2:.0f}% MODERATELY)."),
          share * 100, high, moderate);
    } else {
      a.explanation = core::Message(
          N_("MODERATELY input-bound: the GPU idled {0:.0f}% of the time while the storage side was the limit "
             "(TensorFlow's Profiler calls >= {1:.0f}% of step time waiting for input HIGHLY input-bound, >= {2:.0f}% MODERATELY)."),
          share * 100, high, moderate);
    }
  } else {
    switch (a.verdict) {
      case Verdict::kComputeBound:
        a.explanation = core::Message(N_("compute-bound: the GPU was busy; the input pipeline keeps up."));
        break;
      case Verdict::kPcieBound:
        a.explanation =
            core::Message(N_("PCIe-bound: the GPU waited while host<->device copies ran near the link's limit."));
        break;
      case Verdict::kCpuBound:
        a.explanation = core::Message(N_("CPU-bound: the watched work saturated the CPU (or one thread of it)."));
        break;
      case Verdict::kIoBound:
        a.explanation = core::Message(N_("I/O-bound: the watched work waited on storage."));
        break;
      default: a.explanation = core::Message(N_("idle: too few samples showed any resource at work.")); break;
    }
  }
}

}  // namespace

Analysis analyse(const Recording& rec, const Thresholds& th) {
  Analysis a;
  a.samples = rec.samples.size();
  std::vector<SampleClass> classes;
  classes.reserve(rec.samples.size());
  bool any_gpu = false, any_cpu = false, any_proc = false, any_read = false;
  for (const Sample& s : rec.samples) {
    classes.push_back(classify_sample(s, rec.info, th));
    any_gpu = any_gpu || classes.back().gpu_util_percent.has_value();
    any_cpu = any_cpu || s.cpu.has_value();
    any_proc = any_proc || s.process.has_value();
    any_read = any_read || (s.process && s.process->read_bytes_per_s);
  }
  a.gpu_watched = any_gpu;
  if (rec.samples.empty()) {
    a.blind.push_back(core::Message(N_("everything: no sample was taken (the run ended within the first {} interval)"),
                                    interval_message(rec.info.interval_s)));
    a.explanation = core::Message(N_("idle: no sample to judge."));
    a.fix = core::Message(N_("watch for longer than one interval (--interval, --duration)"));
    return a;
  }
  note_blind_spots(rec, any_gpu, any_cpu, any_proc, any_read, a);
  fill_phases(rec, classes, phase_runs(classes, th), a);
  Acc whole;
  for (size_t i = 0; i < classes.size(); ++i) whole.add(rec.samples[i], classes[i]);
  whole.fill(a.whole);
  a.whole.samples = a.samples;
  if (!rec.samples.empty()) a.whole.end_t = rec.samples.back().t;
  a.verdict = overall_verdict(classes, th);
  explain_verdict(classes, th, a);
  a.fix = fix_for(a.verdict);
  return a;
}

}  // namespace tfrig::watch
