#include "explain/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/errno_text.h"
#include "core/i18n.h"

namespace tfrig::explain {

namespace {

void write_all(int fd, std::string_view bytes) {
  while (fd >= 0 && !bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // our own output closed: keep reading the command, stop copying
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace

core::Result<CommandOutcome> run_command(const std::vector<std::string>& argv,
                                         const std::function<void(std::string_view)>& on_stdout,
                                         const std::function<void(std::string_view)>& on_stderr, int stdout_copy_fd,
                                         int stderr_copy_fd) {
  if (argv.empty()) return core::fail(core::ErrorCode::kInvalidArgument, "--", _("expected a command after --"));
  int out_pipe[2];
  int err_pipe[2];
  // A pipe to report exec's failure: closed on a successful exec (O_CLOEXEC).
  int exec_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return core::fail(core::ErrorCode::kIo, "pipe", core::errno_text(errno));
  if (::pipe2(err_pipe, O_CLOEXEC) != 0 || ::pipe2(exec_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return core::fail(core::ErrorCode::kIo, "pipe", core::errno_text(errno));
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return core::fail(core::ErrorCode::kIo, "fork", core::errno_text(errno));
  if (pid == 0) {
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::dup2(err_pipe[1], STDERR_FILENO);
    ::execvp(args[0], args.data());
    const int e = errno;
    (void)!::write(exec_pipe[1], &e, sizeof e);
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ::close(exec_pipe[1]);
  int exec_errno = 0;
  ssize_t got = 0;
  do {
    got = ::read(exec_pipe[0], &exec_errno, sizeof exec_errno);
  } while (got < 0 && errno == EINTR);
  ::close(exec_pipe[0]);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  char buf[64 * 1024];
  int open_streams = 2;
  while (open_streams > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_streams;
        continue;
      }
      const std::string_view bytes(buf, static_cast<size_t>(n));
      write_all(i == 0 ? stdout_copy_fd : stderr_copy_fd, bytes);
      (i == 0 ? on_stdout : on_stderr)(bytes);
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (got == sizeof exec_errno) {
    return core::fail(core::ErrorCode::kNotFound, argv[0], trf("cannot run: {}", core::errno_text(exec_errno)));
  }
  CommandOutcome o;
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
  return o;
}

}  // namespace tfrig::explain
