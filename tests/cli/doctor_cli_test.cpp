// End to end: the tfrig binary on snapshots built for the
// tests, its JSON contract, exit codes and options; and docs/rules.md
// generated from the rule table (TFRIG_UPDATE_GOLDEN=1 rewrites it).
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/display_width.h"
#include "core/text.h"
#include "explain/signatures.h"
#include "golden.h"
#include "rules/rule.h"
#include "test_paths.h"
#include "test_support.h"

namespace tfrig {
namespace {

struct Run {
  int code = -1;
  std::string out;
};

Run run(const std::string& args) {
  const std::string cmd = std::string(TFRIG_BINARY) + " " + args + " 2>/dev/null";
  Run r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string snapshot(const char* name) { return std::string(TFRIG_TEST_DATA) + "/snapshots/" + name; }

std::set<std::string> rule_ids(const nlohmann::json& j) {
  std::set<std::string> ids;
  for (const auto& f : j["findings"]) ids.insert(f["rule_id"].get<std::string>());
  return ids;
}

TEST(DoctorCli, CpuBoxWithCuda13JsonContract) {
  auto r = run("doctor --format json --snapshot " + snapshot("cpu_box_cuda13.json"));
  EXPECT_EQ(r.code, 2);
  auto j = nlohmann::json::parse(r.out);
  auto ids = rule_ids(j);
  EXPECT_TRUE(ids.count("gpu.no_gpu"));
  EXPECT_TRUE(ids.count("cuda.library_missing"));
  EXPECT_TRUE(ids.count("container.no_gpu_given"));
  int errors = 0, warnings = 0, infos = 0;
  for (const auto& f : j["findings"]) {
    for (const char* key : {"rule_id", "severity", "area", "entity", "title", "message", "evidence", "fix"}) {
      EXPECT_TRUE(f.contains(key)) << key;
    }
    const auto sev = f["severity"].get<std::string>();
    errors += sev == "error";
    warnings += sev == "warning";
    infos += sev == "info";
  }
  EXPECT_EQ(j["summary"]["error"], errors);
  EXPECT_EQ(j["summary"]["warning"], warnings);
  EXPECT_EQ(j["summary"]["info"], infos);
  EXPECT_EQ(j["findings"][0]["severity"], "error");
  EXPECT_NE(j["verdict"].get<std::string>().find("CPU only"), std::string::npos);
  ASSERT_TRUE(j["skipped"].is_array());
  bool named = false;
  for (const auto& s : j["skipped"]) {
    if (s["rule_id"] == "driver.too_old_for_cuda") named = !s["missing"].get<std::string>().empty();
  }
  EXPECT_TRUE(named);
}

TEST(DoctorCli, TwoA100sOnAnOldDriverText) {
  auto r = run("doctor --snapshot " + snapshot("gpu_box_two_a100_old_driver.json"));
  EXPECT_EQ(r.code, 2);
  std::istringstream in(r.out);
  std::string line1, line2, verdict;
  std::getline(in, line1);
  std::getline(in, line2);
  std::getline(in, verdict);
  EXPECT_EQ(line1.rfind("tfrig doctor", 0), 0u);
  EXPECT_EQ(verdict, "TensorFlow 2.17.0 (installed in /venv) will not use the 2 GPUs: 1 error, 2 warnings, 6 infos");
  EXPECT_NE(r.out.find("driver.too_old_for_cuda"), std::string::npos);
  EXPECT_NE(r.out.find("gpu.no_p2p_multi_gpu"), std::string::npos);
  EXPECT_LT(r.out.find("driver.too_old_for_cuda"), r.out.find("gpu.no_p2p_multi_gpu"));  // worst first
}

TEST(DoctorCli, FailOnAndOnly) {
  const auto snap = snapshot("gpu_box_two_a100_old_driver.json");
  EXPECT_EQ(run("doctor --fail-on never --snapshot " + snap).code, 0);
  auto os = run("doctor --only os --format json --snapshot " + snap);
  EXPECT_EQ(os.code, 1);  // the open-files warning
  EXPECT_NE(nlohmann::json::parse(os.out)["verdict"].get<std::string>().find("only the os rules"), std::string::npos);
  const auto os_json = nlohmann::json::parse(os.out);  // a named value: the loop must not range over a temporary
  for (const auto& f : os_json["findings"]) EXPECT_EQ(f["area"], "os");
  auto gpu = run("doctor --only gpu --fail-on error --format json --snapshot " + snap);
  EXPECT_EQ(gpu.code, 0);  // a warning only
  EXPECT_EQ(run("doctor --only gpu --snapshot " + snap).code, 1);
  EXPECT_EQ(run("doctor --only nonsense --snapshot " + snap).code, 64);
}

TEST(DoctorCli, ExplainAndTf) {
  const auto snap = snapshot("cpu_box_cuda13.json");
  auto e = run("doctor --explain driver.too_old_for_cuda --snapshot " + snap);
  EXPECT_EQ(e.code, 0);
  EXPECT_NE(e.out.find("skip"), std::string::npos);
  EXPECT_EQ(run("doctor --explain no.such_rule --snapshot " + snap).code, 64);
  auto tf = run("doctor --tf 2.15 --format json --snapshot " + snap);
  auto j = nlohmann::json::parse(tf.out);
  EXPECT_NE(j["target"].get<std::string>().find("2.15"), std::string::npos);
}

TEST(CompatCli, JsonContractAndExitCode) {
  auto r = run("compat --only-given --format json --tf 2.15 --driver 525.60.13 --cuda 12.2 --cudnn 8.9 --gpu \"Tesla K80\" --python 3.11");
  EXPECT_EQ(r.code, 2);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verdict"], "no");
  EXPECT_TRUE(j["checks"].is_array());
  EXPECT_TRUE(j["alternatives"].is_array());
  EXPECT_EQ(run("compat --only-given --tf 2.17 --driver 535.104.05").code, 0);
  EXPECT_NE(run("compat --matrix").out.find("2.21.0"), std::string::npos);
}

TEST(KnowledgeCli, ListsFiles) {
  auto r = run("knowledge");
  EXPECT_EQ(r.code, 0);
  for (const char* f : {"tf_builds.json", "cuda_drivers.json", "gpus.json", "thresholds.json"}) {
    EXPECT_NE(r.out.find(f), std::string::npos) << f;
  }
  auto j = nlohmann::json::parse(run("knowledge --format json").out);
  EXPECT_EQ(j["files"].size(), 9u);
  EXPECT_EQ(run("--knowledge /nonexistent/dir knowledge").code, 66);
}

TEST(RulesDoc, DocsRulesMdIsGeneratedFromTheTable) {
  const auto path = std::filesystem::path(TFRIG_TEST_DATA).parent_path().parent_path() / "docs" / "rules.md";
  // doctor's table, then the log.* rules of explain's signature table.
  const auto log_rules = explain::load_signature_table();
  ASSERT_TRUE(log_rules.has_value());
  const std::string want = rules::rules_markdown() + explain::log_rules_markdown(*log_rules);
  EXPECT_TRUE(test::matches_golden(path.string(), want));
  EXPECT_EQ(run("rules --markdown").out, want);
}


// ---- The output width (docs/cli.md "Output width") ----

// A line may pass the width only for a word that cannot break: a path, a
// URL, a command or identifier of 20 columns and more (one without a space).
bool width_overflow_is_unbreakable(std::string_view line, size_t width) {
  if (core::display_width(line) <= width) return true;
  for (auto word : core::split_ws(line)) {
    if (core::display_width(word) >= 20) return true;
  }
  return false;
}

// A table row: cells apart by a gutter of two spaces or more. A table whose
// columns are all down to their longest word (doctor's 13-column GPU table
// at 80 columns) stays wider than the width: words are never cut.
// A folded cell's further lines start deep in the row (a column held wide by
// a long word elsewhere in it may take them past the width too).
bool width_table_row(std::string_view line) {
  const size_t text = line.find_first_not_of(' ');
  return text != std::string_view::npos && (text >= 6 || line.find("  ", text) != std::string_view::npos);
}

test::RunResult width_doctor(const std::vector<std::string>& where, size_t columns, bool chinese) {
  std::vector<std::string> args = {"doctor", "--color", "never"};
  args.insert(args.end(), where.begin(), where.end());
  if (chinese) args = test::with_zh_lang(args);
  test::RunOptions o = test::in_locale("C.UTF-8", TFRIG_TEST_DATA);
  o.env.push_back("COLUMNS=" + std::to_string(columns));
  return test::run_tfrig(args, o);
}

// Doctor on real captures at 80 and 120 columns, in English and Chinese: no
// line is wider than the terminal but for an unbreakable word, and a
// finding's message, evidence and fix hang under its rule id (whose column
// is 2 + the language's widest severity word + 1: 10 in English, 7 in Chinese).
TEST(OutputWidth, DoctorFitsTheTerminalInBothLanguages) {
  const std::vector<std::vector<std::string>> inputs = {{"--snapshot", "snapshots/gpu_box_two_a100_old_driver.json"},
                                                        {"--snapshot", "snapshots/eight_quadro_rtx5000.json"},
                                                        {"--snapshot", "snapshots/cpu_box_cuda13.json"},
                                                        {"--root", "roots/stack-cuda12"}};
  for (const auto& where : inputs) {
    for (size_t columns : {80, 120}) {
      for (bool chinese : {false, true}) {
        const auto r = width_doctor(where, columns, chinese);
        const std::string what = where[1] + " at " + std::to_string(columns) + (chinese ? " in Chinese" : " in English");
        ASSERT_LE(r.exit_code, 2) << what << "\n" << r.err;
        size_t longest = 0;
        // The findings part (up to the first inventory section) fits
        // whole; after it, every line but table rows.
        bool findings_part = true;
        for (auto line : core::split_lines(r.out)) {
          if (!line.empty() && line[0] != ' ' && line.find("  [") != std::string_view::npos) findings_part = false;
          if (findings_part || !width_table_row(line)) {
            EXPECT_TRUE(width_overflow_is_unbreakable(line, columns)) << what << ": " << line;
          }
          longest = std::max(longest, core::display_width(line));
        }
        // The width is used: something reaches past the narrower one.
        if (columns == 120) {
          EXPECT_GT(longest, 100u) << what;
        }
        // Findings: the lines between a finding's title and the next title
        // or area start at the rule id's column or deeper.
        const size_t indent = chinese ? 7 : 10;
        bool in_finding = false;
        size_t findings = 0;
        for (auto line : core::split_lines(r.out)) {
          bool title = false;
          for (const char* sev : {"  error ", "  warning ", "  info ", "  错误 ", "  警告 ", "  提示 "}) title = title || line.rfind(sev, 0) == 0;
          if (title) {
            ++findings;
            in_finding = true;
            // The rule id begins at the indent's column.
            const size_t id = line.find_first_not_of(' ', line.find(' ', 2));
            EXPECT_EQ(core::display_width(line.substr(0, id)), indent) << what << ": " << line;
            continue;
          }
          if (line.empty() || line[0] != ' ') {
            in_finding = false;
            continue;
          }
          if (in_finding) {
            EXPECT_GE(line.find_first_not_of(' '), indent) << what << ": " << line;
            EXPECT_EQ(line.substr(0, indent), std::string(indent, ' ')) << what << ": " << line;
          }
        }
        if (where[1].find("gpu_box") != std::string::npos) {
          EXPECT_GE(findings, 5u) << what;
        }
      }
    }
  }
}

// The balanced-server table of plan (197 columns wide unfolded) folds its
// widest columns to fit 80 columns; its rows' first cells stay in place.
TEST(OutputWidth, PlanFoldsTheBalancedServerTable) {
  test::RunOptions o = test::in_locale("C.UTF-8", TFRIG_TEST_DATA);
  o.env.push_back("COLUMNS=80");
  const auto r = test::run_tfrig({"plan", "--model", "resnet50"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t start = r.out.find("Balanced server");
  ASSERT_NE(start, std::string::npos) << r.out;
  const size_t end = r.out.find("\n\n", start);
  const auto table = core::split_lines(std::string_view(r.out).substr(start, end - start));
  ASSERT_GE(table.size(), 9u);
  size_t folded = 0;
  for (auto line : table) {
    EXPECT_TRUE(width_overflow_is_unbreakable(line, 80)) << line;
    if (line.rfind("             ", 0) == 0) ++folded;  // a continuation line: the part column is empty
  }
  EXPECT_GT(folded, 0u) << r.out;
  for (auto line : core::split_lines(r.out)) EXPECT_TRUE(width_overflow_is_unbreakable(line, 80)) << line;
  // At 250 columns nothing needs folding: one line a part.
  o.env.back() = "COLUMNS=250";
  const auto wide = test::run_tfrig({"plan", "--model", "resnet50"}, o);
  const size_t wstart = wide.out.find("Balanced server");
  const auto wtable = core::split_lines(std::string_view(wide.out).substr(wstart, wide.out.find("\n\n", wstart) - wstart));
  EXPECT_LT(wtable.size(), table.size());
  for (auto line : wtable) EXPECT_NE(line.rfind("             ", 0), 0u) << line;
}

}  // namespace
}  // namespace tfrig
