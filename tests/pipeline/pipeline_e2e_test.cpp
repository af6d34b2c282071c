// tfrig pipeline end to end on small generated datasets (a few hundred tiny
// JPEGs made with TurboJPEG, and the same packed into TFRecord shards), with
// short time budgets. The checks are about direction, never speed: slowing a
// stage must make it the shortest stave.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "bench/cuda_api.h"
#include "codec/jpeg.h"
#include "pipeline/demand.h"
#include "pipeline/measure.h"
#include "pipeline/report.h"
#include "plan/catalog_adapter.h"
#include "test_support.h"
#include "tfrecord/pack.h"

namespace tfrig::pipeline {
namespace {

namespace fs = std::filesystem;

// 240 JPEGs of 320x240 in two class folders (encoded once per test run).
const codec::JpegSet& images() {
  static const codec::JpegSet set = [] {
    auto s = codec::generate_jpegs(240, 320, 240, 90, 1);
    return s ? *s : codec::JpegSet{};
  }();
  return set;
}

void make_dataset(const std::string& dir) {
  const codec::JpegSet* set = &images();
  ASSERT_EQ(set->images.size(), 240u);
  for (size_t i = 0; i < set->images.size(); ++i) {
    const std::string cls = dir + (i % 2 ? "/cat" : "/dog");
    fs::create_directories(cls);
    test::write_file(fmt::format("{}/{:04}.jpg", cls, i), set->images[i]);
  }
}

// tfrig pack of a folder into 1 MB shards on one writer (as a user would
// before running pipeline on the shards).
auto pack_into_shards(const std::string& src, const std::string& out) {
  tfrecord::PackOptions po;
  po.src = src;
  po.out_dir = out;
  po.plan.shard_size_bytes = 1000 * 1000;
  po.jobs = 1;
  fs::create_directories(po.out_dir);
  return tfrecord::run_pack(po);
}

MeasureOptions quick(const std::string& dir, const std::string& scratch, int threads) {
  MeasureOptions o;
  o.data_dir = dir;
  o.scratch_parent = scratch;
  o.threads = threads;
  o.stage_seconds = 0.2;
  o.measure_memory = false;  // bench's memory test has its own tests; keep this fast
  o.measure_pcie = false;
  o.estimated_link_bytes_per_s = 31.5e9;
  o.estimated_link_detail = core::Message("PCIe 4.0 x16");
  return o;
}

Demand demand_of(double samples_per_s) {
  Demand d;
  d.gpu = Stage{kGpu, samples_per_s, Origin::kAssumed, core::Message("test")};
  d.model_name = "test";
  return d;
}

TEST(PipelineE2E, OneThreadAgainstAFastGpuNamesDecode) {
  test::TempDir dir;
  make_dataset(dir.file("data"));
  std::atomic<bool> cancelled{false};
  auto m = measure_stages(quick(dir.file("data"), dir.path(), 1), inventory::Inventory{}, cancelled);
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->files_total, 240u);
  EXPECT_FALSE(m->input_is_tfrecord);
  ASSERT_TRUE(m->tfrecord_samples_per_s);  // the pack what-if ran in the scratch dir
  EXPECT_GT(m->decode_per_core, 0);
  ReportInputs in;
  in.data_dir = dir.file("data");
  in.demand = demand_of(1e7);
  in.measured = *m;
  const Report r = build_report(in);
  EXPECT_EQ(r.barrel.bottleneck, kDecode) << render_text(r, "en");
  EXPECT_LT(r.barrel.predicted_utilization, 0.5);
  for (const auto& s : r.barrel.stages) EXPECT_GT(s.samples_per_s, 0) << s.name;
  EXPECT_EQ(find_stage(r.barrel, kHostToDevice)->origin, Origin::kEstimated);
  // The scratch directory is gone.
  for (const auto& name : test::list_dir(dir.path())) EXPECT_EQ(name.rfind("tfrig-bench-", 0), std::string::npos) << name;
}

// A GPU in the inventory asks bench's pcie test for the host-to-device
// stave; without a CUDA driver library bench's reason becomes the note and
// the stave is estimated from this GPU's own link instead.
TEST(PipelineE2E, AnUnmeasuredHostToDeviceStaveSaysWhyAndUsesTheGpusLink) {
  test::TempDir dir;
  make_dataset(dir.file("data"));
  MeasureOptions o = quick(dir.file("data"), dir.path(), 1);
  o.measure_pcie = true;
  o.pack_what_if = false;
  inventory::Inventory inv;
  inventory::Gpu gpu;
  gpu.index = 0;
  gpu.pcie_link_gen_max = 3;
  gpu.pcie_link_width_max = 8;
  inv.gpus.push_back(gpu);
  ::setenv("TFRIG_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
  // The driver library is loaded once per process: when another test in
  // this process (or a real driver) got there first, there is no failure to see.
  auto driver = bench::cuda::load_driver();
  if (driver) {
    ::unsetenv("TFRIG_CUDA_LIBRARY");
    GTEST_SKIP() << "a CUDA driver library is already loaded in this process";
  }
  std::atomic<bool> cancelled{false};
  auto m = measure_stages(o, inv, cancelled);
  ::unsetenv("TFRIG_CUDA_LIBRARY");
  ASSERT_TRUE(m) << m.error().to_string();
  bool noted = false;
  std::vector<std::string> notes;
  for (const auto& n : m->notes) {
    notes.push_back(core::english(n));
    noted = noted || notes.back() == "host-to-device copies not measured: " + driver.error().where + " not found: no NVIDIA driver";
  }
  EXPECT_TRUE(noted) << fmt::format("{}", fmt::join(notes, " | "));
  const Stage* h2d = nullptr;
  for (const auto& s : m->stages) h2d = s.name == kHostToDevice ? &s : h2d;
  ASSERT_NE(h2d, nullptr);
  EXPECT_EQ(h2d->origin, Origin::kEstimated);
  EXPECT_NE(core::english(h2d->detail).find("this machine's GPU link, PCIe gen 3 x8"), std::string::npos) << core::english(h2d->detail);
}

// A JPEG cut in half keeps a valid header but fails its full decode, as
// tf.io.decode_jpeg fails on it. In a folder it is left out when the set is
// loaded; packed into TFRecord shards (pack reads only headers) it reaches
// the decode stage, where it is counted and skipped: either way the decode
// stave is measured on the other images and the verdict does not change.
TEST(PipelineE2E, OneTruncatedJpegIsCountedNotAVerdict) {
  test::TempDir dir;
  make_dataset(dir.file("data"));
  // Twelve images, so that even a slow (sanitizer) build decodes each one
  // within the measurement and meets the bad one.
  for (const auto& cls : {"cat", "dog"}) {
    for (const auto& e : fs::directory_iterator(dir.file("data") + "/" + cls)) {
      if (std::stoi(e.path().stem().string()) >= 12) fs::remove(e.path());
    }
  }
  const std::string cut = dir.file("data") + "/cat/0001.jpg";
  const std::string whole = test::read_file(cut);
  test::write_file(cut, whole.substr(0, whole.size() / 2));
  auto packed = pack_into_shards(dir.file("data"), dir.file("shards"));
  ASSERT_TRUE(packed) << packed.error().error.to_string();
  std::atomic<bool> cancelled{false};
  for (const std::string input : {"data", "shards"}) {
    auto o = quick(dir.file(input), dir.path(), 1);
    o.pack_what_if = false;
    o.stage_seconds = 0.5;
    auto m = measure_stages(o, inventory::Inventory{}, cancelled);
    ASSERT_TRUE(m) << input << ": " << m.error().to_string();
    ReportInputs in;
    in.data_dir = dir.file(input);
    in.demand = demand_of(1e7);
    in.measured = *m;
    const Report r = build_report(in);
    const std::string text = render_text(r, "en", 1000);  // the words searched for, on one line
    ASSERT_NE(find_stage(r.barrel, kDecode), nullptr) << text;
    EXPECT_GT(find_stage(r.barrel, kDecode)->samples_per_s, 0) << text;
    // The GPU's demand (1e7/s) is far above any CPU stave, so dropping the
    // decode stave made the GPU the shortest. Which CPU-side stave is shortest
    // (decode or, on a loaded machine, storage) is timing and not asserted.
    EXPECT_FALSE(r.barrel.bottleneck.empty()) << text;
    EXPECT_NE(r.barrel.bottleneck, kGpu) << text;
    EXPECT_NE(text.find("Premature end of JPEG file"), std::string::npos) << text;
    if (input == "shards") {
      EXPECT_EQ(m->decode_failures, 1u) << text;
      EXPECT_NE(text.find("1 of 12 sampled image(s) failed to decode and were skipped"), std::string::npos) << text;
      EXPECT_EQ(render_json(r, "en")["measurement"]["decode_failures"], 1);
    } else {
      EXPECT_NE(text.find("1 file(s) are not decodable JPEGs"), std::string::npos) << text;
    }
  }
}

TEST(PipelineE2E, SlowGpuMakesTheGpuTheShortestStave) {
  test::TempDir dir;
  make_dataset(dir.file("data"));
  std::atomic<bool> cancelled{false};
  auto o = quick(dir.file("data"), dir.path(), 1);
  o.pack_what_if = false;
  auto m = measure_stages(o, inventory::Inventory{}, cancelled);
  ASSERT_TRUE(m) << m.error().to_string();
  ReportInputs in;
  in.data_dir = dir.file("data");
  in.demand = demand_of(1.0);  // one sample a second: every input stage keeps up
  in.measured = *m;
  const Report r = build_report(in);
  EXPECT_EQ(r.barrel.bottleneck, kGpu);
  EXPECT_DOUBLE_EQ(r.barrel.predicted_utilization, 1.0);
  ASSERT_TRUE(r.epoch_seconds);
  EXPECT_NEAR(*r.epoch_seconds, 240.0, 1e-9);
}

TEST(PipelineE2E, TfRecordShardsAreStreamedAndDecodedFromTheirExamples) {
  test::TempDir dir;
  make_dataset(dir.file("data"));
  auto packed = pack_into_shards(dir.file("data"), dir.file("shards"));
  ASSERT_TRUE(packed) << packed.error().error.to_string();
  ASSERT_GE(packed->shard_paths.size(), 2u);
  // pack's output folder as it is: shards, their indexes and the label map.
  std::atomic<bool> cancelled{false};
  auto m = measure_stages(quick(dir.file("shards"), dir.path(), 1), inventory::Inventory{}, cancelled);
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_TRUE(m->input_is_tfrecord);
  EXPECT_FALSE(m->tfrecord_samples_per_s);  // already TFRecord: no pack what-if
  ASSERT_FALSE(m->stages.empty());
  EXPECT_EQ(m->stages[0].name, kStorage);
  EXPECT_NE(core::english(m->stages[0].detail).find("records"), std::string::npos);
  EXPECT_GT(m->decode_per_core, 0);
  EXPECT_GT(m->avg_sample_bytes, 1000);
  EXPECT_EQ(m->files_sampled, packed->shard_paths.size());
  for (const auto& n : m->notes) EXPECT_EQ(core::english(n).find("TFRecord read"), std::string::npos) << core::english(n);  // no index read as a shard
}

TEST(PipelineE2E, MissingOrEmptyDirectoryIsAClearError) {
  test::TempDir dir;
  std::atomic<bool> cancelled{false};
  auto m = measure_stages(quick(dir.file("nope"), dir.path(), 1), inventory::Inventory{}, cancelled);
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().to_string().find("nope"), std::string::npos);
  m = measure_stages(quick(dir.path(), dir.path(), 1), inventory::Inventory{}, cancelled);
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().to_string().find("no regular files"), std::string::npos);
}

TEST(PipelineDemand, Rtx4090ResNet50FromThePlanModel) {
  const auto catalog = plan::plan_gpus_from_catalog();
  ASSERT_FALSE(catalog.empty());
  const plan::GpuCandidate* g = find_gpu(catalog, "NVIDIA GeForce RTX 4090");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(find_gpu(catalog, "rtx 4090"), g);  // the shortest name containing it
  DemandRequest req;
  req.gpu = "NVIDIA GeForce RTX 4090";
  auto d = resolve_demand(req, inventory::Inventory{}, catalog);
  ASSERT_TRUE(d) << d.error().to_string();
  EXPECT_GT(d->gpu.samples_per_s, 0);
  EXPECT_NE(d->gpu.origin, Origin::kAssumed);
  ASSERT_TRUE(d->mixed_samples_per_s);
  EXPECT_GT(*d->mixed_samples_per_s, d->gpu.samples_per_s);
  ASSERT_TRUE(d->link_bytes_per_s);  // Ada: PCIe 4.0 x16
  EXPECT_NEAR(*d->link_bytes_per_s, 31.5e9, 0.1e9);
  req.gpu = "auto";  // no GPU here and none named
  auto none = resolve_demand(req, inventory::Inventory{}, catalog);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().to_string().find("--samples-per-s"), std::string::npos);
  req.gpu = "Voodoo 5";
  EXPECT_FALSE(resolve_demand(req, inventory::Inventory{}, catalog));
}

TEST(PipelineCli, JsonContractAndDecodeBottleneck) {
  test::TempDir dir;
  make_dataset(dir.file("data"));
  auto r = test::run_tfrig({"pipeline", "--data", dir.file("data"), "--samples-per-s", "10000000", "--threads", "1",
                            "--seconds", "0.2", "--no-pack", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["bottleneck"], "decode");
  std::set<std::string> names;
  for (const auto& s : j["stages"]) {
    names.insert(s["name"].get<std::string>());
    const std::string origin = s["origin"];
    EXPECT_TRUE(origin == "measured" || origin == "estimated" || origin == "assumed") << origin;
  }
  for (const char* n : {"storage", "decode", "gpu"}) EXPECT_EQ(names.count(n), 1u) << n;
  EXPECT_EQ(j["gpu_demand_samples_per_s"].get<double>(), 1e7);
  const double u = j["predicted_gpu_utilization"];
  EXPECT_GE(u, 0.0);
  EXPECT_LE(u, 1.0);
  ASSERT_TRUE(j["what_if"].is_array());
  for (const auto& w : j["what_if"]) {
    EXPECT_TRUE(w.contains("change"));
    EXPECT_TRUE(w.contains("predicted_gpu_utilization"));
  }
}

TEST(PipelineCli, NonUtf8ClassAndFileNamesKeepTheJsonValid) {
  // The TFRecord what-if packs a sample: a Latin-1 class folder and file
  // name reach its label map and the report (they crashed the JSON once).
  test::TempDir dir;
  make_dataset(dir.file("data"));
  fs::rename(dir.file("data/cat"), dir.file("data/caf\xe9"));
  fs::rename(dir.file("data/dog/0000.jpg"), dir.file("data/dog/\xff\xfe.jpg"));
  auto r = test::run_tfrig({"pipeline", "--data", dir.file("data"), "--samples-per-s", "1000", "--threads", "1",
                            "--seconds", "0.2", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  ASSERT_TRUE(nlohmann::json::accept(r.out)) << r.out;
  bool tfrecord_what_if = false;
  const auto j = nlohmann::json::parse(r.out);
  for (const auto& w : j.at("what_if")) {
    if (w.at("id") == "tfrecord") tfrecord_what_if = true;
  }
  EXPECT_TRUE(tfrecord_what_if) << r.out;
}

TEST(PipelineCli, AutoGpuFromThisMachinesNvml) {
  // --gpu auto takes the GPU the inventory finds: here the fake NVML's H100.
  test::TempDir dir;
  make_dataset(dir.file("data"));
  test::RunOptions env;
  env.env = {std::string("TFRIG_NVML_LIBRARY=") + TFRIG_FAKE_NVML,
             "TFRIG_FAKE_NVML_CAPTURE=" + test::data_dir() + "/watch/fake-nvml-h100-load.json"};
  auto r = test::run_tfrig({"pipeline", "--data", dir.file("data"), "--model", "resnet50", "--threads", "1", "--seconds", "0.2",
                            "--no-pack", "--format", "json"},
                           env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["gpu"], "NVIDIA H100 SXM5 80GB");  // matched to the catalog by its PCI device id 0x2330
  EXPECT_GT(j["gpu_demand_samples_per_s"].get<double>(), 0);
  // No CUDA here: the link is this machine's GPU link (gen 5 x16 from NVML), estimated.
  bool seen = false;
  for (const auto& s : j["stages"]) {
    if (s["name"] != "host_to_device") continue;
    seen = true;
    EXPECT_EQ(s["origin"], "estimated");
  }
  EXPECT_TRUE(seen);
}

TEST(PipelineCli, UsageErrors) {
  auto r = test::run_tfrig({"pipeline", "--data", "/nonexistent-dir", "--samples-per-s", "10"});
  EXPECT_EQ(r.exit_code, 66) << r.err;
  r = test::run_tfrig({"pipeline", "--data", "/tmp", "--model", "resnet50", "--samples-per-s", "10"});
  EXPECT_EQ(r.exit_code, 64) << r.err;
  r = test::run_tfrig({"pipeline", "--data", "/tmp", "--gpu", "Voodoo 5"});
  EXPECT_EQ(r.exit_code, 64) << r.err;
}

// As in plan: a --rent/--buy name that names no catalog GPU would leave every
// cost cell "-"; it is refused before anything is measured, with the nearest
// names.
TEST(PipelineCli, UnknownRentOrBuyNameIsRefusedWithTheNearestNames) {
  test::TempDir dir;
  auto r = test::run_tfrig({"pipeline", "--data", dir.path(), "--samples-per-s", "10", "--epochs", "1", "--rent", "RTX 4090X=1.5"});
  EXPECT_EQ(r.exit_code, 64) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("--rent"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'RTX 4090X'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("NVIDIA GeForce RTX 4090"), std::string::npos) << r.err;
  auto b = test::run_tfrig({"pipeline", "--data", dir.path(), "--samples-per-s", "10", "--epochs", "1", "--buy", "H2O=100000"});
  EXPECT_EQ(b.exit_code, 64) << b.err;
  EXPECT_NE(b.err.find("NVIDIA H20"), std::string::npos) << b.err;
}

}  // namespace
}  // namespace tfrig::pipeline
