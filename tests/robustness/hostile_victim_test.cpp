// Files from other machines against the machine that judges them: every
// command that takes a foreign file (snapshot, capture, bug report, nvidia-smi
// XML, log, watch recording, price book, fleet folder) is run on hostile
// versions of it, each with a fresh HOME, TMPDIR and working directory beside
// a "victim" folder. The test fails when anything outside the command's own
// output changed (the victim folder, TMPDIR, the working directory), when a
// marker file that a hostile string tries to create appears, when raw control
// bytes (ESC, BEL, NUL, a bare CR) or invalid UTF-8 reach the terminal, or
// when the command crashes (a signal) or calls the input an internal error.
// docs/security.md lists what tfrig promises about foreign files; this is the
// end-to-end check of those promises (the unit tests sit beside each reader).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "capture/tar.h"
#include "test_support.h"

namespace tfrig {
namespace {

namespace fs = std::filesystem;
using test::RunOptions;
using test::RunResult;
using test::TempDir;

// Strings a sender with bad intent puts into any field: terminal control
// sequences (OSC title, clear screen, cursor moves), line forgers, shell and
// Python and YAML breakers, NUL and invalid UTF-8. `@M@` is replaced by the
// path of a marker file that must never be created.
std::vector<std::string> hostile_strings() {
  using namespace std::string_literals;
  return {
      "A100\x1b]0;pwned\x07 \x1b[2J\x1b[H\x1b[31mFAKE OK\x1b[0m",
      "H100\r[ok] everything is fine\nerror: forged line",
      "x$(touch @M@)`touch @M@`; touch @M@ #",
      "x'\"; touch @M@; echo '\"\"\"\nimport os; os.system('touch @M@')\n\"\"\"",
      "nul\0inside"s,
      "bad utf8 \xff\xfe\xc3\x28 \xed\xa0\x80",
      "key: value\n- {a: [b]} # &anchor *ref\n---\n",
      "\\",
      std::string(5000, 'W') + "\x1b[6n",
  };
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

// Every file and folder under dir (links not followed) with its bytes, so that
// any change, added or removed entry shows as a difference.
std::map<std::string, std::string> tree_state(const std::string& dir) {
  std::map<std::string, std::string> out;
  if (!fs::exists(fs::symlink_status(dir))) return out;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::none); it != fs::recursive_directory_iterator();
       ++it) {
    const auto st = it->symlink_status();
    const std::string rel = fs::relative(it->path(), dir).string();
    if (fs::is_symlink(st)) {
      out[rel] = "link:" + fs::read_symlink(it->path()).string();
      it.disable_recursion_pending();
    } else if (fs::is_regular_file(st)) {
      out[rel] = "file:" + test::read_file(it->path().string());
    } else if (fs::is_directory(st)) {
      out[rel] = "dir";
    } else {
      out[rel] = "other";
    }
  }
  return out;
}

bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

// What reached the terminal may not steer it.
void expect_terminal_safe(const std::string& what, const std::string& stream, const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool bare_cr = c == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n');
    if (c == '\x1b' || c == '\x07' || c == '\0' || c == '\x9b' || bare_cr) {
      ADD_FAILURE() << what << ": raw control byte 0x" << std::hex << static_cast<int>(static_cast<unsigned char>(c))
                    << " on " << stream << " at offset " << std::dec << i << ": "
                    << text.substr(i > 40 ? i - 40 : 0, 80);
      return;
    }
  }
  EXPECT_TRUE(valid_utf8(text)) << what << ": invalid UTF-8 on " << stream;
}

class HostileInputs : public ::testing::Test {
 protected:
  void SetUp() override {
    victim_ = base_.file("victim");
    fs::create_directories(victim_ + "/etc");
    test::write_file(victim_ + "/existing.txt", "precious\n");
    test::write_file(victim_ + "/etc/config", "keep me\n");
    marker_ = victim_ + "/pwned";
    victim_before_ = tree_state(victim_);
  }

  // Runs tfrig in a fresh working directory with its own HOME and TMPDIR and
  // checks everything this test promises; `outputs` are the names the command
  // may create in its working directory.
  RunResult run_checked(const std::string& what, std::vector<std::string> args, const std::set<std::string>& outputs = {},
                        std::vector<std::string> env = {}) {
    TempDir work;
    const std::string home = work.file("home"), tmp = work.file("tmp"), cwd = work.file("cwd");
    for (const auto& d : {home, tmp, cwd}) fs::create_directories(d);
    RunOptions o;
    o.cwd = cwd;
    o.env = {"HOME=" + home, "TMPDIR=" + tmp, "LANG=C.UTF-8", "NO_COLOR=1"};
    o.env.insert(o.env.end(), env.begin(), env.end());
    RunResult r = test::run_tfrig(args, o);
    EXPECT_LT(r.exit_code, 128) << what << " was killed by a signal: " << r.err;
    EXPECT_NE(r.exit_code, 70) << what << " called the input an internal error: " << r.err;
    expect_terminal_safe(what, "stdout", r.out);
    expect_terminal_safe(what, "stderr", r.err);
    EXPECT_EQ(tree_state(victim_), victim_before_) << what << " changed the victim folder";
    EXPECT_FALSE(fs::exists(fs::symlink_status(marker_))) << what << " created the marker " << marker_;
    EXPECT_TRUE(tree_state(tmp).empty()) << what << " left files in TMPDIR";
    for (const auto& [name, kind] : tree_state(cwd)) {
      const std::string top = name.substr(0, name.find('/'));
      EXPECT_TRUE(outputs.count(top)) << what << " created '" << name << "' in its working directory";
    }
    EXPECT_TRUE(tree_state(home).empty() || outputs.count("HOME")) << what << " wrote into HOME";
    return r;
  }

  std::string hostile(const std::string& s) const { return replace_all(s, "@M@", marker_); }

  // A real snapshot with `value` put into every string whose key says it is a
  // name or free text (all strings would make the snapshot invalid JSON for
  // the reader, which then refuses it and no renderer runs).
  std::string hostile_snapshot(const std::string& value, bool every_string) const {
    auto j = nlohmann::json::parse(test::read_file(test::data_dir() + "/snapshots/gpu_box_two_a100_old_driver.json"));
    walk(j, "", value, every_string);
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

  static void walk(nlohmann::json& j, const std::string& key, const std::string& value, bool every) {
    if (j.is_object()) {
      for (auto& [k, v] : j.items()) walk(v, k, value, every);
    } else if (j.is_array()) {
      for (auto& v : j) walk(v, key, value, every);
    } else if (j.is_string() && key != "schema_version" && key != "state") {
      static const std::vector<std::string> kFree = {"name", "host", "model", "product", "vendor", "serial", "brand",
                                                     "detail", "summary", "pretty", "uuid", "kernel", "path"};
      bool free_text = every;
      for (const auto& f : kFree) free_text = free_text || key.find(f) != std::string::npos;
      if (free_text) j = value;
    }
  }

  TempDir base_;
  std::string victim_, marker_;
  std::map<std::string, std::string> victim_before_;
};

TEST_F(HostileInputs, SnapshotsReachNoTerminalScriptOrFolderUnquoted) {
  int n = 0;
  for (const auto& s : hostile_strings()) {
    for (bool every : {false, true}) {
      const std::string what = "snapshot #" + std::to_string(n++) + (every ? " (every string)" : " (names)");
      TempDir in;
      const std::string snap = in.file("node.json");
      test::write_file(snap, hostile_snapshot(hostile(s), every));
      for (const std::string fmt : {"text", "json"}) {
        run_checked(what + " doctor --format " + fmt, {"doctor", "--snapshot", snap, "--format", fmt});
      }
      run_checked(what + " fleet", {"fleet", snap, test::data_dir() + "/snapshots/cpu_box_cuda13.json"});
      run_checked(what + " report", {"report", "-o", "page.html", snap}, {"page.html"});
      run_checked(what + " doctor --format prometheus", {"doctor", "--snapshot", snap, "--format", "prometheus"});
      for (const std::string method : {"pip", "apt", "container", "ngc"}) {
        run_checked(what + " setup " + method,
                    {"setup", "--from-snapshot", snap, "--tf", "2.17", "--method", method, "-o", "out"}, {"out"});
      }
    }
  }
}

TEST_F(HostileInputs, FleetNodeNamesFromFileNamesAreEscaped) {
  TempDir in;
  const std::string dir = in.file("fleet");
  fs::create_directories(dir);
  const std::string snap = test::read_file(test::data_dir() + "/snapshots/gpu_box_two_a100_old_driver.json");
  test::write_file(dir + "/node\x1b]0;pwned\x07\x1b[2J.json", snap);
  test::write_file(dir + "/node\r\xff.json", snap);
  test::write_file(dir + "/plain.json", test::read_file(test::data_dir() + "/snapshots/cpu_box_cuda13.json"));
  run_checked("fleet DIR", {"fleet", dir});
}

TEST_F(HostileInputs, NvidiaSmiXmlEntitiesInNamesAreEscaped) {
  TempDir in;
  const std::string xml = in.file("q.xml");
  // The smallest valid document nvidia-smi writes, with entities a sender chose.
  const std::string text = "<?xml version=\"1.0\" ?>\n<nvidia_smi_log><driver_version>535.104.05&#10;$(touch " + marker_ +
         ")</driver_version><cuda_version>12.2</cuda_version><attached_gpus>1</attached_gpus>"
         "<gpu id=\"00000000:01:00.0\"><product_name>NVIDIA A100&#27;]0;pwned&#7;&#10;error: forged&#13;x</product_name>"
         "<uuid>GPU-&#27;[2J</uuid></gpu></nvidia_smi_log>\n";
  test::write_file(xml, text);
  run_checked("doctor --nvidia-smi-xml", {"doctor", "--nvidia-smi-xml", xml});
  run_checked("import", {"import", xml, "-o", "snap.json"}, {"snap.json"});
  run_checked("doctor --from xml", {"doctor", "--from", xml});
  // An imported XML's names reach setup's files through the snapshot.
  const std::string snap = in.file("from-xml.json");
  run_checked("import -o", {"import", xml, "-o", snap});
  for (const std::string method : {"pip", "apt", "container", "ngc"}) {
    run_checked("setup " + method + " from xml", {"setup", "--from-snapshot", snap, "--tf", "2.17", "--method", method, "-o", "out"},
                {"out"});
  }
}

TEST_F(HostileInputs, LogsAndRecordingsDoNotDriveTheTerminal) {
  TempDir in;
  const std::string log = in.file("train.log");
  test::write_file(log, "2024-01-01 E tensorflow/core/x.cc:1] \x1b]0;pwned\x07 Could not load dynamic library 'libcudart.so.11.0'"
                        "\x1b[2J\r\nF0000 00:00:1 \x1b[31mCUDA_ERROR_OUT_OF_MEMORY\xff\xfe\0 done\n" +
                            std::string("\x1b[6n\n"));
  run_checked("explain", {"explain", log});
  run_checked("explain --format json", {"explain", log, "--format", "json"});
  const std::string rec = in.file("rec.jsonl");
  std::string header = test::read_file(test::data_dir() + "/watch/cpu-heavy.jsonl");
  header = replace_all(header, "\"command\":\"sh -c head -c 600000000 /dev/zero | sha256sum\"",
                       "\"command\":\"train\\u001b]0;pwned\\u0007\\u001b[2J\\r\\nforged\\u0000\"");
  header = replace_all(header, "\"name\":\"vda\"", "\"name\":\"vda\\u001b[2J\\r\"");
  test::write_file(rec, header);
  run_checked("watch --replay", {"watch", "--replay", rec});
}

// A capture built the way a sender with bad intent would: an entry absolute
// after root/, and a chain of symlinks that is "inside" by its text but leaves
// the tree once the links are followed, then a file written through it.
TEST_F(HostileInputs, ACaptureWritesNothingOutsideAndLoadsNothing) {
  using capture::TarEntry;
  const std::string victim_rel = victim_.substr(1);  // no leading '/'
  std::string deep = "root";
  for (int i = 0; i < 32; ++i) deep += "/s";
  std::string up;
  for (int i = 0; i < 40; ++i) up += "../";
  const std::string manifest =
      R"({"tfrig_capture":1,"tool_version":"0","captured_at":"x","env":{"TFRIG_NVML_LIBRARY":")" + victim_ +
      R"(/evil.so","LD_PRELOAD":")" + victim_ + R"(/evil.so"},"data_paths":[],"python_prefixes":[]})";
  std::vector<std::vector<TarEntry>> captures = {
      {{TarEntry::Type::kFile, "tfrig-capture.json", manifest, ""},
       {TarEntry::Type::kDir, "root", "", ""},
       {TarEntry::Type::kFile, "root/" + victim_ + "/existing.txt", "overwritten\n", ""}},
      {{TarEntry::Type::kFile, "tfrig-capture.json", manifest, ""},
       {TarEntry::Type::kDir, "root", "", ""},
       {TarEntry::Type::kSymlink, "root/s", "", "."},
       {TarEntry::Type::kSymlink, deep + "/up", "", up.substr(0, up.size() - 1)},
       {TarEntry::Type::kFile, "root/up/" + victim_rel + "/existing.txt", "overwritten\n", ""},
       {TarEntry::Type::kFile, "root/up/" + victim_rel + "/pwned", "x", ""}},
      {{TarEntry::Type::kFile, "tfrig-capture.json", manifest, ""},
       {TarEntry::Type::kDir, "root", "", ""},
       {TarEntry::Type::kSymlink, "root/etc", "", up + victim_rel + "/etc"},
       {TarEntry::Type::kFile, "root/etc/config", "overwritten\n", ""}},
  };
  // A real .so that would betray being loaded is not needed: the victim
  // folder holds no library, so a dlopen would fail, but the attempt shows up
  // as the override's "could not be loaded" in the probe's detail.
  int n = 0;
  for (const auto& entries : captures) {
    TempDir in;
    const std::string file = in.file("capture.tar");
    test::write_file(file, capture::write_tar(entries));
    const std::string what = "capture #" + std::to_string(n++);
    auto r = run_checked(what + " doctor --from", {"doctor", "--from", file, "--format", "json"});
    EXPECT_EQ(r.out.find("evil.so"), std::string::npos) << what << ": the sender's library was tried:\n" << r.out;
    run_checked(what + " import", {"import", file, "-o", "snap.json"}, {"snap.json"});
    const std::string log = in.file("x.log");
    test::write_file(log, "E tensorflow/core/x.cc:1] CUDA_ERROR_OUT_OF_MEMORY\n");
    run_checked(what + " explain --from", {"explain", log, "--from", file});
  }
}

}  // namespace
}  // namespace tfrig
