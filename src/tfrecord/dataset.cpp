#include "tfrecord/dataset.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/i18n.h"
#include "core/errno_text.h"
#include "core/input_file.h"
#include "core/text.h"
#include "core/try.h"

namespace tfrig::tfrecord {

namespace fs = std::filesystem;
using core::ErrorCode;

FeatureValue OwnedFeature::view() const {
  FeatureValue v;
  v.kind = kind;
  v.floats = floats;
  v.ints = ints;
  v.bytes.reserve(bytes.size());
  for (const auto& b : bytes) v.bytes.emplace_back(b);
  return v;
}

namespace {

bool hidden(const fs::path& p) {
  auto name = p.filename().string();
  return !name.empty() && name[0] == '.';
}

// A manifest of ten million rows is ~1 GB of text; past that it is not one.
core::Result<std::string> read_whole(const std::string& path) { return core::read_input_file(path, 1u << 30); }

// True when p is the excluded folder (compared by device and inode, so
// "out", "./out" and a symlink to it are all the same folder).
bool is_excluded(const fs::path& p, const struct stat* excluded) {
  if (excluded == nullptr) return false;
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && st.st_dev == excluded->st_dev && st.st_ino == excluded->st_ino;
}

core::Result<Dataset> load_directory(const std::string& src, const DatasetOptions& options) {
  Dataset ds;
  ds.kind = "directory";
  std::error_code ec;
  std::vector<std::string> classes;
  struct stat excluded_st {};
  const struct stat* excluded =
      !options.exclude_dir.empty() && ::stat(options.exclude_dir.c_str(), &excluded_st) == 0 ? &excluded_st : nullptr;
  for (fs::directory_iterator it(src, ec), end; !ec && it != end; it.increment(ec)) {
    if (hidden(it->path()) || is_excluded(it->path(), excluded)) continue;
    std::error_code ec2;
    if (it->is_directory(ec2)) {
      classes.push_back(it->path().filename().string());
    }
  }
  if (ec) return core::fail(ErrorCode::kIo, src, trf("cannot list directory: {}", core::error_code_text(ec)));
  if (classes.empty()) {
    return core::fail(ErrorCode::kParse, src,
                      _("no class sub-folders; expected SRC/<class>/<image files> or a CSV/JSONL manifest"));
  }
  std::sort(classes.begin(), classes.end());
  for (size_t c = 0; c < classes.size(); ++c) {
    const int64_t id = options.label_offset + static_cast<int64_t>(c);
    ds.label_map.emplace_back(id, classes[c]);
    fs::path dir = fs::path(src) / classes[c];
    auto opts = fs::directory_options::skip_permission_denied;
    for (fs::recursive_directory_iterator it(dir, opts, ec), end; !ec && it != end; it.increment(ec)) {
      if (hidden(it->path())) {
        if (it->is_directory()) it.disable_recursion_pending();
        continue;
      }
      std::error_code ec2;
      if (it->is_directory(ec2)) {
        if (is_excluded(it->path(), excluded)) it.disable_recursion_pending();
        continue;
      }
      // A FIFO, socket or device (also behind a symlink) is never opened: a
      // FIFO blocks the run, /dev/zero never ends. A broken link stays in the
      // listing and is reported with its reason, like any unreadable file.
      const auto type = it->status(ec2).type();
      if (!ec2 && type != fs::file_type::regular && type != fs::file_type::not_found) {
        ++ds.skipped_not_regular;
        continue;
      }
      SourceItem item;
      item.path = it->path().string();
      item.filename = it->path().lexically_relative(src).generic_string();
      item.label = id;
      item.label_text = classes[c];
      // A file we cannot stat is still listed: packing reports it with its
      // reason, under --on-error, like any unreadable file.
      struct stat st {};
      if (::stat(item.path.c_str(), &st) == 0) item.size_bytes = static_cast<uint64_t>(st.st_size);
      ds.items.push_back(std::move(item));
    }
    if (ec)
      return core::fail(ErrorCode::kIo, dir.string(), trf("cannot list directory: {}", core::error_code_text(ec)));
  }
  return ds;
}

// Decides a manifest column's type over all rows: int64 if every non-empty
// value is an integer, float if every one is a number, else bytes.
FeatureKind infer_kind(const std::vector<const std::string*>& values) {
  bool all_int = true;
  bool all_num = true;
  for (const auto* v : values) {
    if (v->empty()) continue;
    if (!core::parse_i64(*v)) all_int = false;
    if (!core::parse_double(*v)) all_num = false;
  }
  if (all_int) return FeatureKind::kInt64;
  if (all_num) return FeatureKind::kFloat;
  return FeatureKind::kBytes;
}

std::string resolve(const fs::path& base, const std::string& p) {
  fs::path path(p);
  return path.is_absolute() ? path.string() : (base / path).string();
}

bool is_path_column(std::string_view name) {
  return name == "path" || name == "filename" || name == "file" || name == "image";
}

core::Status check_extra_key(const std::string& key, const std::string& where) {
  for (auto r : kReservedKeys) {
    if (key == r) {
      return core::fail(ErrorCode::kInvalidArgument, where,
                        trf("column '{}' would overwrite a feature pack writes itself; rename it", key));
    }
  }
  return {};
}

// Integer labels are kept as ids; named labels get sorted ids.
void assign_labels(Dataset& ds, const std::vector<std::string>& raw, const std::vector<bool>& present,
                   const DatasetOptions& options) {
  bool all_int = true;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (present[i] && !core::parse_i64(raw[i])) all_int = false;
  }
  std::map<std::string, int64_t> ids;
  if (all_int) {
    std::map<int64_t, std::string> m;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (present[i]) m[*core::parse_i64(raw[i])] = raw[i];
    }
    for (auto& [id, name] : m) ds.label_map.emplace_back(id, name);
  } else {
    std::set<std::string> names;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (present[i]) names.insert(raw[i]);
    }
    int64_t next = options.label_offset;
    for (const auto& n : names) {
      ids[n] = next;
      ds.label_map.emplace_back(next++, n);
    }
  }
  for (size_t i = 0; i < raw.size(); ++i) {
    if (!present[i]) continue;
    ds.items[i].label = all_int ? *core::parse_i64(raw[i]) : ids[raw[i]];
    ds.items[i].label_text = raw[i];
  }
}

void stat_items(Dataset& ds) {
  for (auto& item : ds.items) {
    struct stat st {};
    if (::stat(item.path.c_str(), &st) == 0) item.size_bytes = static_cast<uint64_t>(st.st_size);
  }
}

core::Result<Dataset> load_csv(const std::string& src, const DatasetOptions& options) {
  auto text = TFRIG_TRY(read_whole(src));
  auto rows = TFRIG_TRY(parse_csv(text, src));
  if (rows.empty()) return core::fail(ErrorCode::kParse, src, _("empty manifest; expected a header row"));
  const auto& header = rows.front().fields;
  int path_col = -1;
  int label_col = -1;
  for (size_t i = 0; i < header.size(); ++i) {
    auto name = std::string(core::trim(header[i]));
    if (path_col < 0 && is_path_column(name)) {
      path_col = static_cast<int>(i);
    } else if (label_col < 0 && name == "label") {
      label_col = static_cast<int>(i);
    }
  }
  if (path_col < 0) {
    return core::fail(ErrorCode::kParse, src + ":1",
                      _("no path column in the header; expected one named path, filename, file or image"));
  }
  std::vector<size_t> extra_cols;
  for (size_t i = 0; i < header.size(); ++i) {
    if (static_cast<int>(i) == path_col || static_cast<int>(i) == label_col) continue;
    auto key = std::string(core::trim(header[i]));
    TFRIG_TRY(check_extra_key(key, src + ":1"));
    extra_cols.push_back(i);
  }
  Dataset ds;
  ds.kind = "csv";
  const fs::path base = fs::path(src).parent_path();
  std::vector<std::string> labels;
  std::vector<bool> has_label;
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto& row = (rows)[r];
    if (row.fields.size() == 1 && row.fields[0].empty()) continue;  // blank line
    if (row.fields.size() != header.size()) {
      return core::fail(ErrorCode::kParse, fmt::format("{}:{}", src, row.line),
                        trf("{} fields; expected {} as in the header", row.fields.size(), header.size()));
    }
    SourceItem item;
    item.filename = row.fields[static_cast<size_t>(path_col)];
    item.path = resolve(base, item.filename);
    ds.items.push_back(std::move(item));
    labels.push_back(label_col >= 0 ? row.fields[static_cast<size_t>(label_col)] : std::string());
    has_label.push_back(label_col >= 0 && !labels.back().empty());
  }
  for (size_t c : extra_cols) {
    std::vector<const std::string*> values;
    for (size_t k = 1; k < rows.size(); ++k) {
      if ((rows)[k].fields.size() == 1 && (rows)[k].fields[0].empty()) continue;
      values.push_back(&(rows)[k].fields[c]);
    }
    FeatureKind kind = infer_kind(values);
    std::string key(core::trim(header[c]));
    ds.extra_keys.push_back(key);
    for (size_t i = 0; i < values.size(); ++i) {
      OwnedFeature f;
      f.kind = kind;
      const std::string& v = *values[i];
      if (kind == FeatureKind::kBytes) {
        f.bytes.push_back(v);
      } else if (!v.empty() && kind == FeatureKind::kInt64) {
        f.ints.push_back(*core::parse_i64(v));
      } else if (!v.empty()) {
        f.floats.push_back(static_cast<float>(*core::parse_double(v)));
      }
      ds.items[i].extras.emplace_back(key, std::move(f));
    }
  }
  assign_labels(ds, labels, has_label, options);
  return ds;
}

// The feature kind of one JSON Lines value: a string, a number or a list of
// one of them (integers and floats together make a float list); kNone for null.
core::Result<FeatureKind> jsonl_value_kind(const std::string& key, const nlohmann::json& value, const std::string& at) {
  auto classify = [](const nlohmann::json& v) {
    if (v.is_string()) return FeatureKind::kBytes;
    if (v.is_number_float()) return FeatureKind::kFloat;
    if (v.is_number() || v.is_boolean()) return FeatureKind::kInt64;
    return FeatureKind::kNone;
  };
  FeatureKind k = FeatureKind::kNone;
  if (value.is_array()) {
    for (const auto& e : value) {
      FeatureKind ek = classify(e);
      if (ek == FeatureKind::kNone) {
        return core::fail(ErrorCode::kParse, at,
                          trf("feature '{}' holds a nested value; expected strings or numbers", key));
      }
      if (k != FeatureKind::kNone && k != ek && (k == FeatureKind::kBytes || ek == FeatureKind::kBytes)) {
        return core::fail(ErrorCode::kParse, at, trf("feature '{}' mixes strings and numbers in one list", key));
      }
      // Integers and floats in one list make a float list.
      k = k == FeatureKind::kNone || k == ek ? ek : FeatureKind::kFloat;
    }
  } else if (!value.is_null()) {
    k = classify(value);
    if (k == FeatureKind::kNone) {
      return core::fail(ErrorCode::kParse, at,
                        trf("feature '{}' is an object; expected a string, a number or a list of them", key));
    }
  }
  return k;
}

// Feature kind per key over all rows (a key of numbers on one line and
// strings on another is an error; integers and floats make floats).
core::Result<std::map<std::string, FeatureKind>> jsonl_feature_kinds(const std::vector<nlohmann::json>& rows,
                                                                     const std::vector<std::string>& path_key,
                                                                     const std::vector<size_t>& line_of,
                                                                     const std::string& src) {
  std::map<std::string, FeatureKind> kinds;
  for (size_t i = 0; i < rows.size(); ++i) {
    for (auto& [key, value] : rows[i].items()) {
      if (key == "label" || key == path_key[i]) continue;
      const std::string at = fmt::format("{}:{}", src, line_of[i]);
      TFRIG_TRY(check_extra_key(key, at));
      const FeatureKind k = TFRIG_TRY(jsonl_value_kind(key, value, at));
      auto& cur = kinds[key];
      if (cur == FeatureKind::kNone) {
        cur = k;
      } else if (k != FeatureKind::kNone && k != cur) {
        if (cur == FeatureKind::kBytes || k == FeatureKind::kBytes) {
          return core::fail(ErrorCode::kParse, at, trf("feature '{}' mixes strings and numbers across lines", key));
        }
        cur = FeatureKind::kFloat;
      }
    }
  }
  return kinds;
}

// Each item's extra features, one per key in `kinds` (absent or null: empty).
void jsonl_fill_extras(const std::vector<nlohmann::json>& rows, const std::vector<std::string>& path_key,
                       const std::map<std::string, FeatureKind>& kinds, Dataset& ds) {
  for (size_t i = 0; i < rows.size(); ++i) {
    for (const auto& [key, kind] : kinds) {
      OwnedFeature f;
      f.kind = kind;
      if (key == path_key[i]) continue;
      if (rows[i].contains(key)) {
        const auto& v = rows[i][key];
        // Structured bindings cannot be captured before C++20 in clang 14.
        const FeatureKind k = kind;
        auto add = [&f, k](const nlohmann::json& e) {
          if (k == FeatureKind::kBytes)
            f.bytes.push_back(e.get<std::string>());
          else if (k == FeatureKind::kFloat)
            f.floats.push_back(e.is_boolean() ? (e.get<bool>() ? 1.0f : 0.0f) : e.get<float>());
          else
            f.ints.push_back(e.is_boolean() ? (e.get<bool>() ? 1 : 0) : e.get<int64_t>());
        };
        if (v.is_array()) {
          for (const auto& e : v) add(e);
        } else if (!v.is_null()) {
          add(v);
        }
      }
      ds.items[i].extras.emplace_back(key, std::move(f));
    }
  }
}

core::Result<Dataset> load_jsonl(const std::string& src, const DatasetOptions& options) {
  auto text = TFRIG_TRY(read_whole(src));
  Dataset ds;
  ds.kind = "jsonl";
  const fs::path base = fs::path(src).parent_path();
  std::vector<std::string> labels;
  std::vector<bool> has_label;
  std::vector<nlohmann::json> rows;
  std::vector<size_t> line_of;
  std::vector<std::string> path_key;
  size_t line = 0;
  for (auto l : core::split_lines(text)) {
    ++line;
    if (core::trim(l).empty()) continue;
    auto j = nlohmann::json::parse(l, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      return core::fail(ErrorCode::kParse, fmt::format("{}:{}", src, line), _("not a JSON object"));
    }
    const nlohmann::json* p = nullptr;
    for (const char* k : {"path", "filename", "file", "image"}) {
      if (j.contains(k) && j[k].is_string()) {
        p = &j[k];
        path_key.emplace_back(k);
        break;
      }
    }
    if (p == nullptr) {
      return core::fail(ErrorCode::kParse, fmt::format("{}:{}", src, line),
                        _("no \"path\" string; expected {\"path\": ..., \"label\": ..., other features}"));
    }
    SourceItem item;
    item.filename = p->get<std::string>();
    item.path = resolve(base, item.filename);
    ds.items.push_back(std::move(item));
    bool hl = j.contains("label") && !j["label"].is_null();
    has_label.push_back(hl);
    labels.push_back(!hl ? "" : j["label"].is_string() ? j["label"].get<std::string>() : j["label"].dump());
    rows.push_back(std::move(j));
    line_of.push_back(line);
  }
  auto kinds = TFRIG_TRY(jsonl_feature_kinds(rows, path_key, line_of, src));
  for (auto& [key, kind] : kinds) {
    ds.extra_keys.push_back(key);
    if (kind == FeatureKind::kNone) kind = FeatureKind::kBytes;  // only nulls: an empty bytes list
  }
  jsonl_fill_extras(rows, path_key, kinds, ds);
  assign_labels(ds, labels, has_label, options);
  return ds;
}

}  // namespace

core::Result<std::vector<CsvRow>> parse_csv(std::string_view text, const std::string& where) {
  std::vector<CsvRow> rows;
  CsvRow row;
  std::string field;
  size_t line = 1;
  row.line = 1;
  bool in_quotes = false;
  bool any = false;
  size_t quote_line = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    any = true;
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        if (c == '\n') ++line;
        field.push_back(c);
      }
      continue;
    }
    if (c == '"' && field.empty()) {
      in_quotes = true;
      quote_line = line;
    } else if (c == ',') {
      row.fields.push_back(std::move(field));
      field.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      row.fields.push_back(std::move(field));
      field.clear();
      rows.push_back(std::move(row));
      row = CsvRow{};
      ++line;
      row.line = line;
      any = false;
    } else {
      field.push_back(c);
    }
  }
  if (in_quotes) {
    return core::fail(ErrorCode::kParse, fmt::format("{}:{}", where, quote_line),
                      _("quoted field never closed; expected a closing '\"'"));
  }
  if (any) {
    row.fields.push_back(std::move(field));
    rows.push_back(std::move(row));
  }
  return rows;
}

core::Result<Dataset> load_dataset(const std::string& src, const DatasetOptions& options) {
  std::error_code ec;
  auto status = fs::status(src, ec);
  if (ec || !fs::exists(status)) return core::fail(ErrorCode::kNotFound, src, _("no such file or directory"));
  core::Result<Dataset> ds = core::fail(ErrorCode::kInternal, src, "unreachable");
  if (fs::is_directory(status)) {
    ds = load_directory(src, options);
  } else {
    std::string lower = core::to_lower(src);
    bool jsonl = core::ends_with(lower, ".jsonl") || core::ends_with(lower, ".ndjson");
    if (jsonl) {
      try {
        ds = load_jsonl(src, options);
      } catch (const nlohmann::json::exception& e) {
        // A value of a type the checks above missed: report, never throw on.
        return core::fail(ErrorCode::kParse, src, trf("unexpected JSON value: {}", e.what()));
      }
    } else {
      ds = load_csv(src, options);
    }
    if (ds) stat_items(*ds);
  }
  if (!ds) return ds;
  if (ds->items.empty()) return core::fail(ErrorCode::kParse, src, _("no input files found"));
  // The listing order is part of what makes runs (and slices) identical.
  std::stable_sort(ds->items.begin(), ds->items.end(),
                   [](const SourceItem& a, const SourceItem& b) { return a.filename < b.filename; });
  for (auto& item : ds->items) {
    std::sort(item.extras.begin(), item.extras.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  return ds;
}

}  // namespace tfrig::tfrecord
