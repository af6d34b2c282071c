#include "core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "core/i18n.h"
#include "core/sysroot.h"

namespace tfrig::core {

namespace {

Status check_mode(const std::string& path, const struct stat& st) {
  if (S_ISDIR(st.st_mode)) return fail(ErrorCode::kNotFound, path, _("is a directory, expected a file"));
  if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)) return {};
  return fail(ErrorCode::kIo, path, _("is a device or socket, expected a regular file"));
}

// Closes a descriptor on every return path (not stdin).
struct OwnedFd {
  int fd = -1;
  bool owned = true;
  ~OwnedFd() {
    if (fd >= 0 && owned) ::close(fd);
  }
};

}  // namespace

Status check_input_file(const std::string& path) {
  struct stat st {};
  if (path == "-") {
    if (::fstat(STDIN_FILENO, &st) != 0) return tl::unexpected(errno_error(errno, _("standard input"), "stat"));
    return check_mode(_("standard input"), st);
  }
  if (::stat(path.c_str(), &st) != 0) return tl::unexpected(errno_error(errno, path, "open"));
  if (auto ok = check_mode(path, st); !ok) return ok;
  // Unreadable is refused here too, as read_input_file's open would: a file
  // of mode 0 is "Permission denied" before any work, not a verdict after it.
  if (::access(path.c_str(), R_OK) != 0) return tl::unexpected(errno_error(errno, path, "open"));
  return {};
}

Result<std::string> read_input_file(const std::string& path, size_t max_bytes, size_t slack) {
  const std::string name = path == "-" ? _("standard input") : path;
  OwnedFd file;
  struct stat st {};
  if (path == "-") {
    file.fd = STDIN_FILENO;
    file.owned = false;
  } else {
    // stat first: opening a device can have effects (a tape rewinds, a tty blocks).
    if (::stat(path.c_str(), &st) != 0) return tl::unexpected(errno_error(errno, path, "open"));
    if (auto ok = check_mode(path, st); !ok) return tl::unexpected(ok.error());
    // O_NONBLOCK: a FIFO with no writer opens at once (and then reads as
    // empty) instead of blocking for ever; reads are blocking again after.
    file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (file.fd < 0) return tl::unexpected(errno_error(errno, path, "open"));
    const int flags = ::fcntl(file.fd, F_GETFL);
    if (flags >= 0) ::fcntl(file.fd, F_SETFL, flags & ~O_NONBLOCK);
  }
  if (::fstat(file.fd, &st) != 0) return tl::unexpected(errno_error(errno, name, "stat"));
  if (auto ok = check_mode(name, st); !ok) return tl::unexpected(ok.error());
  std::string out;
  if (S_ISREG(st.st_mode) && st.st_size > 0)
    out.reserve(std::min<size_t>(static_cast<size_t>(st.st_size), max_bytes) + slack);
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(file.fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return tl::unexpected(errno_error(errno, name, "read"));
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes) {
      return fail(ErrorCode::kParse, name, trf("larger than the {} bytes expected of such a file", max_bytes));
    }
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

}  // namespace tfrig::core
