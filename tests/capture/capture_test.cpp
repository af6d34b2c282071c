// tfrig capture: the tar writer and reader, loading into memory that never
// leaves the archive (the hostile archives are in hostile_capture_test.cpp), and the round trip the command exists for: a capture of a machine
// judged with `doctor --from` gives the findings `doctor` gives on the
// machine itself (fixture roots, and this machine live).
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "capture/capture.h"
#include "capture/tar.h"
#include "codec/gzip.h"
#include "test_support.h"

namespace tfrig::capture {
namespace {

using Type = TarEntry::Type;

TEST(Tar, RoundTripsFilesFoldersLinksAndLongNames) {
  const std::string long_dir = "root/sys/devices/pci0000:00/0000:00:03.1/0000:03:00.0/0000:04:08.0/0000:06:00.0";
  const std::vector<TarEntry> in = {
      {Type::kFile, "tfrig-capture.json", "{}\n", ""},
      {Type::kDir, "root/proc", "", ""},
      {Type::kFile, "root/proc/cpuinfo", std::string(1000, 'x') + "\n", ""},
      {Type::kFile, "root/proc/empty", "", ""},
      {Type::kSymlink, "root/proc/self", "", "4242"},
      {Type::kFile, long_dir + "/current_link_width_with_a_long_name", "16\n", ""},
      {Type::kSymlink, "root/sys/bus/pci/devices/0000:06:00.0", "", "../../.." + long_dir.substr(4)},
  };
  const std::string tar = write_tar(in);
  EXPECT_EQ(tar.size() % 512, 0u);
  auto out = read_tar(tar);
  ASSERT_TRUE(out) << out.error().to_string();
  ASSERT_EQ(out->size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ((*out)[i].type, in[i].type) << i;
    EXPECT_EQ((*out)[i].path, in[i].path) << i;
    EXPECT_EQ((*out)[i].data, in[i].data) << i;
    EXPECT_EQ((*out)[i].target, in[i].target) << i;
  }
  // Deterministic: the same entries give the same bytes.
  EXPECT_EQ(write_tar(in), tar);
  auto gz = gzip(tar);
  ASSERT_TRUE(gz);
  EXPECT_TRUE(codec::is_gzip(*gz));
  auto back = codec::gunzip(*gz, 1u << 20);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, tar);
}

TEST(Tar, RejectsBadChecksumAndTruncationNamingTheOffset) {
  std::string tar = write_tar({{Type::kFile, "a", "hello", ""}, {Type::kFile, "b", "world", ""}});
  std::string bad = tar;
  bad[1024 + 10] ^= 1;  // the second header
  auto r = read_tar(bad);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "offset 1024");
  EXPECT_NE(r.error().message.find("checksum"), std::string::npos);
  auto cut = read_tar(std::string_view(tar).substr(0, 700));
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().where, "offset 1024");
  EXPECT_NE(cut.error().message.find("truncated"), std::string::npos) << cut.error().to_string();
  auto short_data = read_tar(std::string_view(tar).substr(0, 514));
  ASSERT_FALSE(short_data);
  EXPECT_NE(short_data.error().message.find("past the end"), std::string::npos) << short_data.error().to_string();
}

std::string manifest_text() { return R"({"tfrig_capture": 1, "env": {"HOME": "/root"}})"; }

TEST(Load, RefusesPathsAndLinksOutsideTheCapture) {
  auto escape = write_tar({{Type::kFile, "tfrig-capture.json", manifest_text(), ""},
                           {Type::kFile, "root/../../etc/passwd", "x", ""}});
  auto r = load_capture(escape);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "root/../../etc/passwd");
  EXPECT_EQ(r.error().code, core::ErrorCode::kParse);
  auto link = write_tar({{Type::kFile, "tfrig-capture.json", manifest_text(), ""},
                         {Type::kSymlink, "root/etc/os-release", "", "../../../../etc/os-release"}});
  auto l = load_capture(link);
  ASSERT_FALSE(l);
  EXPECT_EQ(l.error().where, "root/etc/os-release");
  EXPECT_NE(l.error().message.find("outside"), std::string::npos) << l.error().to_string();
  auto not_capture = write_tar({{Type::kFile, "README", "x", ""}});
  EXPECT_FALSE(is_capture(not_capture));
  EXPECT_FALSE(load_capture(not_capture));
}

TEST(Load, GivesTheTreeAndTheEnvironment) {
  auto tar = write_tar({{Type::kFile, "tfrig-capture.json", manifest_text(), ""},
                        {Type::kDir, "root", "", ""},
                        {Type::kFile, "root/usr/lib/os-release", "ID=debian\n", ""},
                        {Type::kSymlink, "root/etc/os-release", "", "../usr/lib/os-release"}});
  ASSERT_TRUE(is_capture(tar));
  auto gz = gzip(tar);
  ASSERT_TRUE(gz);
  ASSERT_TRUE(is_capture(*gz));
  auto u = load_capture(*gz);
  ASSERT_TRUE(u) << u.error().to_string();
  EXPECT_EQ(u->manifest.env.at("HOME"), "/root");
  core::SysRoot root(u->tree, "m.tar.gz:", core::SysRoot::EnvMap(u->manifest.env.begin(), u->manifest.env.end()));
  EXPECT_FALSE(root.is_live());
  EXPECT_TRUE(root.in_memory());
  EXPECT_EQ(root.read_text("etc/os-release").value_or("?"), "ID=debian\n");
  EXPECT_EQ(root.full_path("etc/os-release"), "m.tar.gz:/etc/os-release");
  EXPECT_EQ(root.env("HOME").value_or("?"), "/root");
}

// The findings of a doctor JSON report, with the root folder (the fixture,
// or "FILE:", the name a capture's paths have in messages) written as <ROOT>.
std::vector<std::string> findings_of(const std::string& json_text, const std::string& root, bool ids_only) {
  auto j = nlohmann::json::parse(json_text);
  std::vector<std::string> out;
  for (const auto& f : j.at("findings")) {
    std::string line = f.at("rule_id").get<std::string>() + " " + f.at("severity").get<std::string>() + " " +
                       f.at("entity").get<std::string>();
    if (!ids_only) line += " " + f.at("message").dump() + " " + f.at("evidence").dump();
    if (!root.empty() && root != "/") line = test::replace_all(line, root, "<ROOT>");
    out.push_back(line);
  }
  return out;
}

void expect_round_trip(const std::string& root, bool ids_only) {
  test::TempDir dir;
  const std::string file = dir.file("machine.tar.gz");
  auto cap = test::run_tfrig({"--root", root, "capture", "-o", file});
  ASSERT_EQ(cap.exit_code, 0) << cap.err;
  auto live = test::run_tfrig({"--root", root, "doctor", "--format", "json", "--fail-on", "never"});
  ASSERT_EQ(live.exit_code, 0) << live.err;
  auto from = test::run_tfrig({"doctor", "--from", file, "--format", "json", "--fail-on", "never"});
  ASSERT_EQ(from.exit_code, 0) << from.err;
  EXPECT_EQ(findings_of(from.out, file + ":", ids_only), findings_of(live.out, root, ids_only)) << root;
  EXPECT_EQ(nlohmann::json::parse(from.out).at("source"), "capture:" + file);
  // import reads it the same way.
  auto imported = test::run_tfrig({"import", file, "-o", dir.file("snap.json")});
  EXPECT_EQ(imported.exit_code, 0) << imported.err;
}

TEST(CaptureRoundTrip, FixtureRootsGiveTheSameFindings) {
  for (const char* name : {"debian12-vm", "stack-cuda12", "stack-nodriver", "hwloc-nvidiagpunumanodes", "node-exporter"}) {
    SCOPED_TRACE(name);
    expect_round_trip(test::root_dir(name), false);
  }
}

TEST(CaptureRoundTrip, ThisMachineGivesTheSameFindings) {
  // Live values (free memory, swap in use) move between the two runs: the
  // same rules must fire for the same entities.
  expect_round_trip("/", true);
}

TEST(CaptureCli, WritesNothingWhenTheOutputCannotBeCreated) {
  test::TempDir dir;
  auto r = test::run_tfrig({"--root", test::root_dir("debian12-vm"), "capture", "-o", dir.file("missing/x.tar.gz")});
  EXPECT_EQ(r.exit_code, 73) << r.err;
  EXPECT_TRUE(test::list_dir(dir.path()).empty());
}

}  // namespace
}  // namespace tfrig::capture
