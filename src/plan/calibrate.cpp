#include "plan/calibrate.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <simdjson.h>

#include "core/i18n.h"
#include "core/stats.h"
#include "core/text.h"
#include "core/try.h"
#include "codec/gzip.h"
#include "plan/ranking.h"

namespace tfrig::plan {

namespace {

using core::ErrorCode;

// Bounds on hostile input: a fit log of a long run is a few MB; no line of a
// progress bar is longer than a few hundred characters of metrics.
constexpr size_t kMaxLines = 2'000'000;
constexpr size_t kMaxLineChars = 64 * 1024;
// A fit log or a pipeline result larger than this is not one (the file may be
// read up to kMaxTraceBytes for a trace).
constexpr size_t kMaxLogBytes = size_t{16} << 20;
// A step of more than a day or less than a microsecond is not a training step.
constexpr double kMinStepSeconds = 1e-6;
constexpr double kMaxStepSeconds = 86400;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A decimal number at s[i] (digits, optional fraction); advances i.
std::optional<double> number_at(std::string_view s, size_t& i) {
  const size_t start = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  if (i == start || i - start > 18) return std::nullopt;
  return std::strtod(std::string(s.substr(start, i - start)).c_str(), nullptr);
}

// "us", "ms" or "s" at s[i]: seconds per unit; advances i.
std::optional<double> unit_at(std::string_view s, size_t& i) {
  auto starts = [&](std::string_view u) { return s.substr(i, u.size()) == u; };
  if (starts("us")) return i += 2, 1e-6;
  if (starts("\xc2\xb5s")) return i += 3, 1e-6;  // µs
  if (starts("ms")) return i += 2, 1e-3;
  if (starts("s")) return i += 1, 1.0;
  return std::nullopt;
}

struct EpochLine {
  size_t line = 0;
  double step_seconds = 0;    // 0: not printed
  double sample_seconds = 0;  // "us/sample"
  double epoch_seconds = 0;   // 0: not printed
  double step_rounding = 1;   // relative half-unit of the printed value
  double epoch_rounding = 1;
  long steps = 0;
  bool validation = false;
};

// One epoch summary: "N/N" at the start (after spaces), then somewhere the
// epoch time "- 9s" / "9s" and "6ms/step" or "83us/sample".
std::optional<EpochLine> epoch_line(std::string_view l, size_t line_no) {
  size_t i = 0;
  while (i < l.size() && l[i] == ' ') ++i;
  size_t j = i;
  auto done = number_at(l, j);
  if (!done || j >= l.size() || l[j] != '/') return std::nullopt;
  ++j;
  auto total = number_at(l, j);
  if (!total || *done != *total || *total < 1 || *total > 1e12)
    return std::nullopt;  // only the line that ends an epoch
  EpochLine e;
  e.line = line_no;
  e.steps = static_cast<long>(*total);
  e.validation = l.find("val_") != std::string_view::npos;
  // Scan the rest for "<number><unit>/step", "<number><unit>/sample" and the
  // first bare "<number>s" (the epoch's seconds).
  for (size_t k = j; k < l.size();) {
    if (!is_digit(l[k]) || (k > 0 && (is_digit(l[k - 1]) || l[k - 1] == '.' || l[k - 1] == ':' || l[k - 1] == 'e'))) {
      ++k;
      continue;
    }
    size_t p = k;
    auto v = number_at(l, p);
    if (!v) {
      k = p + 1;
      continue;
    }
    const size_t after_number = p;
    auto unit = unit_at(l, p);
    if (!unit) {
      k = after_number;
      continue;
    }
    const size_t digits = after_number - k;
    const double rounding =
        0.5 / std::max(*v, 1e-9) * (l.substr(k, digits).find('.') == std::string_view::npos ? 1.0 : 0.1);
    if (l.substr(p, 5) == "/step") {
      e.step_seconds = *v * *unit;
      e.step_rounding = rounding;
      p += 5;
    } else if (l.substr(p, 7) == "/sample") {
      e.sample_seconds = *v * *unit;
      p += 7;
    } else if (e.epoch_seconds == 0 && *unit == 1.0 && (p >= l.size() || l[p] == ' ')) {
      e.epoch_seconds = *v;
      e.epoch_rounding = rounding;
    }
    k = p;
  }
  if (e.step_seconds == 0 && e.sample_seconds == 0 && e.epoch_seconds == 0) return std::nullopt;
  return e;
}

// A terminal progress bar rewrites itself with carriage returns and
// backspaces: the last rewrite of the line is what was shown.
std::string_view shown_rewrite(std::string_view line) {
  const size_t cr = line.find_last_of("\r\b");
  if (cr == std::string_view::npos) return line;
  // The final state can sit before a trailing \r.
  std::string_view last = line.substr(cr + 1);
  if (last.find_first_not_of(' ') == std::string_view::npos && cr > 0) {
    const size_t prev = line.substr(0, cr).find_last_of("\r\b");
    last = line.substr(prev == std::string_view::npos ? 0 : prev + 1,
                       cr - (prev == std::string_view::npos ? 0 : prev + 1));
  }
  return last;
}

// An "Epoch k/K" header (after spaces, tabs or a '#' of a notebook's copy).
bool keras_epoch_header(std::string_view line) {
  std::string_view t = line;
  while (!t.empty() && (t.front() == ' ' || t.front() == '#' || t.front() == '\t')) t.remove_prefix(1);
  return t.substr(0, 6) == "Epoch " && t.size() > 6 && is_digit(t[6]);
}

// The epochs' summary lines of a fit log, each checked for a plausible step
// time. Only the first completed "N/N" line after an "Epoch k/K" header is an
// epoch's summary: evaluate() and predict() print the same bar without one.
core::Result<std::vector<EpochLine>> keras_epoch_lines(std::string_view text, const std::string& file) {
  std::vector<EpochLine> epochs;
  bool in_epoch = false;  // an "Epoch k/K" header seen, its summary not yet
  size_t line_no = 0;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++line_no;
    if (line_no > kMaxLines)
      return core::fail(ErrorCode::kParse, fmt::format("{}: line {}", file, line_no),
                        trf("more than {} lines", kMaxLines));
    const std::string_view raw = text.substr(start, end - start);
    if (raw.size() > kMaxLineChars) {
      return core::fail(ErrorCode::kParse, fmt::format("{}: line {}", file, line_no),
                        trf("a line of more than {} characters", kMaxLineChars));
    }
    const std::string_view line = shown_rewrite(raw);
    if (keras_epoch_header(line)) {
      in_epoch = true;
    } else if (in_epoch) {
      if (auto e = epoch_line(line, line_no)) {
        in_epoch = false;
        const double t = e->sample_seconds > 0 ? e->sample_seconds
                         : e->step_seconds > 0 ? e->step_seconds
                                               : e->epoch_seconds / static_cast<double>(e->steps);
        if (!(t >= kMinStepSeconds) || t > kMaxStepSeconds) {
          return core::fail(ErrorCode::kParse, fmt::format("{}: line {}", file, line_no),
                            trf("a step time of {:g} s is not a training step (expected {:g} s to {:g} s)", t,
                                kMinStepSeconds, kMaxStepSeconds));
        }
        epochs.push_back(*e);
      }
    }
    if (end == text.size()) break;
    start = end + 1;
  }
  return epochs;
}

}  // namespace

// A Keras fit log's step (or sample) time: the median over the epochs'
// summaries but the first, which traces, compiles XLA clusters and autotunes
// cuDNN (dropped when later ones exist).
core::Result<StepMeasurement> parse_keras_fit_log(std::string_view text, const std::string& file) {
  const std::vector<EpochLine> epochs = TFRIG_TRY(keras_epoch_lines(text, file));
  if (epochs.empty()) {
    return core::fail(
        ErrorCode::kParse, file,
        _("no Keras epoch summary with a step time (expected model.fit output: 'Epoch 1/5' and then '1563/1563 [====] - 9s 6ms/step - loss: ...')"));
  }
  StepMeasurement m;
  m.kind = "keras-fit-log";
  m.epochs_seen = epochs.size();
  std::vector<EpochLine> used(epochs.size() > 1 ? epochs.begin() + 1 : epochs.begin(), epochs.end());
  const bool per_sample =
      std::all_of(used.begin(), used.end(), [](const EpochLine& e) { return e.sample_seconds > 0; });
  std::vector<double> times;
  for (const EpochLine& e : used) {
    if (per_sample) {
      times.push_back(e.sample_seconds);
    } else if (e.step_seconds > 0 && (e.epoch_seconds == 0 || e.step_rounding <= e.epoch_rounding)) {
      times.push_back(e.step_seconds);
    } else if (e.epoch_seconds > 0) {
      times.push_back(e.epoch_seconds / static_cast<double>(e.steps));
    } else {
      // us/sample on some lines only: that line's time per step is unknown.
      continue;
    }
    m.includes_validation = m.includes_validation || e.validation;
  }
  if (times.empty()) {
    return core::fail(ErrorCode::kParse, fmt::format("{}: line {}", file, used.front().line),
                      _("epoch lines mix per-sample and per-step times"));
  }
  if (per_sample)
    m.seconds_per_sample = core::median(times);
  else
    m.seconds_per_step = core::median(times);
  m.epochs_used = times.size();
  m.lines = used.front().line == used.back().line
                ? core::Message(N_("line {}"), used.front().line)
                : core::Message(N_("lines {0}-{1}"), used.front().line, used.back().line);
  return m;
}

core::Result<StepMeasurement> parse_pipeline_step(std::string_view text, const std::string& file) {
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return core::fail(ErrorCode::kParse, file, _("not JSON (expected the output of 'tfrig pipeline --format json')"));
  auto stages = doc.find("stages");
  if (stages == doc.end() || !stages->is_array())
    return core::fail(ErrorCode::kParse, file + ": stages",
                      _("missing (expected the output of 'tfrig pipeline --format json')"));
  for (size_t i = 0; i < stages->size() && i < 1000; ++i) {
    const auto& s = (*stages)[i];
    if (!s.is_object() || s.value("name", "") != "gpu") continue;
    const std::string field = fmt::format("{}: stages[{}]", file, i);
    auto rate = s.find("samples_per_s");
    if (rate == s.end() || !rate->is_number() || !(rate->get<double>() > 0) || !std::isfinite(rate->get<double>()) ||
        rate->get<double>() > 1e9) {
      return core::fail(ErrorCode::kParse, field + ".samples_per_s", _("expected a positive rate"));
    }
    // Only a rate the user gave (--samples-per-s, from a run of theirs) is a
    // measurement of their GPU; otherwise the stage is tfrig's own estimate.
    if (s.value("origin", "") != "assumed") {
      return core::fail(
          ErrorCode::kParse, field + ".origin",
          trf("the gpu stage is tfrig's own {0} rate, not your run's: run 'tfrig pipeline' with --samples-per-s from your run, or give "
              "--calibrate your Keras fit log",
              core::printable(s.value("origin", "?"))));
    }
    StepMeasurement m;
    m.kind = "pipeline-json";
    m.seconds_per_sample = 1.0 / rate->get<double>();
    m.lines = core::verbatim(fmt::format("stages[{}]", i));
    return m;
  }
  return core::fail(ErrorCode::kParse, file + ": stages", _("no gpu stage"));
}

namespace {

// ---- TensorFlow Profiler traces ----
//
// The trace is the Chrome trace-event JSON written by TensorFlow's profiler
// (tensorflow/core/profiler/convert/trace_events_to_json.cc, TraceEventsToJson):
// {"displayTimeUnit":"ns","metadata":{...},"traceEvents":[...]} where "M"
// events name processes (a device: "/device:GPU:0", "/host:CPU") and threads,
// and "X" events are complete events with "ts" and "dur" in microseconds.

namespace tod = simdjson::ondemand;

// The profiler's derived "Steps" line has this thread id on every device
// (kThreadIdStepInfo = kThreadIdDerivedMin = 0xdeadbeef,
// tensorflow/tsl/profiler/utils/trace_utils.h); the trace names it "Steps"
// (kStepLineName, xplane_schema.cc).
constexpr uint64_t kTraceStepThreadId = 0xdeadbeef;
// No trace holds this many step markers (a step is at least a microsecond
// of a capture of at most minutes): more is not a profile of training steps.
constexpr size_t kMaxTraceMarkers = 1'000'000;
// The profiler's timestamps count from the start of the capture; other
// writers count from the Unix epoch (1.7e15 us in 2024). Beyond 1e17 us (the
// year 5138) a time is not a timestamp; the step itself is bounded later.
constexpr double kMaxTraceMicros = 1e17;
// Where "traceEvents" must start for plain JSON to be read as a trace (the
// profiler writes it after a few hundred bytes of metadata).
constexpr size_t kTraceKeyWindow = size_t{1} << 20;

struct TraceMarker {
  uint64_t pid = 0;
  uint64_t tid = 0;
  double ts = 0;      // microseconds
  double dur = 0;     // microseconds
  std::string group;  // group_id (the profiler's step grouping); empty when none
  size_t index = 0;   // in traceEvents
};

struct TraceScan {
  std::map<uint64_t, std::string> process_names;
  std::map<std::pair<uint64_t, uint64_t>, std::string> thread_names;
  std::vector<TraceMarker> device_steps;    // on thread kTraceStepThreadId
  std::vector<TraceMarker> step_num;        // an args.step_num
  std::vector<TraceMarker> train_function;  // name "train_function"
  size_t events = 0;
};

// A number or a string holding one (the profiler writes args as strings).
bool trace_scalar(tod::value v, std::string& out) {
  tod::json_type type;
  if (v.type().get(type) != simdjson::SUCCESS) return false;
  if (type == tod::json_type::string) {
    std::string_view s;
    if (v.get_string().get(s) != simdjson::SUCCESS) return false;
    out = std::string(s.substr(0, 64));
    return true;
  }
  if (type == tod::json_type::number) {
    std::string_view raw = v.raw_json_token();
    while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
      raw.remove_suffix(1);
    out = std::string(raw.substr(0, 64));
    return true;
  }
  return false;
}

core::Error trace_error(const std::string& where, std::string message) {
  return core::Error{ErrorCode::kParse, where, std::move(message)};
}

// One element of traceEvents. Fields are read in the order they come (the
// profiler writes ph, pid, tid, ts, dur, name, args; other writers differ).
std::optional<core::Error> scan_trace_event(tod::value v, size_t index, const std::string& file, TraceScan& scan) {
  tod::object obj;
  if (v.get_object().get(obj) != simdjson::SUCCESS) return std::nullopt;  // `{}` padding events and others: not ours
  std::string_view ph, name;
  std::optional<uint64_t> pid, tid;
  std::optional<double> ts, dur;
  std::string arg_name, group, step;
  bool has_step_num = false;
  bool bad_time = false;
  const char* bad_field = nullptr;
  for (auto item : obj) {
    tod::field f;
    std::string_view key;
    if (std::move(item).get(f) != simdjson::SUCCESS || f.unescaped_key().get(key) != simdjson::SUCCESS) {
      return trace_error(fmt::format("{}: traceEvents[{}]", file, index), _("not valid JSON"));
    }
    if (key == "ph") {
      if (f.value().get_string().get(ph) != simdjson::SUCCESS) ph = {};
    } else if (key == "name") {
      if (f.value().get_string().get(name) != simdjson::SUCCESS) name = {};
    } else if (key == "pid" || key == "tid") {
      // Chrome traces of other tools use strings here: such an event is not
      // the profiler's, and is left alone.
      uint64_t n = 0;
      if (f.value().get_uint64().get(n) == simdjson::SUCCESS) (key == "pid" ? pid : tid) = n;
    } else if (key == "ts" || key == "dur") {
      double d = 0;
      if (f.value().get_double().get(d) != simdjson::SUCCESS || !std::isfinite(d) || d < 0 || d > kMaxTraceMicros) {
        bad_time = true;
        bad_field = key == "ts" ? "ts" : "dur";
      } else {
        (key == "ts" ? ts : dur) = d;
      }
    } else if (key == "args") {
      tod::object args;
      if (f.value().get_object().get(args) != simdjson::SUCCESS) continue;
      for (auto a : args) {
        tod::field af;
        std::string_view akey;
        if (std::move(a).get(af) != simdjson::SUCCESS || af.unescaped_key().get(akey) != simdjson::SUCCESS) {
          return trace_error(fmt::format("{}: traceEvents[{}].args", file, index), _("not valid JSON"));
        }
        if (akey == "name") {
          std::string_view n;
          if (af.value().get_string().get(n) == simdjson::SUCCESS) arg_name = std::string(n.substr(0, 200));
        } else if (akey == "group_id") {
          if (!trace_scalar(af.value(), group)) group.clear();
        } else if (akey == "step_num") {
          has_step_num = trace_scalar(af.value(), step);
        }
      }
    }
  }
  ++scan.events;
  if (ph == "M") {
    if (pid && name == "process_name") scan.process_names[*pid] = arg_name;
    if (pid && tid && name == "thread_name") scan.thread_names[{*pid, *tid}] = arg_name;
    return std::nullopt;
  }
  if (ph != "X" || !pid || !tid) return std::nullopt;
  const bool device_step = *tid == kTraceStepThreadId;
  const bool train_function = name == "train_function";
  if (!device_step && !has_step_num && !train_function) return std::nullopt;
  // A step marker without a usable time is a broken trace, not one to skip.
  if (bad_time || !ts || !dur) {
    return trace_error(
        fmt::format("{}: traceEvents[{}].{}", file, index, bad_field != nullptr ? bad_field : (!ts ? "ts" : "dur")),
        trf("expected a time in microseconds from 0 to {:g}", kMaxTraceMicros));
  }
  TraceMarker m{*pid, *tid, *ts, *dur, group, index};
  std::vector<TraceMarker>& into = device_step ? scan.device_steps : has_step_num ? scan.step_num : scan.train_function;
  if (into.size() >= kMaxTraceMarkers) {
    return trace_error(fmt::format("{}: traceEvents[{}]", file, index),
                       trf("more than {} step markers", kMaxTraceMarkers));
  }
  // step_num names the step: events of one step share it.
  if (has_step_num && !device_step) m.group = step;
  into.push_back(std::move(m));
  return std::nullopt;
}

// One step: its start and end (microseconds), from the markers of one group.
struct TraceStep {
  double start = 0;
  double end = 0;
};

// Markers of one group (group_id, step_num) make one step; markers without
// a group are a step each.
std::vector<TraceStep> trace_steps(const std::vector<TraceMarker>& markers) {
  std::map<std::string, TraceStep> grouped;
  std::vector<TraceStep> steps;
  for (const TraceMarker& m : markers) {
    if (m.group.empty()) {
      steps.push_back({m.ts, m.ts + m.dur});
      continue;
    }
    auto [it, fresh] = grouped.try_emplace(m.group, TraceStep{m.ts, m.ts + m.dur});
    if (!fresh) {
      it->second.start = std::min(it->second.start, m.ts);
      it->second.end = std::max(it->second.end, m.ts + m.dur);
    }
  }
  for (const auto& [group, step] : grouped) steps.push_back(step);
  std::sort(steps.begin(), steps.end(), [](const TraceStep& a, const TraceStep& b) { return a.start < b.start; });
  return steps;
}

// Reads every element of the document's traceEvents into `scan`. `text` holds
// `size` bytes of JSON and simdjson's padding after them.
core::Status scan_trace_document(const std::string& text, size_t size, const std::string& file, TraceScan& scan) {
  const std::string expected = _("expected a TensorFlow Profiler trace: a JSON object with a traceEvents array");
  tod::parser parser;
  tod::document doc;
  if (parser.iterate(simdjson::padded_string_view(text.data(), size, text.size())).get(doc) != simdjson::SUCCESS) {
    return core::fail(ErrorCode::kParse, file, trf("not JSON ({})", expected));
  }
  tod::object root;
  if (doc.get_object().get(root) != simdjson::SUCCESS)
    return core::fail(ErrorCode::kParse, file, trf("not a JSON object ({})", expected));
  bool have_events = false;
  for (auto item : root) {
    tod::field f;
    std::string_view key;
    if (std::move(item).get(f) != simdjson::SUCCESS || f.unescaped_key().get(key) != simdjson::SUCCESS) {
      return core::fail(ErrorCode::kParse, file, trf("not valid JSON ({})", expected));
    }
    if (key != "traceEvents") continue;
    tod::array events;
    if (f.value().get_array().get(events) != simdjson::SUCCESS)
      return core::fail(ErrorCode::kParse, file + ": traceEvents", _("expected an array"));
    have_events = true;
    size_t index = 0;
    for (auto element : events) {
      tod::value v;
      if (element.get(v) != simdjson::SUCCESS) {
        return core::fail(ErrorCode::kParse, fmt::format("{}: traceEvents[{}]", file, index),
                          _("not valid JSON (a trace cut short, or not a trace)"));
      }
      if (auto e = scan_trace_event(v, index, file, scan)) return tl::unexpected(*e);
      ++index;
    }
  }
  // A document cut inside the array, or text after it, is not a whole trace.
  if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS) {
    return core::fail(ErrorCode::kParse, file, _("not valid JSON (a trace cut short, or text after it)"));
  }
  if (!have_events) return core::fail(ErrorCode::kParse, file + ": traceEvents", trf("missing ({})", expected));
  return {};
}

// The steps of the device "Steps" track: the GPU with the most steps (the
// first GPU on a tie); another device's (a TPU's) when no GPU has one. Sets
// what marks them in `m` and `where_what`; empty when no device has the track.
std::vector<TraceStep> device_track_steps(const TraceScan& scan, StepMeasurement& m, core::Message& where_what) {
  std::vector<TraceStep> steps;
  std::map<uint64_t, std::vector<TraceMarker>> by_pid;
  for (const TraceMarker& t : scan.device_steps) {
    auto thread = scan.thread_names.find({t.pid, t.tid});
    // A thread with that id named otherwise is not the profiler's Steps line.
    if (thread != scan.thread_names.end() && thread->second != "Steps") continue;
    by_pid[t.pid].push_back(t);
  }
  bool found = false;
  uint64_t best_pid = 0;
  bool best_gpu = false;
  for (const auto& [pid, list] : by_pid) {
    auto pn = scan.process_names.find(pid);
    const bool gpu = pn != scan.process_names.end() && pn->second.rfind("/device:GPU:", 0) == 0;
    std::vector<TraceStep> these = trace_steps(list);
    if (!found || (gpu && !best_gpu) || (gpu == best_gpu && these.size() > steps.size())) {
      found = true;
      steps = std::move(these);
      best_pid = pid;
      best_gpu = gpu;
    }
  }
  if (found) {
    auto pn = scan.process_names.find(best_pid);
    const std::string process =
        pn != scan.process_names.end() ? core::printable(pn->second) : fmt::format("pid {}", best_pid);
    m.step_events = "device-steps";
    // TRANSLATORS: {0} a device of the trace, e.g. /device:GPU:0
    where_what = core::Message(N_("the 'Steps' track of {0}"), process);
  }
  return steps;
}

// The best marker of steps the trace has: the device's Steps track, else the
// host's step_num events, else its train_function calls.
std::vector<TraceStep> choose_trace_steps(const TraceScan& scan, StepMeasurement& m, core::Message& where_what) {
  std::vector<TraceStep> steps;
  if (!scan.device_steps.empty()) steps = device_track_steps(scan, m, where_what);
  if (steps.empty() && !scan.step_num.empty()) {
    steps = trace_steps(scan.step_num);
    m.step_events = "host-step-num";
    where_what = core::Message(N_("the events with a step_num argument"));
  }
  if (steps.empty() && !scan.train_function.empty()) {
    steps = trace_steps(scan.train_function);
    m.step_events = "host-train-function";
    where_what = core::Message(N_("the host's train_function calls"));
  }
  return steps;
}

// The step time: the median interval between step starts, without the first
// step (it may still trace, compile or autotune) when there are more; a single
// step's own duration otherwise.
core::Status measure_trace_steps(const std::vector<TraceStep>& steps, const core::Message& where_what,
                                 const std::string& file, StepMeasurement& m) {
  m.steps_seen = steps.size();
  std::vector<TraceStep> used(steps.size() > 1 ? steps.begin() + 1 : steps.begin(), steps.end());
  std::vector<double> times;
  if (used.size() >= 2) {
    for (size_t i = 0; i + 1 < used.size(); ++i) times.push_back((used[i + 1].start - used[i].start) * 1e-6);
  } else {
    times.push_back((used.front().end - used.front().start) * 1e-6);
  }
  const double t = core::median(times);
  if (!(t >= kMinStepSeconds) || t > kMaxStepSeconds) {
    return core::fail(ErrorCode::kParse, file,
                      trf("a step time of {:g} s is not a training step (expected {:g} s to {:g} s)", t,
                          kMinStepSeconds, kMaxStepSeconds));
  }
  m.seconds_per_step = t;
  m.steps_used = times.size();
  const size_t first = steps.size() > 1 ? 2 : 1;
  if (used.size() >= 2) {
    // TRANSLATORS: {0}-{1} the steps read, {2} how many the trace holds, {3} what marks them.
    m.lines = core::Message(N_("steps {0}-{1} of {2}, {3}: the median interval between step starts"), first,
                            steps.size(), steps.size(), where_what);
  } else if (steps.size() == 1) {
    m.lines =
        core::Message(N_("the only step of {0}: its duration (profile more steps for a steadier time)"), where_what);
  } else {
    m.lines = core::Message(N_("step 2 of 2, {0}: its duration"), where_what);
  }
  return {};
}

// A profiler trace's step time: the events scanned, the best marker of steps
// chosen, their times measured.
core::Result<StepMeasurement> parse_trace_text(std::string text, const std::string& file) {
  const size_t size = text.size();
  if (size > kMaxTraceBytes) {
    return core::fail(ErrorCode::kParse, file, trf("a trace larger than {} MiB", kMaxTraceBytes >> 20));
  }
  // simdjson reads up to SIMDJSON_PADDING bytes past the end.
  text.append(simdjson::SIMDJSON_PADDING, '\0');
  TraceScan scan;
  TFRIG_TRY(scan_trace_document(text, size, file, scan));

  StepMeasurement m;
  m.kind = "tf-profiler-trace";
  m.trace_without_gpu = std::none_of(scan.process_names.begin(), scan.process_names.end(),
                                     [](const auto& p) { return p.second.rfind("/device:GPU:", 0) == 0; });
  core::Message where_what;
  const std::vector<TraceStep> steps = choose_trace_steps(scan, m, where_what);
  if (steps.empty()) {
    return core::fail(
        ErrorCode::kParse, file,
        trf("no training step in {} trace events (expected the profiler's 'Steps' track on a /device:GPU process, events with a "
            "step_num argument, or tf.keras 'train_function' calls; a model compiled with run_eagerly=True leaves none): profile "
            "training steps, e.g. TensorBoard(profile_batch='10,20') during model.fit",
            scan.events));
  }
  TFRIG_TRY(measure_trace_steps(steps, where_what, file, m));
  return m;
}

}  // namespace

core::Result<StepMeasurement> parse_profiler_trace(std::string_view json, const std::string& file) {
  std::string text;
  text.reserve(json.size() + simdjson::SIMDJSON_PADDING);
  text.assign(json);
  return parse_trace_text(std::move(text), file);
}

core::Result<StepMeasurement> parse_step_file(std::string_view bytes, const std::string& file) {
  // TensorBoard's profile plugin writes the trace gzip-compressed
  // (plugins/profile/RUN/HOST.trace.json.gz): inflated, bounded.
  if (codec::is_gzip(bytes)) {
    auto text = codec::gunzip(bytes, kMaxTraceBytes);
    if (!text) {
      core::Error e = text.error();
      e.where = file + (e.where.empty() ? "" : ": " + e.where);
      e.code = ErrorCode::kParse;
      return tl::unexpected(std::move(e));
    }
    return parse_trace_text(std::move(*text), file);
  }
  const size_t first = bytes.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && bytes[first] == '{') {
    if (bytes.substr(first, 32).find("\"tfrig_watch\"") != std::string_view::npos) {
      return core::fail(
          ErrorCode::kParse, fmt::format("{}: line 1", file),
          _("a 'tfrig watch --record' recording holds utilisation, not step times: give the Keras fit log or a TensorFlow "
            "Profiler trace of the same run"));
    }
    if (bytes.substr(first, kTraceKeyWindow).find("\"traceEvents\"") != std::string_view::npos)
      return parse_profiler_trace(bytes, file);
    if (bytes.find("\"stages\"") != std::string_view::npos) return parse_pipeline_step(bytes, file);
  }
  if (bytes.size() > kMaxLogBytes) {
    return core::fail(
        ErrorCode::kParse, file,
        trf("{} MiB of text that is not a Profiler trace: a Keras fit log or a pipeline result is at most {} MiB",
            bytes.size() >> 20, kMaxLogBytes >> 20));
  }
  if (bytes.find('\0') != std::string_view::npos)
    return core::fail(ErrorCode::kParse, file, _("binary data (expected a Keras fit log)"));
  return parse_keras_fit_log(bytes, file);
}

double measured_rate_per_gpu(const StepMeasurement& s, uint64_t batch, int gpus) {
  const double n = std::max(1, gpus);
  if (s.seconds_per_sample > 0) return 1.0 / s.seconds_per_sample / n;
  if (s.seconds_per_step > 0) return static_cast<double>(batch) / s.seconds_per_step / n;
  return 0;
}

bool UserCalibration::factor_extreme() const {
  return factor < kCalibrationFactorLow || factor > kCalibrationFactorHigh;
}

namespace {

// A sentence and the clauses that follow it (each carries its own "; " or
// " (...)"): the parts stay messages, each translated in the output's language.
core::Message with_clauses(core::Message sentence, const std::vector<core::Message>& clauses) {
  for (const core::Message& c : clauses) sentence = core::Message("{0}{1}", std::move(sentence), c);
  return sentence;
}

}  // namespace

core::Message UserCalibration::warning() const {
  if (!factor_extreme()) return {};
  const core::Message sentence(
      // TRANSLATORS: {0} the factor (measured / tfrig's rate), {1} the GPU, {2} the file, {3} the lower bound (0.33), {4} the upper bound (3).
      N_("the run in {2} reached {0:.2f}x tfrig's rate for this model and batch on {1}, outside {3:.2f}x-{4:g}x: "
         "published runs never differed from tfrig's model by that much, so the run is likely not comparable with the plan"),
      factor, gpu_name, file, kCalibrationFactorLow, kCalibrationFactorHigh);
  const core::Message why =
      factor < 1
          ? core::Message(N_(
                " (a slower run: a smaller batch than --batch, a larger model or input than --model, an input pipeline the GPU waits on, "
                "or a slower GPU than --calibrate-gpu)"))
          : core::Message(N_(
                " (a faster run: a larger batch than --batch, a smaller model or input than --model, or a faster GPU than --calibrate-gpu)"));
  return with_clauses(
      sentence,
      {why,
       core::Message(N_("; every GPU's rate was still scaled by it: check the log before relying on the ranking"))});
}

core::Message UserCalibration::text() const {
  const core::Message sentence(
      // TRANSLATORS: {0} samples/s measured, {1} the GPU, {2} the file, {3} what was read, {4} tfrig's rate before, {5} the factor.
      N_("calibrated on your run: {0:.1f} samples/s per GPU on {1} ({2}, {3}) where tfrig gave {4:.1f}: every GPU's rate x {5:.2f}"),
      measured_samples_per_s, gpu_name, file, step.lines, model_samples_per_s, factor);
  std::vector<core::Message> clauses;
  if (step.includes_validation)
    clauses.emplace_back(N_("; the epoch times include validation, so the rate is a lower bound"));
  if (step.trace_without_gpu) {
    clauses.emplace_back(N_(
        "; the trace shows no GPU (a run on the CPU, or the profiler could not load CUPTI): check that the run used the GPU named"));
  }
  return with_clauses(sentence, clauses);
}

core::Result<ThroughputModel> calibrate_model(const ThroughputModel& base, const Workload& w, const GpuCandidate& gpu,
                                              const StepMeasurement& s, const std::string& file) {
  const double measured =
      measured_rate_per_gpu(s, w.batch, w.gpus) / (w.gpus > 1 ? scaling_efficiency(gpu, w.gpus) : 1.0);
  if (!(measured > 0) || !std::isfinite(measured))
    return core::fail(ErrorCode::kParse, file, _("no positive rate in the file"));
  Workload one = w;
  one.batch = per_gpu_batch(w);
  one.gpus = 1;
  ThroughputModel plain = base;
  plain.user.reset();
  const auto before = gpu_throughput(one, gpu, plain);
  if (!before || !(before->samples_per_s > 0)) {
    return core::fail(ErrorCode::kInvalidArgument, "--calibrate-gpu",
                      trf("tfrig has no rate for {0} to calibrate against", gpu.name));
  }
  UserCalibration c;
  c.file = file;
  c.kind = s.kind;
  c.gpu_id = gpu.id;
  c.gpu_name = gpu.name;
  c.batch = w.batch;
  c.gpus = w.gpus;
  c.measured_samples_per_s = measured;
  c.model_samples_per_s = before->samples_per_s;
  c.model_basis = before->basis;
  c.factor = measured / before->samples_per_s;
  c.step = s;
  ThroughputModel out = base;
  out.user = RateCalibration{c.gpu_id,    c.factor,     c.measured_samples_per_s, c.text(),
                             c.warning(), c.step.lines, calibration_to_json(c)};
  return out;
}

nlohmann::json calibration_to_json(const UserCalibration& c) {
  nlohmann::json step = {{"kind", c.step.kind},
                         {"where", core::english(c.step.lines)},
                         {"epochs_seen", c.step.epochs_seen},
                         {"epochs_used", c.step.epochs_used},
                         {"includes_validation", c.step.includes_validation}};
  step["seconds_per_step"] =
      c.step.seconds_per_step > 0 ? nlohmann::json(c.step.seconds_per_step) : nlohmann::json(nullptr);
  step["seconds_per_sample"] =
      c.step.seconds_per_sample > 0 ? nlohmann::json(c.step.seconds_per_sample) : nlohmann::json(nullptr);
  // A Profiler trace: which markers, how many steps it holds, how many step times the median is of.
  step["step_events"] = c.step.step_events.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.step.step_events);
  step["steps_seen"] = c.step.steps_seen > 0 ? nlohmann::json(c.step.steps_seen) : nlohmann::json(nullptr);
  step["steps_used"] = c.step.steps_used > 0 ? nlohmann::json(c.step.steps_used) : nlohmann::json(nullptr);
  step["trace_has_gpu"] =
      c.step.kind == "tf-profiler-trace" ? nlohmann::json(!c.step.trace_without_gpu) : nlohmann::json(nullptr);
  return {{"file", c.file},
          {"gpu_id", c.gpu_id},
          {"gpu", c.gpu_name},
          {"batch", c.batch},
          {"gpus", c.gpus},
          {"measured_samples_per_s_per_gpu", c.measured_samples_per_s},
          {"model_samples_per_s_per_gpu", c.model_samples_per_s},
          {"model_basis", c.model_basis},
          {"factor", c.factor},
          {"factor_extreme", c.factor_extreme()},
          {"warning", c.factor_extreme() ? nlohmann::json(core::english(c.warning())) : nlohmann::json(nullptr)},
          {"step", step},
          {"text", core::english(c.text())}};
}

}  // namespace tfrig::plan
