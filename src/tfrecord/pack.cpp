#include "tfrecord/pack.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "codec/jpeg.h"
#include "core/fnv1a.h"
#include "core/atomic_file.h"
#include "core/clock.h"
#include "core/display_width.h"
#include "core/escape.h"
#include "core/errno_text.h"
#include "core/exit_code.h"
#include "core/i18n.h"
#include "core/log.h"
#include "core/text.h"
#include "core/units.h"
#include "tfrecord/example.h"
#include "tfrecord/image_header.h"
#include "tfrecord/progress.h"
#include "tfrecord/shard_index.h"

namespace tfrig::tfrecord {

namespace fs = std::filesystem;
using core::ErrorCode;

namespace {

// Test-only: TFRIG_TEST_STOP_AFTER_RECORDS=N makes the process SIGSTOP
// itself after writing N records, so a test can kill -9 it at a known point
// mid-shard (tests/tfrecord/pack_test.cpp). Read once.
uint64_t test_stop_after_records() {
  static const uint64_t n = [] {
    const char* v = std::getenv("TFRIG_TEST_STOP_AFTER_RECORDS");
    if (v == nullptr) return uint64_t{0};
    return core::parse_u64(v).value_or(0);
  }();
  return n;
}

// Reads a whole file into buf (capacity reused across files).
core::Status read_file_into(const std::string& path, std::string& buf) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    return core::fail(core::error_code_for_errno(err), path, trf("cannot open: {}", core::errno_text(err)));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return core::fail(ErrorCode::kIo, path, _("not a regular file"));
  }
  buf.resize(static_cast<size_t>(st.st_size));
  size_t have = 0;
  for (;;) {
    if (have == buf.size()) {
      // The file may have grown since fstat: read on until EOF.
      buf.resize(buf.size() + 65536);
    }
    ssize_t n = ::read(fd, buf.data() + have, buf.size() - have);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return core::fail(ErrorCode::kIo, path, trf("read failed at byte {}: {}", have, core::errno_text(err)));
    }
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  ::close(fd);
  buf.resize(have);
  return {};
}

struct Shared {
  Shared(const PackOptions& o, const Dataset& d, const Plan& p, Progress& pr)
      : options(o), ds(d), plan(p), progress(pr) {}
  const PackOptions& options;
  const Dataset& ds;
  const Plan& plan;
  Progress& progress;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> records{0};
  std::atomic<uint64_t> bytes_read{0};
  std::atomic<uint64_t> bytes_written{0};
  std::atomic<uint32_t> shards_written{0};
  std::mutex mu;
  std::vector<FileFailure> failures;
  std::optional<PackError> fatal;

  bool cancelled() const { return options.cancel != nullptr && options.cancel->load(); }

  void set_fatal(PackError e) {
    std::lock_guard<std::mutex> lock(mu);
    if (!fatal) fatal = std::move(e);
    stop = true;
  }
};

// Per-worker reusable buffers: the only memory that scales with file size.
struct WorkerBuffers {
  std::string file;
  std::string record;
  std::vector<std::pair<std::string, FeatureValue>> features;
};

// Builds the Example of one item into buffers.record. Keys sorted (the
// standard ones and the manifest's extras interleave by name).
void build_example(const SourceItem& item, const ImageInfo& info, WorkerBuffers& b) {
  auto& f = b.features;
  f.clear();
  f.emplace_back("image/channels", FeatureValue::of_int(info.channels));
  if (item.label) {
    f.emplace_back("image/class/label", FeatureValue::of_int(*item.label));
    f.emplace_back("image/class/text", FeatureValue::of_bytes(item.label_text));
  }
  f.emplace_back("image/encoded", FeatureValue::of_bytes(b.file));
  f.emplace_back("image/filename", FeatureValue::of_bytes(item.filename));
  f.emplace_back("image/format", FeatureValue::of_bytes(info.format));
  f.emplace_back("image/height", FeatureValue::of_int(info.height));
  f.emplace_back("image/width", FeatureValue::of_int(info.width));
  for (const auto& [key, value] : item.extras) f.emplace_back(key, value.view());
  std::sort(f.begin(), f.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  b.record.clear();
  encode_example(f, b.record);
}

void write_shard(Shared& s, const ShardPlan& shard, WorkerBuffers& b) {
  const auto& o = s.options;
  const auto count = static_cast<uint32_t>(s.plan.shards.size());
  const std::string name = shard_file_name(o.prefix, shard.index, count);
  const std::string path = (fs::path(o.out_dir) / name).string();
  auto writer = RecordWriter::create(path, WriterOptions{o.compression});
  if (!writer) return s.set_fatal(PackError{writer.error(), true});
  ShardIndex index;
  index.shard = name;
  index.compression = o.compression;
  index.plan_fingerprint = plan_fingerprint(s.ds, s.plan, shard, o.compression, o.validate);
  for (uint32_t item_index : shard.items) {
    if (s.stop || s.cancelled()) return;  // the writer's destructor removes the temporary file
    const SourceItem& item = s.ds.items[item_index];
    auto st = read_file_into(item.path, b.file);
    core::Result<ImageInfo> info = st ? sniff_image(b.file) : tl::unexpected(st.error());
    bool undecodable = false;
    if (info && o.validate == Validate::kFull && info->format == "jpeg") {
      if (auto full = codec::check_jpeg_decodes(b.file, item.path); !full) {
        info = tl::unexpected(full.error());
        undecodable = true;
      }
    }
    if (!info) {
      // The decoder's error is a message (codec/jpeg.cpp): said in the reader's language.
      const std::string decode_error =
          info.error().text.empty() ? info.error().message : core::render(info.error().text, core::i18n::language());
      std::string reason = undecodable ? trf("a JPEG that does not decode ({})", decode_error)
                           : st        ? trf("not an image we can read the size of ({})", info.error().to_string())
                                       : info.error().message;
      core::log(core::LogLevel::kWarn, "pack: {}: {}", item.path, reason);
      if (o.on_error == OnError::kFail) {
        return s.set_fatal(
            PackError{core::Error{info.error().code == ErrorCode::kParse ? ErrorCode::kParse : info.error().code,
                                  item.path, trf("{} (--on-error fail)", reason)},
                      false});
      }
      std::lock_guard<std::mutex> lock(s.mu);
      s.failures.push_back(FileFailure{item.path, reason});
      s.progress.add(1, 0);
      continue;
    }
    build_example(item, *info, b);
    index.offsets.push_back(writer->uncompressed_offset());
    if (auto w = writer->write(b.record); !w) return s.set_fatal(PackError{w.error(), true});
    s.bytes_read += b.file.size();
    s.progress.add(1, b.file.size());
    uint64_t total = ++s.records;
    if (uint64_t stop_at = test_stop_after_records(); stop_at != 0 && total == stop_at) {
      // Flush what is buffered so the killed process leaves a real partial
      // temporary file behind, as a crash mid-write would.
      (void)writer->flush();
      std::raise(SIGSTOP);
    }
  }
  if (s.cancelled()) return;
  if (auto st = writer->finish(); !st) return s.set_fatal(PackError{st.error(), true});
  index.records = writer->records();
  index.stream_bytes = writer->uncompressed_offset();
  index.file_bytes = writer->file_bytes();
  // Index first, shard last: a shard under its final name always has its index.
  if (auto st = core::write_file_atomic(index_path_for(path), serialize_index(index)); !st) {
    return s.set_fatal(PackError{st.error(), true});
  }
  if (auto st = writer->commit(); !st) return s.set_fatal(PackError{st.error(), true});
  s.bytes_written += index.file_bytes;
  ++s.shards_written;
}

// A shard from an earlier run counts as done when it and its index exist
// and the index describes a file of exactly this size. Its plan fingerprint
// is returned so the caller can refuse a shard from another plan.
std::optional<std::string> complete_shard_fingerprint(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  auto idx = read_index(index_path_for(path));
  if (!idx || idx->file_bytes != static_cast<uint64_t>(st.st_size)) return std::nullopt;
  return idx->plan_fingerprint;
}

// Names of PREFIX-NNNNN-of-MMMMM.tfrecord files in dir whose MMMMM is not
// count (shard_file_name's format). Sorted.
std::vector<std::string> other_plan_shards(const std::string& dir, const std::string& prefix, uint32_t count) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  const std::string head = prefix + "-";
  constexpr std::string_view kExt = ".tfrecord";
  while (dirent* e = ::readdir(d)) {
    const std::string_view n(e->d_name);
    // "-NNNNN-of-MMMMM.tfrecord" after the prefix.
    if (!core::starts_with(n, head) || !core::ends_with(n, kExt) || n.size() != head.size() + 14 + kExt.size())
      continue;
    const std::string_view mid = n.substr(head.size(), 14);
    if (mid.substr(5, 4) != "-of-") continue;
    auto m = core::parse_u64(mid.substr(9, 5));
    if (!core::parse_u64(mid.substr(0, 5)) || !m || *m == count) continue;
    out.emplace_back(n);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// Removes "<name>.tmp-*" and "<name>.index.json.tmp-*" left by a killed run
// (core::AtomicWriter's temporary names), only for this slice's shards.
void remove_stale_temps(const std::string& dir, const std::vector<std::string>& names) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  std::vector<std::string> doomed;
  while (dirent* e = ::readdir(d)) {
    std::string_view n(e->d_name);
    for (const auto& name : names) {
      if (core::starts_with(n, name + ".tmp-") || core::starts_with(n, name + ".index.json.tmp-")) {
        doomed.emplace_back(n);
        break;
      }
    }
  }
  ::closedir(d);
  for (const auto& n : doomed) {
    std::string p = (fs::path(dir) / n).string();
    core::log(core::LogLevel::kInfo, "pack: {}", trf("removing {} left by an interrupted run", p));
    ::unlink(p.c_str());
  }
}

}  // namespace

std::string plan_fingerprint(const Dataset& ds, const Plan& plan, const ShardPlan& shard, Compression compression,
                             Validate validate) {
  core::Fnv1a f;
  f.add(std::string_view("tfrig-pack-plan-1"));
  // Full validation can leave files out that a header check keeps: a
  // different plan. (Header-only plans keep the fingerprints they had.)
  if (validate == Validate::kFull) f.add(std::string_view("validate=full"));
  f.add(static_cast<uint64_t>(plan.shards.size()));
  f.add(compression_name(compression));
  for (uint32_t i : shard.items) {
    const SourceItem& item = ds.items[i];
    f.add(item.filename);
    f.add(item.size_bytes);
    f.add(static_cast<uint64_t>(item.label.value_or(INT64_MIN)));
    f.add(item.label_text);
    for (const auto& [key, value] : item.extras) {
      f.add(key);
      for (const auto& b : value.bytes) f.add(b);
      for (float x : value.floats) {
        uint32_t bits = 0;
        std::memcpy(&bits, &x, sizeof bits);
        f.add(uint64_t{bits});
      }
      for (int64_t x : value.ints) f.add(static_cast<uint64_t>(x));
    }
  }
  return fmt::format("{:016x}", f.h);
}

std::string label_map_path(const std::string& out_dir, const std::string& prefix) {
  return (fs::path(out_dir) / (prefix + ".label_map.json")).string();
}

std::string serialize_label_map(const Dataset& ds) {
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["source_kind"] = ds.kind;
  auto labels = nlohmann::ordered_json::array();
  for (const auto& [id, name] : ds.label_map) {
    nlohmann::ordered_json e;
    e["id"] = id;
    e["name"] = core::escape_bytes(name);
    if (!core::is_valid_utf8(name)) e["name_hex"] = core::hex_bytes(name);
    labels.push_back(std::move(e));
  }
  j["labels"] = std::move(labels);
  return j.dump(2) + "\n";
}

namespace {

// --shard-index and --prefix, checked before anything is read.
std::optional<PackError> check_pack_options(const PackOptions& o) {
  if (o.num_slices == 0 || o.shard_index >= o.num_slices) {
    return PackError{core::Error{ErrorCode::kInvalidArgument, "--shard-index",
                                 trf("{} is not below --num-shards {}", o.shard_index, o.num_slices)},
                     false};
  }
  if (o.prefix.empty() || o.prefix.find('/') != std::string::npos) {
    return PackError{
        core::Error{ErrorCode::kInvalidArgument, "--prefix", _("must be a non-empty file name without '/'")}, false};
  }
  return std::nullopt;
}

// Shards of this prefix from a plan with another shard count would stay
// next to the new set (a glob PREFIX-* then reads both): replaced with
// --overwrite, else refused.
std::optional<PackError> remove_other_plans(const PackOptions& o, uint32_t count) {
  auto other = other_plan_shards(o.out_dir, o.prefix, count);
  if (other.empty()) return std::nullopt;
  if (!o.overwrite) {
    return PackError{core::Error{ErrorCode::kInvalidArgument, o.out_dir,
                                 trf("holds {} shard(s) of another plan ({}, ...; {} shards now); a different "
                                     "input, --seed or --shard-size cannot resume them: pass --overwrite to replace "
                                     "them, or pack into a new folder",
                                     other.size(), other.front(), count)},
                     false};
  }
  for (const auto& name : other) {
    const std::string p = (fs::path(o.out_dir) / name).string();
    core::log(core::LogLevel::kInfo, "pack: {}", trf("removing {} of another plan (--overwrite)", p));
    ::unlink(index_path_for(p).c_str());
    ::unlink(p.c_str());
  }
  return std::nullopt;
}

// The shards of this slice still to write, and what they hold.
struct PackTodo {
  std::vector<const ShardPlan*> shards;
  std::vector<std::string> names;  // every shard of the slice, written or resumed
  uint64_t files = 0;
  uint64_t bytes = 0;
};

// This slice's shards: a complete one of the same plan is kept with
// --resume, one of another plan is refused, an existing one without
// --resume or --overwrite is refused; the rest are to write.
tl::expected<PackTodo, PackError> select_shards(const PackOptions& o, const Dataset& ds, const Plan& plan,
                                                PackSummary& sum) {
  const auto count = static_cast<uint32_t>(plan.shards.size());
  PackTodo todo;
  for (const auto& shard : plan.shards) {
    if (!shard_in_slice(shard.index, o.shard_index, o.num_slices)) continue;
    ++sum.shards_in_slice;
    std::string name = shard_file_name(o.prefix, shard.index, count);
    std::string path = (fs::path(o.out_dir) / name).string();
    todo.names.push_back(name);
    sum.shard_paths.push_back(path);
    struct stat st {};
    bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && o.resume) {
      if (auto fingerprint = complete_shard_fingerprint(path)) {
        if (*fingerprint != plan_fingerprint(ds, plan, shard, o.compression, o.validate)) {
          return tl::unexpected(PackError{
              core::Error{ErrorCode::kInvalidArgument, path,
                          _("was written by a different plan (another input, --seed, --shard-size, --compression or "
                            "--label-offset, or a tfrig without plan fingerprints); --resume keeps only shards of the "
                            "same plan: pass --overwrite to rewrite them, or pack into a new folder")},
              false});
        }
        ++sum.shards_resumed;
        continue;
      }
    }
    if (exists && !o.resume && !o.overwrite) {
      return tl::unexpected(PackError{
          core::Error{ErrorCode::kInvalidArgument, path,
                      _("already exists; pass --resume to keep complete shards, or --overwrite to rewrite them")},
          true});
    }
    todo.shards.push_back(&shard);
    todo.files += shard.items.size();
    for (uint32_t i : shard.items) todo.bytes += ds.items[i].size_bytes;
  }
  return todo;
}

// Writes the shards on `jobs` threads and adds what they did to `sum`; a
// fatal error (the output cannot be written) is returned.
std::optional<PackError> write_shards(const PackOptions& o, const Dataset& ds, const Plan& plan, const PackTodo& todo,
                                      PackSummary& sum) {
  unsigned jobs = o.jobs != 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, std::max<size_t>(1, todo.shards.size()));
  Progress progress(o.progress, "pack", todo.files, todo.bytes);
  Shared shared(o, ds, plan, progress);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    WorkerBuffers buffers;
    for (;;) {
      size_t k = next.fetch_add(1);
      if (k >= todo.shards.size() || shared.stop) return;
      write_shard(shared, *todo.shards[k], buffers);
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

  if (shared.fatal) return std::move(*shared.fatal);
  sum.interrupted = shared.cancelled();
  sum.shards_written = shared.shards_written;
  sum.records = shared.records;
  sum.bytes_read = shared.bytes_read;
  sum.bytes_written = shared.bytes_written;
  sum.failures = std::move(shared.failures);
  std::sort(sum.failures.begin(), sum.failures.end(),
            [](const FileFailure& a, const FileFailure& b) { return a.path < b.path; });
  return std::nullopt;
}

}  // namespace

// The steps: options checked, the dataset listed and planned, the output
// folder made, shards of another plan removed (--overwrite), this slice's
// shards chosen (--resume), the label map (slice 0), the shards written.
tl::expected<PackSummary, PackError> run_pack(const PackOptions& o) {
  core::Stopwatch watch;
  if (auto bad = check_pack_options(o)) return tl::unexpected(std::move(*bad));
  // The output folder may sit inside SRC (pack data -o data/tfrecords):
  // it is not a class.
  DatasetOptions dataset_options = o.dataset;
  if (dataset_options.exclude_dir.empty()) dataset_options.exclude_dir = o.out_dir;
  auto ds = load_dataset(o.src, dataset_options);
  if (!ds) return tl::unexpected(PackError{ds.error(), false});
  Plan plan = plan_shards(*ds, o.plan);
  if (plan.shards.size() > 99999) {
    return tl::unexpected(PackError{
        core::Error{
            ErrorCode::kInvalidArgument, "--shard-size",
            trf("would make {} shards; names hold at most 99999: use a larger --shard-size", plan.shards.size())},
        false});
  }
  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  if (ec)
    return tl::unexpected(
        PackError{core::Error{ErrorCode::kIo, o.out_dir, trf("cannot create: {}", core::error_code_text(ec))}, true});

  PackSummary sum;
  sum.source_kind = ds->kind;
  sum.files_listed = ds->items.size();
  sum.shards_total = static_cast<uint32_t>(plan.shards.size());
  if (auto bad = remove_other_plans(o, sum.shards_total)) return tl::unexpected(std::move(*bad));
  auto todo = select_shards(o, *ds, plan, sum);
  if (!todo) return tl::unexpected(std::move(todo.error()));
  remove_stale_temps(o.out_dir, todo->names);

  // Slice 0 writes the label map (every slice computes the same one): slices
  // on different hosts share the output directory, and two writers of one
  // file could pick the same temporary name (same pid on two hosts).
  if (o.shard_index == 0) {
    sum.label_map_path = label_map_path(o.out_dir, o.prefix);
    if (auto st = core::write_file_atomic(sum.label_map_path, serialize_label_map(*ds)); !st) {
      return tl::unexpected(PackError{st.error(), true});
    }
  }
  sum.skipped_not_regular = ds->skipped_not_regular;
  if (auto bad = write_shards(o, *ds, plan, *todo, sum)) return tl::unexpected(std::move(*bad));
  sum.seconds = watch.seconds();
  return sum;
}

namespace {

// The kind of source, for people (the label map keeps the id).
std::string source_kind_text(const std::string& kind) {
  if (kind == "directory") return C_("pack source", "directory");
  if (kind == "csv") return C_("pack source", "csv");
  if (kind == "jsonl") return C_("pack source", "jsonl");
  return kind;
}

}  // namespace

std::string render_pack_text(const PackSummary& sum, const PackOptions& o, size_t width) {
  std::string out;
  if (o.num_slices > 1) {
    out = trf("packed {0} records from {1} ({2}, {3} files listed) into {4} of {5} shards in {6} (slice {7} of {8})",
              sum.records, o.src, source_kind_text(sum.source_kind), sum.files_listed, sum.shards_in_slice,
              sum.shards_total, o.out_dir, o.shard_index, o.num_slices);
  } else {
    out = trf("packed {0} records from {1} ({2}, {3} files listed) into {4} of {5} shards in {6}", sum.records, o.src,
              source_kind_text(sum.source_kind), sum.files_listed, sum.shards_in_slice, sum.shards_total, o.out_dir);
  }
  out += "\n  ";
  out += trf("written {} shard(s), {}; kept {} complete shard(s) from an earlier run", sum.shards_written,
             core::format_bytes_decimal(sum.bytes_written), sum.shards_resumed);
  const double secs = sum.seconds > 0 ? sum.seconds : 1e-9;
  out += "\n  ";
  // TRANSLATORS: bytes read, the time it took, files per second, bytes per second.
  out += trf("read {} in {}: {:.0f} files/s, {}", core::format_bytes_decimal(sum.bytes_read),
             core::format_seconds(sum.seconds), static_cast<double>(sum.records) / secs,
             core::format_rate(static_cast<double>(sum.bytes_read) / secs));
  out += "\n";
  if (!sum.label_map_path.empty()) out += "  " + trf("label map: {}", sum.label_map_path) + "\n";
  out += "  ";
  out += o.validate == Validate::kFull
             ? _("images checked: every JPEG decoded to pixels (--validate full); other formats by their header")
             : _("images checked: header only (--validate header): a JPEG cut short is packed as it is; "
                 "--validate full decodes each one");
  out += "\n";
  if (sum.skipped_not_regular > 0) {
    out += "  " +
           trnf("skipped {} entry of the source folder that is not a regular file (FIFOs, devices, sockets)",
                "skipped {} entries of the source folder that are not regular files (FIFOs, devices, sockets)",
                sum.skipped_not_regular, sum.skipped_not_regular) +
           "\n";
  }
  if (!sum.failures.empty()) {
    out += "  " + trf("skipped {} file(s) that could not be read or are not images:", sum.failures.size()) + "\n";
    constexpr size_t kShown = 20;
    for (size_t i = 0; i < sum.failures.size() && i < kShown; ++i) {
      out += fmt::format("    {}: {}\n", core::escape_bytes(sum.failures[i].path),
                         core::escape_bytes(sum.failures[i].reason));
    }
    if (sum.failures.size() > kShown) out += "    " + trf("... and {} more", sum.failures.size() - kShown) + "\n";
  }
  return core::wrap_lines(out, width);
}

}  // namespace tfrig::tfrecord
