// Helpers for the bench tests: temporary directories and running the tfrig
// binary as a child process.
#pragma once

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "test_paths.h"
#include <thread>
#include <vector>

namespace tfrig::bench::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tfrig-bench-test-XXXXXX").string();
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) != nullptr) path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    // Undo any chmod a test made so that the tree can be removed.
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline void write_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out << data;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) out.push_back(e.path().filename().string());
  return out;
}

struct Child {
  pid_t pid = -1;
  std::string out_path;
  std::string err_path;
};

// Starts TFRIG_BINARY with args; stdout and stderr go to files in `io_dir`.
// With as_nobody (only when root), the child drops to the "nobody" user first.
inline Child start_tfrig(const std::vector<std::string>& args, const std::string& io_dir, bool as_nobody = false) {
  Child c;
  c.out_path = io_dir + "/child.out";
  c.err_path = io_dir + "/child.err";
  uid_t uid = 65534;
  gid_t gid = 65534;
  if (const passwd* pw = ::getpwnam("nobody")) {
    uid = pw->pw_uid;
    gid = pw->pw_gid;
  }
  std::vector<std::string> argv_s = {TFRIG_BINARY};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  c.pid = ::fork();
  if (c.pid == 0) {
    int out = ::open(c.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    int err = ::open(c.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    ::dup2(out, 1);
    ::dup2(err, 2);
    if (as_nobody && (::setgid(gid) != 0 || ::setuid(uid) != 0)) ::_exit(99);
    ::execv(argv[0], argv.data());
    ::_exit(98);
  }
  return c;
}

inline int wait_child(const Child& c) {
  int status = 0;
  if (::waitpid(c.pid, &status, 0) != c.pid) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline RunResult run_tfrig(const std::vector<std::string>& args, const std::string& io_dir, bool as_nobody = false) {
  Child c = start_tfrig(args, io_dir, as_nobody);
  RunResult r;
  r.exit_code = wait_child(c);
  r.out = read_file(c.out_path);
  r.err = read_file(c.err_path);
  return r;
}

// Polls `ready` every 20 ms for up to `limit`; a readiness wait, not a timing assertion.
inline bool wait_until(const std::function<bool()>& ready, std::chrono::seconds limit = std::chrono::seconds(60)) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

}  // namespace tfrig::bench::testing
