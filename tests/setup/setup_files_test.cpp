// The generated files parse: tfrig.env as KEY=VALUE lines, the sysctl and
// limits files in their formats, the Dockerfile's instructions, compose.yaml
// as YAML against the Compose spec's keys (python3-yaml; `docker compose
// config` too where the client has the compose plugin). And every version in
// any output exists in the knowledge base.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "knowledge/knowledge.h"
#include "setup_test_support.h"
#include "test_support.h"

namespace tfrig::setup::test {
namespace {

namespace fs = std::filesystem;

class SetupFiles : public ::testing::TestWithParam<Cell> {};

TEST_P(SetupFiles, EnvFileIsKeyValueLines) {
  const auto files = render_cell(GetParam());
  const OutputFile* env = find(files, "tfrig.env");
  ASSERT_NE(env, nullptr);
  static const std::regex kLine(R"([A-Z][A-Z0-9_]*=[^\s'"]+)");
  std::set<std::string> keys;
  for (const auto& l : lines_of(env->content)) {
    if (l.empty() || l[0] == '#') continue;
    EXPECT_TRUE(std::regex_match(l, kLine)) << "not KEY=VALUE: " << l;
    keys.insert(l.substr(0, l.find('=')));
  }
  EXPECT_TRUE(keys.count("TF_XLA_FLAGS"));
  EXPECT_TRUE(keys.count("TF_GPU_THREAD_MODE"));
  // Each setting has its comment right above it.
  const auto ls = lines_of(env->content);
  for (size_t i = 1; i < ls.size(); ++i) {
    if (!ls[i].empty() && ls[i][0] != '#') {
      EXPECT_EQ(ls[i - 1][0], '#') << ls[i] << " has no comment";
    }
  }
  // And a shell reads it.
  tfrig::test::TempDir tmp;
  tfrig::test::write_file(tmp.file("tfrig.env"), env->content);
  EXPECT_EQ(sh("bash -c 'set -eu; set -a; . \"$0\"; test -n \"$TF_XLA_FLAGS\"' " + tmp.file("tfrig.env")), 0);
}

TEST_P(SetupFiles, SysctlAndLimitsParse) {
  const auto files = render_cell(GetParam());
  const OutputFile* sysctl = find(files, "sysctl.d/90-tfrig.conf");
  const OutputFile* limits = find(files, "security/limits.d/90-tfrig.conf");
  ASSERT_NE(sysctl, nullptr);
  ASSERT_NE(limits, nullptr);
  static const std::regex kSysctl(R"([a-z0-9_.]+ = [0-9]+)");
  int settings = 0;
  for (const auto& l : lines_of(sysctl->content)) {
    if (l.empty() || l[0] == '#') continue;
    EXPECT_TRUE(std::regex_match(l, kSysctl)) << l;
    ++settings;
  }
  EXPECT_GE(settings, 1);
  static const std::regex kLimit(R"((\S+)\s+(soft|hard|-)\s+(nofile|memlock)\s+([0-9]+|unlimited))");
  int limit_lines = 0;
  for (const auto& l : lines_of(limits->content)) {
    if (l.empty() || l[0] == '#') continue;
    EXPECT_TRUE(std::regex_match(l, kLimit)) << l;
    ++limit_lines;
  }
  EXPECT_EQ(limit_lines, 4);
}

TEST_P(SetupFiles, TuningPyIsPython) {
  const std::string& python = tfrig::test::python3();
  if (sh("command -v " + python + " >/dev/null 2>&1") != 0) GTEST_SKIP() << "python3 is not installed";
  const auto files = render_cell(GetParam());
  const OutputFile* py = find(files, "tuning.py");
  ASSERT_NE(py, nullptr);
  tfrig::test::TempDir tmp;
  tfrig::test::write_file(tmp.file("tuning.py"), py->content);
  EXPECT_EQ(sh(python + " -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' " + tmp.file("tuning.py")), 0);
  for (const char* needed : {"interleave(", "num_parallel_calls=autotune", "prefetch(", "tf.data.AUTOTUNE",
                             "set_global_policy("}) {
    EXPECT_NE(py->content.find(needed), std::string::npos) << needed;
  }
}

class SetupContainerFiles : public ::testing::TestWithParam<Cell> {};

TEST_P(SetupContainerFiles, DockerfileAndComposeParse) {
  const Cell& c = GetParam();
  const auto files = render_cell(c);
  const OutputFile* dockerfile = find(files, "Dockerfile");
  const OutputFile* compose = find(files, "compose.yaml");
  ASSERT_NE(dockerfile, nullptr);
  ASSERT_NE(compose, nullptr);
  // Dockerfile: known instructions, ARG/FROM first, one FROM using the ARG.
  static const std::set<std::string> kInstructions = {"FROM", "ARG", "ENV", "COPY", "RUN", "WORKDIR", "CMD", "LABEL", "USER"};
  std::vector<std::string> seen;
  for (const auto& l : lines_of(dockerfile->content)) {
    if (l.empty() || l[0] == '#') continue;
    const std::string word = l.substr(0, l.find(' '));
    EXPECT_TRUE(kInstructions.count(word)) << "unknown instruction: " << l;
    seen.push_back(word);
    if (word == "FROM") {
      EXPECT_EQ(l, "FROM ${TF_IMAGE}");
    }
  }
  ASSERT_FALSE(seen.empty());
  EXPECT_TRUE(seen.front() == "ARG" || seen.front() == "FROM");
  EXPECT_EQ(std::count(seen.begin(), seen.end(), "FROM"), 1);
  // compose.yaml against the Compose spec's keys, with a YAML parser.
  tfrig::test::TempDir tmp;
  for (const auto& f : files) {
    fs::create_directories((fs::path(tmp.path()) / f.path).parent_path());
    tfrig::test::write_file(tmp.file(f.path), f.content);
  }
  const std::string& python = tfrig::test::python3();
  if (sh(python + " -c 'import yaml' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "python3-yaml is not installed (Debian package python3-yaml; CI installs it)";
  }
  const std::string check = tfrig::test::data_dir() + "/../setup/check_compose.py";
  const std::string log = tmp.file("compose.log");
  EXPECT_EQ(sh(python + " " + check + " " + tmp.file("compose.yaml") + " " + std::to_string(run_cell(c).plan->tfs.size()) +
               " >" + log + " 2>&1"),
            0)
      << tfrig::test::read_file(log);
  if (sh("docker compose version >/dev/null 2>&1") == 0) {
    EXPECT_EQ(sh("cd " + tmp.path() + " && docker compose -f compose.yaml config -q >" + log + " 2>&1"), 0)
        << tfrig::test::read_file(log);
  }
}

// Every version in any output (and every one the plan says it used) is in the knowledge base.
TEST_P(SetupFiles, EveryVersionIsInTheKnowledgeBase) {
  const Cell& c = GetParam();
  auto out = run_cell(c);
  ASSERT_TRUE(out.plan);
  const auto& kb = knowledge_version_tokens();
  ASSERT_GT(kb.size(), 100u);
  std::string kb_text;
  for (const auto& name : tfrig::test::list_dir(tfrig::test::data_dir() + "/../../data/knowledge")) {
    kb_text += tfrig::test::read_file(tfrig::test::data_dir() + "/../../data/knowledge/" + name);
  }
  for (const auto& [kind, value] : out.plan->versions) {
    EXPECT_NE(kb_text.find("\"" + value), std::string::npos) << kind << " " << value << " is not in data/knowledge";
  }
  auto files = render_all(*out.plan, knowledge::builtin());
  files.push_back({"PLAN.txt", plan_summary(*out.plan), 0644});
  for (const auto& f : files) {
    for (const auto& t : version_tokens(f.content)) {
      EXPECT_TRUE(kb.count(t)) << c.name << "/" << f.path << ": version " << t << " is not in data/knowledge";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Grid, SetupFiles, ::testing::ValuesIn(working_cells()), cell_name);

std::vector<Cell> container_cells() {
  std::vector<Cell> out;
  for (const auto& c : working_cells()) {
    if (c.method == Method::kContainer || c.method == Method::kNgc) out.push_back(c);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Grid, SetupContainerFiles, ::testing::ValuesIn(covering_cells(container_cells())), cell_name);

}  // namespace
}  // namespace tfrig::setup::test
