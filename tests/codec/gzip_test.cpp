// gzip (RFC 1952) on a real multi-member nvidia-bug-report log
// (tests/data/README.md): inflated whole, cut short, corrupt, over the cap.
#include <gtest/gtest.h>

#include "codec/gzip.h"
#include "test_support.h"

namespace tfrig::codec {
namespace {

constexpr size_t kCap = size_t{64} << 20;

std::string data(const std::string& rel) { return test::read_file(test::data_dir() + "/" + rel); }

TEST(Gzip, MultiMemberBugReportInflatesWhole) {
  // The real log as nvidia-bug-report.sh wrote it: ~100 gzip members, 166,557 bytes of text.
  auto text = gunzip(data("nvidia-bug-report/Trourest186__Serverless-Computing-Final.whole.log.gz"), kCap);
  ASSERT_TRUE(text.has_value()) << text.error().to_string();
  EXPECT_EQ(text->size(), 166557u);
  EXPECT_NE(text->find("End of NVIDIA bug report log file."), std::string::npos);
}

TEST(Gzip, TruncatedAndCorruptFailNamingTheOffset) {
  const std::string whole = data("nvidia-bug-report/Trourest186__Serverless-Computing-Final.whole.log.gz");
  auto cut = gunzip(std::string_view(whole).substr(0, whole.size() / 2), kCap);
  ASSERT_FALSE(cut.has_value());
  EXPECT_NE(cut.error().where.find("offset"), std::string::npos);
  EXPECT_FALSE(gunzip("\x1f\x8bgarbage", 1024).has_value());
  EXPECT_FALSE(gunzip(whole, 1000).has_value());  // over the cap
}

}  // namespace
}  // namespace tfrig::codec
