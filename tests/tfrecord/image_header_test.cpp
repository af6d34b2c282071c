#include "tfrecord/image_header.h"

#include <gtest/gtest.h>

#include "tfrecord/example.h"
#include "tfrecord/record.h"
#include "tfrecord/tfrecord_test_util.h"

namespace tfrig::tfrecord {
namespace {

using namespace tfrig::testing;

void expect_info(const std::string& data, const char* format, uint32_t w, uint32_t h, uint32_t c) {
  auto info = sniff_image(data);
  ASSERT_TRUE(info.has_value()) << info.error().to_string();
  EXPECT_EQ(info->format, format);
  EXPECT_EQ(info->width, w);
  EXPECT_EQ(info->height, h);
  EXPECT_EQ(info->channels, c);
}

TEST(ImageHeader, Jpeg) {
  expect_info(tiny_jpeg(500, 375), "jpeg", 500, 375, 3);
  expect_info(tiny_jpeg(64, 4000, 1), "jpeg", 64, 4000, 1);
  // SOF after a DHT (C4, not a frame header) and fill bytes.
  std::string j = tiny_jpeg(10, 20);
  std::string dht = std::string("\xFF\xC4\x00\x04\x00\x00\xFF", 7);
  j.insert(2, dht);
  expect_info(j, "jpeg", 10, 20, 3);
  EXPECT_FALSE(sniff_image(std::string("\xFF\xD8\xFF\xD9", 4)).has_value());
  EXPECT_FALSE(sniff_image(tiny_jpeg(10, 20).substr(0, 27)).has_value());
}

TEST(ImageHeader, Png) {
  expect_info(tiny_png(32, 16, 2), "png", 32, 16, 3);
  expect_info(tiny_png(1, 1, 6), "png", 1, 1, 4);
  expect_info(tiny_png(7, 9, 0), "png", 7, 9, 1);
  expect_info(tiny_png(7, 9, 4), "png", 7, 9, 2);
  expect_info(tiny_png(7, 9, 3), "png", 7, 9, 3);
  EXPECT_FALSE(sniff_image(tiny_png(7, 9, 5)).has_value());
  EXPECT_FALSE(sniff_image(tiny_png(7, 9, 2).substr(0, 20)).has_value());
}

TEST(ImageHeader, GifBmpWebp) {
  expect_info("GIF89a" + le16(320) + le16(200) + std::string(10, '\0'), "gif", 320, 200, 3);
  std::string bmp = "BM" + std::string(12, '\0') + le32(40) + le32(640) + le32(static_cast<uint32_t>(-480)) + le16(1) +
                    le16(24) + std::string(24, '\0');
  expect_info(bmp, "bmp", 640, 480, 3);
  std::string vp8x = "RIFF" + le32(100) + "WEBPVP8X" + le32(10) + std::string(1, '\x10') + std::string(3, '\0') +
                     std::string("\x3f\x01\x00\xef\x00\x00", 6) + std::string(8, '\0');
  expect_info(vp8x, "webp", 320, 240, 4);
  // Lossy VP8: frame tag, start code 9d 01 2a, 14-bit width/height.
  std::string vp8 = "RIFF" + le32(100) + "WEBPVP8 " + le32(30) + std::string(3, '\0') +
                    std::string("\x9d\x01\x2a", 3) + le16(400) + le16(300) + std::string(8, '\0');
  expect_info(vp8, "webp", 400, 300, 3);
  // Lossless VP8L: 0x2f then width-1 (14 bits), height-1 (14 bits), alpha bit.
  uint32_t bits = (100 - 1) | ((50 - 1) << 14) | (1u << 28);
  std::string vp8l = "RIFF" + le32(100) + "WEBPVP8L" + le32(30) + std::string(1, '\x2f') + le32(bits) + std::string(8, '\0');
  expect_info(vp8l, "webp", 100, 50, 4);
}

TEST(ImageHeader, NotImages) {
  auto r = sniff_image("hello, world");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("not a JPEG, PNG"), std::string::npos);
  EXPECT_FALSE(sniff_image("").has_value());
}

// Real PNGs written by TensorFlow tooling: every CIFAR-10 image is 32x32 RGB.
TEST(ImageHeader, RealPngsFromCifarFixture) {
  auto reader = RecordReader::open(data_path("tfrecord/tfx__cifar10_test.tfrecord"));
  ASSERT_TRUE(reader.has_value());
  size_t n = 0;
  for (;;) {
    auto rec = reader->next();
    ASSERT_TRUE(rec.has_value());
    if (!*rec) break;
    auto ex = decode_example(**rec);
    ASSERT_TRUE(ex.has_value());
    ASSERT_EQ(ex->at("image").bytes.size(), 1u);
    auto info = sniff_image(ex->at("image").bytes[0]);
    ASSERT_TRUE(info.has_value()) << info.error().to_string();
    EXPECT_EQ(info->format, "png");
    EXPECT_EQ(info->width, 32u);
    EXPECT_EQ(info->height, 32u);
    EXPECT_EQ(info->channels, 3u);
    ++n;
  }
  EXPECT_EQ(n, 128u);
}

}  // namespace
}  // namespace tfrig::tfrecord
