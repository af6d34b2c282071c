// Runs an external tool (promtool, yamllint, python3, node_exporter) from a
// test: argv without a shell, stdout and stderr captured together. Header
// only: tests/CMakeLists.txt builds every *_test.cpp and test_support.cpp.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "test_paths.h"

namespace tfrig::test {

struct CommandResult {
  int exit_code = -1;  // 127 when the program could not be started, 128+N when killed by signal N
  std::string output;  // stdout and stderr
};

// The program's full path when it is on PATH, else "".
inline std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string candidate = dirs.substr(start, end - start) + "/" + name;
    if (end > start && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

// The repository root (the folder above tests/).
inline std::string repo_root() {
  return std::filesystem::path(TFRIG_TEST_DATA).parent_path().parent_path().string();
}

// Forks and execs argv with stdout+stderr into out_fd (and stdin from
// in_fd, -1 = /dev/null). The child gets SIGTERM if the test process dies,
// so a crashed test leaves no service behind.
inline pid_t spawn(const std::vector<std::string>& args, int out_fd, int in_fd = -1) {
  std::vector<std::string> store = args;
  std::vector<char*> argv;
  for (auto& a : store) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  // Child: async-signal-safe calls only (the test process has threads).
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) ::_exit(127);
  const int null_fd = ::open("/dev/null", O_RDONLY);
  ::dup2(in_fd >= 0 ? in_fd : null_fd, 0);
  ::dup2(out_fd, 1);
  ::dup2(out_fd, 2);
  ::execv(argv[0], argv.data());
  ::_exit(127);
}

inline int wait_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

inline CommandResult run_command(const std::vector<std::string>& argv, const std::string& stdin_text = "") {
  CommandResult result;
  int out_pipe[2];
  int in_pipe[2] = {-1, -1};
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return result;
  if (!stdin_text.empty() && ::pipe2(in_pipe, O_CLOEXEC) != 0) return result;
  // A child that exits before reading all of stdin must not kill the test.
  if (!stdin_text.empty()) ::signal(SIGPIPE, SIG_IGN);
  const pid_t pid = spawn(argv, out_pipe[1], in_pipe[0]);
  ::close(out_pipe[1]);
  if (in_pipe[0] >= 0) ::close(in_pipe[0]);
  if (pid < 0) {
    ::close(out_pipe[0]);
    if (in_pipe[1] >= 0) ::close(in_pipe[1]);
    return result;
  }
  // Feed stdin and drain the output together, so neither side blocks.
  size_t written = 0;
  if (in_pipe[1] >= 0) ::fcntl(in_pipe[1], F_SETFL, O_NONBLOCK);
  char buf[4096];
  bool out_open = true;
  while (out_open) {
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {in_pipe[1], POLLOUT, 0}};
    const nfds_t n = in_pipe[1] >= 0 ? 2 : 1;
    if (::poll(fds, n, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (n == 2 && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t w = ::write(in_pipe[1], stdin_text.data() + written, stdin_text.size() - written);
      if (w > 0) written += static_cast<size_t>(w);
      if (w < 0 && errno != EAGAIN) written = stdin_text.size();
      if (written == stdin_text.size()) {
        ::close(in_pipe[1]);
        in_pipe[1] = -1;
      }
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t r = ::read(out_pipe[0], buf, sizeof buf);
      if (r > 0) {
        result.output.append(buf, static_cast<size_t>(r));
      } else if (r == 0 || errno != EINTR) {
        out_open = false;
      }
    }
  }
  if (in_pipe[1] >= 0) ::close(in_pipe[1]);
  ::close(out_pipe[0]);
  result.exit_code = wait_status(pid);
  return result;
}

}  // namespace tfrig::test
