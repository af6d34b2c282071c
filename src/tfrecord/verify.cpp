#include "tfrecord/verify.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/display_width.h"
#include "core/escape.h"
#include "core/i18n.h"
#include "core/json_text.h"
#include "core/text.h"
#include "tfrecord/example.h"
#include "tfrecord/progress.h"
#include "tfrecord/shard_index.h"

namespace tfrig::tfrecord {

namespace fs = std::filesystem;

namespace {

// The index column of a verdict, for people (the JSON keeps the id).
core::Message index_text(const std::string& index) {
  if (index == "ok") return core::Message(N_("index ok"));
  if (index == "mismatch") return core::Message(N_("index mismatch"));
  return core::Message(N_("index none"));
}

// An error as one message ("PATH: cannot open: ..."); one built from a plain
// string shows as it is.
core::Message verify_error_text(const core::Error& e) {
  return core::error_message(e).value_or(core::Message("{}", e.to_string()));
}

}  // namespace

core::Message FileVerdict::to_message() const {
  // TRANSLATORS: OK / FAIL start each file's line; keep both the same width
  // (5 columns here, with the space) so the file names line up.
  if (ok) {
    return core::Message(N_("OK   {0}: {1} records, {2} bytes ({3}), {4}"), core::escape_bytes(path), records,
                         file_bytes, compression_name(compression), index_text(index));
  }
  // The problem's text: its paths are foreign bytes (escaped where rendered).
  if (problem == "io" || problem == "index_mismatch") {
    return core::Message(N_("FAIL {0}: {1}: {2}"), core::escape_bytes(path), problem, text);
  }
  // TRANSLATORS: {1} is the problem's id (length_crc, data_crc, truncated_record, ...), as in --json.
  if (compression == Compression::kNone) {
    return core::Message(N_("FAIL {0}: {1} in record {2} at byte offset {3}: {4}"), core::escape_bytes(path), problem,
                         record_index, offset, text);
  }
  return core::Message(N_("FAIL {0}: {1} in record {2} at byte offset {3} (uncompressed stream): {4}"),
                       core::escape_bytes(path), problem, record_index, offset, text);
}

std::string FileVerdict::to_string(std::string_view language) const {
  return core::escape_bytes(core::render(to_message(), language));
}

FileVerdict verify_file(const std::string& path, const VerifyOptions& options) {
  FileVerdict v;
  v.path = path;
  v.index = "none";
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) v.file_bytes = static_cast<uint64_t>(st.st_size);
  auto reader = RecordReader::open(path, ReaderOptions{options.compression, true});
  if (!reader) {
    v.ok = false;
    v.problem = "io";
    v.text = verify_error_text(reader.error());
    v.message = core::english(v.text);
    return v;
  }
  std::vector<uint64_t> offsets;
  for (;;) {
    auto rec = reader->next();
    v.compression = reader->compression();
    if (!rec) {
      v.ok = false;
      v.problem = std::string(record_problem_name(rec.error().problem));
      v.offset = rec.error().offset;
      v.record_index = rec.error().record_index;
      v.message = rec.error().message;
      v.text = rec.error().text;
      return v;
    }
    if (!*rec) break;
    offsets.push_back(reader->record_offset());
    v.stream_bytes = reader->record_offset() + kHeaderSize + (*rec)->size() + kFooterSize;
    if (options.examples) {
      auto ex = decode_example(**rec);
      if (!ex) {
        v.ok = false;
        v.problem = "bad_example";
        v.offset = reader->record_offset();
        v.record_index = reader->records_read() - 1;
        v.text = core::Message(N_("not a tf.train.Example: {} (byte within the record data)"),
                               verify_error_text(ex.error()));
        v.message = core::english(v.text);
        v.records = reader->records_read() - 1;
        return v;
      }
    }
    v.records = reader->records_read();
  }
  if (options.check_index) {
    std::string ipath = index_path_for(path);
    if (fs::exists(ipath)) {
      auto idx = read_index(ipath);
      core::Message why;
      if (!idx) {
        why = verify_error_text(idx.error());
      } else if (idx->records != v.records) {
        why = core::Message(N_("{} says {} records; the shard has {}"), ipath, idx->records, v.records);
      } else if (idx->file_bytes != v.file_bytes) {
        why = core::Message(N_("{} says {} bytes; the shard has {}"), ipath, idx->file_bytes, v.file_bytes);
      } else if (idx->compression != v.compression) {
        why = core::Message(N_("{} says compression {}; the shard is {}"), ipath, compression_name(idx->compression),
                            compression_name(v.compression));
      } else if (idx->offsets != offsets) {
        size_t k = 0;
        while (k < offsets.size() && idx->offsets[k] == offsets[k]) ++k;
        why = core::Message(N_("{}: offset of record {} is {}; the record starts at {}"), ipath, k, idx->offsets[k],
                            offsets[k]);
      }
      if (why.empty()) {
        v.index = "ok";
      } else {
        v.index = "mismatch";
        v.ok = false;
        v.problem = "index_mismatch";
        v.message = core::english(why);
        v.text = std::move(why);
      }
    }
  }
  return v;
}

std::vector<FileVerdict> verify_paths(const std::vector<std::string>& paths, const VerifyOptions& options) {
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> inside;
      for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        std::error_code ec2;
        if (!it->is_regular_file(ec2) || core::ends_with(name, ".json") || (!name.empty() && name[0] == '.') ||
            name.find(".tmp-") != std::string::npos) {
          continue;
        }
        inside.push_back(it->path().string());
      }
      std::sort(inside.begin(), inside.end());
      files.insert(files.end(), inside.begin(), inside.end());
    } else {
      files.push_back(p);
    }
  }
  std::vector<FileVerdict> out(files.size());
  uint64_t total_bytes = 0;
  for (const auto& f : files) {
    struct stat st {};
    if (::stat(f.c_str(), &st) == 0) total_bytes += static_cast<uint64_t>(st.st_size);
  }
  Progress progress(options.progress, "verify", files.size(), total_bytes);
  unsigned jobs = options.jobs != 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, std::max<size_t>(1, files.size()));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (;;) {
      size_t k = next.fetch_add(1);
      if (k >= files.size()) return;
      out[k] = verify_file(files[k], options);
      progress.add(1, out[k].file_bytes);
    }
  };
  {
    // The caller is worker 0; the others join when this scope ends (also
    // when a worker throws, where std::thread would call std::terminate).
    std::vector<std::jthread> threads;
    for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
    worker();
  }
  progress.finish();
  return out;
}

std::vector<core::Message> check_shard_sets(const std::vector<std::string>& paths) {
  std::vector<core::Message> problems;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) continue;
    // prefix -> (count -> indexes present)
    std::map<std::string, std::map<uint32_t, std::set<uint32_t>>> sets;
    std::vector<std::string> temps;
    for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.find(".tmp-") != std::string::npos || core::ends_with(name, ".tmp")) {
        temps.push_back(name);
        continue;
      }
      // PREFIX-NNNNN-of-MMMMM.tfrecord (tfrecord/plan.h's shard_file_name)
      constexpr std::string_view kExt = ".tfrecord";
      if (!core::ends_with(name, kExt) || name.size() < kExt.size() + 16) continue;
      const std::string_view stem = std::string_view(name).substr(0, name.size() - kExt.size());
      const std::string_view tail = stem.substr(stem.size() - 15);  // "-NNNNN-of-MMMMM"
      if (tail[0] != '-' || tail.substr(6, 4) != "-of-") continue;
      auto index = core::parse_u64(tail.substr(1, 5));
      auto count = core::parse_u64(tail.substr(10, 5));
      if (!index || !count || *index >= *count) continue;
      sets[std::string(stem.substr(0, stem.size() - 15))][static_cast<uint32_t>(*count)].insert(
          static_cast<uint32_t>(*index));
    }
    for (const auto& [prefix, by_count] : sets) {
      for (const auto& [count, present] : by_count) {
        if (present.size() == count) continue;
        std::vector<std::string> missing;
        for (uint32_t i = 0; i < count && missing.size() < 5; ++i) {
          if (present.count(i) == 0) missing.push_back(fmt::format("{:05d}", i));
        }
        const std::string listed =
            fmt::format("{}{}", fmt::join(missing, ", "), count - present.size() > missing.size() ? ", ..." : "");
        problems.push_back(core::Message(
            N_("{0}: shard set {1}-*-of-{2:05d} is incomplete: {3} of {4} shard(s) missing ({5})"),
            core::escape_bytes(p), core::escape_bytes(prefix), count, count - present.size(), count, listed));
      }
    }
    if (!temps.empty()) {
      std::sort(temps.begin(), temps.end());
      problems.push_back(
          core::Message(N_("{}: {} temporary file(s) left by an interrupted run (first: {}); run pack again "
                           "with --resume to finish the set"),
                        core::escape_bytes(p), temps.size(), core::escape_bytes(temps.front())));
    }
  }
  return problems;
}

size_t VerifyReport::bad_files() const {
  size_t bad = 0;
  for (const auto& v : files) bad += v.ok ? 0 : 1;
  return bad;
}

uint64_t VerifyReport::good_records() const {
  uint64_t records = 0;
  for (const auto& v : files) records += v.records;
  return records;
}

std::string render_verify_text(const VerifyReport& report, std::string_view language, size_t width) {
  std::string out;
  for (const auto& v : report.files) out += v.to_string(language) + "\n";
  // TRANSLATORS: starts the line of a shard set that lacks shards, after the OK / FAIL lines.
  for (const auto& p : report.set_problems) out += core::render(core::Message(N_("INCOMPLETE {}"), p), language) + "\n";
  if (report.set_problems.empty()) {
    out += core::render(core::Message(N_("{} file(s), {} bad, {} good records"), report.files.size(),
                                      report.bad_files(), report.good_records()),
                        language);
  } else {
    out += core::render(
        core::Message(N_("{} file(s), {} bad, {} good records; {} incomplete shard set(s)"), report.files.size(),
                      report.bad_files(), report.good_records(), report.set_problems.size()),
        language);
  }
  out += "\n";
  return core::wrap_lines(out, width);
}

std::string render_verify_json(const VerifyReport& report, std::string_view language) {
  nlohmann::ordered_json j;
  j["files"] = report.files.size();
  j["files_bad"] = report.bad_files();
  j["records"] = report.good_records();
  auto arr = nlohmann::ordered_json::array();
  for (const auto& v : report.files) {
    nlohmann::ordered_json f;
    f["path"] = core::escape_bytes(v.path);
    f["ok"] = v.ok;
    f["compression"] = std::string(compression_name(v.compression));
    f["records"] = v.records;
    f["file_bytes"] = v.file_bytes;
    f["stream_bytes"] = v.stream_bytes;
    f["index"] = v.index;
    if (v.ok) {
      f["problem"] = nullptr;
    } else {
      f["problem"] = nlohmann::ordered_json{{"kind", v.problem},
                                            {"record", v.record_index},
                                            {"offset", v.offset},
                                            {"message", core::escape_bytes(core::render(v.text, language))}};
    }
    arr.push_back(std::move(f));
  }
  j["results"] = std::move(arr);
  auto sets = nlohmann::ordered_json::array();
  for (const auto& p : report.set_problems) sets.push_back(core::render(p, language));
  j["set_problems"] = std::move(sets);
  return core::json_text(j);
}

}  // namespace tfrig::tfrecord
