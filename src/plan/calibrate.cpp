#include "plan/calibrate.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/text.h"
#include "plan/ranking.h"

namespace tfrig::plan {

namespace {

using core::ErrorCode;

// Bounds on hostile input: a fit log of a long run is a few MB; no line of a
// progress bar is longer than a few hundred characters of metrics.
constexpr size_t kMaxLines = 2'000'000;
constexpr size_t kMaxLineChars = 64 * 1024;
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
  if (!total || *done != *total || *total < 1 || *total > 1e12) return std::nullopt;  // only the line that ends an epoch
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
    const double rounding = 0.5 / std::max(*v, 1e-9) * (l.substr(k, digits).find('.') == std::string_view::npos ? 1.0 : 0.1);
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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

}  // namespace

core::Result<StepMeasurement> parse_keras_fit_log(std::string_view text, const std::string& file) {
  std::vector<EpochLine> epochs;
  bool in_epoch = false;  // an "Epoch k/K" header seen, its summary not yet
  size_t line_no = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++line_no;
    if (line_no > kMaxLines) return core::fail(ErrorCode::kParse, fmt::format("{}: line {}", file, line_no), trf("more than {} lines", kMaxLines));
    std::string_view line = text.substr(start, end - start);
    if (line.size() > kMaxLineChars) {
      return core::fail(ErrorCode::kParse, fmt::format("{}: line {}", file, line_no), trf("a line of more than {} characters", kMaxLineChars));
    }
    // A terminal progress bar rewrites itself with carriage returns and
    // backspaces: the last rewrite of the line is what was shown.
    if (const size_t cr = line.find_last_of("\r\b"); cr != std::string_view::npos) {
      // The final state can sit before a trailing \r.
      std::string_view last = line.substr(cr + 1);
      if (last.find_first_not_of(' ') == std::string_view::npos && cr > 0) {
        const size_t prev = line.substr(0, cr).find_last_of("\r\b");
        last = line.substr(prev == std::string_view::npos ? 0 : prev + 1, cr - (prev == std::string_view::npos ? 0 : prev + 1));
      }
      line = last;
    }
    // Only the first completed "N/N" line after an "Epoch k/K" header is an
    // epoch's summary: evaluate() and predict() print the same bar without one.
    {
      std::string_view t = line;
      while (!t.empty() && (t.front() == ' ' || t.front() == '#' || t.front() == '\t')) t.remove_prefix(1);
      if (t.substr(0, 6) == "Epoch " && t.size() > 6 && is_digit(t[6])) {
        in_epoch = true;
        if (end == text.size()) break;
        start = end + 1;
        continue;
      }
    }
    if (!in_epoch) {
      if (end == text.size()) break;
      start = end + 1;
      continue;
    }
    if (auto e = epoch_line(line, line_no)) {
      in_epoch = false;
      const double t = e->sample_seconds > 0 ? e->sample_seconds : e->step_seconds > 0 ? e->step_seconds : e->epoch_seconds / static_cast<double>(e->steps);
      if (!(t >= kMinStepSeconds) || t > kMaxStepSeconds) {
        return core::fail(ErrorCode::kParse, fmt::format("{}: line {}", file, line_no),
                          trf("a step time of {:g} s is not a training step (expected {:g} s to {:g} s)", t, kMinStepSeconds, kMaxStepSeconds));
      }
      epochs.push_back(*e);
    }
    if (end == text.size()) break;
    start = end + 1;
  }
  if (epochs.empty()) {
    return core::fail(ErrorCode::kParse, file,
                      _("no Keras epoch summary with a step time (expected model.fit output: 'Epoch 1/5' and then '1563/1563 [====] - 9s 6ms/step - loss: ...')"));
  }
  StepMeasurement m;
  m.kind = "keras-fit-log";
  m.epochs_seen = epochs.size();
  // The first epoch traces the function, compiles XLA clusters and autotunes
  // cuDNN: drop it when later ones exist.
  std::vector<EpochLine> used(epochs.size() > 1 ? epochs.begin() + 1 : epochs.begin(), epochs.end());
  const bool per_sample = std::all_of(used.begin(), used.end(), [](const EpochLine& e) { return e.sample_seconds > 0; });
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
    return core::fail(ErrorCode::kParse, fmt::format("{}: line {}", file, used.front().line), _("epoch lines mix per-sample and per-step times"));
  }
  if (per_sample) m.seconds_per_sample = median(times);
  else m.seconds_per_step = median(times);
  m.epochs_used = times.size();
  m.lines = used.front().line == used.back().line ? trf("line {}", used.front().line) : trf("lines {0}-{1}", used.front().line, used.back().line);
  return m;
}

core::Result<StepMeasurement> parse_pipeline_step(std::string_view text, const std::string& file) {
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return core::fail(ErrorCode::kParse, file, _("not JSON (expected the output of 'tfrig pipeline --format json')"));
  auto stages = doc.find("stages");
  if (stages == doc.end() || !stages->is_array()) return core::fail(ErrorCode::kParse, file + ": stages", _("missing (expected the output of 'tfrig pipeline --format json')"));
  for (size_t i = 0; i < stages->size() && i < 1000; ++i) {
    const auto& s = (*stages)[i];
    if (!s.is_object() || s.value("name", "") != "gpu") continue;
    const std::string field = fmt::format("{}: stages[{}]", file, i);
    auto rate = s.find("samples_per_s");
    if (rate == s.end() || !rate->is_number() || !(rate->get<double>() > 0) || !std::isfinite(rate->get<double>()) || rate->get<double>() > 1e9) {
      return core::fail(ErrorCode::kParse, field + ".samples_per_s", _("expected a positive rate"));
    }
    // Only a rate the user gave (--samples-per-s, from a run of theirs) is a
    // measurement of their GPU; otherwise the stage is tfrig's own estimate.
    if (s.value("origin", "") != "assumed") {
      return core::fail(ErrorCode::kParse, field + ".origin",
                        trf("the gpu stage is tfrig's own {0} rate, not your run's: run 'tfrig pipeline' with --samples-per-s from your run, or give "
                            "--calibrate your Keras fit log",
                            core::printable(s.value("origin", "?"))));
    }
    StepMeasurement m;
    m.kind = "pipeline-json";
    m.seconds_per_sample = 1.0 / rate->get<double>();
    m.lines = fmt::format("stages[{}]", i);
    return m;
  }
  return core::fail(ErrorCode::kParse, file + ": stages", _("no gpu stage"));
}

core::Result<StepMeasurement> parse_step_file(std::string_view bytes, const std::string& file) {
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b) {
    return core::fail(ErrorCode::kParse, file,
                      _("a gzip file (a TensorFlow Profiler trace?): reading step times from Profiler traces is not implemented yet; give the Keras "
                        "fit log of the same run"));
  }
  const size_t first = bytes.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && bytes[first] == '{') {
    if (bytes.substr(first, 32).find("\"tfrig_watch\"") != std::string_view::npos) {
      return core::fail(ErrorCode::kParse, fmt::format("{}: line 1", file),
                        _("a 'tfrig watch --record' recording holds utilisation, not step times: give the Keras fit log of the same run"));
    }
    if (bytes.find("\"stages\"") != std::string_view::npos) return parse_pipeline_step(bytes, file);
  }
  if (bytes.find('\0') != std::string_view::npos) return core::fail(ErrorCode::kParse, file, _("binary data (expected a Keras fit log)"));
  return parse_keras_fit_log(bytes, file);
}

double measured_rate_per_gpu(const StepMeasurement& s, uint64_t batch, int gpus) {
  const double n = std::max(1, gpus);
  if (s.seconds_per_sample > 0) return 1.0 / s.seconds_per_sample / n;
  if (s.seconds_per_step > 0) return static_cast<double>(batch) / s.seconds_per_step / n;
  return 0;
}

std::string UserCalibration::text() const {
  // TRANSLATORS: {0} samples/s measured, {1} the GPU, {2} the file, {3} what was read, {4} tfrig's rate before, {5} the factor.
  std::string t = trf("calibrated on your run: {0:.1f} samples/s per GPU on {1} ({2}, {3}) where tfrig gave {4:.1f}: every GPU's rate x {5:.2f}",
                      measured_samples_per_s, gpu_name, file, step.lines, model_samples_per_s, factor);
  if (step.includes_validation) t += _("; the epoch times include validation, so the rate is a lower bound");
  return t;
}

core::Result<ThroughputModel> calibrate_model(const ThroughputModel& base, const Workload& w, const GpuCandidate& gpu,
                                              const StepMeasurement& s, const std::string& file) {
  const double measured = measured_rate_per_gpu(s, w.batch, w.gpus) / (w.gpus > 1 ? scaling_efficiency(gpu, w.gpus) : 1.0);
  if (!(measured > 0) || !std::isfinite(measured)) return core::fail(ErrorCode::kParse, file, _("no positive rate in the file"));
  Workload one = w;
  one.batch = per_gpu_batch(w);
  one.gpus = 1;
  ThroughputModel plain = base;
  plain.user.reset();
  const auto before = gpu_throughput(one, gpu, plain);
  if (!before || !(before->samples_per_s > 0)) {
    return core::fail(ErrorCode::kInvalidArgument, "--calibrate-gpu", trf("tfrig has no rate for {0} to calibrate against", gpu.name));
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
  out.user = RateCalibration{c.gpu_id, c.factor, c.measured_samples_per_s, c.text(), calibration_to_json(c)};
  return out;
}

nlohmann::json calibration_to_json(const UserCalibration& c) {
  nlohmann::json step = {{"kind", c.step.kind},
                         {"where", c.step.lines},
                         {"epochs_seen", c.step.epochs_seen},
                         {"epochs_used", c.step.epochs_used},
                         {"includes_validation", c.step.includes_validation}};
  step["seconds_per_step"] = c.step.seconds_per_step > 0 ? nlohmann::json(c.step.seconds_per_step) : nlohmann::json(nullptr);
  step["seconds_per_sample"] = c.step.seconds_per_sample > 0 ? nlohmann::json(c.step.seconds_per_sample) : nlohmann::json(nullptr);
  return {{"file", c.file},
          {"gpu_id", c.gpu_id},
          {"gpu", c.gpu_name},
          {"batch", c.batch},
          {"gpus", c.gpus},
          {"measured_samples_per_s_per_gpu", c.measured_samples_per_s},
          {"model_samples_per_s_per_gpu", c.model_samples_per_s},
          {"model_basis", c.model_basis},
          {"factor", c.factor},
          {"step", step},
          {"text", c.text()}};
}

}  // namespace tfrig::plan
