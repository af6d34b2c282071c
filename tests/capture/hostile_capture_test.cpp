// Captures built the way a sender with bad intent would build them (issue
// 27): each must be refused (exit 65, naming the entry or the limit and its
// flag) or read without writing, loading or opening anything outside the
// archive. The archives are built here with the capture's own tar writer.
//
// On the code before the in-memory reader, the first two wrote outside the
// scratch folder (an entry "root//tmp/x" is an absolute path once "root/" is
// taken off; "root/s" -> "." makes "root/s/s/s/s/s/up" a link to "/"), the
// third dlopen'ed the manifest's TFRIG_NVML_LIBRARY, and the bombs were
// inflated whole (is_capture inflated up to 1 GiB to read 19 bytes).
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "capture/capture.h"
#include "capture/tar.h"
#include "core/memory_tree.h"
#include "core/sysroot.h"
#include "codec/gzip.h"
#include "importer/importer.h"
#include "probe/probe.h"
#include "test_support.h"

namespace tfrig::capture {
namespace {

using Type = TarEntry::Type;

const char* kManifest = R"({"tfrig_capture": 1, "env": {}})";

TarEntry manifest(const std::string& text = kManifest) { return {Type::kFile, "tfrig-capture.json", text, ""}; }

// Writes the entries as a .tar.gz into dir and runs `tfrig doctor --from` on it.
test::RunResult doctor_from(const test::TempDir& dir, const std::vector<TarEntry>& entries,
                            const std::vector<std::string>& extra = {}, const test::RunOptions& options = {}) {
  auto gz = gzip(write_tar(entries));
  EXPECT_TRUE(gz);
  const std::string file = dir.file("evil.tar.gz");
  test::write_file(file, gz ? *gz : std::string());
  std::vector<std::string> args = {"doctor", "--from", file, "--format", "json", "--fail-on", "never"};
  args.insert(args.end(), extra.begin(), extra.end());
  return test::run_tfrig(args, options);
}

TEST(HostileCapture, AnAbsolutePathAfterRootWritesNothing) {
  test::TempDir dir;
  test::TempDir victim_dir;
  const std::string victim = victim_dir.file("x");
  // "root/" + "/tmp/.../x": the old reader wrote the file at /tmp/.../x.
  auto r = doctor_from(dir, {manifest(), {Type::kDir, "root", "", ""}, {Type::kFile, "root/" + victim, "owned\n", ""}});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("root/" + victim), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("absolute"), std::string::npos) << r.err;
  EXPECT_FALSE(test::path_exists(victim));
  EXPECT_TRUE(test::list_dir(victim_dir.path()).empty());
}

TEST(HostileCapture, ChainedSymlinksOverwriteNothingOutside) {
  test::TempDir dir;
  test::TempDir victim_dir;
  const std::string victim = victim_dir.file("keep");
  test::write_file(victim, "original\n");
  // root/s -> . ; root/s/s/s/s/s/up -> ../../../../.. (lexically inside, but
  // s/s/s/s/s is root itself); root/up/<victim> then reached the real /.
  auto r = doctor_from(dir, {manifest(),
                             {Type::kDir, "root", "", ""},
                             {Type::kSymlink, "root/s", "", "."},
                             {Type::kSymlink, "root/s/s/s/s/s/up", "", "../../../../.."},
                             {Type::kFile, "root/up" + victim, "overwritten\n", ""}});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("root/s/s/s/s/s/up"), std::string::npos) << r.err;
  EXPECT_EQ(test::read_file(victim), "original\n");
  EXPECT_EQ(test::list_dir(victim_dir.path()), std::vector<std::string>{"keep"});
}

TEST(HostileCapture, ALinkThatLeadsOutsideThroughAnotherLinkIsRefused) {
  // Each link is lexically inside; followed, x climbs above the root.
  auto tar = write_tar({manifest(),
                        {Type::kSymlink, "root/deep/er/l1", "", "../.."},
                        {Type::kSymlink, "root/x", "", "deep/er/l1/.."}});
  auto r = load_capture(tar);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "root/x");
  EXPECT_EQ(r.error().code, core::ErrorCode::kParse);
}

TEST(HostileCapture, TheManifestEnvironmentNeverLoadsALibrary) {
  // The fake NVML answers with an H100 when loaded: the old reader passed
  // the manifest's TFRIG_NVML_LIBRARY to the NVML probe, which dlopen'ed it.
  test::TempDir dir;
  nlohmann::json m = {{"tfrig_capture", 1},
                      {"env",
                       {{"TFRIG_NVML_LIBRARY", TFRIG_FAKE_NVML},
                        {"LD_PRELOAD", TFRIG_FAKE_NVML},
                        {"PATH", "/usr/bin:/bin"}}}};
  test::RunOptions env;
  env.env = {"TFRIG_FAKE_NVML_CAPTURE=" + test::data_dir() + "/watch/fake-nvml-h100-load.json"};
  auto r = doctor_from(dir, {manifest(m.dump()), {Type::kDir, "root", "", ""}, {Type::kFile, "root/etc/hostname", "evil\n", ""}},
                       {}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find(TFRIG_FAKE_NVML), std::string::npos) << "the library was loaded";
  auto j = nlohmann::json::parse(r.out);
  const auto& nvml = j.at("inventory").at("driver").at("nvml");
  EXPECT_EQ(nvml.at("state"), "not_tried") << nvml.dump();
  EXPECT_FALSE(nvml.contains("library_path") && !nvml.at("library_path").is_null()) << nvml.dump();
  EXPECT_NE(r.err.find("TFRIG_NVML_LIBRARY"), std::string::npos) << r.err;  // said to be ignored
  EXPECT_NE(r.err.find("LD_PRELOAD"), std::string::npos) << r.err;
}

TEST(HostileCapture, OnlyFactVariablesAreTaken) {
  auto tar = write_tar({manifest(R"({"tfrig_capture": 1, "env": {"TFRIG_NVML_LIBRARY": "/x/evil.so", "LD_PRELOAD": "/x/e.so",
      "LD_AUDIT": "/x/a.so", "PYTHONPATH": "/x", "LD_LIBRARY_PATH": "/usr/local/cuda/lib64", "PATH": "/usr/bin",
      "CUDA_VISIBLE_DEVICES": "0,1"}})")});
  auto r = load_capture(tar);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->manifest.env, (std::map<std::string, std::string>{{"CUDA_VISIBLE_DEVICES", "0,1"},
                                                                   {"LD_LIBRARY_PATH", "/usr/local/cuda/lib64"},
                                                                   {"PATH", "/usr/bin"}}));
  EXPECT_EQ(r->dropped_env, (std::vector<std::string>{"LD_AUDIT", "LD_PRELOAD", "PYTHONPATH", "TFRIG_NVML_LIBRARY"}));
}

TEST(HostileCapture, NvmlIsNeverOpenedOnAMemoryRootWhateverItsEnvironment) {
  // Defence in depth: even a memory root whose environment names a library
  // (nothing builds one from a capture) opens none.
  auto tree = std::make_shared<core::MemoryTree>();
  core::SysRoot root(tree, "evil.tar.gz:", {{"TFRIG_NVML_LIBRARY", TFRIG_FAKE_NVML}});
  probe::Context ctx{root, {}, std::chrono::milliseconds(5000)};
  std::vector<std::shared_ptr<const probe::Probe>> nvml;
  for (const auto& p : probe::all_probes()) {
    if (p->id() == "nvml") nvml.push_back(p);
  }
  ASSERT_EQ(nvml.size(), 1u);
  auto run = probe::run_probes(ctx, nvml);
  EXPECT_EQ(run.inventory.driver.nvml.state, "not_tried");
  EXPECT_FALSE(run.inventory.driver.nvml.library_path);
}

TEST(HostileCapture, ProbesReadOnlyFactVariables) {
  // Every variable a probe asks a root for is a fact the capture may carry,
  // or TFRIG_NVML_LIBRARY (this tfrig's own setting, never taken from one):
  // a new probe reading a new variable must decide which it is here.
  auto log = std::make_shared<core::AccessLog>();
  core::SysRoot root(test::root_dir("stack-cuda12"));
  root.record_to(log);
  probe::Context ctx{root, {}, std::chrono::milliseconds(5000)};
  (void)probe::run_probes(ctx, probe::all_probes());
  const auto seen = log->snapshot();
  ASSERT_FALSE(seen.env.empty());
  for (const auto& [name, value] : seen.env) {
    EXPECT_TRUE(is_fact_variable(name) || name == "TFRIG_NVML_LIBRARY") << name;
  }
}

// `count` gzip members of 1 MiB of zeros each: 1 GiB inflated from about 1 MB.
std::string zeros_bomb(size_t count) {
  auto member = gzip(std::string(size_t{1} << 20, '\0'));
  EXPECT_TRUE(member);
  std::string out;
  for (size_t i = 0; i < count; ++i) out += *member;
  return out;
}

TEST(HostileCapture, KindDetectionOfABombInflatesAFewKilobytes) {
  const std::string bomb = zeros_bomb(1024);
  ASSERT_LT(bomb.size(), size_t{4} << 20);
  uint64_t before = codec::inflated_bytes_total();
  EXPECT_FALSE(is_capture(bomb));
  EXPECT_LE(codec::inflated_bytes_total() - before, 8192u);
  before = codec::inflated_bytes_total();
  auto r = importer::import_inputs({importer::Input{"bomb.gz", bomb}});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("unknown kind"), std::string::npos) << r.error().to_string();
  EXPECT_LE(codec::inflated_bytes_total() - before, 65536u);
}

TEST(HostileCapture, OneHugeEntryIsRefusedAtItsHeader) {
  const std::string big(size_t{32} << 20, '\0');
  auto gz = gzip(write_tar({manifest(), {Type::kFile, "root/big", big, ""}}));
  ASSERT_TRUE(gz);
  uint64_t before = codec::inflated_bytes_total();
  auto r = load_capture(*gz);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::kUnsupported);  // exit 65
  EXPECT_EQ(r.error().where, "root/big");
  EXPECT_NE(r.error().message.find("--max-capture-entry-bytes"), std::string::npos) << r.error().to_string();
  EXPECT_LE(codec::inflated_bytes_total() - before, uint64_t{1} << 20);  // refused before its bytes were inflated
  // Raised, the zeros are a compression ratio no capture has.
  Limits limits;
  limits.max_entry_bytes = uint64_t{64} << 20;
  auto ratio = load_capture(*gz, limits);
  ASSERT_FALSE(ratio);
  EXPECT_NE(ratio.error().message.find("--max-capture-ratio"), std::string::npos) << ratio.error().to_string();
  // And a total below the entry: the total limit.
  limits.max_ratio = 1'000'000;
  limits.max_bytes = uint64_t{8} << 20;
  limits.max_entry_bytes = uint64_t{64} << 20;
  auto total = load_capture(*gz, limits);
  ASSERT_FALSE(total);
  EXPECT_NE(total.error().message.find("--max-capture-bytes"), std::string::npos) << total.error().to_string();
  // All raised: read.
  limits.max_bytes = uint64_t{64} << 20;
  auto ok = load_capture(*gz, limits);
  ASSERT_TRUE(ok) << ok.error().to_string();
  EXPECT_EQ(ok->tree->at("big")->data.size(), big.size());
}

TEST(HostileCapture, AHundredThousandEntriesAreRefusedByTheEntryLimit) {
  std::vector<TarEntry> entries = {manifest(), {Type::kDir, "root", "", ""}};
  for (int i = 0; i < 100'000; ++i) entries.push_back({Type::kFile, "root/f" + std::to_string(i), "", ""});
  const std::string tar = write_tar(entries);
  auto r = load_capture(tar);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::kUnsupported);
  EXPECT_NE(r.error().message.find("--max-capture-entries"), std::string::npos) << r.error().to_string();
  EXPECT_NE(r.error().message.find("50000"), std::string::npos) << r.error().to_string();
  Limits limits;
  limits.max_entries = 200'000;
  auto ok = load_capture(tar, limits);
  ASSERT_TRUE(ok) << ok.error().to_string();
  EXPECT_EQ(ok->tree->size(), 100'001u);  // the files and the root folder
}

TEST(HostileCapture, ConflictingEntriesExit65NamingTheEntry) {
  test::TempDir dir;
  // A file, then a folder at the same path: the old reader failed creating
  // the folder (exit 66, naming its scratch path).
  auto r = doctor_from(dir, {manifest(),
                             {Type::kDir, "root", "", ""},
                             {Type::kFile, "root/etc/os-release", "ID=debian\n", ""},
                             {Type::kDir, "root/etc/os-release", "", ""}});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("root/etc/os-release"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("/tmp/tfrig-capture-"), std::string::npos) << r.err;
  // The same file twice with other bytes.
  auto twice = load_capture(write_tar({manifest(),
                                       {Type::kFile, "root/etc/hostname", "a\n", ""},
                                       {Type::kFile, "root/etc/hostname", "b\n", ""}}));
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().where, "root/etc/hostname");
  // The same entry twice is one entry.
  EXPECT_TRUE(load_capture(write_tar({manifest(),
                                      {Type::kFile, "root/etc/hostname", "a\n", ""},
                                      {Type::kFile, "root/etc/hostname", "a\n", ""}})));
}

TEST(HostileCapture, EmptyAndDotDotNamesAreRefused) {
  for (const std::string name : {"root/", "root/a/../b", "root/./a", "root/a//b", "etc/passwd"}) {
    auto r = load_capture(write_tar({manifest(), {Type::kFile, name, "x", ""}}));
    // "root/" is the root folder as a file; the others are not plain paths under root/.
    ASSERT_FALSE(r) << name;
    EXPECT_EQ(r.error().code, core::ErrorCode::kParse) << name;
  }
}

TEST(HostileCapture, ACutShortCaptureSaysWhereItEnds) {
  test::TempDir dir;
  const std::string file = dir.file("machine.tar.gz");
  auto cap = test::run_tfrig({"--root", test::root_dir("debian12-vm"), "capture", "-o", file});
  ASSERT_EQ(cap.exit_code, 0) << cap.err;
  const std::string whole = test::read_file(file);
  const std::string cut = dir.file("cut.tar.gz");
  test::write_file(cut, whole.substr(0, whole.size() / 2));
  for (const auto& args : std::vector<std::vector<std::string>>{{"doctor", "--from", cut}, {"import", cut}}) {
    auto r = test::run_tfrig(args);
    EXPECT_EQ(r.exit_code, 65) << r.err;
    EXPECT_NE(r.err.find("truncated gzip data"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("offset"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("unknown kind"), std::string::npos) << r.err;
  }
  // Cut inside the first few hundred bytes of its tar: still a capture, still cut short.
  auto tiny = gzip(write_tar({manifest(), {Type::kFile, "root/etc/hostname", std::string(4000, 'h'), ""}}));
  ASSERT_TRUE(tiny);
  auto r = load_capture(tiny->substr(0, tiny->size() - 12));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("truncated"), std::string::npos) << r.error().to_string();
}

TEST(HostileCapture, ACutShortGzipOfNoKnownKindIsNamedAsCut) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "line " + std::to_string(i) + " of something else\n";
  auto gz = gzip(text);
  ASSERT_TRUE(gz);
  auto r = importer::import_inputs({importer::Input{"x.gz", gz->substr(0, 200)}});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("truncated gzip data"), std::string::npos) << r.error().to_string();
  EXPECT_NE(r.error().where.find("offset"), std::string::npos) << r.error().to_string();
}

TEST(HostileCapture, LimitFlagsAreOnTheCommandsThatReadCaptures) {
  test::TempDir dir;
  auto r = doctor_from(dir, {manifest(), {Type::kFile, "root/etc/hostname", std::string(3000, 'h'), ""}},
                       {"--max-capture-entry-bytes", "2k"});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("--max-capture-entry-bytes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("root/etc/hostname"), std::string::npos) << r.err;
  auto bad = test::run_tfrig({"import", dir.file("evil.tar.gz"), "--max-capture-bytes", "0"});
  EXPECT_EQ(bad.exit_code, 64) << bad.err;
  test::write_file(dir.file("t.log"), "2024-01-01 a log line\n");
  auto entries = test::run_tfrig({"explain", dir.file("t.log"), "--from", dir.file("evil.tar.gz"), "--max-capture-entries", "1"});
  EXPECT_EQ(entries.exit_code, 65) << entries.err;
  EXPECT_NE(entries.err.find("--max-capture-entries"), std::string::npos) << entries.err;
}

}  // namespace
}  // namespace tfrig::capture
