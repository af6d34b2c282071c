#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <utility>
#include <cstdio>
#include <cstring>

#include "core/errno_text.h"
#include "core/exit_code.h"
#include "core/i18n.h"
#include "core/sysroot.h"

namespace tfrig::core {

namespace {

// "PATH: cannot ...: No space left on device", with errno_error's code.
Error sentence_error(int err, const std::string& path, std::string message) {
  return Error{error_code_for_errno(err), path, std::move(message)};
}

}  // namespace

namespace {

std::string parent_dir(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Longest file name the directory takes (NAME_MAX, 255 on Linux filesystems).
size_t name_max(const std::string& dir) {
  const long n = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  return n > 0 ? static_cast<size_t>(n) : 255;
}

// "NAME.tmp-PID-N" next to the target (pack's resume and verify know that
// form); when that would be longer than the directory allows (a legal name
// of 240-255 bytes), a short hidden ".tfrig.tmp-PID-N" in the same
// directory, so the rename stays within one filesystem.
std::string temp_name_for(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  const std::string suffix = ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
  const size_t slash = path.rfind('/');
  const size_t base_len = slash == std::string::npos ? path.size() : path.size() - slash - 1;
  if (base_len + suffix.size() <= name_max(parent_dir(path))) return path + suffix;
  const std::string dir_prefix = slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
  return dir_prefix + ".tfrig" + suffix;
}

Status fsync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return tl::unexpected(errno_error(errno, dir, "open directory"));
  // Some filesystems (tmpfs, some FUSE) refuse fsync on a directory; the rename
  // is still atomic there, so EINVAL is not an error.
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
    int err = errno;
    ::close(fd);
    return tl::unexpected(errno_error(err, dir, "fsync directory"));
  }
  ::close(fd);
  return {};
}

}  // namespace

Status write_file_atomic(const std::string& path, std::string_view content, unsigned mode) {
  auto writer = AtomicWriter::open(path, mode);
  if (!writer) return tl::unexpected(writer.error());
  if (auto st = writer->write(content); !st) return st;
  return writer->commit();
}

AtomicWriter::~AtomicWriter() { abort(); }

AtomicWriter::AtomicWriter(AtomicWriter&& other) noexcept
    : path_(std::move(other.path_)),
      temp_path_(std::move(other.temp_path_)),
      fd_(other.fd_),
      bytes_written_(other.bytes_written_) {
  other.fd_ = -1;
  other.temp_path_.clear();
}

AtomicWriter& AtomicWriter::operator=(AtomicWriter&& other) noexcept {
  if (this != &other) {
    abort();
    path_ = std::move(other.path_);
    temp_path_ = std::move(other.temp_path_);
    fd_ = other.fd_;
    bytes_written_ = other.bytes_written_;
    other.fd_ = -1;
    other.temp_path_.clear();
  }
  return *this;
}

Result<AtomicWriter> AtomicWriter::open(const std::string& path, unsigned mode) {
  AtomicWriter w;
  w.path_ = path;
  w.temp_path_ = temp_name_for(path);
  w.fd_ = ::open(w.temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (w.fd_ < 0) {
    int err = errno;
    w.temp_path_.clear();
    return tl::unexpected(
        sentence_error(err, path, trf("cannot create the temporary file to write it: {}", errno_text(err))));
  }
  return w;
}

Status AtomicWriter::write(std::string_view data) {
  if (fd_ < 0) return fail(ErrorCode::kInternal, path_, "write after commit or abort");
  while (!data.empty()) {
    ssize_t n = ::write(fd_, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return tl::unexpected(errno_error(errno, temp_path_, "write"));
    }
    data.remove_prefix(static_cast<size_t>(n));
    bytes_written_ += static_cast<uint64_t>(n);
  }
  return {};
}

Status AtomicWriter::commit() {
  if (fd_ < 0) return fail(ErrorCode::kInternal, path_, "commit after commit or abort");
  if (::fsync(fd_) != 0) return tl::unexpected(errno_error(errno, temp_path_, "fsync"));
  if (::close(fd_) != 0) {
    fd_ = -1;
    return tl::unexpected(errno_error(errno, temp_path_, "close"));
  }
  fd_ = -1;
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    return tl::unexpected(
        sentence_error(err, path_, trf("cannot rename the finished temporary file to this name: {}", errno_text(err))));
  }
  temp_path_.clear();
  return fsync_dir(parent_dir(path_));
}

void AtomicWriter::abort() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (!temp_path_.empty()) {
    ::unlink(temp_path_.c_str());
    temp_path_.clear();
  }
}

}  // namespace tfrig::core
