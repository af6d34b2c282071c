// The golden grid of `tfrig setup`: (TF version x OS x method x GPU class)
// cells on the fixture machines' snapshots, shared by the setup tests.
#pragma once

#include <sys/wait.h>

#include <algorithm>
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
// The cells a slow check takes (a real run of install.sh against stubs, the
// Chinese script through shellcheck, compose.yaml through a YAML parser; 0.5-4 s
// a cell): those on the default sources and under --mirror cn (the preset most
// readers take), and one cell for each other preset, the method turning from
// preset to preset so that each method meets several presets, a cloud's public
// and intranet hosts among them. Every (preset, method) pair is still written,
// parsed and shellchecked by SetupFiles and SetupShell; running all of them here
// cost the test run minutes of CPU for host names that only differ in text those
// suites check.
inline std::vector<Cell> covering_cells(const std::vector<Cell>& in) {
  std::vector<Cell> out;
  std::vector<std::string> presets;  // the presets other than cn, in order of first appearance
  for (const auto& c : in) {
    if (c.refused) continue;
    if (c.mirror.empty() || c.mirror == "cn") out.push_back(c);
    else if (std::find(presets.begin(), presets.end(), c.mirror) == presets.end()) presets.push_back(c.mirror);
  }
  for (size_t k = 0; k < presets.size(); ++k) {
    std::vector<const Cell*> of_preset;
    for (const auto& c : in) {
      if (!c.refused && c.mirror == presets[k]) of_preset.push_back(&c);
    }
    out.push_back(*of_preset[k % of_preset.size()]);
  }
  return out;
}
// One cell per (method, OS, preset) of covering_cells(cells()): enough to run
// every template of install.sh.
inline std::vector<Cell> script_run_cells() {
  std::vector<Cell> out;
  for (const auto& c : covering_cells(cells())) {
    bool seen = false;
    for (const auto& o : out) seen = seen || (o.method == c.method && o.os == c.os && o.mirror == c.mirror);
    if (!seen) out.push_back(c);
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
