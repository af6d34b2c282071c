#include "tfrecord/verify.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "core/text.h"
#include "tfrecord/example.h"
#include "tfrecord/progress.h"
#include "tfrecord/shard_index.h"

namespace tfrig::tfrecord {

namespace fs = std::filesystem;

std::string FileVerdict::to_string() const {
  if (ok) {
    return fmt::format("OK   {}: {} records, {} bytes ({}), index {}", path, records, file_bytes,
                       compression_name(compression), index);
  }
  if (problem == "io" || problem == "index_mismatch") {
    return fmt::format("FAIL {}: {}: {}", path, problem, message);
  }
  return fmt::format("FAIL {}: {} in record {} at byte offset {}{}: {}", path, problem, record_index, offset,
                     compression == Compression::kNone ? "" : " (uncompressed stream)", message);
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
    v.message = reader.error().message;
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
        v.message = "not a tf.train.Example: " + ex.error().to_string() + " (byte within the record data)";
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
      std::string why;
      if (!idx) {
        why = idx.error().to_string();
      } else if (idx->records != v.records) {
        why = fmt::format("{} says {} records; the shard has {}", ipath, idx->records, v.records);
      } else if (idx->file_bytes != v.file_bytes) {
        why = fmt::format("{} says {} bytes; the shard has {}", ipath, idx->file_bytes, v.file_bytes);
      } else if (idx->compression != v.compression) {
        why = fmt::format("{} says compression {}; the shard is {}", ipath, compression_name(idx->compression),
                          compression_name(v.compression));
      } else if (idx->offsets != offsets) {
        size_t k = 0;
        while (k < offsets.size() && idx->offsets[k] == offsets[k]) ++k;
        why = fmt::format("{}: offset of record {} is {}; the record starts at {}", ipath, k, idx->offsets[k],
                          offsets[k]);
      }
      if (why.empty()) {
        v.index = "ok";
      } else {
        v.index = "mismatch";
        v.ok = false;
        v.problem = "index_mismatch";
        v.message = why;
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
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  progress.finish();
  return out;
}

}  // namespace tfrig::tfrecord
