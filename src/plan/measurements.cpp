#include "plan/measurements.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/try.h"
#include "knowledge/knowledge.h"
#include "knowledge_data.h"
#include "plan/model_catalog.h"

namespace tfrig::plan {

namespace {

using core::ErrorCode;
using nlohmann::json;

std::string where(const char* array, size_t i, const char* field) {
  return fmt::format("plan_measurements.json: {}[{}].{}", array, i, field);
}

core::Result<std::string> need_str(const json& row, const char* array, size_t i, const char* field) {
  auto it = row.find(field);
  if (it == row.end() || !it->is_string() || it->get<std::string>().empty()) {
    return core::fail(ErrorCode::kParse, where(array, i, field), _("expected a non-empty string"));
  }
  return it->get<std::string>();
}

std::string opt_str(const json& row, const char* field) {
  auto it = row.find(field);
  return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}

core::Result<int> need_int(const json& row, const char* array, size_t i, const char* field, int lo, int hi) {
  auto it = row.find(field);
  if (it == row.end() || !it->is_number_integer() || it->get<int64_t>() < lo || it->get<int64_t>() > hi) {
    return core::fail(ErrorCode::kParse, where(array, i, field), trf("expected an integer from {0} to {1}", lo, hi));
  }
  return static_cast<int>(it->get<int64_t>());
}

// An optional true/false field: absent or null is `fallback`; any other type
// ("xla": "yes") is a bad row naming the field, not a json::type_error.
core::Result<bool> opt_bool(const json& row, const char* array, size_t i, const char* field, bool fallback) {
  auto it = row.find(field);
  if (it == row.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) return core::fail(ErrorCode::kParse, where(array, i, field), _("expected true or false"));
  return it->get<bool>();
}

core::Result<MeasuredPrecision> need_precision(const json& row, const char* array, size_t i) {
  auto s = need_str(row, array, i, "precision");
  if (!s) return tl::unexpected(s.error());
  auto p = parse_measured_precision(*s);
  if (!p)
    return core::fail(ErrorCode::kParse, where(array, i, "precision"),
                      trf("expected fp32, tf32 or mixed_float16, found \"{}\"", *s));
  return *p;
}

// The fields both row kinds share: model, input size, framework, precision, source.
template <typename Row>
core::Result<Row> common(const json& row, const char* array, size_t i) {
  Row r;
  if (!row.is_object())
    return core::fail(ErrorCode::kParse, fmt::format("plan_measurements.json: {}[{}]", array, i),
                      _("expected an object"));
  auto model = need_str(row, array, i, "model");
  if (!model) return tl::unexpected(model.error());
  if (find_model(*model) == nullptr)
    return core::fail(ErrorCode::kParse, where(array, i, "model"),
                      trf("'{}' is not a built-in model (tfrig plan --list-models)", *model));
  r.model = *model;
  auto img = need_int(row, array, i, "image_size", 0, 8192);
  auto seq = need_int(row, array, i, "seq_len", 0, 1 << 20);
  if (!img) return tl::unexpected(img.error());
  if (!seq) return tl::unexpected(seq.error());
  r.image_size = *img;
  r.seq_len = *seq;
  auto fw = need_str(row, array, i, "framework");
  if (!fw) return tl::unexpected(fw.error());
  r.framework = *fw;
  auto p = need_precision(row, array, i);
  if (!p) return tl::unexpected(p.error());
  r.precision = *p;
  auto src = need_str(row, array, i, "source");
  if (!src) return tl::unexpected(src.error());
  r.source = *src;
  r.table_row = opt_str(row, "table_row");
  r.gpu = opt_str(row, "gpu");
  r.gpu_id = opt_str(row, "gpu_id");
  return r;
}

}  // namespace

std::string_view measured_precision_name(MeasuredPrecision p) {
  switch (p) {
    case MeasuredPrecision::kFp32: return "fp32";
    case MeasuredPrecision::kTf32: return "tf32";
    case MeasuredPrecision::kMixedFloat16: return "mixed_float16";
  }
  return "fp32";
}

std::optional<MeasuredPrecision> parse_measured_precision(std::string_view s) {
  if (s == "fp32") return MeasuredPrecision::kFp32;
  if (s == "tf32") return MeasuredPrecision::kTf32;
  if (s == "mixed_float16") return MeasuredPrecision::kMixedFloat16;
  return std::nullopt;
}

namespace {

// optimizer_ops: "fused" (the default: one ResourceApply* kernel per variable,
// or an XLA-compiled update) or "separate" (an update written as element-wise
// ops), which needs an optimizer_ops_basis naming the code.
core::Result<bool> separate_update_ops(const json& row, const char* array, size_t i) {
  auto ops = row.find("optimizer_ops");
  if (ops == row.end()) return false;
  if (!ops->is_string() || (ops->get<std::string>() != "separate" && ops->get<std::string>() != "fused")) {
    return core::fail(ErrorCode::kParse, where(array, i, "optimizer_ops"), _("expected \"fused\" or \"separate\""));
  }
  const bool separate = ops->get<std::string>() == "separate";
  if (separate && opt_str(row, "optimizer_ops_basis").empty()) {
    return core::fail(ErrorCode::kParse, where(array, i, "optimizer_ops_basis"),
                      _("expected the code that runs the optimizer so, with its source"));
  }
  return separate;
}

// accumulation_steps and optimizer_ops, which both row kinds may give: how
// the run updated its variables.
template <typename Row>
core::Result<void> read_update_conditions(const json& row, const char* array, size_t i, Row& r) {
  if (row.contains("accumulation_steps")) {
    auto acc = need_int(row, array, i, "accumulation_steps", 1, 1 << 20);
    if (!acc) return tl::unexpected(acc.error());
    r.accumulation_steps = *acc;
  }
  auto separate = separate_update_ops(row, array, i);
  if (!separate) return tl::unexpected(separate.error());
  r.separate_update_ops = *separate;
  return {};
}

// One row of throughput[]: the common fields, then the rate and the
// conditions it was measured in (GPUs, batch, XLA, the stack's year, the optimizer).
core::Result<ThroughputRow> throughput_row(const json& row, size_t i) {
  auto r = common<ThroughputRow>(row, "throughput", i);
  if (!r) return tl::unexpected(r.error());
  if (r->gpu_id.empty())
    return core::fail(ErrorCode::kParse, where("throughput", i, "gpu_id"), _("expected the GPU catalog id"));
  auto n = need_int(row, "throughput", i, "gpu_count", 1, 1 << 16);
  if (!n) return tl::unexpected(n.error());
  r->gpu_count = *n;
  auto sps = row.find("samples_per_s");
  if (sps == row.end() || !sps->is_number() || !(sps->get<double>() > 0)) {
    return core::fail(ErrorCode::kParse, where("throughput", i, "samples_per_s"), _("expected a positive number"));
  }
  r->samples_per_s = sps->get<double>();
  if (auto b = row.find("batch"); b != row.end() && !b->is_null()) {
    auto bi = need_int(row, "throughput", i, "batch", 1, 1 << 24);
    if (!bi) return tl::unexpected(bi.error());
    r->batch = *bi;
  }
  auto xla = opt_bool(row, "throughput", i, "xla", false);
  if (!xla) return tl::unexpected(xla.error());
  r->xla = *xla;
  r->framework_detail = opt_str(row, "framework_detail");
  if (auto y = row.find("stack_year"); y != row.end() && !y->is_null()) {
    // TensorFlow's first release was November 2015; GPU training stacks
    // before it are not TensorFlow rows.
    if (!y->is_number() || !(y->get<double>() >= 2015.0 && y->get<double>() <= 2100.0)) {
      return core::fail(ErrorCode::kParse, where("throughput", i, "stack_year"),
                        _("expected a year from 2015 to 2100 (fractional: 2019.625)"));
    }
    r->stack_year = y->get<double>();
    r->stack_year_basis = opt_str(row, "stack_year_basis");
    if (r->stack_year_basis.empty()) {
      return core::fail(ErrorCode::kParse, where("throughput", i, "stack_year_basis"),
                        _("expected how stack_year was derived, with its source"));
    }
  }
  if (auto o = row.find("optimizer"); o != row.end()) {
    auto opt = o->is_string() ? parse_optimizer(o->get<std::string>()) : std::nullopt;
    if (!opt)
      return core::fail(ErrorCode::kParse, where("throughput", i, "optimizer"),
                        _("expected sgd, momentum, adam, adamw or adafactor"));
    r->optimizer = *opt;
  }
  if (auto u = read_update_conditions(row, "throughput", i, *r); !u) return tl::unexpected(u.error());
  return std::move(*r);
}

// One row of batch_limits[]: the common fields, then the batch, whether it
// fit, and the GPU memory or id it was tried on.
core::Result<BatchLimitRow> batch_limit_row(const json& row, size_t i) {
  auto r = common<BatchLimitRow>(row, "batch_limits", i);
  if (!r) return tl::unexpected(r.error());
  auto b = need_int(row, "batch_limits", i, "batch", 1, 1 << 24);
  if (!b) return tl::unexpected(b.error());
  r->batch = *b;
  r->framework_detail = opt_str(row, "framework_detail");
  auto outcome = need_str(row, "batch_limits", i, "outcome");
  if (!outcome) return tl::unexpected(outcome.error());
  if (*outcome != "fits" && *outcome != "oom") {
    return core::fail(ErrorCode::kParse, where("batch_limits", i, "outcome"), _("expected \"fits\" or \"oom\""));
  }
  r->fits = *outcome == "fits";
  auto xla = opt_bool(row, "batch_limits", i, "xla", false);
  if (!xla) return tl::unexpected(xla.error());
  r->xla = *xla;
  auto opt = need_str(row, "batch_limits", i, "optimizer");
  if (!opt) return tl::unexpected(opt.error());
  auto o = parse_optimizer(*opt);
  if (!o)
    return core::fail(ErrorCode::kParse, where("batch_limits", i, "optimizer"),
                      _("expected sgd, momentum, adam, adamw or adafactor"));
  r->optimizer = *o;
  if (auto u = read_update_conditions(row, "batch_limits", i, *r); !u) return tl::unexpected(u.error());
  if (auto g = row.find("gpu_memory_gib"); g != row.end() && g->is_number()) r->gpu_memory_gib = g->get<double>();
  if (auto c = row.find("compute_capability_major"); c != row.end() && c->is_number_integer())
    r->compute_capability_major = c->get<int>();
  if (auto m = row.find("tf_min_system_memory_mib"); m != row.end()) {
    if (!m->is_number_integer() || m->get<int64_t>() < 0 || m->get<int64_t>() > (1 << 20))
      return core::fail(ErrorCode::kParse, where("batch_limits", i, "tf_min_system_memory_mib"),
                        _("expected a whole number of MiB between 0 and 1048576"));
    r->tf_min_system_memory_mib = static_cast<uint64_t>(m->get<int64_t>());
  }
  if (r->gpu_id.empty() && !r->gpu_memory_gib) {
    return core::fail(ErrorCode::kParse, where("batch_limits", i, "gpu_memory_gib"),
                      _("expected gpu_id or gpu_memory_gib"));
  }
  return std::move(*r);
}

}  // namespace

core::Result<Measurements> parse_measurements(const json& doc) {
  Measurements m;
  if (!doc.is_object()) return core::fail(ErrorCode::kParse, "plan_measurements.json", _("expected an object"));
  auto tp = doc.find("throughput");
  auto bl = doc.find("batch_limits");
  if (tp == doc.end() || !tp->is_array())
    return core::fail(ErrorCode::kParse, "plan_measurements.json: throughput", _("expected an array"));
  if (bl == doc.end() || !bl->is_array())
    return core::fail(ErrorCode::kParse, "plan_measurements.json: batch_limits", _("expected an array"));
  for (size_t i = 0; i < tp->size(); ++i) m.throughput.push_back(TFRIG_TRY(throughput_row((*tp)[i], i)));
  // How each row's source was checked (sources[].verified, docs/knowledge-audit.md).
  auto sources = knowledge::parse_measurement_sources(doc, "plan_measurements.json");
  if (!sources) return tl::unexpected(sources.error());
  for (auto& r : m.throughput) {
    const auto* s = knowledge::find_measurement_source(*sources, r.source);
    r.source_verified = s && s->verified_at_all();
  }
  for (size_t i = 0; i < bl->size(); ++i) m.batch_limits.push_back(TFRIG_TRY(batch_limit_row((*bl)[i], i)));
  return m;
}

namespace {

constexpr std::string_view kFileName = "plan_measurements.json";

core::Result<Measurements> parse_text(const std::string& text, const std::string& origin) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    return core::fail(ErrorCode::kParse, trf("{0}: byte {1}", origin, e.byte), trf("not valid JSON: {}", e.what()));
  } catch (const json::exception& e) {  // out_of_range.406: a number beyond a double (1e400)
    return core::fail(ErrorCode::kParse, origin, trf("not valid JSON: {}", e.what()));
  }
  core::Result<Measurements> m;
  try {
    m = parse_measurements(doc);
  } catch (const json::exception& e) {  // a field of a type no check above foresaw: bad data, not an internal error
    return core::fail(ErrorCode::kParse, origin, e.what());
  }
  if (!m && origin != kFileName) m.error().where.replace(0, kFileName.size(), origin);
  return m;
}

core::Result<Measurements> embedded_measurements() {
  for (const auto& f : knowledge::embedded::kFiles) {
    if (f.name == kFileName) return parse_text(std::string(f.text), std::string(kFileName));
  }
  return core::fail(ErrorCode::kNotFound, std::string(kFileName), _("not embedded in this build"));
}

}  // namespace

const Measurements& builtin_measurements() {
  static const Measurements kBuiltin = [] {
    auto m = embedded_measurements();
    return m ? std::move(*m) : Measurements();
  }();
  return kBuiltin;
}

core::Result<Measurements> load_measurements(const std::string& knowledge_dir) {
  if (!knowledge_dir.empty()) {
    const std::filesystem::path path = std::filesystem::path(knowledge_dir) / std::string(kFileName);
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) {
      std::ifstream in(path, std::ios::binary);
      if (!in) return core::fail(ErrorCode::kIo, path.string(), _("cannot open"));
      std::stringstream ss;
      ss << in.rdbuf();
      return parse_text(ss.str(), path.string());
    }
  }
  return embedded_measurements();
}

int software_generation(std::string_view d) {
  if (d.find("TensorFlow 1.") != std::string_view::npos || d.find("-tf1-") != std::string_view::npos) return 1;
  if (d.find("TensorFlow 2") != std::string_view::npos || d.find("-tf2-") != std::string_view::npos) return 2;
  return 0;
}

TfReserveRule tf_reserve_rule(std::string_view d) {
  // NGC containers are NVIDIA's builds, tagged by year and month; the fixed
  // reserve (an NVIDIA pull request, November 2020) may be in any from 20.11.
  constexpr std::string_view kNgc = "tensorflow:";
  bool ngc_before_fixed_reserve = false;
  if (const size_t at = d.find(kNgc); at != std::string_view::npos) {
    const std::string_view tag = d.substr(at + kNgc.size(), 5);  // "20.06"
    if (tag.size() == 5 && tag[2] == '.' && std::isdigit(static_cast<unsigned char>(tag[0])) &&
        std::isdigit(static_cast<unsigned char>(tag[1])) && std::isdigit(static_cast<unsigned char>(tag[3])) &&
        std::isdigit(static_cast<unsigned char>(tag[4]))) {
      if (tag >= "20.11") return TfReserveRule::kLargerOfBoth;
      ngc_before_fixed_reserve = true;
    }
  }
  constexpr std::string_view kName = "TensorFlow ";
  std::string_view version;
  if (const size_t at = d.find(kName); at != std::string_view::npos) {
    version = d.substr(at + kName.size());
    version = version.substr(0, version.find_first_not_of("0123456789."));
  }
  const int generation = software_generation(d);
  const TfReserveRule rule = tf_reserve_rule_of_version(version);
  if (rule != TfReserveRule::kLargerOfBoth) return rule;
  if (generation == 1) return TfReserveRule::kFivePercent;
  if (generation == 2 && ngc_before_fixed_reserve) return TfReserveRule::kSixPercent;
  return TfReserveRule::kLargerOfBoth;
}

std::string source_group(std::string_view source) {
  std::string_view s = source;
  std::string_view note_text;
  if (const size_t note = s.find(" ("); note != std::string_view::npos) {
    note_text = s.substr(note);
    s = s.substr(0, note);
  }
  if (const size_t anchor = s.find('#'); anchor != std::string_view::npos) s = s.substr(0, anchor);
  auto folder = [](std::string_view path) {
    const size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
  };
  constexpr std::string_view kGithub = "https://github.com/";
  if (s.substr(0, kGithub.size()) == kGithub) {
    s.remove_prefix(kGithub.size());
    // owner/repo/blob/COMMIT/path
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (int i = 0; i < 4; ++i) {
      const size_t slash = s.find('/', start);
      if (slash == std::string_view::npos) break;
      parts.push_back(s.substr(start, slash - start));
      start = slash + 1;
    }
    // An issue or pull-request thread: each reporter ran on their own machine,
    // so a thread is one group per comment author, named in the note ("@login").
    if (parts.size() >= 3 && (parts[2] == "issues" || parts[2] == "pull")) {
      const std::string_view thread = parts.size() == 4 ? s.substr(0, start - 1) : s;
      const size_t at = note_text.find('@');
      if (at == std::string_view::npos) return std::string(thread);
      size_t end = at + 1;
      while (end < note_text.size() &&
             (std::isalnum(static_cast<unsigned char>(note_text[end])) || note_text[end] == '-'))
        ++end;
      return fmt::format("{} @{}", thread, note_text.substr(at + 1, end - at - 1));
    }
    if (parts.size() == 4) {
      const std::string_view path = s.substr(start);
      const std::string_view dir = folder(path);
      return fmt::format("{}/{}{}{}", parts[0], parts[1], dir.empty() ? "" : "/", dir);
    }
    return std::string(s);
  }
  // owner/repo:path@commit
  if (const size_t colon = s.find(':'); colon != std::string_view::npos && s.find("://") == std::string_view::npos) {
    std::string_view path = s.substr(colon + 1);
    if (const size_t at = path.find('@'); at != std::string_view::npos) path = path.substr(0, at);
    const std::string_view dir = folder(path);
    return fmt::format("{}{}{}", s.substr(0, colon), dir.empty() ? "" : "/", dir);
  }
  if (const size_t scheme = s.find("://"); scheme != std::string_view::npos) s.remove_prefix(scheme + 3);
  return std::string(folder(s).empty() ? s : folder(s));
}

std::optional<Workload> row_workload(std::string_view model, int image_size, int seq_len, MeasuredPrecision p,
                                     bool xla) {
  const CatalogModel* m = find_model(model);
  if (m == nullptr) return std::nullopt;
  auto w = catalog_workload(*m, image_size, seq_len);
  if (!w) return std::nullopt;
  w->precision = p == MeasuredPrecision::kMixedFloat16 ? Precision::kMixedFloat16 : Precision::kFp32;
  w->batch = 1;
  w->xla = xla;
  return std::move(*w);
}

std::optional<Workload> throughput_row_workload(const ThroughputRow& r) {
  auto w = row_workload(r.model, r.image_size, r.seq_len, r.precision, r.xla);
  if (!w) return std::nullopt;
  w->batch = static_cast<uint64_t>(r.batch.value_or(256));
  w->gpus = 1;
  w->optimizer = r.optimizer;
  w->separate_update_ops = r.separate_update_ops;
  return w;
}

}  // namespace tfrig::plan
