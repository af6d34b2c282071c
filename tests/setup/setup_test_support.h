// The golden grid of `tfrig setup`: (TF version x OS x method x GPU class)
// cells on the fixture machines' snapshots, shared by the setup tests.
#pragma once

#include <sys/wait.h>

#include <cctype>
#include <cstdlib>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "setup/plan.h"
#include "setup/render.h"

namespace tfrig::setup::test {

struct Cell {
  std::string name;      // golden directory name
  std::string snapshot;  // relative to tests/ ("data/golden/nvidia-smi-xml/telegraf_tesla-t4.xml.json"); "" = none
  std::string tf;        // "2.17", "2.15,2.17", "" = default
  std::string os;
  Method method = Method::kPip;
  std::string gpu = "auto";
  bool refused = false;  // the golden is the refusal text
  std::string mirror;    // --mirror PRESET ("" = the default sources)
};
// gtest prints a parameter by its name, not its bytes.
inline void PrintTo(const Cell& c, std::ostream* os) { *os << c.name; }

const std::vector<Cell>& cells();
// The cells that are not refused: the ones whose files are written and checked.
inline std::vector<Cell> working_cells() {
  std::vector<Cell> out;
  for (const auto& c : cells()) {
    if (!c.refused) out.push_back(c);
  }
  return out;
}
// A gtest name for a cell: its name with every character but letters and digits as '_'.
inline std::string cell_name(const ::testing::TestParamInfo<Cell>& p) {
  std::string s = p.param.name;
  for (char& ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return s;
}
// The outcome of one cell (snapshot loaded, options applied); fails the test on an Error.
PlanOutcome run_cell(const Cell& c);
// The files the cell writes (empty for a refusal).
std::vector<OutputFile> render_cell(const Cell& c);
// Every dotted version token ("12.3", "2.17.0", "1.1") in the knowledge base's data files.
const std::set<std::string>& knowledge_version_tokens();
std::vector<std::string> version_tokens(const std::string& text);
// The lines of a text, without their newlines.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}
// The written file at path, or nullptr.
inline const OutputFile* find(const std::vector<OutputFile>& files, const std::string& path) {
  for (const auto& f : files) {
    if (f.path == path) return &f;
  }
  return nullptr;
}
// Runs a shell command line; its exit status (-1 when it did not exit).
inline int sh(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}
// One word for sh: 'it', with each ' written '\''.
inline std::string shell_word(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
// tests/data/golden/setup
std::string golden_dir();
bool update_golden();

}  // namespace tfrig::setup::test
