// JPEG with libjpeg-turbo's TurboJPEG API: decode alone and followed by the
// standard ImageNet training augmentation (random resized crop to 224x224,
// random horizontal flip, normalise to float), on one core and on all cores.
// Images are held in memory so storage does not enter the number. Shared by
// bench's decode benchmark, pipeline's decode stave and pack --validate full.
#pragma once

#include <atomic>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/result.h"

namespace tfrig::codec {

// The crop size of ResNet/Inception ImageNet training (He et al. 2015,
// torchvision RandomResizedCrop default, TF official models' preprocessing).
inline constexpr int kCropSize = 224;

struct JpegSet {
  std::vector<std::string> images;      // the encoded files
  std::vector<std::string> names;       // their paths, or "generated-N"
  std::vector<core::Message> rejected;  // "path: why" for each file that will not decode
  uint64_t pixels = 0;                  // total over images
};

// Reads the files (until max_bytes in all) and keeps those that decode; each
// unreadable, corrupt or non-JPEG file is listed in `rejected`.
JpegSet load_jpegs(const std::vector<std::string>& files, uint64_t max_bytes);

// Synthetic photographs of ImageNet's typical size and quality.
core::Result<JpegSet> generate_jpegs(int count, int width, int height, int quality, uint64_t seed);

// Decodes (and with `augment`, crops, flips and normalises) the images for
// `seconds` on `threads` threads, each walking the set from its own starting
// point; returns images per second. Shared by the decode benchmark and tfrig
// pipeline's decode stage.
// Decodes one JPEG to pixels as TensorFlow's decode_jpeg would: a file cut
// short fails (see decode_rgb), extraneous bytes before a marker do not.
// For `tfrig pack --validate full`; errors name the file.
core::Status check_jpeg_decodes(const std::string& jpeg, const std::string& name);

// An image that fails its full decode (a truncated JPEG passes the header
// check load_jpegs does) is counted, named and skipped from then on, so one
// bad file never stops the measurement; only a set where every image fails
// is an error.
struct DecodeFailures {
  size_t images = 0;          // distinct images that failed
  core::Message first_error;  // the decoder's message for the first of them (empty: none)
};
core::Result<double> decode_sample(const JpegSet& set, int threads, bool augment, double seconds,
                                   const std::atomic<bool>& cancelled, uint64_t seed,
                                   DecodeFailures* failures = nullptr);

// The crop RandomResizedCrop picks: area fraction in [0.08, 1], aspect ratio
// in [3/4, 4/3] log-uniform, ten tries, then the central crop.
struct CropBox {
  int x = 0, y = 0, width = 0, height = 0;
};
CropBox random_resized_crop(int width, int height, std::mt19937_64& rng);

// Bilinear resize of the crop of an RGB8 image to size x size, flipped
// horizontally when asked, normalised with ImageNet's per-channel mean and
// standard deviation into float HWC.
void resize_flip_normalize(const uint8_t* rgb, int width, int height, const CropBox& crop, bool flip, int size,
                           float* out);

}  // namespace tfrig::codec
