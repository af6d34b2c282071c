#include "codec/jpeg.h"

#include <gtest/gtest.h>

#include <cmath>

#include "bench/bench_test_util.h"

namespace tfrig::codec {
namespace {

using bench::testing::TempDir;
namespace testing = bench::testing;

TEST(GenerateJpegs, MakesDecodableImagesNearImageNetsAverageSize) {
  auto set = generate_jpegs(3, 500, 375, 90, 1);
  ASSERT_TRUE(set) << set.error().to_string();
  ASSERT_EQ(set->images.size(), 3u);
  EXPECT_EQ(set->pixels, 3u * 500 * 375);
  for (const auto& im : set->images) {
    // JPEG SOI marker, and a size in the range of real ImageNet photos.
    EXPECT_EQ(static_cast<unsigned char>(im[0]), 0xFF);
    EXPECT_EQ(static_cast<unsigned char>(im[1]), 0xD8);
    EXPECT_GT(im.size(), 40u * 1024);
    EXPECT_LT(im.size(), 250u * 1024);
  }
}

TEST(LoadJpegs, SkipsACorruptJpegAndANonJpegNamingThem) {
  TempDir dir;
  auto set = generate_jpegs(1, 64, 48, 90, 2);
  ASSERT_TRUE(set);
  const std::string& good = set->images.front();
  testing::write_file(dir.file("good.jpg"), good);
  // A JPEG cut after its headers: the entropy-coded data is missing.
  testing::write_file(dir.file("truncated.jpg"), good.substr(0, 200));
  testing::write_file(dir.file("notes.txt"), "not an image");
  auto loaded = load_jpegs({dir.file("good.jpg"), dir.file("notes.txt"), dir.file("truncated.jpg")}, 1 << 20);
  ASSERT_EQ(loaded.images.size(), 1u);
  EXPECT_EQ(loaded.names.front(), dir.file("good.jpg"));
  ASSERT_EQ(loaded.rejected.size(), 2u);
  std::string all = core::english(loaded.rejected[0]) + "\n" + core::english(loaded.rejected[1]);
  EXPECT_NE(all.find("notes.txt"), std::string::npos) << all;
  EXPECT_NE(all.find("truncated.jpg"), std::string::npos) << all;
}

// A decoder that failed mid-header keeps a half-read state: the next good
// image on the same thread must still decode (it once failed as "Invalid
// argument", so one bad file made pack and pipeline count two).
TEST(CheckJpegDecodes, AGoodImageAfterABadOneStillDecodes) {
  auto set = generate_jpegs(1, 64, 48, 90, 3);
  ASSERT_TRUE(set);
  const std::string& good = set->images.front();
  for (size_t cut : {2u, 20u, 200u, 300u}) {
    EXPECT_FALSE(check_jpeg_decodes(good.substr(0, cut), "cut.jpg")) << cut;
    auto again = check_jpeg_decodes(good, "good.jpg");
    EXPECT_TRUE(again) << "after a file cut at " << cut << ": " << again.error().to_string();
  }
}

TEST(DecodeSample, OneBadImageIsCountedOnce) {
  auto set = generate_jpegs(4, 64, 48, 90, 4);
  ASSERT_TRUE(set);
  for (size_t cut : {20u, 200u, 300u}) {
    JpegSet mixed = *set;
    mixed.images[1] = mixed.images[1].substr(0, cut);
    std::atomic<bool> cancelled{false};
    DecodeFailures failures;
    auto rate = decode_sample(mixed, 1, false, 0.05, cancelled, 1, &failures);
    ASSERT_TRUE(rate) << rate.error().to_string();
    EXPECT_EQ(failures.images, 1u) << "cut at " << cut << ": " << core::english(failures.first_error);
  }
}

TEST(LoadJpegs, AFileThatCannotBeOpenedIsRejectedByName) {
  JpegSet set = load_jpegs({"/nonexistent/tfrig/data/a.jpg"}, 1 << 20);
  EXPECT_TRUE(set.images.empty());
  ASSERT_EQ(set.rejected.size(), 1u);
  const std::string rejected = core::english(set.rejected.front());
  EXPECT_NE(rejected.find("/nonexistent/tfrig/data/a.jpg"), std::string::npos) << rejected;
}

TEST(RandomResizedCrop, AlwaysInsideTheImageWithinTheAreaAndRatioBounds) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 2000; ++i) {
    int w = 50 + static_cast<int>(rng() % 900);
    int h = 50 + static_cast<int>(rng() % 900);
    CropBox b = random_resized_crop(w, h, rng);
    ASSERT_GE(b.x, 0);
    ASSERT_GE(b.y, 0);
    ASSERT_GT(b.width, 0);
    ASSERT_GT(b.height, 0);
    ASSERT_LE(b.x + b.width, w);
    ASSERT_LE(b.y + b.height, h);
  }
}

TEST(ResizeFlipNormalize, AUniformImageNormalisesToTheImageNetFormula) {
  const int w = 40, h = 30;
  std::vector<uint8_t> rgb(static_cast<size_t>(w * h * 3));
  for (size_t i = 0; i < rgb.size(); i += 3) {
    rgb[i] = 255;
    rgb[i + 1] = 128;
    rgb[i + 2] = 0;
  }
  std::vector<float> out(8 * 8 * 3);
  resize_flip_normalize(rgb.data(), w, h, CropBox{5, 5, 20, 20}, true, 8, out.data());
  for (size_t i = 0; i < out.size(); i += 3) {
    EXPECT_NEAR(out[i], (1.0 - 0.485) / 0.229, 1e-4);
    EXPECT_NEAR(out[i + 1], (128 / 255.0 - 0.456) / 0.224, 1e-4);
    EXPECT_NEAR(out[i + 2], (0.0 - 0.406) / 0.225, 1e-4);
  }
}

TEST(ResizeFlipNormalize, FlipMirrorsTheColumns) {
  // Left half black, right half white; a 1:1 crop of the whole image.
  const int w = 16, h = 4;
  std::vector<uint8_t> rgb(static_cast<size_t>(w * h * 3), 0);
  for (int y = 0; y < h; ++y) {
    for (int x = w / 2; x < w; ++x) {
      for (int c = 0; c < 3; ++c) rgb[static_cast<size_t>((y * w + x) * 3 + c)] = 255;
    }
  }
  std::vector<float> plain(16 * 16 * 3), flipped(16 * 16 * 3);
  resize_flip_normalize(rgb.data(), w, h, CropBox{0, 0, w, h}, false, 16, plain.data());
  resize_flip_normalize(rgb.data(), w, h, CropBox{0, 0, w, h}, true, 16, flipped.data());
  for (int y = 0; y < 16; ++y) {
    for (int x = 0; x < 16; ++x) {
      size_t a = static_cast<size_t>((y * 16 + x) * 3);
      size_t b = static_cast<size_t>((y * 16 + (15 - x)) * 3);
      EXPECT_FLOAT_EQ(plain[a], flipped[b]);
    }
  }
  EXPECT_LT(plain[0], 0);            // left is dark
  EXPECT_GT(plain[15 * 3], 0);       // right is bright
}

}  // namespace
}  // namespace tfrig::bench
