#include "bench/runner.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "core/display_width.h"
#include "core/i18n.h"
#include "core/log.h"
#include "core/name_table.h"
#include "core/table.h"
#include "core/try.h"
#include "core/units.h"

namespace tfrig::bench {

// The JSON and history words of a measurement's status.
constexpr core::NameTable<Status, 3> kStatusNames{{{
    {Status::kOk, "ok"},
    {Status::kSkipped, "skipped"},
    {Status::kFailed, "failed"},
}}};
static_assert(kStatusNames.unique());

std::string_view status_name(Status status) { return kStatusNames.name(status, "failed"); }

core::Message error_reason(const core::Error& e) {
  return core::error_message(e).value_or(core::Message("{}", e.to_string()));
}

Statistics summarize(const std::vector<double>& samples) {
  Statistics s;
  if (samples.empty()) return s;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  size_t n = sorted.size();
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  if (n >= 2 && s.mean != 0) {
    double sq = 0;
    for (double v : sorted) sq += (v - s.mean) * (v - s.mean);
    // Sample (n-1) standard deviation: the samples estimate a population.
    s.cv = std::sqrt(sq / static_cast<double>(n - 1)) / std::fabs(s.mean);
  }
  return s;
}

Runner::Runner(const Config& config, const std::atomic<bool>& cancelled, ProgressFn progress)
    : config_(config), cancelled_(cancelled), progress_(std::move(progress)) {}

void Runner::begin(std::string id, int metric_count) {
  id_ = std::move(id);
  benchmark_watch_ = core::Stopwatch();
  metrics_left_ = std::max(1, metric_count);
}

double Runner::budget_left() const { return config_.budget_seconds - benchmark_watch_.seconds(); }

Measurement& Runner::push(const std::string& metric, const std::string& unit, nlohmann::json params) {
  Measurement m;
  m.id = id_;
  m.metric = metric;
  m.unit = unit;
  m.params = params.is_object() ? std::move(params) : nlohmann::json::object();
  results_.push_back(std::move(m));
  return results_.back();
}

Measurement& Runner::skip(const std::string& metric, const std::string& unit, core::Message reason,
                          nlohmann::json params) {
  if (metrics_left_ > 1) --metrics_left_;
  Measurement& m = push(metric, unit, std::move(params));
  m.status = Status::kSkipped;
  m.reason = std::move(reason);
  return m;
}

Measurement& Runner::fail(const std::string& metric, const std::string& unit, core::Message reason,
                          nlohmann::json params) {
  if (metrics_left_ > 1) --metrics_left_;
  Measurement& m = push(metric, unit, std::move(params));
  m.status = Status::kFailed;
  m.reason = std::move(reason);
  return m;
}

Measurement& Runner::record(Measurement m) {
  if (metrics_left_ > 1) --metrics_left_;
  m.id = id_;
  results_.push_back(std::move(m));
  return results_.back();
}

Measurement& Runner::measure(const std::string& metric, const std::string& unit, nlohmann::json params,
                             const SampleFn& sample) {
  // This metric's fair share of what is left of the benchmark's budget.
  double share = std::max(0.0, budget_left()) / metrics_left_;
  if (metrics_left_ > 1) --metrics_left_;
  Measurement& m = push(metric, unit, std::move(params));
  core::Stopwatch watch;
  int planned = std::max(1, config_.repetitions);
  auto report = [&](int index) {
    if (progress_) progress_(Progress{id_, metric, index, planned, benchmark_watch_.seconds()});
  };

  for (int i = 0; i < config_.warmup; ++i) {
    if (cancelled()) break;
    // Warm-up is skipped once it alone has used the share: one real sample
    // matters more than a warm cache.
    if (i > 0 && watch.seconds() > share) break;
    report(0);
    auto v = sample();
    if (!v) {
      m.status = Status::kFailed;
      m.reason = error_reason(v.error());
      m.seconds = watch.seconds();
      return m;
    }
  }
  for (int i = 0; i < planned; ++i) {
    if (cancelled()) break;
    if (i > 0 && watch.seconds() > share) {
      m.notes.push_back(core::Message::plural(
          NP_("time budget reached after {0} of {1} sample", "time budget reached after {0} of {1} samples"),
          static_cast<uint64_t>(planned), i, planned));
      break;
    }
    report(i + 1);
    auto v = sample();
    if (!v) {
      m.status = Status::kFailed;
      m.reason = error_reason(v.error());
      break;
    }
    m.samples.push_back(*v);
  }
  m.seconds = watch.seconds();
  if (cancelled() && m.status == Status::kOk) {
    m.status = Status::kFailed;
    m.reason = core::Message(N_("interrupted"));
  }
  if (m.status == Status::kOk && m.samples.empty()) {
    m.status = Status::kFailed;
    m.reason = core::Message(N_("no sample was taken"));
  }
  Statistics s = summarize(m.samples);
  m.median = s.median;
  m.min = s.min;
  m.max = s.max;
  m.cv = s.cv;
  // Above 10% the median is still usable but the spread says the machine was
  // busy or the clock was ramping; say it next to the number.
  if (m.status == Status::kOk && m.samples.size() >= 3 && s.cv > 0.10) {
    m.notes.emplace_back(N_("samples vary by {:.0f}% (CV): other load or clock changes"), s.cv * 100);
  }
  return m;
}

core::Status check_benchmark_ids(const std::vector<std::string>& ids) {
  const auto benchmarks = all_benchmarks();
  for (const auto& id : ids) {
    bool known = std::any_of(benchmarks.begin(), benchmarks.end(), [&](const auto& b) { return b->id() == id; });
    if (!known) {
      std::string list;
      for (const auto& b : benchmarks) list += (list.empty() ? "" : ", ") + std::string(b->id());
      return core::fail(core::ErrorCode::kInvalidArgument, id, trf("unknown benchmark; expected one of {}", list));
    }
  }
  return {};
}

core::Result<BenchReport> run_benchmarks(const std::vector<std::string>& ids, const Config& config,
                                         const inventory::Inventory& inventory, const std::atomic<bool>& cancelled,
                                         ProgressFn progress) {
  TFRIG_TRY(check_benchmark_ids(ids));
  auto benchmarks = all_benchmarks();
  BenchReport report;
  report.context = make_context(inventory, config);
  RunContext ctx{config, inventory, cancelled, report.context.threads};
  Runner runner(config, cancelled, std::move(progress));
  for (const auto& b : benchmarks) {
    if (!ids.empty() && std::find(ids.begin(), ids.end(), b->id()) == ids.end()) continue;
    auto metrics = b->metrics();
    runner.begin(std::string(b->id()), static_cast<int>(metrics.size()));
    std::optional<core::Message> why =
        cancelled.load() ? std::optional<core::Message>(core::Message(N_("interrupted"))) : b->skip_reason(ctx);
    if (why) {
      for (const auto& [metric, unit] : metrics) runner.skip(metric, unit, *why);
      continue;
    }
    core::Stopwatch watch;
    b->run(ctx, runner);
    core::log(core::LogLevel::kInfo, "{}", trf("bench {0}: {1}", b->id(), core::format_seconds(watch.seconds())));
  }
  report.results = runner.take_results();
  return report;
}

nlohmann::json to_json(const Measurement& m, std::string_view language) {
  nlohmann::json j;
  j["id"] = m.id;
  j["metric"] = m.metric;
  j["unit"] = m.unit;
  bool ok = m.status == Status::kOk;
  j["median"] = ok ? nlohmann::json(m.median) : nlohmann::json(nullptr);
  j["min"] = ok ? nlohmann::json(m.min) : nlohmann::json(nullptr);
  j["max"] = ok ? nlohmann::json(m.max) : nlohmann::json(nullptr);
  j["cv"] = ok ? nlohmann::json(m.cv) : nlohmann::json(nullptr);
  j["samples"] = m.samples;
  j["params"] = m.params;
  j["status"] = status_name(m.status);
  j["reason"] = m.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(core::render(m.reason, language));
  j["notes"] = nlohmann::json::array();
  for (const auto& n : m.notes) j["notes"].push_back(core::render(n, language));
  j["seconds"] = m.seconds;
  if (m.previous_median) {
    nlohmann::json prev = {{"median", *m.previous_median}, {"timestamp", m.previous_timestamp}};
    prev["change_percent"] = ok && *m.previous_median != 0 ? nlohmann::json((m.median / *m.previous_median - 1) * 100)
                                                           : nlohmann::json(nullptr);
    j["previous"] = prev;
  }
  if (m.expected) {
    j["expected"] = {{"value", m.expected->value},
                     {"basis", core::render(m.expected->basis, language)},
                     {"source", core::render(m.expected->source, language)},
                     {"ratio", ok && m.expected->value > 0 ? nlohmann::json(m.median / m.expected->value)
                                                           : nlohmann::json(nullptr)}};
  }
  return j;
}

std::optional<Status> status_from_name(std::string_view name) { return kStatusNames.value(name); }

// TRANSLATORS: a measurement's status in tfrig bench's table; JSON keeps ok/skipped/failed.
std::string status_label(Status status) {
  switch (status) {
    case Status::kOk: return C_("bench status", "ok");
    case Status::kSkipped: return C_("bench status", "skipped");
    case Status::kFailed: return C_("bench status", "failed");
  }
  return C_("bench status", "failed");
}

nlohmann::json to_json(const BenchReport& report, std::string_view language) {
  nlohmann::json j;
  j["schema_version"] = 1;
  j["context"] = to_json(report.context, language);
  j["results"] = nlohmann::json::array();
  for (const auto& m : report.results) j["results"].push_back(to_json(m, language));
  return j;
}

namespace {

std::string build_label(const std::string& build_type) {
  if (build_type == "release") return C_("build type", "release");
  if (build_type == "debug") return C_("build type", "debug");
  return build_type;
}

// Three significant digits at most, no exponent: 51234 -> "51234", 3.14159 -> "3.14".
std::string format_value(double v) {
  double a = std::fabs(v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  return fmt::format("{:.2f}", v);
}

// A note, a skip reason or an expectation's basis under the table.
struct BenchFootnote {
  std::string id, metric, text;
};

// One measurement's row: its figures (or "-" and a footnote saying why not),
// the previous run and the expectation where the table has those columns.
std::vector<std::string> bench_row(const Measurement& m, bool compare, bool expected, std::string_view language,
                                   std::vector<BenchFootnote>& footnotes) {
  const std::string reason = core::render(m.reason, language);
  const std::string status = status_label(m.status);
  std::vector<std::string> row;
  if (m.status == Status::kOk) {
    row = {m.id,
           m.metric,
           format_value(m.median),
           m.unit,
           format_value(m.min),
           format_value(m.max),
           fmt::format("{:.1f}%", m.cv * 100),
           std::to_string(m.samples.size()),
           status};
  } else {
    row = {m.id, m.metric, "-", m.unit, "-", "-", "-", std::to_string(m.samples.size()), status};
    footnotes.push_back(
        {m.id, m.metric, m.status == Status::kSkipped ? trf("skipped: {}", reason) : trf("failed: {}", reason)});
  }
  if (compare) {
    if (m.previous_median) {
      row.push_back(format_value(*m.previous_median));
      row.push_back(m.status == Status::kOk && *m.previous_median != 0
                        ? fmt::format("{:+.1f}%", (m.median / *m.previous_median - 1) * 100)
                        : "-");
    } else {
      row.insert(row.end(), {"-", "-"});
    }
  }
  if (expected) {
    if (m.expected && m.expected->value > 0) {
      row.push_back(format_value(m.expected->value));
      row.push_back(fmt::format("{:.0f}%", m.median / m.expected->value * 100));
      footnotes.push_back({m.id, m.metric,
                           trf("expected: {0} ({1})", core::render(m.expected->basis, language),
                               core::render(m.expected->source, language))});
    } else {
      row.insert(row.end(), {"-", "-"});
    }
  }
  for (const auto& n : m.notes) footnotes.push_back({m.id, m.metric, trf("note: {}", core::render(n, language))});
  return row;
}

// The footnotes; the same note or reason on several metrics of one benchmark is said once.
std::string bench_footnotes_text(const std::vector<BenchFootnote>& footnotes, size_t width) {
  std::vector<bool> used(footnotes.size(), false);
  std::string notes;
  for (size_t i = 0; i < footnotes.size(); ++i) {
    if (used[i]) continue;
    std::vector<std::string> metrics;
    for (size_t k = i; k < footnotes.size(); ++k) {
      if (!used[k] && footnotes[k].id == footnotes[i].id && footnotes[k].text == footnotes[i].text) {
        used[k] = true;
        metrics.push_back(footnotes[k].metric);
      }
    }
    std::string who = footnotes[i].id + "." + metrics.front();
    if (metrics.size() > 1) {
      who = footnotes[i].id + " (" + metrics.front();
      for (size_t k = 1; k < metrics.size(); ++k) who += ", " + metrics[k];
      who += ")";
    }
    notes += "  " + core::wrap_display(who + " " + footnotes[i].text, width, "    ") + "\n";
  }
  return notes;
}

}  // namespace

// The machine, its warnings, one row per measurement (with the previous run
// and the expectation when any has them), then the footnotes.
std::string render_text(const BenchReport& report, std::string_view language, size_t width) {
  std::string out;
  const auto& c = report.context;
  out += trnf("tfrig bench on {0} ({1}, {2} CPU, {3} build)", "tfrig bench on {0} ({1}, {2} CPUs, {3} build)",
              static_cast<uint64_t>(std::max(0, c.online_cpus)), c.hostname.empty() ? "?" : c.hostname,
              c.cpu_model.empty() ? _("unknown CPU") : c.cpu_model, c.online_cpus, build_label(c.build_type)) +
         "\n";
  for (const auto& w : c.warnings) {
    out += core::wrap_hanging("  ", trf("warning: {}", core::render(w, language)), width) + "\n";
  }
  out += "\n";
  using A = core::Table::Align;
  bool compare = std::any_of(report.results.begin(), report.results.end(),
                             [](const Measurement& m) { return m.previous_median.has_value(); });
  std::vector<std::string> headers = {
      // TRANSLATORS: the columns of tfrig bench's table; "cv" is the coefficient of variation, "n" the number of samples.
      C_("bench table", "benchmark"), C_("bench table", "metric"), C_("bench table", "median"),
      C_("bench table", "unit"),      C_("bench table", "min"),    C_("bench table", "max"),
      C_("bench table", "cv"),        C_("bench table", "n"),      C_("bench table", "status")};
  std::vector<A> align = {A::kLeft,  A::kLeft,  A::kRight, A::kLeft, A::kRight,
                          A::kRight, A::kRight, A::kRight, A::kLeft};
  if (compare) {
    headers.insert(headers.end(), {C_("bench table", "previous"), C_("bench table", "change")});
    align.insert(align.end(), {A::kRight, A::kRight});
  }
  const bool expected = std::any_of(report.results.begin(), report.results.end(),
                                    [](const Measurement& m) { return m.expected.has_value(); });
  if (expected) {
    headers.insert(headers.end(), {C_("bench table", "expected"), C_("bench table", "of expected")});
    align.insert(align.end(), {A::kRight, A::kRight});
  }
  core::Table table(headers, align);
  std::vector<BenchFootnote> footnotes;
  for (const auto& m : report.results) table.add_row(bench_row(m, compare, expected, language, footnotes));
  out += table.render("  ", width);
  const std::string notes = bench_footnotes_text(footnotes, width);
  if (!notes.empty()) out += "\n" + notes;
  return out;
}

}  // namespace tfrig::bench
