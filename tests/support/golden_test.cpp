// The golden-file helper itself (tests/golden.h): compare, report, rewrite.
#include "golden.h"

#include <cstdlib>

#include <gtest/gtest.h>

#include "test_support.h"

namespace tfrig::test {
namespace {

// Sets TFRIG_UPDATE_GOLDEN for one scope (each test runs in its own process under ctest).
class UpdateGolden {
 public:
  explicit UpdateGolden(const char* value) {
    if (const char* v = std::getenv("TFRIG_UPDATE_GOLDEN")) saved_ = v;
    ::setenv("TFRIG_UPDATE_GOLDEN", value, 1);
  }
  ~UpdateGolden() {
    if (saved_.empty()) {
      ::unsetenv("TFRIG_UPDATE_GOLDEN");
    } else {
      ::setenv("TFRIG_UPDATE_GOLDEN", saved_.c_str(), 1);
    }
  }

 private:
  std::string saved_;
};

TEST(GoldenHelper, ComparesAndNamesTheFirstDifferingLine) {
  UpdateGolden off("0");
  TempDir dir;
  const std::string path = dir.file("out.txt");
  write_file(path, "a\nb\nc\n");
  EXPECT_TRUE(matches_golden(path, "a\nb\nc\n"));
  const auto differs = matches_golden(path, "a\nB\nc\n");
  EXPECT_FALSE(differs);
  const std::string message = differs.message();
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("line 2:\n  golden: b\n  actual: B\n"), std::string::npos) << message;
  EXPECT_NE(message.find("TFRIG_UPDATE_GOLDEN=1"), std::string::npos) << message;
  EXPECT_EQ(read_file(path), "a\nb\nc\n");  // comparing never writes
}

TEST(GoldenHelper, AMissingFileFailsUnlessUpdating) {
  TempDir dir;
  const std::string path = dir.file("new/out.txt");
  {
    UpdateGolden off("0");
    const auto missing = matches_golden(path, "x\n");
    EXPECT_FALSE(missing);
    EXPECT_NE(std::string(missing.message()).find("missing"), std::string::npos) << missing.message();
  }
  UpdateGolden on("1");
  EXPECT_TRUE(updating_golden());
  EXPECT_TRUE(matches_golden(path, "x\n"));  // the folder is created
  EXPECT_EQ(read_file(path), "x\n");
  EXPECT_TRUE(matches_golden(path, "y\n"));  // rewritten, not compared
  EXPECT_EQ(read_file(path), "y\n");
}

TEST(GoldenHelper, LineDiffCountsMissingLines) {
  EXPECT_EQ(line_diff("a\n", "a\n"), "");
  EXPECT_EQ(line_diff("a", "a\nb"), "line 2:\n  golden: <missing>\n  actual: b\n");
  EXPECT_EQ(golden_path("plan/x.txt"), data_dir() + "/golden/plan/x.txt");
}

}  // namespace
}  // namespace tfrig::test
