// The generated install.sh: every one passes `bash -n` and `shellcheck`, and
// `--dry-run` runs end to end here, in a throwaway root with stub commands,
// changing nothing (the files under the temp directory are the same before
// and after, and no command that changes a system was called).
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "core/i18n.h"
#include "core/i18n_scope.h"
#include "setup_test_support.h"
#include "test_support.h"

namespace tfrig::setup::test {
namespace {

namespace fs = std::filesystem;

bool have_shellcheck() { return sh("command -v shellcheck >/dev/null 2>&1") == 0; }

void write_outputs_to(const std::string& dir, const std::vector<OutputFile>& files) {
  for (const auto& f : files) {
    fs::create_directories((fs::path(dir) / f.path).parent_path());
    tfrig::test::write_file(dir + "/" + f.path, f.content);
    ::chmod((dir + "/" + f.path).c_str(), f.mode);
  }
}

class SetupShell : public ::testing::TestWithParam<Cell> {};

TEST_P(SetupShell, BashParsesIt) {
  const auto files = render_cell(GetParam());
  ASSERT_FALSE(files.empty());
  tfrig::test::TempDir tmp;
  write_outputs_to(tmp.path(), files);
  const std::string log = tmp.file("bash-n.log");
  EXPECT_EQ(sh("bash -n " + shell_word(tmp.file("install.sh")) + " >" + shell_word(log) + " 2>&1"), 0)
      << tfrig::test::read_file(log);
}

TEST_P(SetupShell, ShellcheckClean) {
  if (!have_shellcheck()) GTEST_SKIP() << "shellcheck is not installed (Debian package shellcheck; CI installs it)";
  const auto files = render_cell(GetParam());
  ASSERT_FALSE(files.empty());
  tfrig::test::TempDir tmp;
  write_outputs_to(tmp.path(), files);
  const std::string log = tmp.file("shellcheck.log");
  EXPECT_EQ(sh("shellcheck -s bash " + shell_word(tmp.file("install.sh")) + " >" + shell_word(log) + " 2>&1"), 0)
      << tfrig::test::read_file(log);
}

INSTANTIATE_TEST_SUITE_P(Grid, SetupShell, ::testing::ValuesIn(working_cells()), cell_name);

// ---- --dry-run in a throwaway root ----

// Every file under dir with its size, mode and content: what "nothing changed" compares.
std::string tree_state(const std::string& dir, const std::string& skip) {
  std::ostringstream s;
  std::vector<std::string> paths;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    paths.push_back(it->path().string());
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    if (p == skip) continue;
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) continue;
    s << p << " mode=" << std::oct << st.st_mode << std::dec << " size=" << st.st_size
      << " mtime=" << st.st_mtim.tv_sec << "." << st.st_mtim.tv_nsec << "\n";
    if (S_ISREG(st.st_mode)) s << tfrig::test::read_file(p) << "\n";
  }
  return s.str();
}

void write_stub(const std::string& dir, const std::string& name, const std::string& body) {
  const std::string path = dir + "/" + name;
  tfrig::test::write_file(path, "#!/bin/sh\necho \"" + name + " $*\" >>\"$STUB_LOG\"\n" + body + "\n");
  ::chmod(path.c_str(), 0755);
}

struct FakeMachine {
  std::string root, stubs, out, log;
};

// A root that looks like the cell's OS with nouveau loaded, swap on and a
// power-saving governor (so every step has something to do), and stubs for
// the commands install.sh asks or changes the system with.
FakeMachine make_machine(const tfrig::test::TempDir& tmp, const SetupPlan& plan) {
  FakeMachine m{tmp.file("root"), tmp.file("stubs"), tmp.file("out"), tmp.file("calls.log")};
  fs::create_directories(m.root + "/etc");
  fs::create_directories(m.root + "/sys/module/nouveau");
  fs::create_directories(m.root + "/sys/devices/system/cpu/cpu0/cpufreq");
  tfrig::test::write_file(m.root + "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave\n");
  tfrig::test::write_file(m.root + "/etc/os-release",
                          "ID=" + plan.os->os_id + "\nVERSION_ID=\"" + plan.os->version_id + "\"\n");
  tfrig::test::write_file(m.root + "/etc/fstab", "UUID=1 / ext4 defaults 0 1\n/swap.img none swap sw 0 0\n");
  // The archive as the installer leaves it (a --mirror plan replaces it).
  fs::create_directories(m.root + "/etc/apt/sources.list.d");
  if (plan.os->os_id == "debian") {
    tfrig::test::write_file(m.root + "/etc/apt/sources.list.d/debian.sources",
                            "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: " + plan.os->codename +
                                "\nComponents: main\n\nTypes: deb\nURIs: http://deb.debian.org/debian-security\nSuites: " +
                                plan.os->codename + "-security\nComponents: main\n");
  } else {
    tfrig::test::write_file(m.root + "/etc/apt/sources.list",
                            "deb http://archive.ubuntu.com/ubuntu/ " + plan.os->codename + " main restricted\n" +
                                "deb http://security.ubuntu.com/ubuntu/ " + plan.os->codename + "-security main\n");
  }
  fs::create_directories(m.stubs);
  // Questions: nothing installed, swap on, swappiness 60, the driver branches offered.
  write_stub(m.stubs, "dpkg-query", "exit 1");
  write_stub(m.stubs, "apt-cache", "exit 0");
  write_stub(m.stubs, "apt-mark", "exit 0");
  write_stub(m.stubs, "ubuntu-drivers", "echo nvidia-driver-" + plan.driver.branch + "-server");
  write_stub(m.stubs, "systemctl", "exit 1");
  write_stub(m.stubs, "swapon", "echo '/swap.img file 2G 0B -2'");
  write_stub(m.stubs, "sysctl", "echo 60");
  write_stub(m.stubs, "uname", "echo 6.1.0-test-amd64");
  // Changes: a dry run must call none of them.
  std::vector<std::string> changers = {"apt-get", "dpkg",   "install", "update-initramfs", "swapoff",
                                       "ldconfig", "curl",   "gpg",     "nvidia-ctk",       "docker",
                                       "modprobe", "python3"};
  if (!plan.python.empty()) changers.push_back("python" + plan.python);
  for (const auto& name : changers) write_stub(m.stubs, name, "echo CHANGED >>\"$STUB_LOG\"; exit 0");
  fs::create_directories(m.out);
  write_outputs_to(m.out, render_all(plan, knowledge::builtin()));
  return m;
}

std::string run_install(const FakeMachine& m, const std::string& args, int& rc, const std::string& extra_env = "") {
  const std::string output = m.log + ".out";
  const std::string cmd = "env -i PATH=" + shell_word(m.stubs + ":/usr/bin:/bin") + " HOME=" + shell_word(m.root) +
                          " STUB_LOG=" + shell_word(m.log) + " TFRIG_ROOT=" + shell_word(m.root) + " TFRIG_VENV=" +
                          shell_word(m.root + "/opt/venv") + " " + extra_env + " bash " + shell_word(m.out + "/install.sh") +
                          " " + args + " >" + shell_word(output) + " 2>&1";
  rc = sh(cmd);
  std::string text = tfrig::test::read_file(output);
  fs::remove(output);
  return text;
}

class SetupDryRun : public ::testing::TestWithParam<Cell> {};

TEST_P(SetupDryRun, PrintsEveryStepAndChangesNothing) {
  auto out = run_cell(GetParam());
  ASSERT_TRUE(out.plan);
  tfrig::test::TempDir tmp;
  const FakeMachine m = make_machine(tmp, *out.plan);
  const std::vector<std::string> system_files = {"/etc/sysctl.d/90-tfrig.conf", "/etc/security/limits.d/90-tfrig.conf",
                                                 "/etc/modprobe.d/blacklist-nouveau.conf",
                                                 "/etc/ld.so.conf.d/90-tfrig-cuda.conf"};
  std::vector<bool> existed;
  for (const auto& f : system_files) existed.push_back(fs::exists(f));
  const std::string before = tree_state(tmp.path(), m.log);
  int rc = -1;
  const std::string text = run_install(m, "--dry-run", rc);
  EXPECT_EQ(rc, 0) << text;
  EXPECT_EQ(tree_state(tmp.path(), m.log), before) << "the dry run changed a file under " << tmp.path();
  for (size_t i = 0; i < system_files.size(); ++i) EXPECT_EQ(fs::exists(system_files[i]), existed[i]) << system_files[i];
  const std::string calls = fs::exists(m.log) ? tfrig::test::read_file(m.log) : "";
  EXPECT_EQ(calls.find("CHANGED"), std::string::npos) << "a dry run called a command that changes the system:\n" << calls;
  EXPECT_EQ(calls.find("systemctl enable"), std::string::npos) << calls;
  // Every step printed, each with what it would do or why it is skipped.
  size_t titles = 0;
  for (size_t pos = text.find("\n==> "); pos != std::string::npos; pos = text.find("\n==> ", pos + 1)) ++titles;
  EXPECT_EQ(titles, out.plan->steps.size()) << text;
  EXPECT_NE(text.find("would run: update-initramfs -u"), std::string::npos) << text;
  EXPECT_NE(text.find("would run: swapoff -a"), std::string::npos) << text;
  EXPECT_NE(text.find("would run: echo " + out.plan->governor), std::string::npos) << text;
  EXPECT_NE(text.find("dry run done; nothing was changed"), std::string::npos) << text;
  // Every download source listed, none asked.
  for (const auto& c : out.plan->sources.checks) {
    EXPECT_NE(text.find("would check: " + c.what + " " + c.url), std::string::npos) << c.url << "\n" << text;
  }
  if (!out.plan->sources.apt_mirror.empty()) {
    EXPECT_NE(text.find("would run: sed -i.tfrig-bak -E"), std::string::npos) << text;
    EXPECT_NE(text.find(out.plan->sources.apt_mirror), std::string::npos) << text;
  }
}

TEST_P(SetupDryRun, StopsClearlyWithoutRoot) {
  auto out = run_cell(GetParam());
  ASSERT_TRUE(out.plan);
  tfrig::test::TempDir tmp;
  const FakeMachine m = make_machine(tmp, *out.plan);
  write_stub(m.stubs, "id", "echo 1000");
  int rc = -1;
  const std::string text = run_install(m, "", rc);
  EXPECT_EQ(rc, 77) << text;
  EXPECT_NE(text.find("needs root"), std::string::npos) << text;
  const std::string calls = fs::exists(m.log) ? tfrig::test::read_file(m.log) : "";
  EXPECT_EQ(calls.find("CHANGED"), std::string::npos) << calls;
}

TEST_P(SetupDryRun, RefusesAnotherOs) {
  auto out = run_cell(GetParam());
  ASSERT_TRUE(out.plan);
  tfrig::test::TempDir tmp;
  const FakeMachine m = make_machine(tmp, *out.plan);
  tfrig::test::write_file(m.root + "/etc/os-release", "ID=fedora\nVERSION_ID=40\n");
  int rc = -1;
  const std::string text = run_install(m, "", rc);
  EXPECT_EQ(rc, 1) << text;
  EXPECT_NE(text.find("written for " + out.plan->os->os_id), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(Grid, SetupDryRun, ::testing::ValuesIn(script_run_cells()), cell_name);

// ---- the same scripts written in Chinese ----
// install.sh's comments and messages follow the language setup ran in; its
// syntax may not: every Chinese script parses, passes shellcheck, and its dry
// run goes through every step in Chinese with nothing changed.

class SetupShellZh : public ::testing::TestWithParam<Cell> {};

TEST_P(SetupShellZh, BashParsesItAndShellcheckIsClean) {
  std::vector<OutputFile> files;
  {
    core::i18n::ScopedLanguage zh("zh_CN");
    files = render_cell(GetParam());
  }
  ASSERT_FALSE(files.empty());
  tfrig::test::TempDir tmp;
  write_outputs_to(tmp.path(), files);
  const std::string script = tfrig::test::read_file(tmp.file("install.sh"));
  EXPECT_NE(script.find("由 `tfrig setup` 为"), std::string::npos) << "not the Chinese script:\n" << script.substr(0, 400);
  const std::string log = tmp.file("check.log");
  EXPECT_EQ(sh("bash -n " + shell_word(tmp.file("install.sh")) + " >" + shell_word(log) + " 2>&1"), 0) << tfrig::test::read_file(log);
  if (!have_shellcheck()) GTEST_SKIP() << "shellcheck is not installed (Debian package shellcheck; CI installs it)";
  EXPECT_EQ(sh("shellcheck -s bash " + shell_word(tmp.file("install.sh")) + " >" + shell_word(log) + " 2>&1"), 0)
      << tfrig::test::read_file(log);
}

TEST_P(SetupShellZh, DryRunSpeaksChineseAndChangesNothing) {
  PlanOutcome out;
  tfrig::test::TempDir tmp;
  FakeMachine m;
  {
    core::i18n::ScopedLanguage zh("zh_CN");
    out = run_cell(GetParam());
    ASSERT_TRUE(out.plan);
    m = make_machine(tmp, *out.plan);
  }
  const std::string before = tree_state(tmp.path(), m.log);
  int rc = -1;
  // The script's own locale does not matter: its messages are written in.
  const std::string text = run_install(m, "--dry-run", rc, "LANG=C");
  EXPECT_EQ(rc, 0) << text;
  EXPECT_EQ(tree_state(tmp.path(), m.log), before) << "the dry run changed a file under " << tmp.path();
  const std::string calls = fs::exists(m.log) ? tfrig::test::read_file(m.log) : "";
  EXPECT_EQ(calls.find("CHANGED"), std::string::npos) << calls;
  size_t titles = 0;
  for (size_t pos = text.find("\n==> "); pos != std::string::npos; pos = text.find("\n==> ", pos + 1)) ++titles;
  EXPECT_EQ(titles, out.plan->steps.size()) << text;
  EXPECT_NE(text.find("==> 预检："), std::string::npos) << text;
  EXPECT_NE(text.find("将运行： update-initramfs -u"), std::string::npos) << text;
  EXPECT_NE(text.find("演练结束；没有做任何改动。"), std::string::npos) << text;
  EXPECT_EQ(text.find("would run"), std::string::npos) << text;
  for (const auto& c : out.plan->sources.checks) {
    EXPECT_NE(text.find("将检查：" + c.what + " " + c.url), std::string::npos) << c.url << "\n" << text;
  }
}

std::vector<Cell> mirror_cells() {
  std::vector<Cell> out;
  for (const auto& c : cells()) {
    if (!c.refused && !c.mirror.empty()) out.push_back(c);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Grid, SetupShellZh, ::testing::ValuesIn(covering_cells(mirror_cells())), cell_name);

}  // namespace
}  // namespace tfrig::setup::test

namespace tfrig::setup::test {
namespace {

// ---- a real run against stateful stubs: the second run changes nothing ----

// Stubs that remember what they did under $STATE, so install.sh's checks see
// the packages, services, driver and venv the first run "installed".
void write_stateful_stubs(const FakeMachine& m, const SetupPlan& plan) {
  const std::string state = m.root + "/state";
  fs::create_directories(state + "/pkg");
  fs::create_directories(state + "/svc");
  const std::string cudnn_version = plan.cuda.cudnn_prefix + "0.1-1" + plan.cuda.cudnn_suffix;
  write_stub(m.stubs, "id", "echo 0");
  write_stub(m.stubs, "dpkg-query",
             "for a; do p=$a; done\n"
             "[ -e \"$STATE/pkg/$p\" ] || exit 1\n"
             "case \"$*\" in *Version*) cat \"$STATE/pkg/$p\" ;; *) echo 'install ok installed' ;; esac");
  write_stub(m.stubs, "apt-get",
             "for a; do case \"$a\" in -*|install|update) ;; *=*) echo \"${a#*=}\" >\"$STATE/pkg/${a%%=*}\" ;; "
             "*) echo 1 >\"$STATE/pkg/$a\" ;; esac; done");
  write_stub(m.stubs, "apt-cache", "echo \"" + plan.cuda.cudnn_package + " | " + cudnn_version + " | repo Packages\"");
  write_stub(m.stubs, "apt-mark",
             "if [ \"$1\" = showhold ]; then cat \"$STATE/holds\" 2>/dev/null; else shift; printf '%s\\n' \"$@\" >>\"$STATE/holds\"; fi");
  write_stub(m.stubs, "dpkg", "echo 1 >\"$STATE/pkg/cuda-keyring\"");
  write_stub(m.stubs, "ubuntu-drivers",
             "if [ \"$1\" = list ]; then echo nvidia-driver-" + plan.driver.branch +
                 "-server; echo nvidia-driver-" + plan.driver.branch + "-server-open; else touch \"$STATE/driver\"; fi");
  write_stub(m.stubs, "nvidia-smi",
             "[ -e \"$STATE/driver\" ] || [ -e \"$STATE/pkg/" + plan.driver.install_id + "\" ] || exit 9\n"
             "case \"$*\" in *noheader*) echo " + plan.driver.min_driver + " ;; *) echo '0, Fake GPU, " +
                 plan.driver.min_driver + ", 1 MiB' ;; esac");
  write_stub(m.stubs, "systemctl",
             "case \"$1\" in is-active|is-enabled) [ -e \"$STATE/svc/$3\" ] ;; enable|start) touch \"$STATE/svc/$2\" ;; "
             "*) exit 0 ;; esac");
  write_stub(m.stubs, "swapon", "[ -e \"$STATE/swapoff\" ] || echo '/swap.img file 2G 0B -2'");
  write_stub(m.stubs, "swapoff", "touch \"$STATE/swapoff\"");
  write_stub(m.stubs, "sysctl", "if [ \"$1\" = -n ]; then cat \"$STATE/swappiness\" 2>/dev/null || echo 60; else echo " +
                                    std::to_string(plan.swappiness) + " >\"$STATE/swappiness\"; fi");
  write_stub(m.stubs, "update-initramfs", "touch \"$STATE/initramfs\"");
  write_stub(m.stubs, "ldconfig", "touch \"$STATE/ldconfig\"");
  // curl -o FILE downloads (nothing here); curl URL prints a repository list.
  write_stub(m.stubs, "curl", "case \"$*\" in *' -o '*) ;; *) echo 'deb https://example/ /' ;; esac");
  write_stub(m.stubs, "gpg", "for a; do o=$a; done\ncat >\"$o\"");
  write_stub(m.stubs, "docker", "case \"$1\" in run) echo 'TensorFlow sees 1 GPU(s)' ;; *) exit 0 ;; esac");
  // nvidia-ctk runtime configure adds its runtime to daemon.json and keeps the rest (registry-mirrors).
  write_stub(m.stubs, "nvidia-ctk",
             "mkdir -p \"$TFRIG_ROOT/etc/docker\"; /usr/bin/python3 -c 'import json, os, sys\n"
             "p = sys.argv[1]\n"
             "c = json.load(open(p)) if os.path.exists(p) else {}\n"
             "c[\"runtimes\"] = {\"nvidia\": {\"path\": \"nvidia-container-runtime\"}}\n"
             "json.dump(c, open(p, \"w\"))' \"$TFRIG_ROOT/etc/docker/daemon.json\"");
  // python3.X -m venv DIR: a venv whose python answers pip show/install and -c.
  write_stub(m.stubs, "venv-python",
             "case \"$*\" in *'pip show'*) [ -e \"$STATE/tf\" ] && cat \"$STATE/tf\" || exit 1 ;; "
             "*'pip install --upgrade pip'*) ;; *'pip install'*) echo 'Version: " + plan.tfs.front().version +
                 "' >\"$STATE/tf\" ;; *) echo 'TensorFlow sees 1 GPU(s)' ;; esac");
  if (!plan.python.empty()) {
    write_stub(m.stubs, "python" + plan.python,
               "d=$3; mkdir -p \"$d/bin\"; cp \"$(dirname \"$0\")/venv-python\" \"$d/bin/python\"");
  }
  // install(1) for real: it writes under TFRIG_ROOT.
  fs::remove(m.stubs + "/install");
  fs::create_directories(m.root + "/usr/share/keyrings");
  fs::create_directories(m.root + "/etc/apt/sources.list.d");
}

std::string without_times(const std::string& s) {
  std::string out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) {
    const auto pos = line.find(" mtime=");
    out += (pos == std::string::npos ? line : line.substr(0, pos)) + "\n";
  }
  return out;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

class SetupIdempotent : public ::testing::TestWithParam<Cell> {};

TEST_P(SetupIdempotent, SecondRunChangesNothing) {
  auto out = run_cell(GetParam());
  ASSERT_TRUE(out.plan);
  tfrig::test::TempDir tmp;
  const FakeMachine m = make_machine(tmp, *out.plan);
  write_stateful_stubs(m, *out.plan);
  const std::string env = "STATE=" + shell_word(m.root + "/state");
  int rc = -1;
  const std::string first = run_install(m, "", rc, env);
  ASSERT_EQ(rc, 0) << first;
  EXPECT_NE(first.find("reboot"), std::string::npos) << first;
  // The files it installed are tfrig's.
  EXPECT_EQ(tfrig::test::read_file(m.root + "/etc/sysctl.d/90-tfrig.conf"), render_sysctl(*out.plan));
  EXPECT_EQ(tfrig::test::read_file(m.root + "/etc/security/limits.d/90-tfrig.conf"), render_limits(*out.plan));
  EXPECT_NE(tfrig::test::read_file(m.root + "/etc/fstab").find("# tfrig: /swap.img"), std::string::npos);
  EXPECT_EQ(tfrig::test::read_file(m.root + "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
            out.plan->governor + "\n");
  // After the "reboot" nouveau is gone; the second run does the verification only.
  fs::remove_all(m.root + "/sys/module/nouveau");
  const std::string second = run_install(m, "", rc, env);
  ASSERT_EQ(rc, 0) << second;
  const std::string state = without_times(tree_state(tmp.path(), m.log));
  const std::string third = run_install(m, "", rc, env);
  ASSERT_EQ(rc, 0) << third;
  EXPECT_EQ(without_times(tree_state(tmp.path(), m.log)), state) << "a third run changed files";
  const bool container = out.plan->method == Method::kContainer || out.plan->method == Method::kNgc;
  // Only the verification's commands run: nvidia-smi, then the TF check (one docker pair per image).
  const size_t verify_commands = container ? 1 + 2 * out.plan->tfs.size() : 2;
  EXPECT_EQ(count(second, "\n    + "), verify_commands) << second;
  EXPECT_EQ(count(second, "(skipping)"), count(third, "(skipping)"));
  EXPECT_NE(second.find("sees 1 GPU(s)"), std::string::npos) << second;
  EXPECT_NE(second.find("install.sh: done."), std::string::npos) << second;
}

INSTANTIATE_TEST_SUITE_P(Grid, SetupIdempotent, ::testing::ValuesIn(script_run_cells()), cell_name);

}  // namespace
}  // namespace tfrig::setup::test

namespace tfrig::setup::test {
namespace {

// ---- the download sources: checked before anything is installed ----

// A run as root where curl gets no answer (exit 28, curl's timeout): install.sh
// stops before the first change, with the --mirror advice in English and Chinese.
TEST(SetupSources, DefaultSourcesSilentGiveTheMirrorAdvice) {
  Cell c = cells().front();  // pip, ubuntu-22.04, the default sources
  auto out = run_cell(c);
  ASSERT_TRUE(out.plan);
  ASSERT_TRUE(out.plan->sources.preset.empty());
  tfrig::test::TempDir tmp;
  const FakeMachine m = make_machine(tmp, *out.plan);
  write_stub(m.stubs, "id", "echo 0");
  write_stub(m.stubs, "curl", "exit 28");
  int rc = -1;
  const std::string text = run_install(m, "", rc);
  EXPECT_EQ(rc, 69) << text;
  EXPECT_NE(text.find("no answer within 5 s: PyPI https://pypi.org/simple/pip/"), std::string::npos) << text;
  EXPECT_NE(text.find("tfrig setup --mirror auto"), std::string::npos) << text;
  EXPECT_NE(text.find("默认下载源没有响应"), std::string::npos) << text;
  EXPECT_NE(text.find("--skip-source-check"), std::string::npos) << text;
  const std::string calls = fs::exists(m.log) ? tfrig::test::read_file(m.log) : "";
  EXPECT_EQ(calls.find("CHANGED"), std::string::npos) << calls;
  // Skipping the check goes on to the steps.
  const std::string skipped = run_install(m, "--skip-source-check --dry-run", rc);
  EXPECT_EQ(rc, 0) << skipped;
  EXPECT_NE(skipped.find("ok: --skip-source-check (skipping)"), std::string::npos) << skipped;
}

// Written with a China preset for containers, the registry left (NGC's nvcr.io) does not answer:
// the advice names the registry accelerators and --method pip, never the preset just used.
TEST(SetupSources, ASilentRegistryUnderAPresetNamesTheAcceleratorsAndPip) {
  Cell c;
  for (const auto& cell : cells()) {
    if (cell.method == Method::kContainer && cell.mirror == "cn" && !cell.refused) c = cell;
  }
  ASSERT_FALSE(c.name.empty());
  auto out = run_cell(c);
  ASSERT_TRUE(out.plan);
  tfrig::test::TempDir tmp;
  const FakeMachine m = make_machine(tmp, *out.plan);
  write_stub(m.stubs, "id", "echo 0");
  write_stub(m.stubs, "curl", "case \"$*\" in *nvcr.io*) exit 28 ;; esac");
  int rc = -1;
  const std::string text = run_install(m, "", rc);
  EXPECT_EQ(rc, 69) << text;
  EXPECT_NE(text.find("no answer within 5 s: NGC registry https://nvcr.io/v2/"), std::string::npos) << text;
  EXPECT_NE(text.find("--docker-registry-mirror URL"), std::string::npos) << text;
  EXPECT_NE(text.find("https://mirror.ccs.tencentyun.com"), std::string::npos) << text;
  EXPECT_NE(text.find("--method pip"), std::string::npos) << text;
  EXPECT_EQ(text.find("tfrig setup --mirror"), std::string::npos) << "never the preset just used: " << text;
  const std::string calls = fs::exists(m.log) ? tfrig::test::read_file(m.log) : "";
  EXPECT_EQ(calls.find("CHANGED"), std::string::npos) << calls;
}

TEST(SetupSources, ASilentMirrorNamesTheOptions) {
  Cell c = cells().front();
  c.mirror = "cn";
  auto out = run_cell(c);
  ASSERT_TRUE(out.plan);
  tfrig::test::TempDir tmp;
  const FakeMachine m = make_machine(tmp, *out.plan);
  write_stub(m.stubs, "id", "echo 0");
  // The apt mirror answers, PyPI's does not.
  write_stub(m.stubs, "curl", "case \"$*\" in *pypi*) exit 28 ;; esac");
  int rc = -1;
  const std::string text = run_install(m, "", rc);
  EXPECT_EQ(rc, 69) << text;
  EXPECT_NE(text.find("answers: apt archive mirror https://mirrors.tuna.tsinghua.edu.cn/ubuntu/"), std::string::npos) << text;
  EXPECT_NE(text.find("no answer within 5 s: PyPI mirror https://pypi.tuna.tsinghua.edu.cn/simple/pip/"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("a mirror did not answer"), std::string::npos) << text;
  EXPECT_NE(text.find("--pip-index"), std::string::npos) << text;
  EXPECT_EQ(text.find("tfrig setup --mirror cn"), std::string::npos) << "no preset advice when mirrors are in use\n" << text;
  // Nothing changed: the apt sources are as they were.
  EXPECT_NE(tfrig::test::read_file(m.root + "/etc/apt/sources.list").find("http://archive.ubuntu.com/ubuntu/"),
            std::string::npos);
}

}  // namespace
}  // namespace tfrig::setup::test
