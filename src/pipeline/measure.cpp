#include "pipeline/measure.h"

#include <sched.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "codec/jpeg.h"
#include "bench/runner.h"
#include "bench/scratch.h"
#include "bench/storage.h"
#include "core/clock.h"
#include "core/i18n.h"
#include "core/message.h"
#include "core/text.h"
#include "core/try.h"
#include "core/units.h"
#include "knowledge/pcie.h"
#include "tfrecord/example.h"
#include "tfrecord/pack.h"
#include "tfrecord/record.h"

namespace tfrig::pipeline {

double sample_tensor_bytes() { return static_cast<double>(codec::kCropSize) * codec::kCropSize * 3 * 4; }

namespace {

namespace fs = std::filesystem;

// ASSUMED: pinned host-to-device copies reach about 80% of the link's
// theoretical rate (CUDA bandwidthTest on x16 Gen3/Gen4 links typically
// shows 12-13 of 15.75 GB/s and 24-26 of 31.5 GB/s).
constexpr double kPcieEfficiency = 0.80;
// ASSUMED: each sample is copied twice in host memory after augmentation
// (into the batch, then into the pinned staging buffer).
constexpr double kHostCopiesPerSample = 2.0;

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

// Files tfrig pack (and most tools) keep next to the shards: indexes, the
// label map, manifests. They are neither samples nor shards.
bool is_sidecar_name(const std::string& path) {
  const std::string name = core::to_lower(fs::path(path).filename().string());
  return core::ends_with(name, ".json") || core::ends_with(name, ".txt") || core::ends_with(name, ".csv") ||
         name.find(".tmp-") != std::string::npos;
}

bool is_tfrecord_name(const std::string& path) {
  if (is_sidecar_name(path)) return false;
  const std::string name = core::to_lower(fs::path(path).filename().string());
  return name.find(".tfrecord") != std::string::npos || name.find("tfrecord-") != std::string::npos ||
         core::ends_with(name, ".tfrec");
}

struct ReadRun {
  uint64_t items = 0;  // files or records
  uint64_t bytes = 0;
  double seconds = 0;
};

// Small files read in chunks until `seconds` pass (at least one chunk).
ReadRun read_files_timed(const std::vector<std::string>& files, int threads, double seconds,
                         const std::atomic<bool>& cancelled) {
  ReadRun r;
  core::Stopwatch w;
  const size_t chunk = static_cast<size_t>(std::max(64, threads * 16));
  for (size_t i = 0; i < files.size() && !cancelled.load(); i += chunk) {
    std::vector<std::string> part(files.begin() + static_cast<std::ptrdiff_t>(i),
                                  files.begin() + static_cast<std::ptrdiff_t>(std::min(files.size(), i + chunk)));
    auto st = bench::read_files_parallel(part, threads, cancelled);
    r.items += st.files;
    r.bytes += st.bytes;
    if (w.seconds() >= seconds) break;
  }
  r.seconds = w.seconds();
  return r;
}

// TFRecord shards streamed record by record (framing and CRCs checked, as
// TFRecordDataset does), one shard per thread, until `seconds` pass.
ReadRun stream_tfrecords(const std::vector<std::string>& shards, int threads, double seconds,
                         const std::atomic<bool>& cancelled, std::string& error) {
  std::atomic<size_t> next{0};
  std::atomic<uint64_t> records{0}, bytes{0};
  std::mutex m;
  core::Stopwatch w;
  auto worker = [&] {
    for (size_t i = next++; i < shards.size(); i = next++) {
      auto reader = tfrecord::RecordReader::open(shards[i]);
      if (!reader) {
        std::lock_guard lock(m);
        if (error.empty()) error = reader.error().to_string();
        continue;
      }
      while (!cancelled.load(std::memory_order_relaxed)) {
        auto rec = reader->next();
        if (!rec) {
          std::lock_guard lock(m);
          if (error.empty()) error = rec.error().to_string(shards[i]);
          break;
        }
        if (!*rec) break;
        records.fetch_add(1, std::memory_order_relaxed);
        bytes.fetch_add((*rec)->size(), std::memory_order_relaxed);
        if ((records.load(std::memory_order_relaxed) & 63) == 0 && w.seconds() >= seconds) return;
      }
      if (w.seconds() >= seconds) return;
    }
  };
  const int n = std::max(1, std::min<int>(threads, static_cast<int>(shards.size())));
  {
    // The caller is worker 0; the others join when this scope ends (also
    // when a worker throws, where std::thread would call std::terminate).
    std::vector<std::jthread> pool;
    for (int t = 1; t < n; ++t) pool.emplace_back(worker);
    worker();
  }
  return ReadRun{records.load(), bytes.load(), w.seconds()};
}

// The JPEGs inside TFRecord shards (image/encoded), for the decode stage.
codec::JpegSet jpegs_from_tfrecords(const std::vector<std::string>& shards, size_t max_images, uint64_t max_bytes) {
  codec::JpegSet set;
  uint64_t total = 0;
  for (const auto& path : shards) {
    auto reader = tfrecord::RecordReader::open(path);
    if (!reader) continue;
    while (set.images.size() < max_images) {
      auto rec = reader->next();
      if (!rec || !*rec) break;
      auto ex = tfrecord::decode_example(**rec);
      if (!ex) continue;
      auto it = ex->find("image/encoded");
      if (it == ex->end() || it->second.bytes.empty()) continue;
      const auto img = it->second.bytes.front();
      if (total + img.size() > max_bytes) return set;
      total += img.size();
      set.images.emplace_back(img);
      set.names.push_back(fmt::format("{}#{}", path, reader->records_read()));
    }
    if (set.images.size() >= max_images) break;
  }
  return set;
}

// One metric of one of bench's benchmarks (its median), or why there is
// none: the benchmark's own reason (no GPU, no CUDA) is what the note says.
core::Result<double> bench_metric(const std::string& id, const std::string& metric, const bench::Config& config,
                                  const inventory::Inventory& inv, const std::atomic<bool>& cancelled) {
  const auto report = TFRIG_TRY(bench::run_benchmarks({id}, config, inv, cancelled));
  core::Message why;
  for (const auto& m : report.results) {
    if (m.metric != metric) continue;
    if (m.status == bench::Status::kOk && m.median > 0) return m.median;
    why = m.reason.empty() ? core::Message("{}", std::string(bench::status_name(m.status))) : m.reason;
  }
  if (why.empty()) why = core::Message(N_("{} not reported"), metric);
  return core::fail(core::ErrorCode::kUnsupported, "", why);
}

// A stage's detail and the clause after it ("; warm ..."): each its own
// message, rendered in the output's language.
core::Message detail_then(core::Message detail, core::Message clause) {
  return core::Message("{0}{1}", std::move(detail), std::move(clause));
}

// The dataset as the stages see it: the sampled files, and the TFRecord
// shards among them.
struct Listing {
  std::vector<std::string> files;
  std::vector<std::string> shards;
};

// Lists the dataset (totals over the whole folder, a sample of its files)
// and decides whether it is a folder of shards or of samples.
core::Result<Listing> list_input(const MeasureOptions& o, Measured& out) {
  const bench::DatasetTotals totals = TFRIG_TRY(bench::dataset_totals(o.data_dir));
  out.files_total = totals.files;
  out.bytes_total = totals.bytes;
  auto listed = TFRIG_TRY(bench::list_dataset(o.data_dir, o.max_files));
  Listing l;
  l.files = std::move(listed);
  if (l.files.empty())
    return core::fail(core::ErrorCode::kNotFound, o.data_dir, _("no regular files in the dataset directory"));
  size_t sidecars = 0;
  for (const auto& f : l.files) {
    if (is_tfrecord_name(f)) l.shards.push_back(f);
    if (is_sidecar_name(f)) ++sidecars;
  }
  // A folder of shards (with tfrig pack's indexes and label map beside them).
  out.input_is_tfrecord = !l.shards.empty() && l.shards.size() * 2 > l.files.size() - sidecars;
  out.files_sampled = out.input_is_tfrecord ? l.shards.size() : l.files.size();
  return l;
}

// The storage stave of a folder of samples: the files read cold (after
// dropping them from the page cache), then the part read re-read warm.
core::Status measure_file_storage(const MeasureOptions& o, const std::vector<std::string>& files, int threads,
                                  const std::atomic<bool>& cancelled, const StepFn& say, Measured& out) {
  say(_("storage: cold reads of the dataset's files"));
  bench::drop_page_cache(files);
  const double resident = bench::resident_fraction(files, 200);
  if (resident > 0.5) {
    out.notes.push_back(
        core::Message(N_("{0:.0f}% of the files stayed in the page cache after asking the kernel to drop them "
                         "(pages mapped by another process?): the cold read is partly warm"),
                      resident * 100));
  }
  const ReadRun cold = read_files_timed(files, threads, o.stage_seconds, cancelled);
  if (cold.items == 0 || cold.seconds <= 0)
    return core::fail(core::ErrorCode::kIo, o.data_dir, _("no file could be read"));
  out.avg_sample_bytes = static_cast<double>(cold.bytes) / static_cast<double>(cold.items);
  out.stages.push_back(
      Stage{kStorage, static_cast<double>(cold.items) / cold.seconds, Origin::kMeasured,
            // TRANSLATORS: {0} files of {1} in all read cold on {2} threads in {3} (a duration), at {4} (a rate).
            core::Message::plural(NP_("{0} files ({1}) read cold on {2} thread in {3}, {4}",
                                      "{0} files ({1}) read cold on {2} threads in {3}, {4}"),
                                  static_cast<uint64_t>(threads), cold.items, core::format_bytes_binary(cold.bytes),
                                  threads, core::seconds_message(cold.seconds),
                                  core::format_rate(static_cast<double>(cold.bytes) / cold.seconds))});
  say(_("storage: warm re-reads"));
  std::vector<std::string> read_part(
      files.begin(), files.begin() + static_cast<std::ptrdiff_t>(std::min<uint64_t>(files.size(), cold.items)));
  const ReadRun warm = read_files_timed(read_part, threads, o.stage_seconds / 2, cancelled);
  if (warm.items > 0 && warm.seconds > 0) {
    out.warm_storage_samples_per_s = static_cast<double>(warm.items) / warm.seconds;
    out.stages.back().detail =
        detail_then(std::move(out.stages.back().detail),
                    core::Message(N_("; warm (page cache) {0:.0f} files/s"), *out.warm_storage_samples_per_s));
  }
  return {};
}

// The storage stave of a folder of shards: records streamed cold, then warm.
core::Status measure_shard_storage(const MeasureOptions& o, const std::vector<std::string>& shards, int threads,
                                   const std::atomic<bool>& cancelled, const StepFn& say, Measured& out) {
  say(_("storage: TFRecord shards streamed cold"));
  bench::drop_page_cache(shards);
  std::string err;
  const ReadRun cold = stream_tfrecords(shards, threads, o.stage_seconds, cancelled, err);
  if (!err.empty()) out.notes.push_back(core::Message(N_("TFRecord read: {0}"), err));
  if (cold.items == 0 || cold.seconds <= 0)
    return core::fail(core::ErrorCode::kIo, o.data_dir, _("no TFRecord record could be read"));
  out.avg_sample_bytes = static_cast<double>(cold.bytes) / static_cast<double>(cold.items);
  out.stages.push_back(
      Stage{kStorage, static_cast<double>(cold.items) / cold.seconds, Origin::kMeasured,
            // TRANSLATORS: {0} records of {1} in all from {2} shards in {3} (a duration), at {4} (a rate).
            core::Message(N_("{0} records ({1}) streamed cold from {2} shard(s) in {3}, {4}"), cold.items,
                          core::format_bytes_binary(cold.bytes), shards.size(), core::seconds_message(cold.seconds),
                          core::format_rate(static_cast<double>(cold.bytes) / cold.seconds))});
  std::string err2;
  const ReadRun warm = stream_tfrecords(shards, threads, o.stage_seconds / 2, cancelled, err2);
  if (warm.items > 0 && warm.seconds > 0) {
    out.warm_storage_samples_per_s = static_cast<double>(warm.items) / warm.seconds;
    out.stages.back().detail =
        detail_then(std::move(out.stages.back().detail),
                    core::Message(N_("; warm (page cache) {0:.0f} records/s"), *out.warm_storage_samples_per_s));
  }
  return {};
}

// The decode stave: the dataset's JPEGs (or those inside its shards) decoded
// and augmented on every thread, and on one for the per-core rate.
void measure_decode(const MeasureOptions& o, const std::vector<std::string>& shards, int threads,
                    const std::atomic<bool>& cancelled, Measured& out) {
  codec::JpegSet set;
  if (out.input_is_tfrecord) {
    set = jpegs_from_tfrecords(shards, o.max_files, o.max_decode_bytes);
  } else if (auto listed = bench::list_dataset(o.data_dir, o.max_files)) {
    set = codec::load_jpegs(*listed, o.max_decode_bytes);
  }
  if (set.images.empty()) {
    out.notes.push_back(core::Message(N_("no JPEG in the dataset decoded, so the decode stage was not measured")));
    return;
  }
  codec::DecodeFailures failed_all, failed_one;
  auto all = codec::decode_sample(set, threads, true, o.stage_seconds, cancelled, 7, &failed_all);
  auto one = threads == 1 ? all : codec::decode_sample(set, 1, true, o.stage_seconds / 2, cancelled, 11, &failed_one);
  // A file that fails its full decode is skipped and counted: the stave is
  // measured on the rest, and the report says how many failed.
  const codec::DecodeFailures& failed = failed_all.images >= failed_one.images ? failed_all : failed_one;
  if (failed.images > 0) {
    out.decode_failures = failed.images;
    // TRANSLATORS: {2} is the decoder's own error message, left as it is.
    out.notes.push_back(core::Message(N_("{0} of {1} sampled image(s) failed to decode and were skipped (first: {2})"),
                                      failed.images, set.images.size(), failed.first_error));
  }
  if (all && one) {
    out.decode_per_core = *one;
    out.stages.push_back(Stage{
        kDecode, *all, Origin::kMeasured,
        core::Message::plural(
            // TRANSLATORS: {0} images, {1}x{2} the crop, {3} threads, {4} images/s on one core.
            NP_("{0} JPEG(s) decoded with TurboJPEG + random resized crop {1}x{2}, flip, normalise; {3} thread; {4:.0f}/s on one core",
                "{0} JPEG(s) decoded with TurboJPEG + random resized crop {1}x{2}, flip, normalise; {3} threads; {4:.0f}/s on one core"),
            static_cast<uint64_t>(threads), set.images.size(), codec::kCropSize, codec::kCropSize, threads, *one)});
  } else {
    out.notes.push_back(core::Message(N_("decode failed: {0}"), bench::error_reason(all ? one.error() : all.error())));
  }
  if (!set.rejected.empty()) {
    out.notes.push_back(core::Message(N_("{0} file(s) are not decodable JPEGs and were left out of decode; first: {1}"),
                                      set.rejected.size(), set.rejected.front()));
  }
}

// bench's memory and pcie tests, shortened to fit the stage time.
bench::Config stage_bench_config(const MeasureOptions& o, int threads) {
  bench::Config cfg;
  cfg.threads = threads;
  cfg.quick = true;
  cfg.repetitions = 3;
  cfg.warmup = 0;
  cfg.budget_seconds = std::max(0.5, o.stage_seconds * 2);
  cfg.sample_seconds = std::max(0.05, o.stage_seconds / 4);
  cfg.scratch_parent = o.scratch_parent;
  return cfg;
}

// The host-memory stave: bench's copy rate over the copies each sample takes.
void measure_host_memory(const bench::Config& cfg, const inventory::Inventory& inv, int threads,
                         const std::atomic<bool>& cancelled, Measured& out) {
  auto gbs = bench_metric("memory", threads == 1 ? "copy_1_thread" : "copy_all_threads", cfg, inv, cancelled);
  if (gbs) {
    const double rate = *gbs * 1e9 / (kHostCopiesPerSample * sample_tensor_bytes());
    out.stages.push_back(Stage{
        kHostMemory, rate, Origin::kMeasured,
        // TRANSLATORS: {0} GB/s, {1} copies, {2} the bytes of one sample.
        core::Message(N_("memory copy at {0:.1f} GB/s (tfrig bench memory) / {1} copies of a {2} float32 sample"), *gbs,
                      kHostCopiesPerSample, core::format_bytes_binary(static_cast<uint64_t>(sample_tensor_bytes())))});
  } else {
    out.notes.push_back(core::Message(N_("host memory not measured: {0}"), bench::error_reason(gbs.error())));
  }
}

// The host-to-device stave measured with bench's pinned copies; false (with
// a note) when it could not be.
bool measure_host_to_device(const bench::Config& cfg, const inventory::Inventory& inv,
                            const std::atomic<bool>& cancelled, Measured& out) {
  auto gbs = bench_metric("pcie", "h2d_pinned", cfg, inv, cancelled);
  if (gbs) {
    out.stages.push_back(
        Stage{kHostToDevice, *gbs * 1e9 / sample_tensor_bytes(), Origin::kMeasured,
              core::Message(N_("pinned host-to-device copies at {0:.1f} GB/s (tfrig bench pcie)"), *gbs)});
    return true;
  }
  out.notes.push_back(core::Message(N_("host-to-device copies not measured: {0}"), bench::error_reason(gbs.error())));
  return false;
}

// The host-to-device stave without a measurement: this machine's GPU link,
// else the catalog's for the planned GPU, else an assumed PCIe 4.0 x16.
Stage estimated_host_to_device(const MeasureOptions& o, const inventory::Inventory& inv) {
  std::optional<double> link;
  core::Message detail;
  for (const auto& g : inv.gpus) {
    if (g.pcie_link_gen_max && g.pcie_link_width_max) {
      link = knowledge::pcie_link_bytes_per_second(*g.pcie_link_gen_max, *g.pcie_link_width_max);
      detail =
          core::Message(N_("this machine's GPU link, PCIe gen {0} x{1}"), *g.pcie_link_gen_max, *g.pcie_link_width_max);
      break;
    }
  }
  if (!link && o.estimated_link_bytes_per_s) {
    link = o.estimated_link_bytes_per_s;
    detail = o.estimated_link_detail;
  }
  Origin origin = Origin::kEstimated;
  if (!link) {
    // docs/guide.md: x16 per GPU; PCIe 4.0 is the generation of current
    // mainstream boards (Ampere, Ada).
    link = knowledge::pcie_link_bytes_per_second(4, 16);
    detail = core::Message(N_("no GPU to read the link from: PCIe 4.0 x16 ASSUMED (docs/guide.md: x16 per GPU)"));
    origin = Origin::kAssumed;
  }
  return Stage{kHostToDevice, *link * kPcieEfficiency / sample_tensor_bytes(), origin,
               // TRANSLATORS: {0} where the link comes from, {1} its theoretical rate, {2} the assumed efficiency.
               core::Message(N_("{0}: {1} theoretical x {2:.0f}% (ASSUMED efficiency of pinned copies)"),
                             std::move(detail), core::format_rate(*link), kPcieEfficiency * 100)};
}

// A manifest of the sample (at most 64 MiB of it) so pack reads exactly
// those files. CSV, not JSON Lines: a file name may be any bytes (not
// UTF-8), and a quoted CSV field holds them exactly (RFC 4180).
std::string sample_manifest(const std::vector<std::string>& files) {
  std::string manifest = "path\n";
  uint64_t bytes = 0;
  size_t count = 0;
  for (const auto& f : files) {
    std::error_code e;
    const uint64_t size = fs::file_size(f, e);
    if (e) continue;
    if (bytes + size > (64ull << 20) && count > 0) break;
    bytes += size;
    ++count;
    manifest += '"';
    for (char c : fs::absolute(f, e).string()) {
      if (c == '"') manifest += '"';
      manifest += c;
    }
    manifest += "\"\n";
  }
  return manifest;
}

// The what-if: the same files packed into TFRecord shards in a scratch
// folder and streamed cold, for the rate the storage stave would have.
void measure_tfrecord_what_if(const MeasureOptions& o, const std::vector<std::string>& files, int threads,
                              const std::atomic<bool>& cancelled, Measured& out) {
  auto scratch = bench::ScratchDir::create(o.scratch_parent);
  if (!scratch) {
    out.notes.push_back(core::Message(N_("TFRecord what-if not measured: {0}"), bench::error_reason(scratch.error())));
    return;
  }
  std::ofstream(scratch->file("sample.csv"), std::ios::binary) << sample_manifest(files);
  tfrecord::PackOptions po;
  po.src = scratch->file("sample.csv");
  po.out_dir = scratch->file("shards");
  po.plan.shard_size_bytes = 16ull * 1000 * 1000;
  po.jobs = static_cast<unsigned>(threads);
  std::error_code ec;
  fs::create_directories(po.out_dir, ec);
  auto packed = tfrecord::run_pack(po);
  if (!packed || packed->shard_paths.empty()) {
    out.notes.push_back(core::Message(
        N_("TFRecord what-if not measured: {0}"),
        packed ? core::Message(N_("no shard written")) : core::Message("{}", packed.error().error.to_string())));
  } else {
    bench::drop_page_cache(packed->shard_paths);
    std::string err;
    const ReadRun run = stream_tfrecords(packed->shard_paths, threads, o.stage_seconds, cancelled, err);
    if (run.items > 0 && run.seconds > 0) {
      out.tfrecord_samples_per_s = static_cast<double>(run.items) / run.seconds;
    } else {
      out.notes.push_back(core::Message(N_("TFRecord what-if: {0}"),
                                        err.empty() ? core::Message(N_("no record read")) : core::Message("{}", err)));
    }
  }
  (void)scratch->remove();
}

}  // namespace

// The stages in the order a sample meets them; each step adds its stave (or
// a note saying why it could not) to `out`.
core::Result<Measured> measure_stages(const MeasureOptions& o, const inventory::Inventory& inv,
                                      const std::atomic<bool>& cancelled, const StepFn& step) {
  const StepFn say = [&](const std::string& s) {
    if (step) step(s);
  };
  Measured out;
  out.threads = o.threads > 0 ? o.threads : usable_cpus();
  const int threads = out.threads;

  say(_("listing the dataset"));
  auto listing = TFRIG_TRY(list_input(o, out));
  const auto& [files, shards] = listing;

  TFRIG_TRY(out.input_is_tfrecord ? measure_shard_storage(o, shards, threads, cancelled, say, out)
                                  : measure_file_storage(o, files, threads, cancelled, say, out));

  say(_("decode: JPEG decode + augmentation"));
  measure_decode(o, shards, threads, cancelled, out);

  const bench::Config cfg = stage_bench_config(o, threads);
  if (o.measure_memory) {
    say(_("host memory: copies"));
    measure_host_memory(cfg, inv, threads, cancelled, out);
  }
  bool h2d = false;
  if (o.measure_pcie && !inv.gpus.empty()) {
    say(_("host to device: pinned copies"));
    h2d = measure_host_to_device(cfg, inv, cancelled, out);
  }
  if (!h2d) out.stages.push_back(estimated_host_to_device(o, inv));

  if (!out.input_is_tfrecord && o.pack_what_if && !cancelled.load()) {
    say(_("what-if: packing a sample into TFRecord shards"));
    measure_tfrecord_what_if(o, files, threads, cancelled, out);
  }
  return out;
}

}  // namespace tfrig::pipeline
