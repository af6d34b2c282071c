// Golden outputs of `tfrig setup` over the grid (setup_cells_test.cpp): one
// directory per cell under tests/data/golden/setup/ holding exactly the files
// it writes, or REFUSED.txt. TFRIG_UPDATE_GOLDEN=1 rewrites them.
#include <filesystem>

#include <gtest/gtest.h>

#include "golden.h"
#include "knowledge/knowledge.h"
#include "setup_test_support.h"
#include "test_support.h"

namespace tfrig::setup::test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> files_under(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_regular_file()) out.push_back(fs::relative(it->path(), dir).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

class SetupGolden : public ::testing::TestWithParam<Cell> {};

TEST_P(SetupGolden, Files) {
  const Cell& c = GetParam();
  const std::string dir = golden_dir() + "/" + c.name;
  std::vector<OutputFile> files;
  auto out = run_cell(c);
  if (c.refused) {
    ASSERT_TRUE(out.refusal) << c.name << " should be refused";
    ASSERT_FALSE(out.refusal->nearest.empty()) << c.name << ": a refusal names the nearest combinations that work";
    files.push_back({"REFUSED.txt", refusal_text(*out.refusal), 0644});
  } else {
    ASSERT_TRUE(out.plan) << c.name << ": " << (out.refusal ? out.refusal->reason : "");
    files = render_all(*out.plan, knowledge::builtin());
    files.push_back({"PLAN.txt", plan_summary(*out.plan), 0644});
  }
  if (update_golden()) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    for (const auto& f : files) {
      fs::create_directories((fs::path(dir) / f.path).parent_path());
      tfrig::test::write_file(dir + "/" + f.path, f.content);
    }
    return;
  }
  std::vector<std::string> want;
  for (const auto& f : files) {
    want.push_back(f.path);
    EXPECT_TRUE(tfrig::test::matches_golden(dir + "/" + f.path, f.content));
  }
  std::sort(want.begin(), want.end());
  EXPECT_EQ(files_under(dir), want) << dir << " holds other files than the cell writes";
}

std::string cell_name(const ::testing::TestParamInfo<Cell>& p) {
  std::string s = p.param.name;
  for (char& ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return s;
}

INSTANTIATE_TEST_SUITE_P(Grid, SetupGolden, ::testing::ValuesIn(cells()), cell_name);

}  // namespace
}  // namespace tfrig::setup::test
