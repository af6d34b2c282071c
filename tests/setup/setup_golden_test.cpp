// Golden outputs of `tfrig setup` over the grid (setup_cells_test.cpp).
//
// Four base cells, one per method, keep every file they write under
// tests/data/golden/setup/<cell>/. The other cells differ from their base in
// a few lines (versions, packages, a step more or less), so instead of a copy
// of each, tests/data/golden/setup/cells.txt holds for every cell its plan (or
// its refusal) and the line differences of install.sh, Dockerfile and
// compose.yaml from the base cell of its method: the differences between
// cells are what is asserted and what a reviewer reads.
// TFRIG_UPDATE_GOLDEN=1 rewrites them.
#include <filesystem>
#include <set>
#include <sstream>

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

const Cell& cell_named(const std::string& name) {
  for (const auto& c : cells()) {
    if (c.name == name) return c;
  }
  ADD_FAILURE() << "no cell " << name;
  return cells().front();
}

// The cell whose files are kept whole, for each method.
const Cell& base_cell(Method m) {
  switch (m) {
    case Method::kPip: return cell_named("tf2.17_ubuntu-22.04_pip_a100");
    case Method::kApt: return cell_named("tf2.17_debian-12_apt_t4");
    case Method::kContainer: return cell_named("tf2.15+2.17_ubuntu-22.04_container_rtx3090");
    case Method::kNgc: return cell_named("tf2.17_ubuntu-22.04_ngc_a100");
  }
  return cells().front();
}

bool is_base(const Cell& c) { return !c.refused && base_cell(c.method).name == c.name; }

// A line diff (longest common subsequence): "@@ -A +B" then "- old" and
// "+ new" lines for each run of changes; "" when the texts are equal.
std::string line_diff(const std::string& from, const std::string& to) {
  const auto a = lines_of(from), b = lines_of(to);
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<unsigned>> lcs(n + 1, std::vector<unsigned>(m + 1, 0));
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  std::ostringstream out;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      ++i, ++j;
      continue;
    }
    out << "@@ -" << i + 1 << " +" << j + 1 << "\n";
    while (i < n || j < m) {
      if (i < n && j < m && a[i] == b[j]) break;
      if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
        out << "- " << a[i++] << "\n";
      } else {
        out << "+ " << b[j++] << "\n";
      }
    }
  }
  return out.str();
}

// The cell's entry in cells.txt.
std::string cell_entry(const Cell& c) {
  std::ostringstream s;
  s << "=== " << c.name << "\n";
  auto out = run_cell(c);
  if (c.refused) {
    EXPECT_TRUE(out.refusal) << c.name << " should be refused";
    if (!out.refusal) return s.str();
    EXPECT_FALSE(out.refusal->nearest.empty()) << c.name << ": a refusal names the nearest combinations that work";
    s << refusal_text(*out.refusal);
    return s.str();
  }
  EXPECT_TRUE(out.plan) << c.name << ": " << (out.refusal ? out.refusal->reason : "");
  if (!out.plan) return s.str();
  s << plan_summary(*out.plan);
  if (is_base(c)) {
    s << "(every file in " << c.name << "/)\n";
    return s.str();
  }
  const Cell& base = base_cell(c.method);
  const auto files = render_all(*out.plan, knowledge::builtin());
  const auto base_files = render_cell(base);
  for (const char* path : {"install.sh", "Dockerfile", "compose.yaml"}) {
    const OutputFile* mine = find(files, path);
    const OutputFile* theirs = find(base_files, path);
    if (!mine && !theirs) continue;
    s << "--- " << path << " against " << base.name << "\n"
      << line_diff(theirs ? theirs->content : "", mine ? mine->content : "");
  }
  return s.str();
}

TEST(SetupGolden, CellsDifferFromTheirBaseAsRecorded) {
  std::string text =
      "# tfrig setup over the golden grid: each cell's plan, and how its files differ from the base\n"
      "# cell of its method (kept whole in the folder of that name). TFRIG_UPDATE_GOLDEN=1 rewrites it.\n";
  for (const auto& c : cells()) text += cell_entry(c);
  const std::string path = golden_dir() + "/cells.txt";
  if (update_golden()) {
    tfrig::test::write_file(path, text);
    return;
  }
  ASSERT_TRUE(tfrig::test::path_exists(path)) << path << " missing; run with TFRIG_UPDATE_GOLDEN=1";
  EXPECT_EQ(tfrig::test::read_file(path), text) << "golden " << path << " differs; TFRIG_UPDATE_GOLDEN=1 rewrites it";
  // Nothing else in the folder: cells.txt and the base cells' folders.
  std::set<std::string> allowed = {"cells.txt"};
  for (Method m : {Method::kPip, Method::kApt, Method::kContainer, Method::kNgc}) allowed.insert(base_cell(m).name);
  for (const auto& entry : fs::directory_iterator(golden_dir())) {
    EXPECT_TRUE(allowed.count(entry.path().filename().string())) << entry.path() << " is left over; remove it";
  }
}

// A diff that the base cell's own folder did not hold would hide a change in
// every cell: the base cells are compared whole.
class SetupGoldenBase : public ::testing::TestWithParam<Method> {};

TEST_P(SetupGoldenBase, EveryFileOfTheBaseCell) {
  const Cell& c = base_cell(GetParam());
  const std::string dir = golden_dir() + "/" + c.name;
  auto out = run_cell(c);
  ASSERT_TRUE(out.plan) << c.name;
  auto files = render_all(*out.plan, knowledge::builtin());
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

INSTANTIATE_TEST_SUITE_P(Methods, SetupGoldenBase,
                         ::testing::Values(Method::kPip, Method::kApt, Method::kContainer, Method::kNgc),
                         [](const ::testing::TestParamInfo<Method>& p) { return std::string(method_name(p.param)); });

TEST(SetupGolden, LineDiffShowsOnlyTheChangedLines) {
  EXPECT_EQ(line_diff("a\nb\nc\n", "a\nb\nc\n"), "");
  EXPECT_EQ(line_diff("a\nb\nc\n", "a\nB\nc\n"), "@@ -2 +2\n- b\n+ B\n");
  EXPECT_EQ(line_diff("a\nc\n", "a\nb\nc\nd\n"), "@@ -2 +2\n+ b\n@@ -3 +4\n+ d\n");
  EXPECT_EQ(line_diff("x\n", ""), "@@ -1 +1\n- x\n");
}

}  // namespace
}  // namespace tfrig::setup::test
