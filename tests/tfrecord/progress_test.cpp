#include "tfrecord/progress.h"

#include <gtest/gtest.h>

#include "tfrecord/tfrecord_test_util.h"

namespace tfrig::tfrecord {
namespace {

TEST(Progress, LineShowsRatesAndEta) {
  // 500 of 2000 files, 50 MB of 200 MB in 10 s: 50 files/s, 5 MB/s, 30 s left.
  std::string line = Progress::format_line("pack", 500, 2000, 50'000'000, 200'000'000, 10.0);
  EXPECT_EQ(line, "pack: 500/2000 files  50 files/s  5.0 MB/s  ETA 30s");
  EXPECT_NE(Progress::format_line("pack", 0, 10, 0, 100, 0.0).find("ETA ?"), std::string::npos);
  EXPECT_NE(Progress::format_line("pack", 1, 10, 1, 7201, 1.0).find("ETA 2h00m"), std::string::npos);
}

TEST(Progress, PackPrintsProgressOnlyWhenAsked) {
  testing::ScratchDir dir;
  testing::write_file(dir / "src/a/1.jpg", testing::tiny_jpeg(8, 8));
  // stderr is a pipe here, not a terminal: quiet unless --progress.
  auto quiet = testing::run_tfrig("pack " + testing::shell_quote(dir / "src") + " -o " + testing::shell_quote(dir / "o1"));
  ASSERT_EQ(quiet.exit_code, 0) << quiet.out;
  EXPECT_EQ(quiet.out.find("files/s  "), std::string::npos) << quiet.out;
  auto loud = testing::run_tfrig("pack --progress " + testing::shell_quote(dir / "src") + " -o " +
                                 testing::shell_quote(dir / "o2"));
  ASSERT_EQ(loud.exit_code, 0) << loud.out;
  EXPECT_NE(loud.out.find("pack: 1/1 files"), std::string::npos) << loud.out;
}

}  // namespace
}  // namespace tfrig::tfrecord
