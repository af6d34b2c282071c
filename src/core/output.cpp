#include "core/output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "core/atomic_file.h"
#include "core/i18n.h"
#include "core/sysroot.h"

namespace tfrig::core {

namespace {

// The errno of the first failed write to stdout: stdio keeps only the error
// flag, and errno is overwritten long before main checks the stream.
int g_stdout_errno = 0;

Error write_error(int err, const std::string& path) {
  Error e = errno_error(err, path, "write");
  e.code = ErrorCode::kIo;
  return e;
}

}  // namespace

Status write_stdout(std::string_view data) {
  if (data.empty()) return {};
  errno = 0;
  // Flushed at once: the errno of a failure is only known at the write
  // that fails, and a command may call fflush itself and drop the result.
  if (std::fwrite(data.data(), 1, data.size(), stdout) != data.size() || std::fflush(stdout) != 0 ||
      std::ferror(stdout)) {
    if (g_stdout_errno == 0) g_stdout_errno = errno != 0 ? errno : EIO;
    return tl::unexpected(write_error(g_stdout_errno, _("standard output")));
  }
  return {};
}

Status finish_stdout() {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int err = errno;
  if (!flushed || std::ferror(stdout)) {
    if (g_stdout_errno == 0) g_stdout_errno = err != 0 ? err : EIO;
    return tl::unexpected(write_error(g_stdout_errno, _("standard output")));
  }
  return {};
}

Status write_output(const std::string& path, std::string_view content, unsigned mode) {
  if (path == "-") {
    if (auto st = write_stdout(content); !st) return st;
    return finish_stdout();
  }
  // The atomic temp-and-rename would replace a device or FIFO node itself
  // (as root, /dev/null became a regular file that way): write those in place.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return tl::unexpected(errno_error(errno, path, "open"));
    size_t done = 0;
    while (done < content.size()) {
      const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int err = n < 0 ? errno : EIO;
        ::close(fd);
        return tl::unexpected(write_error(err, path));
      }
      done += static_cast<size_t>(n);
    }
    if (::close(fd) != 0) return tl::unexpected(write_error(errno, path));
    return {};
  }
  return write_file_atomic(path, content, mode);
}

}  // namespace tfrig::core
