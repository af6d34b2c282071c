// End to end: the built tfrig binary (TFRIG_BINARY) on every fixture root.
//
// Golden files (golden.h): tests/data/golden/roots/<root>.txt holds `tfrig
// --root <root> doctor --color never` and roots/<root>.json `... doctor
// --format json`, both normalised (test_support.h: the absolute root path ->
// <ROOT>, probe times -> <TIME> / "seconds": 0, "generated_at",
// "tool_version"); nvidia-smi-xml/ the same for `doctor --nvidia-smi-xml` on
// every captured XML. Runs use --deadline 60 so that a loaded machine cannot
// turn a probe into a timeout.
//
// To rewrite them after an intended change of output:
//   TFRIG_UPDATE_GOLDEN=1 ctest --test-dir build
// then review `git diff tests/data/golden` before committing: every changed
// line is a change users will see.
//
// Doctor runs use --fail-on never: the verdict exit codes (0/1/2) are tested
// with the rules (tests/rules, tests/cli); here only the report matters.
//
// Also here: snapshot -> doctor --snapshot round trip, and the documented
// exit codes (65 bad input file, 66 missing input, 73 cannot write output,
// 64 usage) with messages naming the file.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "golden.h"
#include "probe/probe.h"
#include "test_support.h"

namespace tfrig::test {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

void check_golden(const std::string& file, const std::string& actual) {
  EXPECT_TRUE(matches_golden(golden_path(file), actual));
}

std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string out;
  for (char c : info.param) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, DoctorText) {
  const FixedLengthRoot fixed(root_dir(GetParam()));
  const std::string& root = fixed.path();
  auto r = run_tfrig({"--root", root, "doctor", "--fail-on", "never", "--color", "never", "--deadline", "60"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(contains(r.out, "\033[")) << "colour with --color never";
  check_golden("roots/" + GetParam() + ".txt", normalize_text_report(r.out, root));
}

TEST_P(Golden, DoctorJson) {
  const std::string root = root_dir(GetParam());
  auto r = run_tfrig({"--root", root, "doctor", "--fail-on", "never", "--format", "json", "--deadline", "60"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(j.is_discarded()) << "not JSON:\n" << r.out.substr(0, 2000);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["root"], root);
  EXPECT_EQ(j["source"], "live");
  EXPECT_EQ(j["probes"].size(), probe::all_probes().size());
  check_golden("roots/" + GetParam() + ".json", normalize_json_report(r.out, root));
}

TEST_P(Golden, SnapshotRoundTripGivesTheSameInventory) {
  const std::string root = root_dir(GetParam());
  TempDir dir;
  const std::string snap = dir.file("snap.json");
  auto written = run_tfrig({"--root", root, "snapshot", "-o", snap, "--deadline", "60"});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_TRUE(written.out.empty()) << written.out;
  EXPECT_EQ(list_dir(dir.path()), (std::vector<std::string>{"snap.json"}));  // no temp left

  auto loaded = run_tfrig({"doctor", "--fail-on", "never", "--snapshot", snap, "--format", "json"});
  ASSERT_EQ(loaded.exit_code, 0) << loaded.err;
  auto live = run_tfrig({"--root", root, "doctor", "--fail-on", "never", "--format", "json", "--deadline", "60"});
  ASSERT_EQ(live.exit_code, 0) << live.err;

  auto a = nlohmann::json::parse(normalize_json_report(loaded.out, root));
  auto b = nlohmann::json::parse(normalize_json_report(live.out, root));
  EXPECT_EQ(a["source"], "snapshot:" + snap);
  EXPECT_EQ(b["source"], "live");
  a.erase("source");
  b.erase("source");
  EXPECT_TRUE(a["inventory"] == b["inventory"]) << line_diff(b["inventory"].dump(1), a["inventory"].dump(1));
  EXPECT_TRUE(a == b) << line_diff(b.dump(1), a.dump(1));

  // The text report of the snapshot renders too, and says where it came from.
  auto text = run_tfrig({"doctor", "--fail-on", "never", "--snapshot", snap, "--color", "never"});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "snapshot:" + snap)) << text.out.substr(0, 300);
}

INSTANTIATE_TEST_SUITE_P(Roots, Golden, ::testing::ValuesIn(root_names()), param_name);

// Doctor on every real `nvidia-smi -q -x` capture (tests/data/nvidia-smi-xml,
// provenance in its README), through the import path: what the rules say
// about a colleague's machine from that one file.
std::vector<std::string> nvidia_smi_xml_files() {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(data_dir()) / "nvidia-smi-xml")) {
    if (e.is_regular_file() && e.path().extension() == ".xml") {
      out.push_back(fs::relative(e.path(), fs::path(data_dir()) / "nvidia-smi-xml").string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

class GoldenNvidiaSmiXml : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenNvidiaSmiXml, DoctorTextAndJson) {
  // Relative to tests/data, so the output is the same wherever the tree is.
  const std::string file = (fs::path("nvidia-smi-xml") / GetParam()).string();
  std::string name = GetParam();
  std::replace(name.begin(), name.end(), '/', '_');
  RunOptions in_data;
  in_data.cwd = data_dir();
  auto text = run_tfrig({"doctor", "--fail-on", "never", "--nvidia-smi-xml", file, "--color", "never"}, in_data);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("GPU"), std::string::npos);
  check_golden("nvidia-smi-xml/" + name + ".txt", normalize_text_report(text.out, data_dir()));
  auto json = run_tfrig({"doctor", "--fail-on", "never", "--nvidia-smi-xml", file, "--format", "json"}, in_data);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto j = nlohmann::json::parse(json.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_FALSE(j["inventory"]["gpus"].empty()) << "no GPU imported from " << file;
  EXPECT_TRUE(j.contains("findings"));
  check_golden("nvidia-smi-xml/" + name + ".json", normalize_json_report(json.out, data_dir()));
}

INSTANTIATE_TEST_SUITE_P(Captures, GoldenNvidiaSmiXml, ::testing::ValuesIn(nvidia_smi_xml_files()), param_name);

// ------------------------------------------------------------ errors and exit codes

class SnapshotErrors : public ::testing::Test {
 protected:
  // A valid snapshot of debian12-vm, as JSON, to break in different ways.
  static nlohmann::json good_snapshot() {
    auto r = run_tfrig({"--root", root_dir("debian12-vm"), "snapshot", "-o", "-"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
  TempDir dir_;
};

TEST_F(SnapshotErrors, WrongFieldTypeIsExit65NamingTheFileAndJsonPath) {
  auto j = good_snapshot();
  j["inventory"]["cpu"]["threads"] = "many";
  const std::string file = dir_.file("bad-type.json");
  write_file(file, j.dump(2));
  auto r = run_tfrig({"doctor", "--fail-on", "never", "--snapshot", file});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_TRUE(contains(r.err, file)) << r.err;
  EXPECT_TRUE(contains(r.err, "/inventory/cpu/threads")) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(SnapshotErrors, WrongTypeInAListNamesTheIndex) {
  auto j = good_snapshot();
  j["inventory"]["pci"]["devices"][1]["vendor_id"] = "0x1af4";
  const std::string file = dir_.file("bad-list.json");
  write_file(file, j.dump());
  auto r = run_tfrig({"doctor", "--fail-on", "never", "--snapshot", file, "--format", "json"});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_TRUE(contains(r.err, file)) << r.err;
  EXPECT_TRUE(contains(r.err, "/inventory/pci/devices/1/vendor_id")) << r.err;
}

TEST_F(SnapshotErrors, BadProbeStateNamesItsPath) {
  auto j = good_snapshot();
  j["probes"][2]["state"] = "fine";
  const std::string file = dir_.file("bad-state.json");
  write_file(file, j.dump());
  auto r = run_tfrig({"doctor", "--fail-on", "never", "--snapshot", file});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_TRUE(contains(r.err, file + ": /probes/2/state")) << r.err;
}

TEST_F(SnapshotErrors, NotJsonIsExit65WithTheByte) {
  const std::string file = dir_.file("not.json");
  write_file(file, "{\"schema_version\": 1,\n oops");
  auto r = run_tfrig({"doctor", "--fail-on", "never", "--snapshot", file});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_TRUE(contains(r.err, file + ": byte ")) << r.err;
}

TEST_F(SnapshotErrors, NewerSchemaIsExit65) {
  auto j = good_snapshot();
  j["schema_version"] = 99;
  const std::string file = dir_.file("future.json");
  write_file(file, j.dump());
  auto r = run_tfrig({"doctor", "--fail-on", "never", "--snapshot", file});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_TRUE(contains(r.err, file + ": /schema_version")) << r.err;
  EXPECT_TRUE(contains(r.err, "upgrade tfrig")) << r.err;
}

TEST_F(SnapshotErrors, NotASnapshotIsExit65) {
  const std::string file = dir_.file("array.json");
  write_file(file, "[1, 2]");
  auto r = run_tfrig({"doctor", "--fail-on", "never", "--snapshot", file});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_TRUE(contains(r.err, file)) << r.err;
}

TEST_F(SnapshotErrors, MissingKeysReadAsUnknown) {
  // Adding a field is not a schema bump: an older snapshot lacks keys.
  auto j = good_snapshot();
  j["inventory"]["cpu"].erase("threads");
  j["inventory"].erase("limits");
  const std::string file = dir_.file("old.json");
  write_file(file, j.dump());
  auto r = run_tfrig({"doctor", "--fail-on", "never", "--snapshot", file, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto out = nlohmann::json::parse(r.out);
  EXPECT_TRUE(out["inventory"]["cpu"]["threads"].is_null());
  EXPECT_TRUE(out["inventory"]["limits"]["nofile"]["soft"].is_null());
}

TEST_F(SnapshotErrors, NegativeValueForAnUnsignedFieldIsExit65) {
  // nlohmann's get<uint64_t>() wraps -1 to 18446744073709551615 silently: a
  // snapshot with "total_bytes": -1 must be rejected, not read as 16 EiB.
  auto j = good_snapshot();
  j["inventory"]["memory"]["total_bytes"] = -1;
  const std::string file = dir_.file("negative.json");
  write_file(file, j.dump());
  auto r = run_tfrig({"doctor", "--fail-on", "never", "--snapshot", file, "--format", "json"});
  EXPECT_EQ(r.exit_code, 65) << r.err << r.out.substr(0, 200);
  EXPECT_TRUE(contains(r.err, "/inventory/memory/total_bytes")) << r.err;
}

TEST_F(SnapshotErrors, LimitThatIsNotAnObjectIsExit65) {
  // {"soft": .., "hard": ..} expected; a number there must not read as
  // "unknown" without a word.
  auto j = good_snapshot();
  j["inventory"]["limits"]["nofile"] = 5;
  const std::string file = dir_.file("limit.json");
  write_file(file, j.dump());
  auto r = run_tfrig({"doctor", "--fail-on", "never", "--snapshot", file, "--format", "json"});
  EXPECT_EQ(r.exit_code, 65) << r.err << r.out.substr(0, 200);
  EXPECT_TRUE(contains(r.err, "/inventory/limits/nofile")) << r.err;
}

TEST_F(SnapshotErrors, MissingSnapshotIsExit66NamingThePath) {
  const std::string file = dir_.file("does-not-exist.json");
  auto r = run_tfrig({"doctor", "--fail-on", "never", "--snapshot", file});
  EXPECT_EQ(r.exit_code, 66) << r.err;
  EXPECT_TRUE(contains(r.err, file)) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliErrors, NonexistentRootNamesThePath) {
  auto r = run_tfrig({"--root", "/nonexistent", "doctor", "--fail-on", "never"});
  EXPECT_EQ(r.exit_code, 66) << r.err;
  EXPECT_TRUE(contains(r.err, "/nonexistent")) << r.err;
  EXPECT_TRUE(contains(r.err, "--root")) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  auto s = run_tfrig({"--root", "/nonexistent", "snapshot", "-o", "-"});
  EXPECT_EQ(s.exit_code, 66) << s.err;
  EXPECT_TRUE(contains(s.err, "/nonexistent")) << s.err;
}

TEST(CliErrors, UsageErrorsAreExit64) {
  EXPECT_EQ(run_tfrig({"doctor", "--fail-on", "never", "--format", "yaml"}).exit_code, 64);
  EXPECT_EQ(run_tfrig({"--root", root_dir("debian12-vm"), "doctor", "--fail-on", "never", "--deadline", "0"}).exit_code, 64);
  EXPECT_EQ(run_tfrig({"snapshot"}).exit_code, 64);  // -o is required
  EXPECT_EQ(run_tfrig({}).exit_code, 64);            // a subcommand is required
}

TEST(CliErrors, SnapshotIntoAMissingDirectoryIs73AndLeavesNothing) {
  TempDir dir;
  const std::string out = dir.file("missing/snap.json");
  auto r = run_tfrig({"--root", root_dir("debian12-vm"), "snapshot", "-o", out});
  EXPECT_EQ(r.exit_code, 73) << r.err;
  EXPECT_TRUE(contains(r.err, out)) << r.err;
  EXPECT_TRUE(list_dir(dir.path()).empty());
}

TEST(CliErrors, SnapshotIntoAReadOnlyDirectoryIs73AndLeavesNoTemp) {
  TempDir dir;
  const std::string ro = dir.file("ro");
  ASSERT_EQ(::mkdir(ro.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(ro.c_str(), 0555), 0);
  // Root ignores directory permissions: run the binary as nobody then.
  RunOptions as_user;
  as_user.as_nobody = true;
  ::chmod(dir.path().c_str(), 0755);  // nobody must be able to reach ro/
  const std::string out = ro + "/snap.json";
  auto r = run_tfrig({"--root", root_dir("debian12-vm"), "snapshot", "-o", out}, as_user);
  if (r.exit_code == 126) GTEST_SKIP() << "cannot drop privileges to test a read-only directory";
  EXPECT_EQ(r.exit_code, 73) << r.err;
  EXPECT_TRUE(contains(r.err, out)) << r.err;
  EXPECT_TRUE(contains(r.err, "Permission denied")) << r.err;
  EXPECT_TRUE(list_dir(ro).empty());
}

TEST(CliErrors, SnapshotToStdout) {
  auto r = run_tfrig({"--root", root_dir("debian12-vm"), "snapshot", "-o", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["inventory"]["host"]["os_id"], "debian");
}

TEST(Cli, MountPointThatIsNotUtf8) {
  // Linux paths are bytes: a mount point "/mnt/caf\351" (Latin-1) is legal and
  // mountinfo's octal escape decodes to the byte 0xE9. doctor --format json
  // and snapshot must still write a report (exit 0, valid JSON), not stop
  // with "internal error: [json.exception.type_error.316]" (exit 70).
  TempDir dir;
  fs::create_directories(dir.file("proc/self"));
  write_file(dir.file("proc/self/mountinfo"),
             "26 1 254:0 / / rw - ext4 /dev/vda rw\n"
             "27 26 0:50 / /mnt/caf\\351 rw - nfs4 srv:/x rw\n");
  auto text = run_tfrig({"--root", dir.path(), "doctor", "--fail-on", "never", "--color", "never"});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  auto r = run_tfrig({"--root", dir.path(), "doctor", "--fail-on", "never", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << r.out.substr(0, 300);
  auto s = run_tfrig({"--root", dir.path(), "snapshot", "-o", dir.file("snap.json")});
  EXPECT_EQ(s.exit_code, 0) << s.err;
}

TEST(Normalize, TimesRootAndVersionDoNotMatter) {
  // The time column is 10 columns wide whatever the times (text_report.cpp).
  const std::string a =
      "tfrig doctor 0.1.0 - this machine (root /r/x)\n\nProbes\n"
      "  probe    state   time        detail\n"
      "  host     ok      850 us      fine\n"
      "  storage  absent  1.2 ms      /r/x/sys missing\n"
      "  host: /r/x/etc/os-release: 12 ms ago\n";
  const std::string b =
      "tfrig doctor 0.2.0 - this machine (root /q/x)\n\nProbes\n"
      "  probe    state   time        detail\n"
      "  host     ok      12.5 ms     fine\n"
      "  storage  absent  1.52 s      /q/x/sys missing\n"
      "  host: /q/x/etc/os-release: 12 ms ago\n";
  EXPECT_EQ(normalize_text_report(a, "/r/x"), normalize_text_report(b, "/q/x"));
  EXPECT_TRUE(contains(normalize_text_report(a, "/r/x"), "  storage  absent  <TIME>      <ROOT>/sys missing\n"));
  EXPECT_TRUE(contains(normalize_text_report(a, "/r/x"), "  host: <ROOT>/etc/os-release: 12 ms ago\n"));
  EXPECT_EQ(normalize_text_report(std::string("k\0x\n", 4), "/r"), "k\\x00x\n");
  const std::string ja = R"({"generated_at":"2026-01-01T00:00:00Z","root":"/r/x","tool_version":"0.1.0",)"
                         R"("probes":[{"id":"cpu","seconds":0.5,"problems":["/r/x/proc/cpuinfo: bad"]}]})";
  const std::string jb = R"({"generated_at":"2027-01-01T00:00:00Z","root":"/q/x","tool_version":"0.2.0",)"
                         R"("probes":[{"id":"cpu","seconds":1.5,"problems":["/q/x/proc/cpuinfo: bad"]}]})";
  EXPECT_EQ(normalize_json_report(ja, "/r/x"), normalize_json_report(jb, "/q/x"));
  EXPECT_TRUE(contains(normalize_json_report(ja, "/r/x"), "\"<ROOT>/proc/cpuinfo: bad\""));
}

TEST(Cli, DataPathInTheReport) {
  auto r = run_tfrig({"--root", root_dir("debian12-vm"), "doctor", "--fail-on", "never", "--data", "/usr/lib", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["inventory"]["storage"]["data_paths"].size(), 1u);
  const auto& dp = j["inventory"]["storage"]["data_paths"][0];
  EXPECT_EQ(dp["path"], "/usr/lib");
  EXPECT_EQ(dp["mount_point"], "/");
  EXPECT_EQ(dp["block_device"], "vda");
  auto text = run_tfrig({"--root", root_dir("debian12-vm"), "doctor", "--fail-on", "never", "--data", "/usr/lib", "--color", "never"});
  EXPECT_TRUE(contains(text.out, "Data path        /usr/lib on / (ext4), disk vda (virtual)")) << text.out;
}

TEST(Cli, ColorAlwaysColoursAndVersionPrints) {
  auto r = run_tfrig({"--root", root_dir("debian12-vm"), "doctor", "--fail-on", "never", "--color", "always"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "\033[32mok\033[0m")) << r.out.substr(0, 300);
  auto v = run_tfrig({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_TRUE(contains(v.out, "tfrig ")) << v.out;
}

}  // namespace
}  // namespace tfrig::test
