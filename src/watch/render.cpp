#include "watch/render.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/display_width.h"
#include "core/i18n.h"
#include "core/json_text.h"
#include "core/terminal_text.h"
#include "core/units.h"

namespace tfrig::watch {
namespace {

using OJson = nlohmann::ordered_json;

std::string pct(const std::optional<double>& share) { return share ? fmt::format("{:.0f}%", *share * 100) : "-"; }

double disk_read(const Sample& s) {
  double sum = 0;
  for (const auto& d : s.disks) sum += d.read_bytes_per_s;
  return sum;
}

OJson phase_json(const Phase& p, std::string_view language) {
  return OJson{{"verdict", verdict_name(p.verdict)},
               {"start_s", p.start_t},
               {"end_s", p.end_t},
               {"samples", p.samples},
               {"gpu_util_percent", core::json_or_null(p.gpu_util_percent)},
               {"cpu_busy_share", core::json_or_null(p.cpu_busy_share)},
               {"iowait_cores", core::json_or_null(p.iowait_cores)},
               {"process_cpu_cores", core::json_or_null(p.process_cpu_cores)},
               {"read_bytes_per_s", core::json_or_null(p.read_bytes_per_s)},
               {"why", core::render(p.why, language)}};
}

}  // namespace

std::string status_line(const Sample& s) {
  std::string line = fmt::format("{:6.1f}s", s.t);
  // TRANSLATORS: the live status line of tfrig watch: short items, two spaces apart.
  for (const auto& g : s.gpus) {
    line += "  " + trf("gpu{0} {1}", g.index, g.util_percent ? fmt::format("{:.0f}%", *g.util_percent) : "?");
    if (g.pcie_rx_bytes_per_s) line += " " + trf("rx {}", core::format_rate(*g.pcie_rx_bytes_per_s));
  }
  if (s.cpu && s.cpu->cores > 0) {
    line += "  " + trf("cpu {0:.0f}% iowait {1:.0f}%", s.cpu->busy_cores / s.cpu->cores * 100,
                       s.cpu->iowait_cores / s.cpu->cores * 100);
  }
  if (s.process) {
    line += "  " + trf("proc {:.2f} cores", s.process->cpu_cores);
    if (s.process->read_bytes_per_s) line += " " + trf("read {}", core::format_rate(*s.process->read_bytes_per_s));
  }
  if (!s.disks.empty()) line += "  " + trf("disks {}", core::format_rate(disk_read(s)));
  return line;
}

std::string render_text(const Recording& rec, const Analysis& a, std::string_view language, const Thresholds& th,
                        size_t width) {
  auto say = [language](const core::Message& m) { return core::render(m, language); };
  std::string out;
  // A recording is a foreign file (--replay): its command, GPU names and
  // texts go through core::terminal_line, the whole text through terminal_text.
  const std::string what = !rec.info.command.empty() ? core::terminal_line(rec.info.command)
                           : rec.info.pid            ? say(core::Message(N_("pid {}"), *rec.info.pid))
                                                     : say(core::Message(N_("system-wide")));
  out += say(core::Message::plural(
             NP_("tfrig watch: {0} sample every {1} ({2})", "tfrig watch: {0} samples every {1} ({2})"), a.samples,
             a.samples, interval_message(rec.info.interval_s), what)) +
         "\n";
  for (const auto& g : rec.info.gpus) {
    const std::string name = g.name.empty() ? "?" : core::terminal_line(g.name);
    out += "  " +
           (g.pcie_link_bytes_per_s ? say(core::Message(N_("GPU {0}: {1} (PCIe link {2})"), g.index, name,
                                                        core::format_rate(*g.pcie_link_bytes_per_s)))
                                    : say(core::Message(N_("GPU {0}: {1}"), g.index, name))) +
           "\n";
  }
  out += "\n" + say(core::Message(N_("Verdict: {}"), verdict_message(a.verdict))) + "\n  " +
         core::terminal_line(say(a.explanation)) + "\n  " +
         core::terminal_line(say(core::Message(N_("Fix: {}"), a.fix))) + "\n";
  const Phase& w = a.whole;
  auto cores = [&say](const std::optional<double>& v) {
    return v ? say(core::Message(N_("{:.2f} cores"), *v)) : std::string("-");
  };
  out += "\n" +
         say(core::Message(N_("Whole run: GPU {0}  CPU busy {1}  iowait {2}  process {3}  reads {4}"),
                           w.gpu_util_percent ? fmt::format("{:.0f}%", *w.gpu_util_percent) : "-",
                           pct(w.cpu_busy_share), cores(w.iowait_cores), cores(w.process_cpu_cores),
                           w.read_bytes_per_s ? core::format_rate(*w.read_bytes_per_s) : "-")) +
         "\n";
  if (!a.phases.empty()) {
    out += "\n" + say(core::Message(N_("Phases:"))) + "\n";
    size_t label_width = 16;
    for (const Phase& p : a.phases)
      label_width = std::max(label_width, core::display_width(say(verdict_message(p.verdict))));
    for (const Phase& p : a.phases) {
      out +=
          core::wrap_hanging(
              "  " +
                  // TRANSLATORS: a phase's start and end, seconds into the run; keep the field widths so the column lines up.
                  say(core::Message(N_("{:>7.1f}s - {:>7.1f}s"), p.start_t, p.end_t)) + "  " +
                  core::pad_right(say(verdict_message(p.verdict)), label_width) + " ",
              core::terminal_line(say(p.why)), width) +
          "\n";
    }
  }
  for (const auto& b : a.blind) out += "\n" + core::terminal_line(say(core::Message(N_("Not seen: {}"), b))) + "\n";
  out += "\n";
  out += say(core::Message(
      N_("Thresholds: compute-bound at GPU >= {0:.0f}% busy; input-bound when the GPU idles >= {1:.0f}% (highly >= {2:.0f}%) "
         "-- TensorFlow Profiler's input-bound thresholds; CPU saturated at {3:.0f}%; storage: iowait >= {4:.1f} cores, "
         "disk busy >= {5:.0f}%; PCIe at >= {6:.0f}% of the link (docs/watch.md)."),
      th.gpu_busy_percent, th.moderately_input_bound_idle * 100, th.highly_input_bound_idle * 100,
      th.cpu_saturated * 100, th.iowait_cores, th.disk_util * 100, th.pcie_share * 100));
  out += "\n";
  // The phases hang under their reason; the other lines under their indent.
  return core::terminal_text(core::wrap_lines(out, width), false);
}

OJson render_json(const Recording& rec, const Analysis& a, std::string_view language, const Thresholds& th) {
  OJson j;
  j["schema_version"] = 1;
  j["run"] = OJson{{"interval_s", rec.info.interval_s}, {"cpus", rec.info.cpus},
                   {"command", rec.info.command},       {"pid", core::json_or_null(rec.info.pid)},
                   {"source", rec.info.source},         {"started_utc", rec.info.started_utc},
                   {"gpu_status", rec.info.gpu_status}};
  OJson gpus = OJson::array();
  for (const auto& g : rec.info.gpus) {
    gpus.push_back(OJson{
        {"index", g.index}, {"name", g.name}, {"pcie_link_bytes_per_s", core::json_or_null(g.pcie_link_bytes_per_s)}});
  }
  j["gpus"] = std::move(gpus);
  j["gpu_watched"] = a.gpu_watched;
  j["severity"] = a.severity.empty() ? OJson(nullptr) : OJson(a.severity);
  j["explanation"] = core::render(a.explanation, language);
  j["fix"] = core::render(a.fix, language);
  j["whole_run"] = phase_json(a.whole, language);
  OJson not_seen = OJson::array();
  for (const auto& b : a.blind) not_seen.push_back(core::render(b, language));
  j["not_seen"] = std::move(not_seen);
  j["thresholds"] =
      OJson{{"gpu_busy_percent", th.gpu_busy_percent},
            {"moderately_input_bound_idle", th.moderately_input_bound_idle},
            {"highly_input_bound_idle", th.highly_input_bound_idle},
            {"gpu_idle_percent", th.gpu_idle_percent},
            {"cpu_saturated", th.cpu_saturated},
            {"iowait_cores", th.iowait_cores},
            {"disk_util", th.disk_util},
            {"pcie_share", th.pcie_share},
            {"source",
             "TensorFlow Profiler op_stats_to_input_pipeline_analysis.cc (5%/20%); the rest ASSUMED, docs/watch.md"}};
  // The contract: the object ends with verdict, phases, samples.
  j["verdict"] = verdict_name(a.verdict);
  OJson phases = OJson::array();
  for (const Phase& p : a.phases) phases.push_back(phase_json(p, language));
  j["phases"] = std::move(phases);
  j["samples"] = a.samples;
  return j;
}

std::string render_csv(const Recording& rec, const Analysis& a) {
  size_t gpus = 0;
  for (const auto& s : rec.samples) gpus = std::max(gpus, s.gpus.size());
  std::string out =
      "t_s,cpu_busy_share,iowait_cores,process_cpu_cores,process_hottest_thread,process_read_bytes_per_s,disk_read_bytes_per_s,disk_util_max,verdict";
  for (size_t i = 0; i < gpus; ++i) {
    out += fmt::format(
        ",gpu{0}_util_percent,gpu{0}_memory_used_bytes,gpu{0}_pcie_rx_bytes_per_s,gpu{0}_pcie_tx_bytes_per_s,gpu{0}_sm_clock_mhz,gpu{0}_power_watts",
        i);
  }
  out += "\n";
  auto num = [](const std::optional<double>& v) { return v ? fmt::format("{:.6g}", *v) : std::string(); };
  for (const auto& s : rec.samples) {
    const SampleClass c = classify_sample(s, rec.info);
    double util = 0;
    for (const auto& d : s.disks) util = std::max(util, d.util);
    out += fmt::format("{:.3f},{},{},{},{},{},{:.6g},{:.3f},{}", s.t,
                       s.cpu && s.cpu->cores > 0 ? fmt::format("{:.3f}", s.cpu->busy_cores / s.cpu->cores) : "",
                       s.cpu ? fmt::format("{:.3f}", s.cpu->iowait_cores) : "",
                       s.process ? fmt::format("{:.3f}", s.process->cpu_cores) : "",
                       s.process ? fmt::format("{:.3f}", s.process->hottest_thread_cores) : "",
                       s.process ? num(s.process->read_bytes_per_s) : "", disk_read(s), util, verdict_name(c.verdict));
    for (size_t i = 0; i < gpus; ++i) {
      if (i < s.gpus.size()) {
        const GpuSample& g = s.gpus[i];
        out += fmt::format(",{},{},{},{},{},{}", num(g.util_percent),
                           g.memory_used_bytes ? std::to_string(*g.memory_used_bytes) : "", num(g.pcie_rx_bytes_per_s),
                           num(g.pcie_tx_bytes_per_s), num(g.sm_clock_mhz), num(g.power_watts));
      } else {
        out += ",,,,,,";
      }
    }
    out += "\n";
  }
  out += fmt::format("# verdict: {}; samples: {}; phases: {}\n", verdict_name(a.verdict), a.samples, a.phases.size());
  return out;
}

}  // namespace tfrig::watch
