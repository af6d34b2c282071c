// tfrig pack --validate: a JPEG cut short (its header intact) is packed as it
// is by the header check, and skipped or refused by the full decode.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include "codec/jpeg.h"
#include "test_support.h"

namespace tfrig {
namespace {

namespace fs = std::filesystem;

void make_source(const std::string& src) {
  auto set = codec::generate_jpegs(6, 96, 64, 90, 3);
  ASSERT_TRUE(set) << set.error().to_string();
  for (size_t i = 0; i < set->images.size(); ++i) {
    const std::string cls = src + (i % 2 ? "/cat" : "/dog");
    fs::create_directories(cls);
    std::string bytes = set->images[i];
    if (i == 3) bytes.resize(bytes.size() / 2);  // cat/0003.jpg: cut in half
    test::write_file(fmt::format("{}/{:04}.jpg", cls, i), bytes);
  }
}

TEST(PackValidate, HeaderPacksACutJpegFullSkipsOrRefusesIt) {
  test::TempDir dir;
  make_source(dir.file("src"));
  auto header = test::run_tfrig({"pack", dir.file("src"), "-o", dir.file("header"), "--no-progress"});
  ASSERT_EQ(header.exit_code, 0) << header.err;
  EXPECT_NE(header.out.find("packed 6 records"), std::string::npos) << header.out;
  EXPECT_NE(header.out.find("header only (--validate header)"), std::string::npos) << header.out;

  test::RunOptions wide;  // the reason searched for, on one line
  wide.env = {"COLUMNS=1000"};
  auto full = test::run_tfrig({"pack", dir.file("src"), "-o", dir.file("full"), "--validate", "full", "--no-progress"}, wide);
  ASSERT_EQ(full.exit_code, 0) << full.err;
  EXPECT_NE(full.out.find("packed 5 records"), std::string::npos) << full.out;
  EXPECT_NE(full.out.find("every JPEG decoded to pixels"), std::string::npos) << full.out;
  EXPECT_NE(full.out.find("0003.jpg: a JPEG that does not decode"), std::string::npos) << full.out;
  EXPECT_NE(full.out.find("Premature end of JPEG file"), std::string::npos) << full.out;
  auto verify = test::run_tfrig({"verify", dir.file("full")});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;

  auto strict = test::run_tfrig(
      {"pack", dir.file("src"), "-o", dir.file("strict"), "--validate", "full", "--on-error", "fail", "--no-progress"});
  EXPECT_EQ(strict.exit_code, 65) << strict.out << strict.err;
  EXPECT_NE(strict.err.find("0003.jpg"), std::string::npos) << strict.err;

  auto bad = test::run_tfrig({"pack", dir.file("src"), "-o", dir.file("x"), "--validate", "pixels"});
  EXPECT_EQ(bad.exit_code, 64);
}

}  // namespace
}  // namespace tfrig
