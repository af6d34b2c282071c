// A snapshot comes from a machine we do not control (docs/security.md): every
// string of its inventory is set to each hostile string of
// tests/data/hostile/strings.json, and `setup` plans and writes all four
// methods from it. No value may become code: outside comments (and the
// docstring) every file is byte for byte the one a harmless value gives;
// install.sh passes `bash -n` and shellcheck, tuning.py compiles and runs
// (with a stand-in tensorflow), compose.yaml and daemon.json parse, and
// `install.sh --dry-run` in a throwaway root creates nothing: the payloads
// `touch` files in a victim folder, which must stay as it was.
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gather/gather.h"
#include "inventory/json.h"
#include "knowledge/knowledge.h"
#include "setup_test_support.h"
#include "test_support.h"

namespace tfrig::setup::test {
namespace {

namespace fs = std::filesystem;

struct Hostile {
  std::string name;
  std::string value;
  bool payload = false;  // it tries to run something (creates a file in the victim folder or /tmp/pwn)
};

std::string unhex(const std::string& hex) {
  std::string out;
  std::string digits;
  for (char c : hex) {
    if (std::isxdigit(static_cast<unsigned char>(c))) digits += c;
  }
  for (size_t i = 0; i + 1 < digits.size(); i += 2) out += static_cast<char>(std::stoi(digits.substr(i, 2), nullptr, 16));
  return out;
}

// tests/data/hostile/strings.json with VICTIM replaced by `victim`.
std::vector<Hostile> corpus(const std::string& victim) {
  const auto doc = nlohmann::json::parse(tfrig::test::read_file(tfrig::test::data_dir() + "/hostile/strings.json"));
  const std::string placeholder = doc.at("placeholder").get<std::string>();
  std::vector<Hostile> out;
  for (const auto& e : doc.at("strings")) {
    Hostile h;
    h.name = e.at("name").get<std::string>();
    if (e.contains("hex")) {
      h.value = unhex(e.at("hex").get<std::string>());
    } else if (e.contains("repeat")) {
      for (int i = 0; i < e.at("count").get<int>(); ++i) h.value += e.at("repeat").get<std::string>();
    } else {
      h.value = e.at("text").get<std::string>();
    }
    h.payload = h.value.find(placeholder) != std::string::npos || h.value.find("/tmp/pwn") != std::string::npos;
    for (size_t pos = h.value.find(placeholder); pos != std::string::npos; pos = h.value.find(placeholder, pos + victim.size())) {
      h.value.replace(pos, placeholder.size(), victim);
    }
    out.push_back(std::move(h));
  }
  return out;
}

// Every string of the JSON set to `value`, but for the keys in `keep`.
void poison(nlohmann::json& j, const std::string& value, const std::set<std::string>& keep) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (keep.count(it.key())) continue;
      if (it.value().is_string()) {
        it.value() = value;
      } else {
        poison(it.value(), value, keep);
      }
    }
  } else if (j.is_array()) {
    for (auto& e : j) {
      if (e.is_string()) {
        e = value;
      } else {
        poison(e, value, keep);
      }
    }
  }
}

// The cells the test plans: the first of each method with an --os and the default sources.
std::vector<Cell> method_cells() {
  std::vector<Cell> out;
  for (Method m : {Method::kPip, Method::kApt, Method::kContainer, Method::kNgc}) {
    for (const auto& c : cells()) {
      if (c.method == m && !c.refused && !c.os.empty() && c.mirror.empty() && !c.snapshot.empty()) {
        out.push_back(c);
        break;
      }
    }
  }
  return out;
}

std::vector<OutputFile> render_with(const Cell& c, const std::string& value, bool keep_cc) {
  gather::InventorySourceOptions source;
  source.snapshot = tfrig::test::data_dir() + "/../" + c.snapshot;
  auto report = gather::load_report(source);
  EXPECT_TRUE(report.has_value()) << c.snapshot;
  if (!report) return {};
  nlohmann::json j = report->inventory;
  std::set<std::string> keep;
  if (keep_cc) keep.insert("compute_capability");
  poison(j, value, keep);
  inventory::Inventory inv;
  try {
    inv = j.get<inventory::Inventory>();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the poisoned inventory does not load: " << e.what();
    return {};
  }
  SetupOptions o;
  size_t start = 0;
  while (start <= c.tf.size() && !c.tf.empty()) {
    size_t comma = c.tf.find(',', start);
    if (comma == std::string::npos) comma = c.tf.size();
    o.tf.push_back(c.tf.substr(start, comma - start));
    start = comma + 1;
  }
  o.os = c.os;
  o.method = c.method;
  o.gpu = c.gpu;
  auto out = make_setup_plan(knowledge::builtin(), &inv, o);
  EXPECT_TRUE(out.has_value()) << c.name << ": " << (out ? "" : out.error().to_string());
  if (!out || !out->plan) {
    ADD_FAILURE() << c.name << ": no plan";
    return {};
  }
  return render_all(*out->plan, knowledge::builtin());
}

bool is_comment_line(const std::string& line) {
  const size_t first = line.find_first_not_of(" \t");
  return first != std::string::npos && line[first] == '#';
}

// The lines a value may not change: all but comments (and, for tuning.py, its docstring).
std::vector<std::string> code_lines(const OutputFile& f) {
  std::string text = f.content;
  if (f.path == "README.md") return {};
  if (f.path == "tuning.py") {
    const size_t end = text.find("\n\"\"\"\n");
    text = end == std::string::npos ? text : text.substr(end);
  }
  std::vector<std::string> out;
  for (const auto& line : lines_of(text)) {
    if (!is_comment_line(line)) out.push_back(line);
  }
  return out;
}

void write_files(const std::string& dir, const std::vector<OutputFile>& files) {
  for (const auto& f : files) {
    fs::create_directories((fs::path(dir) / f.path).parent_path());
    tfrig::test::write_file(dir + "/" + f.path, f.content);
    ::chmod((dir + "/" + f.path).c_str(), f.mode);
  }
}

// What is in a folder: names, sizes and contents.
std::string folder_state(const std::string& dir) {
  std::ostringstream s;
  std::vector<std::string> paths;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    paths.push_back(it->path().string());
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    s << p << "\n";
    if (fs::is_regular_file(p)) s << tfrig::test::read_file(p) << "\n";
  }
  return s.str();
}

// Stand-ins for every command install.sh asks or changes the system with:
// the questions answer "nothing installed", the changes log CHANGED.
void write_stubs(const std::string& dir) {
  fs::create_directories(dir);
  auto stub = [&](const std::string& name, const std::string& body) {
    tfrig::test::write_file(dir + "/" + name, "#!/bin/sh\necho \"" + name + " $*\" >>\"$STUB_LOG\"\n" + body + "\n");
    ::chmod((dir + "/" + name).c_str(), 0755);
  };
  for (const char* ask : {"dpkg-query", "systemctl", "nvidia-smi"}) stub(ask, "exit 1");
  for (const char* ask : {"apt-cache", "apt-mark", "ubuntu-drivers", "swapon", "sysctl", "uname"}) stub(ask, "exit 0");
  for (const char* change : {"apt-get", "dpkg", "install", "update-initramfs", "swapoff", "ldconfig", "curl", "gpg",
                             "nvidia-ctk", "docker", "modprobe", "python3", "python3.10", "python3.11", "python3.12",
                             "python3.8"}) {
    stub(change, "echo CHANGED >>\"$STUB_LOG\"; exit 0");
  }
}

const char* kRunTuning = R"PY(
import os, sys, types
# A stand-in tensorflow: tuning.py is run whole (module level and set_precision), never on a GPU.
tf = types.ModuleType("tensorflow")
class _Config:
    @staticmethod
    def list_physical_devices(kind):
        return []
tf.config = _Config()
sys.modules["tensorflow"] = tf
bad = 0
for path in sys.argv[1:]:
    try:
        code = compile(open(path, "rb").read(), path, "exec")
        ns = {"__name__": "tuning"}
        exec(code, ns)
        ns["set_precision"]()
    except Exception as e:
        print("FAIL %s: %r" % (path, e))
        bad += 1
sys.exit(1 if bad else 0)
)PY";

const char* kParseData = R"PY(
import json, sys, yaml
bad = 0
for path in sys.argv[1:]:
    try:
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f) if path.endswith(".yaml") else json.load(f)
        if path.endswith(".yaml"):
            assert set(doc) == {"name", "services"}, sorted(doc)
            for name, svc in doc["services"].items():
                assert name.startswith("tf-") and "privileged" not in svc and "command" not in svc, name
    except Exception as e:
        print("FAIL %s: %r" % (path, e))
        bad += 1
sys.exit(1 if bad else 0)
)PY";

TEST(SetupHostile, NoSnapshotValueBecomesCodeInAnyMethod) {
  tfrig::test::TempDir tmp;
  const std::string victim = tmp.file("victim");
  fs::create_directories(victim);
  tfrig::test::write_file(victim + "/keep", "the victim's file\n");
  const bool tmp_pwn_before = fs::exists("/tmp/pwn");
  const std::string victim_before = folder_state(victim);
  const auto strings = corpus(victim);
  ASSERT_GE(strings.size(), 30u);

  std::vector<std::string> scripts, payload_scripts, pythons, data_files;
  for (const auto& c : method_cells()) {
    for (bool keep_cc : {true, false}) {
      const auto benign = render_with(c, "Harmless GPU name", keep_cc);
      ASSERT_FALSE(benign.empty()) << c.name;
      for (const auto& h : strings) {
        SCOPED_TRACE(c.name + (keep_cc ? " (cc kept) " : " (every string) ") + h.name);
        const auto files = render_with(c, h.value, keep_cc);
        ASSERT_EQ(files.size(), benign.size());
        for (size_t i = 0; i < files.size(); ++i) {
          ASSERT_EQ(files[i].path, benign[i].path);
          // No control character, no ESC, whatever the value held.
          for (char ch : files[i].content) {
            const auto b = static_cast<unsigned char>(ch);
            ASSERT_TRUE(b >= 0x20 || ch == '\n') << files[i].path << " holds byte " << int(b);
          }
          EXPECT_EQ(code_lines(files[i]), code_lines(benign[i])) << files[i].path << ": a value changed code\n"
                                                                 << files[i].content.substr(0, 2000);
          // A value adds no line, but for one that names a known GPU (or none: the
          // catalog's name then), whose plan may hold one more note in README.md.
          const bool known = h.value.empty() || knowledge::builtin().find_gpu(h.value).has_value();
          if (!(known && files[i].path == "README.md")) {
            EXPECT_EQ(lines_of(files[i].content).size(), lines_of(benign[i].content).size())
                << files[i].path << ": a value added or removed lines";
          }
        }
        const std::string dir = tmp.file("renders/" + c.name + (keep_cc ? "_cc_" : "_all_") + h.name);
        write_files(dir, files);
        scripts.push_back(dir + "/install.sh");
        // Dry runs cost a second each on a busy machine: every payload alone for pip,
        // and all of them at once for every method (below).
        if (h.payload && keep_cc && c.method == Method::kPip) payload_scripts.push_back(dir + "/install.sh");
        pythons.push_back(dir + "/tuning.py");
        if (fs::exists(dir + "/compose.yaml")) data_files.push_back(dir + "/compose.yaml");
        if (fs::exists(dir + "/docker/daemon.json")) data_files.push_back(dir + "/docker/daemon.json");
      }
    }
    std::string all;
    for (const auto& h : strings) all += h.value + " ";
    const std::string dir = tmp.file("renders/" + c.name + "_all_at_once");
    write_files(dir, render_with(c, all, true));
    payload_scripts.push_back(dir + "/install.sh");
    pythons.push_back(dir + "/tuning.py");
  }
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& p : v) s += " " + shell_word(p);
    return s;
  };
  const std::string log = tmp.file("check.log");
  // bash -n, every script.
  EXPECT_EQ(sh("for f in" + list(scripts) + "; do bash -n \"$f\" || echo \"FAIL $f\"; done >" + shell_word(log) +
               " 2>&1; ! grep -q FAIL " + shell_word(log)),
            0)
      << tfrig::test::read_file(log);
  // tuning.py: compiled and run with a stand-in tensorflow.
  tfrig::test::write_file(tmp.file("run_tuning.py"), kRunTuning);
  EXPECT_EQ(sh(tfrig::test::python3() + " " + shell_word(tmp.file("run_tuning.py")) + list(pythons) + " >" + shell_word(log) + " 2>&1"), 0)
      << tfrig::test::read_file(log);
  // compose.yaml (python3-yaml) and daemon.json parse, with only tfrig's keys.
  if (sh(tfrig::test::python3() + " -c 'import yaml' 2>/dev/null") == 0) {
    tfrig::test::write_file(tmp.file("parse.py"), kParseData);
    EXPECT_EQ(sh(tfrig::test::python3() + " " + shell_word(tmp.file("parse.py")) + list(data_files) + " >" + shell_word(log) + " 2>&1"), 0)
        << tfrig::test::read_file(log);
  }
  // --dry-run of each script a payload went into, in a throwaway root with stubs.
  const std::string stubs = tmp.file("stubs"), root = tmp.file("root"), calls = tmp.file("calls.log");
  write_stubs(stubs);
  fs::create_directories(root + "/etc");
  const std::string root_before = folder_state(root);
  EXPECT_EQ(sh("for f in" + list(payload_scripts) + "; do env -i PATH=" + shell_word(stubs + ":/usr/bin:/bin") + " HOME=" + shell_word(root) +
               " STUB_LOG=" + shell_word(calls) + " TFRIG_ROOT=" + shell_word(root) + " TFRIG_VENV=" + shell_word(root + "/opt/venv") +
               " bash \"$f\" --dry-run >/dev/null 2>&1 || echo \"FAIL $f\"; done >" + shell_word(log) + " 2>&1; ! grep -q FAIL " +
               shell_word(log)),
            0)
      << tfrig::test::read_file(log);
  const std::string called = fs::exists(calls) ? tfrig::test::read_file(calls) : "";
  EXPECT_EQ(called.find("CHANGED"), std::string::npos) << "a dry run called a command that changes something:\n"
                                                       << called.substr(0, 3000);
  EXPECT_EQ(folder_state(root), root_before) << "a dry run wrote into its root";
  EXPECT_EQ(folder_state(victim), victim_before) << "a payload ran: the victim folder changed";
  if (!tmp_pwn_before) {
    EXPECT_FALSE(fs::exists("/tmp/pwn")) << "a payload ran: /tmp/pwn was created";
    fs::remove("/tmp/pwn");
  }
}

// shellcheck takes half a second a script: one per method, with every hostile
// string at once in every field (the test above checks them one by one).
TEST(SetupHostile, ShellcheckCleanWithHostileNames) {
  if (sh("command -v shellcheck >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "shellcheck is not installed (Debian package shellcheck, scripts/deps-setup.txt)";
  }
  tfrig::test::TempDir tmp;
  std::string all;
  for (const auto& h : corpus(tmp.file("victim"))) all += h.value + " ";
  std::string files;
  for (const auto& c : method_cells()) {
    const std::string dir = tmp.file("r/" + c.name);
    write_files(dir, render_with(c, all, true));
    files += " " + shell_word(dir + "/install.sh");
  }
  const std::string log = tmp.file("shellcheck.log");
  EXPECT_EQ(sh("shellcheck -s bash" + files + " >" + shell_word(log) + " 2>&1"), 0) << tfrig::test::read_file(log).substr(0, 6000);
}

// The same through the importer: an nvidia-smi XML whose <product_name> holds
// "&#10;" (a newline once decoded), imported as a snapshot, then `tfrig setup`.
TEST(SetupHostile, ImportedXmlProductNameStaysAComment) {
  tfrig::test::TempDir tmp;
  const std::string victim = tmp.file("victim");
  fs::create_directories(victim);
  std::string xml = tfrig::test::read_file(tfrig::test::data_dir() + "/nvidia-smi-xml/telegraf/a100-sxm4-v12.xml");
  const size_t open = xml.find("<product_name>"), close = xml.find("</product_name>");
  ASSERT_NE(open, std::string::npos);
  xml.replace(open, close - open, "<product_name>NVIDIA A100-SXM4-40GB&#10;touch " + victim +
                                      "/pwn-xml&#10;&quot;&quot;&quot;&#10;open(&quot;" + victim + "/pwn-xmlpy&quot;, &quot;w&quot;)&#10;");
  tfrig::test::write_file(tmp.file("smi.xml"), xml);
  auto imported = tfrig::test::run_tfrig({"import", "nvidia-smi-xml", tmp.file("smi.xml"), "-o", tmp.file("snap.json")});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  const std::string out = tmp.file("out");
  auto r = tfrig::test::run_tfrig(
      {"setup", "--from-snapshot", tmp.file("snap.json"), "--os", "ubuntu-22.04", "--tf", "2.17", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\n' + std::string("touch")), std::string::npos) << "the plan printed a line of the name:\n" << r.out;
  const std::string script = tfrig::test::read_file(out + "/install.sh");
  for (const auto& line : lines_of(script)) {
    if (line.find("pwn-xml") != std::string::npos) {
      EXPECT_TRUE(is_comment_line(line)) << line;
    }
  }
  const std::string stubs = tmp.file("stubs"), root = tmp.file("root");
  write_stubs(stubs);
  fs::create_directories(root);
  EXPECT_EQ(sh("env -i PATH=" + shell_word(stubs + ":/usr/bin:/bin") + " STUB_LOG=" + shell_word(tmp.file("calls.log")) + " TFRIG_ROOT=" +
               shell_word(root) + " TFRIG_VENV=" + shell_word(root + "/venv") + " bash " + shell_word(out + "/install.sh") + " --dry-run >/dev/null 2>&1"),
            0);
  tfrig::test::write_file(tmp.file("run_tuning.py"), kRunTuning);
  EXPECT_EQ(sh(tfrig::test::python3() + " " + shell_word(tmp.file("run_tuning.py")) + " " + shell_word(out + "/tuning.py") + " >/dev/null 2>&1"), 0);
  EXPECT_TRUE(tfrig::test::list_dir(victim).empty()) << "a payload from <product_name> ran";
}

}  // namespace
}  // namespace tfrig::setup::test
