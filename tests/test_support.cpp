#include "test_support.h"

#include "core/display_width.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

extern char** environ;

namespace tfrig::test {

namespace fs = std::filesystem;

namespace {

// Every tfrig this test binary starts (run_tfrig, popen) writes to a pipe, so
// it takes the default width (core/text_width.h) that the goldens are at,
// unless a test sets COLUMNS itself: a COLUMNS exported by the shell that runs
// the tests must not reach it.
[[maybe_unused]] const bool kColumnsUnset = [] { return ::unsetenv("COLUMNS") == 0; }();

}  // namespace

namespace paths {
const char* test_data() { return TFRIG_PATH_TEST_DATA; }
const char* binary() { return TFRIG_PATH_BINARY; }
const char* fake_nvml() { return TFRIG_PATH_FAKE_NVML; }
const char* fake_nvml_legacy() { return TFRIG_PATH_FAKE_NVML_LEGACY; }
const char* fake_nvml_nocount() { return TFRIG_PATH_FAKE_NVML_NOCOUNT; }
const char* fake_cuda() { return TFRIG_PATH_FAKE_CUDA; }
}  // namespace paths

std::string data_dir() { return TFRIG_TEST_DATA; }

std::string root_dir(std::string_view name) { return data_dir() + "/roots/" + std::string(name); }

std::vector<std::string> root_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(data_dir() + "/roots")) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> hwloc_root_names() {
  return {"hwloc-32intel64-2p8co2t+8ve", "hwloc-40intel64-2g2n4c+pcilocality", "hwloc-64amd64-4s2n4ca2co",
          "hwloc-96em64t-4no4pa3ca2co", "hwloc-nvidiagpunumanodes"};
}

std::string binary_path() { return TFRIG_BINARY; }

const std::string& python3() {
  static const std::string kPython = ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
  return kPython;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "cannot read " << path << ": " << std::strerror(errno);
    return {};
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) ADD_FAILURE() << "cannot write " << path;
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::vector<std::string> list_dir(const std::string& path) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path, ec)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string(base != nullptr && base[0] != '\0' ? base : "/tmp") + "/tfrig-test-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp " << templ << ": " << std::strerror(errno);
    return;
  }
  path_ = buf.data();
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  // A test may have made a directory read-only: make everything writable first.
  for (auto it = fs::recursive_directory_iterator(path_, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
  }
  fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
  fs::remove_all(path_, ec);
}

FixedLengthRoot::FixedLengthRoot(const std::string& target) {
  char pattern[] = "/tmp/tfrig-golden-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) {
    ADD_FAILURE() << "mkdtemp " << pattern << ": " << std::strerror(errno);
    return;
  }
  dir_ = pattern;
  path_ = dir_ + "/r";
  fs::create_directory_symlink(target, path_);
}

FixedLengthRoot::~FixedLengthRoot() {
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

RunResult run_tfrig(const std::vector<std::string>& args, const RunOptions& options) {
  RunResult result;
  TempDir capture;
  const std::string out_path = capture.file("stdout");
  const std::string err_path = capture.file("stderr");

  // Everything the child needs is built before fork: only async-signal-safe
  // calls between fork and exec (the test process has threads).
  std::vector<std::string> argv_store;
  argv_store.push_back(binary_path());
  argv_store.insert(argv_store.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_store) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_store;
  // options.env replaces an inherited variable of the same name (getenv finds the first).
  auto overridden = [&options](std::string_view entry) {
    const std::string_view name = entry.substr(0, entry.find('='));
    for (const auto& o : options.env) {
      if (std::string_view(o).substr(0, o.find('=')) == name) return true;
    }
    return false;
  };
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (!overridden(*e)) env_store.emplace_back(*e);
  }
  env_store.insert(env_store.end(), options.env.begin(), options.env.end());
  std::vector<char*> envp;
  for (auto& e : env_store) envp.push_back(e.data());
  envp.push_back(nullptr);
  const bool drop = options.as_nobody && ::geteuid() == 0;
  if (drop) {
    // The capture files must be writable by the unprivileged child.
    ::chmod(capture.path().c_str(), 0777);
  }

  pid_t pid = ::fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork: " << std::strerror(errno);
    return result;
  }
  if (pid == 0) {
    int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    int null_fd = ::open("/dev/null", O_RDONLY);
    if (out_fd < 0 || err_fd < 0 || null_fd < 0) ::_exit(125);
    ::dup2(null_fd, 0);
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    if (drop) {
      if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(126);
    }
    if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) ::_exit(124);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) {
      ADD_FAILURE() << "wait4: " << std::strerror(errno);
      return result;
    }
  }
  result.max_rss_kib = usage.ru_maxrss;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  return result;
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  if (from.empty()) return s;
  size_t pos = 0;
  while ((pos = s.find(from, pos)) != std::string::npos) {
    s.replace(pos, from.size(), to);
    pos += to.size();
  }
  return s;
}

std::string normalize_text_report(std::string_view text, const std::string& root) {
  std::string s;
  // Control bytes other than newline and tab (a NUL read from a broken
  // fixture) as \xNN, so that golden files stay text that git can diff.
  for (unsigned char c : text) {
    if (c < 0x20 && c != '\n' && c != '\t') {
      static const char* kHex = "0123456789abcdef";
      s += "\\x";
      s += kHex[c >> 4];
      s += kHex[c & 15];
    } else {
      s += static_cast<char>(c);
    }
  }
  s = replace_all(std::move(s), root, "<ROOT>");
  static const std::regex kHeading(R"(^tfrig doctor \S+ )");
  // English, and the Chinese report's words for the same columns and states.
  static const std::regex kRow(
      R"(^(  \S+ +(?:ok|absent|error|skipped|正常|未发现|出错|已跳过) +)\d+(?:\.\d+)? (?:us|ms|s|微秒|毫秒|秒) +(.*)$)");
  std::istringstream in(s);
  std::string out;
  std::string line;
  bool first = true;
  bool in_probes = false;
  while (std::getline(in, line)) {
    if (first) {
      line = std::regex_replace(line, kHeading, "tfrig doctor <VERSION> ", std::regex_constants::format_first_only);
      first = false;
    }
    if (line == "Probes" || line == "探测") {
      in_probes = true;
    } else if (in_probes) {
      std::smatch m;
      // The time column is 10 columns wide whatever the times (text_report.cpp):
      // the time is replaced in place, so rows and their folded lines keep their columns.
      if (std::regex_match(line, m, kRow)) line = m[1].str() + core::pad_right("<TIME>", 10) + "  " + m[2].str();
    }
    out += line;
    out += '\n';
  }
  if (!s.empty() && s.back() != '\n' && !out.empty()) out.pop_back();
  return out;
}

namespace {

void replace_in_strings(nlohmann::json& j, const std::string& root) {
  if (j.is_string()) {
    j = replace_all(j.get<std::string>(), root, "<ROOT>");
  } else if (j.is_array() || j.is_object()) {
    for (auto& child : j) replace_in_strings(child, root);
  }
}

}  // namespace

std::string normalize_json_report(std::string_view json_text, const std::string& root) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    ADD_FAILURE() << "not JSON: " << e.what();
    return std::string(json_text);
  }
  replace_in_strings(j, root);
  if (j.is_object()) {
    if (j.contains("generated_at")) j["generated_at"] = "<GENERATED_AT>";
    if (j.contains("tool_version")) j["tool_version"] = "<VERSION>";
    if (j.contains("probes") && j["probes"].is_array()) {
      for (auto& p : j["probes"]) {
        if (p.is_object() && p.contains("seconds")) p["seconds"] = 0;
      }
    }
  }
  return j.dump(2) + "\n";
}

RunOptions in_locale(const std::string& lang, const std::string& cwd) {
  RunOptions o;
  o.cwd = cwd;
  o.env = {"LANGUAGE=", "LC_ALL=", "LC_MESSAGES=", "LANG=" + lang};
  return o;
}

std::vector<std::string> with_zh_lang(std::vector<std::string> args) {
  args.insert(args.begin(), {"--lang", "zh_CN"});
  return args;
}

}  // namespace tfrig::test
