// Width, height and channels of an encoded image from its header bytes only,
// without decoding pixels, for the image/height, image/width and
// image/channels features of `tfrig pack`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace tfrig::tfrecord {

struct ImageInfo {
  std::string format;  // "jpeg", "png", "gif", "bmp", "webp" (TFDS's encoding_format names)
  uint32_t width = 0;
  uint32_t height = 0;
  uint32_t channels = 0;  // what tf.io.decode_image returns with channels=0
};

// Errors say which format was recognised (if any) and at which byte the
// header stopped making sense.
core::Result<ImageInfo> sniff_image(std::string_view data);

}  // namespace tfrig::tfrecord
