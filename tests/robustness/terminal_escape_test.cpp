// Foreign bytes never drive the terminal (issue 27, item 4): a snapshot, a
// fleet node's file name, a watch recording and a file named in an error
// carry OSC/CSI sequences, CR, NUL, C1 controls and invalid UTF-8; what
// reaches stdout and stderr holds none of them raw, only their "\xNN" form
// (core::terminal_text, docs/architecture.md "Text for the terminal").
#include "core/terminal_text.h"
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace tfrig {
namespace {

using namespace std::string_literals;

// The raw bytes that must never reach a terminal from a foreign file.
void expect_no_raw_controls(const std::string& text, const std::string& what) {
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << what << ": raw ESC\n" << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << what << ": raw CR";
  EXPECT_EQ(text.find('\x07'), std::string::npos) << what << ": raw BEL";
  EXPECT_EQ(text.find('\0'), std::string::npos) << what << ": raw NUL";
  EXPECT_EQ(text.find("\xc2\x9b"), std::string::npos) << what << ": raw C1 CSI";
  EXPECT_EQ(text.find('\xff'), std::string::npos) << what << ": invalid UTF-8";
}

// A snapshot whose GPU name, OS name and kernel carry a title change (OSC 0),
// a screen clear, CR, NUL, a C1 CSI, and a newline that would forge a finding line.
std::string hostile_snapshot(const test::TempDir& dir) {
  auto doc = nlohmann::json::parse(test::read_file(test::data_dir() + "/snapshots/gpu_box_two_a100_old_driver.json"));
  doc["inventory"]["gpus"][0]["name"] = "A100\x1b]0;pwned\x07\x1b[2J\r\n  error    gpu.forged [host] forged finding"s;
  doc["inventory"]["host"]["os_pretty_name"] = "Debian\0\xc2\x9b" "31mevil"s;
  doc["inventory"]["host"]["kernel_release"] = "6.1\r\x1b[1A\x1b[2Kok"s;
  const std::string path = dir.file("hostile.json");
  test::write_file(path, doc.dump());
  return path;
}

TEST(TerminalEscape, DoctorSnapshotTextShowsHostileValuesEscaped) {
  test::TempDir dir;
  const std::string snap = hostile_snapshot(dir);
  auto r = test::run_tfrig({"doctor", "--snapshot", snap});
  ASSERT_LT(r.exit_code, 64) << r.err;
  expect_no_raw_controls(r.out, "doctor --snapshot");
  expect_no_raw_controls(r.err, "doctor --snapshot stderr");
  EXPECT_NE(r.out.find("A100\\x1b]0;pwned\\x07\\x1b[2J\\x0d\\x0a"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Debian\\x00\\xc2\\x9b31mevil"), std::string::npos) << r.out;
  // The newline inside the name did not start a line of its own.
  EXPECT_EQ(r.out.find("\n  error    gpu.forged"), std::string::npos) << r.out;
  // Prometheus' exposition and HTML are read on terminals and in browsers too.
  for (const char* format : {"prometheus", "html"}) {
    auto f = test::run_tfrig({"doctor", "--snapshot", snap, "--format", format});
    ASSERT_LT(f.exit_code, 64) << format << ": " << f.err;
    expect_no_raw_controls(f.out, format);
  }
}

TEST(TerminalEscape, DoctorColourKeepsOnlyItsOwnSequences) {
  // With colour on (a terminal), tfrig's SGR colours pass but the snapshot's
  // sequences do not: every ESC left is one of ESC[0m/1m/2m/31m/32m/33m/36m.
  test::TempDir dir;
  const std::string snap = hostile_snapshot(dir);
  test::RunOptions o;
  o.env = {"NO_COLOR="};
  auto r = test::run_tfrig({"doctor", "--snapshot", snap, "--color", "always"}, o);
  ASSERT_LT(r.exit_code, 64) << r.err;
  EXPECT_EQ(r.out.find("\x1b]"), std::string::npos);
  EXPECT_EQ(r.out.find("\x1b[2J"), std::string::npos);
  EXPECT_EQ(r.out.find('\r'), std::string::npos);
  EXPECT_NE(r.out.find("\\x1b]0;pwned"), std::string::npos) << r.out;
}

TEST(TerminalEscape, FleetNodeNamedByAHostileFileNameIsEscaped) {
  test::TempDir dir;
  const std::string snap = test::read_file(test::data_dir() + "/snapshots/gpu_box_two_a100_old_driver.json");
  const std::string nodes = dir.file("nodes");
  std::filesystem::create_directory(nodes);
  test::write_file(nodes + "/node\x1b]0;pwned\x07\x1b[2J\xff.json", snap);
  test::write_file(nodes + "/plain.json", test::read_file(test::data_dir() + "/snapshots/cpu_box_cuda13.json"));
  auto r = test::run_tfrig({"fleet", nodes});
  ASSERT_LT(r.exit_code, 64) << r.err;
  expect_no_raw_controls(r.out, "fleet stdout");
  expect_no_raw_controls(r.err, "fleet stderr");
  EXPECT_NE(r.out.find("node\\x1b]0;pwned\\x07\\x1b[2J\\xff"), std::string::npos) << r.out;
}

TEST(TerminalEscape, WatchReplayOfAHostileRecordingIsEscaped) {
  test::TempDir dir;
  std::string text = test::read_file(test::data_dir() + "/watch/cpu-heavy.jsonl");
  const size_t eol = text.find('\n');
  ASSERT_NE(eol, std::string::npos);
  auto head = nlohmann::json::parse(text.substr(0, eol));
  head["command"] = "train.py\x1b]0;pwned\x07\r\x1b[2J\0\xc2\x9b" "1m\nVerdict: forged"s;
  const std::string file = dir.file("hostile.jsonl");
  test::write_file(file, head.dump() + text.substr(eol));
  test::RunOptions wide;  // the escaped command on one line
  wide.env = {"COLUMNS=1000"};
  auto r = test::run_tfrig({"watch", "--replay", file}, wide);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_no_raw_controls(r.out, "watch --replay");
  EXPECT_NE(r.out.find("train.py\\x1b]0;pwned\\x07\\x0d\\x1b[2J\\x00\\xc2\\x9b1m\\x0aVerdict: forged"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\nVerdict: forged"), std::string::npos) << r.out;
}

TEST(TerminalEscape, AnErrorNamingAHostileFileNameIsEscapedOnStderr) {
  test::TempDir dir;
  const std::string name = dir.file("snap\x1b]0;pwned\x07\x1b[2J\r\xff.json");
  test::write_file(name, "{ not json");
  auto r = test::run_tfrig({"doctor", "--snapshot", name});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  expect_no_raw_controls(r.err, "stderr");
  EXPECT_NE(r.err.find("snap\\x1b]0;pwned\\x07\\x1b[2J\\x0d\\xff.json"), std::string::npos) << r.err;
  // A file that is not there: exit 66, the same escaped name.
  auto missing = test::run_tfrig({"doctor", "--snapshot", name + ".gone"});
  EXPECT_EQ(missing.exit_code, 66) << missing.err;
  expect_no_raw_controls(missing.err, "stderr (missing file)");
  EXPECT_NE(missing.err.find("\\x1b]0;pwned\\x07"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace tfrig
