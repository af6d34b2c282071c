// The decode benchmark: codec/jpeg's decode loop on generated ImageNet-like
// photographs or the user's --data folder.
#include <fmt/format.h>

#include "bench/benchmarks.h"
#include "bench/runner.h"
#include "bench/storage.h"
#include "codec/jpeg.h"
#include "core/i18n.h"
#include "core/try.h"

namespace tfrig::bench {

namespace {

using codec::DecodeFailures;
using codec::JpegSet;

// The typical ImageNet photo: 500x375 is the most common size in ILSVRC2012
// (Flickr's "medium" size), quality 90 with 4:2:0 chroma.
constexpr int kImageWidth = 500;
constexpr int kImageHeight = 375;
constexpr int kImageQuality = 90;
constexpr int kGeneratedImages = 32;
constexpr size_t kMaxUserImages = 512;
constexpr uint64_t kMaxUserBytes = 256ull << 20;

class DecodeBenchmark final : public Benchmark {
 public:
  std::string_view id() const override { return "decode"; }
  std::string_view description() const override {
    return N_("TurboJPEG decode to RGB, then random-resized-crop 224 + flip + normalise; one core and all cores");
  }
  std::vector<std::pair<std::string, std::string>> metrics() const override {
    return {{"decode_1_core", "images/s"},
            {"decode_all_cores", "images/s"},
            {"decode_augment_1_core", "images/s"},
            {"decode_augment_all_cores", "images/s"}};
  }
  std::optional<core::Message> skip_reason(const RunContext&) const override { return std::nullopt; }
  void run(const RunContext& ctx, Runner& runner) override;
};

// The user's JPEGs: at most kMaxUserImages files, kMaxUserBytes in all.
core::Result<JpegSet> load_user_jpegs(const std::string& dir) {
  auto files = TFRIG_TRY(list_dataset(dir, kMaxUserImages));
  return codec::load_jpegs(files, kMaxUserBytes);
}

void DecodeBenchmark::run(const RunContext& ctx, Runner& runner) {
  core::Result<JpegSet> set =
      ctx.config.data_dir.empty()
          ? codec::generate_jpegs(ctx.config.quick ? 8 : kGeneratedImages, kImageWidth, kImageHeight, kImageQuality, 42)
          : load_user_jpegs(ctx.config.data_dir);
  core::Message why;
  if (!set) {
    why = error_reason(set.error());
  } else if (set->images.empty()) {
    // Up to three of the rejected files with their reasons: usually one
    // look at them says whether the data is corrupt or just not JPEG.
    core::Message examples("{}", std::string());  // not a catalog pattern: nothing yet
    for (size_t i = 0; i < set->rejected.size() && i < 3; ++i) {
      examples = core::Message("{0}{1}{2}", std::move(examples), core::Message(N_("; ")), set->rejected[i]);
    }
    why = core::Message(N_("{0}: no decodable JPEG ({1} rejected{2})"), ctx.config.data_dir, set->rejected.size(),
                        std::move(examples));
  }
  if (!why.empty()) {
    for (const auto& [metric, unit] : metrics()) runner.fail(metric, unit, why);
    return;
  }
  uint64_t bytes = 0;
  for (const auto& im : set->images) bytes += im.size();
  nlohmann::json base = {
      {"source", ctx.config.data_dir.empty() ? std::string("generated") : ctx.config.data_dir},
      {"images", set->images.size()},
      {"average_file_bytes", bytes / set->images.size()},
      {"average_megapixels", static_cast<double>(set->pixels) / static_cast<double>(set->images.size()) / 1e6},
      {"pixel_format", "RGB"},
      {"library", "libjpeg-turbo (TurboJPEG API)"},
      {"rejected", set->rejected.size()}};
  if (ctx.config.data_dir.empty()) {
    base["generated_size"] = fmt::format("{}x{} q{}", kImageWidth, kImageHeight, kImageQuality);
  }
  double one_core_decode = 0;
  double one_core_augment = 0;
  for (bool augment : {false, true}) {
    for (int threads : {1, ctx.threads}) {
      std::string metric = fmt::format("decode{}_{}", augment ? "_augment" : "", threads == 1 ? "1_core" : "all_cores");
      nlohmann::json params = base;
      params["threads"] = threads;
      if (augment) {
        params["augment"] = fmt::format("random_resized_crop {0}x{0} (scale 0.08-1, ratio 3/4-4/3), "
                                        "random horizontal flip, normalise to float32 HWC",
                                        codec::kCropSize);
      }
      DecodeFailures failed;
      Measurement& m = runner.measure(metric, "images/s", params, [&, threads, augment]() {
        return codec::decode_sample(*set, threads, augment, ctx.config.sample_seconds, ctx.cancelled, 7, &failed);
      });
      if (failed.images > 0) {
        m.notes.push_back(core::Message::plural(NP_("{0} image failed to decode and was skipped; first: {1}",
                                                    "{0} images failed to decode and were skipped; first: {1}"),
                                                failed.images, failed.images, failed.first_error));
      }
      if (!set->rejected.empty()) {
        m.notes.push_back(core::Message::plural(NP_("{0} file skipped as corrupt or not JPEG; first: {1}",
                                                    "{0} files skipped as corrupt or not JPEG; first: {1}"),
                                                set->rejected.size(), set->rejected.size(), set->rejected.front()));
      }
      if (threads == 1) {
        (augment ? one_core_augment : one_core_decode) = m.median;
      } else if (m.status == Status::kOk) {
        double base_rate = augment ? one_core_augment : one_core_decode;
        if (base_rate > 0) m.params["scaling_vs_1_core"] = m.median / base_rate;
      }
      if (ctx.threads == 1) {
        runner.skip(fmt::format("decode{}_all_cores", augment ? "_augment" : ""), "images/s",
                    core::Message(ctx.config.threads == 1 ? N_("--threads 1 asks for one core: see the 1_core result")
                                                          : N_("only one CPU available: see the 1_core result")));
        break;
      }
    }
  }
}

}  // namespace

std::unique_ptr<Benchmark> make_decode_benchmark() { return std::make_unique<DecodeBenchmark>(); }

}  // namespace tfrig::bench
