#include "codec/jpeg.h"

#include <turbojpeg.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "core/clock.h"
#include "core/i18n.h"
#include "core/try.h"
#include "core/units.h"

namespace tfrig::codec {

namespace {

// An error kept as a message: "PATH: why" in the language it is shown in.
core::Message error_text(const core::Error& e) {
  return core::error_message(e).value_or(core::Message("{}", e.to_string()));
}

// ImageNet's per-channel mean and standard deviation of RGB in [0, 1], the
// normalisation of torchvision's and Keras' ImageNet models.
constexpr float kMean[3] = {0.485f, 0.456f, 0.406f};
constexpr float kStd[3] = {0.229f, 0.224f, 0.225f};

class TjHandle {
 public:
  explicit TjHandle(bool compress) : h_(compress ? tjInitCompress() : tjInitDecompress()) {}
  ~TjHandle() {
    if (h_ != nullptr) tjDestroy(h_);
  }
  TjHandle(const TjHandle&) = delete;
  TjHandle& operator=(const TjHandle&) = delete;
  tjhandle get() const { return h_; }
  // A decoder stopped by an error keeps libjpeg's half-read state: the next
  // header then reads as 0x0 and a later decode can crash. A fresh one is
  // cheap next to a failed file.
  void renew_decompressor() {
    if (h_ != nullptr) tjDestroy(h_);
    h_ = tjInitDecompress();
  }

 private:
  tjhandle h_;
};

struct Header {
  int width = 0, height = 0;
};

core::Result<Header> read_header(tjhandle h, const std::string& jpeg, const std::string& name) {
  Header hd;
  int subsamp = 0, colorspace = 0;
  if (tjDecompressHeader3(h, reinterpret_cast<const unsigned char*>(jpeg.data()),
                          static_cast<unsigned long>(jpeg.size()), &hd.width, &hd.height, &subsamp, &colorspace) != 0) {
    return core::fail(core::ErrorCode::kParse, name, core::Message(N_("not a readable JPEG: {}"), tjGetErrorStr2(h)));
  }
  // A file cut before its frame header reads as "tables only": no size.
  if (hd.width <= 0 || hd.height <= 0) {
    return core::fail(core::ErrorCode::kParse, name,
                      core::Message(N_("not a readable JPEG: no image (the file ends before its frame header)")));
  }
  // A few hundred bytes can claim 65500x65500 (12 GB of pixels): refused,
  // as Pillow refuses above twice Image.MAX_IMAGE_PIXELS (2 x 89,478,485;
  // https://pillow.readthedocs.io/en/stable/reference/Image.html).
  constexpr int64_t kMaxPixels = 2 * 89'478'485LL;
  if (static_cast<int64_t>(hd.width) * hd.height > kMaxPixels) {
    return core::fail(core::ErrorCode::kParse, name,
                      core::Message(N_("a JPEG of {0}x{1} pixels, above the {2} tfrig decodes (Pillow's limit)"),
                                    hd.width, hd.height, kMaxPixels));
  }
  return hd;
}

// Decodes to RGB8; a libjpeg warning (recoverable corruption, as in a few
// ImageNet files) is not an error, a fatal error is.
core::Status decode_rgb_once(tjhandle h, const std::string& jpeg, const std::string& name, std::vector<uint8_t>& rgb,
                             Header& hd) {
  auto header = TFRIG_TRY(read_header(h, jpeg, name));
  hd = header;
  rgb.resize(static_cast<size_t>(hd.width) * static_cast<size_t>(hd.height) * 3);
  if (tjDecompress2(h, reinterpret_cast<const unsigned char*>(jpeg.data()), static_cast<unsigned long>(jpeg.size()),
                    rgb.data(), hd.width, 0, hd.height, TJPF_RGB, 0) != 0) {
    const std::string message = tjGetErrorStr2(h);
    // Warnings (extraneous bytes before a marker) decode as TensorFlow does,
    // but a file that ends before its last scan does not: tf.io.decode_jpeg
    // fails on it unless try_recover_truncated=True (default False,
    // https://www.tensorflow.org/api_docs/python/tf/io/decode_jpeg).
    if (tjGetErrorCode(h) != TJERR_WARNING || message.find("Premature end") != std::string::npos) {
      return core::fail(core::ErrorCode::kParse, name, core::Message(N_("corrupt JPEG: {}"), message));
    }
  }
  return {};
}

// Every decode goes through here: a failure renews the decoder so one bad
// file never fails (or crashes) the next good one.
core::Status decode_rgb(TjHandle& h, const std::string& jpeg, const std::string& name, std::vector<uint8_t>& rgb,
                        Header& hd) {
  auto s = decode_rgb_once(h.get(), jpeg, name, rgb, hd);
  if (!s) h.renew_decompressor();
  return s;
}

uint64_t mix(uint64_t x) {
  // splitmix64 finaliser (Steele et al. 2014): a good hash for noise.
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

core::Status check_jpeg_decodes(const std::string& jpeg, const std::string& name) {
  // One decoder and one pixel buffer per thread: pack's writers call this
  // for every image.
  thread_local TjHandle h(false);
  thread_local std::vector<uint8_t> rgb;
  if (h.get() == nullptr)
    return core::fail(core::ErrorCode::kInternal, name, core::Message(N_("TurboJPEG could not start a decoder")));
  Header hd;
  return decode_rgb(h, jpeg, name, rgb, hd);
}

core::Result<double> decode_sample(const JpegSet& set, int threads, bool augment, double seconds,
                                   const std::atomic<bool>& cancelled, uint64_t seed, DecodeFailures* failures) {
  std::atomic<uint64_t> done{0};
  // Images that failed once are skipped from then on (value-initialised: false).
  std::vector<std::atomic<bool>> bad(set.images.size());
  std::atomic<size_t> bad_count{0};
  core::Message first_error;
  std::mutex error_mutex;
  core::Stopwatch watch;
  // Each worker reads the clock after every image (a vDSO call, tens of
  // nanoseconds against milliseconds of decode) instead of a timer thread
  // that would take CPU from the decoders.
  auto worker = [&](int index) {
    TjHandle h(false);
    std::vector<uint8_t> rgb;
    std::vector<float> out(static_cast<size_t>(kCropSize) * kCropSize * 3);
    std::mt19937_64 rng(seed + static_cast<uint64_t>(index));
    size_t i = static_cast<size_t>(index) % set.images.size();
    uint64_t local = 0;
    while (watch.seconds() < seconds && bad_count.load(std::memory_order_relaxed) < set.images.size() &&
           !cancelled.load(std::memory_order_relaxed)) {
      if (bad[i].load(std::memory_order_relaxed)) {
        i = (i + 1) % set.images.size();
        continue;
      }
      Header hd;
      auto s = decode_rgb(h, set.images[i], set.names[i], rgb, hd);
      if (!s) {
        if (!bad[i].exchange(true)) {
          ++bad_count;
          std::lock_guard lock(error_mutex);
          if (first_error.empty()) first_error = error_text(s.error());
        }
        i = (i + 1) % set.images.size();
        continue;
      }
      if (augment) {
        CropBox box = random_resized_crop(hd.width, hd.height, rng);
        bool flip = (rng() & 1) != 0;
        resize_flip_normalize(rgb.data(), hd.width, hd.height, box, flip, kCropSize, out.data());
      }
      ++local;
      i = (i + 1) % set.images.size();
    }
    done += local;
  };
  {
    // The caller is worker 0; the others join when this scope ends (also
    // when a worker throws, where std::thread would call std::terminate).
    std::vector<std::jthread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(worker, t);
    worker(0);
  }
  double secs = watch.seconds();
  if (failures != nullptr) *failures = DecodeFailures{bad_count.load(), first_error};
  if (bad_count.load() == set.images.size())
    return core::fail(core::ErrorCode::kParse, "decode", core::Message(N_("no image decoded: {}"), first_error));
  return static_cast<double>(done.load()) / std::max(secs, 1e-9);
}

CropBox random_resized_crop(int width, int height, std::mt19937_64& rng) {
  // torchvision.transforms.RandomResizedCrop.get_params, and the same
  // sampling TF's sample_distorted_bounding_box does for Inception training.
  double area = static_cast<double>(width) * height;
  std::uniform_real_distribution<double> scale(0.08, 1.0);
  std::uniform_real_distribution<double> log_ratio(std::log(3.0 / 4.0), std::log(4.0 / 3.0));
  for (int attempt = 0; attempt < 10; ++attempt) {
    double target = area * scale(rng);
    double ratio = std::exp(log_ratio(rng));
    int w = static_cast<int>(std::lround(std::sqrt(target * ratio)));
    int h = static_cast<int>(std::lround(std::sqrt(target / ratio)));
    if (w > 0 && h > 0 && w <= width && h <= height) {
      std::uniform_int_distribution<int> x(0, width - w);
      std::uniform_int_distribution<int> y(0, height - h);
      return {x(rng), y(rng), w, h};
    }
  }
  // Fallback: the central crop with the ratio clamped into range.
  double in_ratio = static_cast<double>(width) / height;
  int w = width, h = height;
  if (in_ratio < 3.0 / 4.0) {
    h = static_cast<int>(std::lround(w / (3.0 / 4.0)));
  } else if (in_ratio > 4.0 / 3.0) {
    w = static_cast<int>(std::lround(h * (4.0 / 3.0)));
  }
  return {(width - w) / 2, (height - h) / 2, w, h};
}

void resize_flip_normalize(const uint8_t* rgb, int width, [[maybe_unused]] int height, const CropBox& crop, bool flip,
                           int size, float* out) {
  // Per-column source positions and weights are computed once per image
  // (half-pixel centres, as TF's resize with half_pixel_centers=True).
  std::vector<int> x0(static_cast<size_t>(size)), x1(static_cast<size_t>(size));
  std::vector<float> wx(static_cast<size_t>(size));
  float sx = static_cast<float>(crop.width) / static_cast<float>(size);
  float sy = static_cast<float>(crop.height) / static_cast<float>(size);
  for (int ox = 0; ox < size; ++ox) {
    float fx = (static_cast<float>(ox) + 0.5f) * sx - 0.5f;
    fx = std::clamp(fx, 0.0f, static_cast<float>(crop.width - 1));
    int ix = static_cast<int>(fx);
    auto k = static_cast<size_t>(flip ? size - 1 - ox : ox);
    x0[k] = (crop.x + ix) * 3;
    x1[k] = (crop.x + std::min(ix + 1, crop.width - 1)) * 3;
    wx[k] = fx - static_cast<float>(ix);
  }
  float scale[3], bias[3];
  for (int c = 0; c < 3; ++c) {
    scale[c] = 1.0f / (255.0f * kStd[c]);
    bias[c] = -kMean[c] / kStd[c];
  }
  const size_t stride = static_cast<size_t>(width) * 3;
  for (int oy = 0; oy < size; ++oy) {
    float fy = (static_cast<float>(oy) + 0.5f) * sy - 0.5f;
    fy = std::clamp(fy, 0.0f, static_cast<float>(crop.height - 1));
    int iy = static_cast<int>(fy);
    float wy = fy - static_cast<float>(iy);
    const uint8_t* r0 = rgb + static_cast<size_t>(crop.y + iy) * stride;
    const uint8_t* r1 = rgb + static_cast<size_t>(crop.y + std::min(iy + 1, crop.height - 1)) * stride;
    float* o = out + static_cast<size_t>(oy) * static_cast<size_t>(size) * 3;
    for (int ox = 0; ox < size; ++ox) {
      auto k = static_cast<size_t>(ox);
      float w = wx[k];
      for (int c = 0; c < 3; ++c) {
        float top = r0[x0[k] + c] + w * static_cast<float>(r0[x1[k] + c] - r0[x0[k] + c]);
        float bot = r1[x0[k] + c] + w * static_cast<float>(r1[x1[k] + c] - r1[x0[k] + c]);
        float v = top + wy * (bot - top);
        o[k * 3 + static_cast<size_t>(c)] = v * scale[c] + bias[c];
      }
    }
  }
}

JpegSet load_jpegs(const std::vector<std::string>& files, uint64_t max_bytes) {
  JpegSet set;
  TjHandle h(false);
  std::vector<uint8_t> rgb;
  uint64_t total = 0;
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      set.rejected.emplace_back(N_("{}: cannot be opened"), path);
      continue;
    }
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (total + data.size() > max_bytes) break;
    Header hd;
    if (auto s = decode_rgb(h, data, path, rgb, hd); !s) {
      set.rejected.push_back(error_text(s.error()));
      continue;
    }
    total += data.size();
    set.pixels += static_cast<uint64_t>(hd.width) * static_cast<uint64_t>(hd.height);
    set.images.push_back(std::move(data));
    set.names.push_back(path);
  }
  return set;
}

core::Result<JpegSet> generate_jpegs(int count, int width, int height, int quality, uint64_t seed) {
  TjHandle h(true);
  if (h.get() == nullptr) return core::fail(core::ErrorCode::kInternal, "tjInitCompress", tjGetErrorStr2(nullptr));
  JpegSet set;
  std::vector<uint8_t> rgb(static_cast<size_t>(width) * static_cast<size_t>(height) * 3);
  for (int n = 0; n < count; ++n) {
    // A photograph stand-in: smooth colour fields (sky, walls) plus detail at
    // several scales plus sensor noise, tuned so that a 500x375 q90 image
    // lands near ImageNet's ~110 KiB average file size.
    uint64_t s = mix(seed + static_cast<uint64_t>(n));
    double phase[6];
    for (double& p : phase) {
      p = static_cast<double>(s & 0xFFFF) / 65536.0 * 6.283;
      s = mix(s);
    }
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        uint64_t noise = mix(s ^ (static_cast<uint64_t>(y) << 32 | static_cast<uint64_t>(x)));
        // Blocky detail: texture at 8-pixel cells, like foliage or fabric.
        uint64_t cell = mix(s ^ (static_cast<uint64_t>(y / 8) << 32 | static_cast<uint64_t>(x / 8)));
        for (int c = 0; c < 3; ++c) {
          double v = 128 + 60 * std::sin(x * 0.011 + phase[c]) * std::cos(y * 0.017 + phase[c + 3]) +
                     25 * std::sin((x + y) * 0.09 + phase[c]) + static_cast<double>((cell >> (c * 8)) & 0x3F) - 32 +
                     static_cast<double>((noise >> (c * 8)) & 0x1F) - 16;
          rgb[(static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) * 3 +
              static_cast<size_t>(c)] = static_cast<uint8_t>(std::clamp(v, 0.0, 255.0));
        }
      }
    }
    unsigned char* jpeg = nullptr;
    unsigned long size = 0;
    if (tjCompress2(h.get(), rgb.data(), width, 0, height, TJPF_RGB, &jpeg, &size, TJSAMP_420, quality, 0) != 0) {
      std::string err = tjGetErrorStr2(h.get());
      tjFree(jpeg);
      return core::fail(core::ErrorCode::kInternal, "tjCompress2", err);
    }
    set.images.emplace_back(reinterpret_cast<const char*>(jpeg), size);
    set.names.push_back(fmt::format("generated-{}", n));
    set.pixels += static_cast<uint64_t>(width) * static_cast<uint64_t>(height);
    tjFree(jpeg);
  }
  return set;
}

}  // namespace tfrig::codec
