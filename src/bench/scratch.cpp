#include "bench/scratch.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/i18n.h"
#include "core/errno_text.h"
#include "core/log.h"
#include "core/sysroot.h"
#include "core/text.h"
#include "core/try.h"
#include "core/units.h"

namespace tfrig::bench {

namespace {

struct Registered {
  std::string path;
  dev_t dev;
  ino_t ino;
};

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::vector<Registered>& registry() {
  static std::vector<Registered> r;
  return r;
}

void register_dir(const std::string& path, dev_t dev, ino_t ino) {
  std::lock_guard lock(registry_mutex());
  registry().push_back({path, dev, ino});
}

void unregister_dir(const std::string& path) {
  std::lock_guard lock(registry_mutex());
  auto& r = registry();
  r.erase(std::remove_if(r.begin(), r.end(), [&](const Registered& e) { return e.path == path; }), r.end());
}

// Unlinks everything under the open directory `fd` without following
// symlinks: a symlink is removed as a name, its target is never touched.
// Subdirectories are opened with O_NOFOLLOW and must sit on the same device.
bool empty_directory(int fd, dev_t dev, int depth) {
  if (depth > 8) return false;  // we never nest deeper than two levels
  DIR* d = fdopendir(fd);
  if (d == nullptr) {
    ::close(fd);
    return false;
  }
  bool ok = true;
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    names.emplace_back(e->d_name);
  }
  int dfd = dirfd(d);
  for (const auto& name : names) {
    struct stat st {};
    if (fstatat(dfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // already gone
    if (S_ISDIR(st.st_mode)) {
      if (st.st_dev != dev) {
        ok = false;  // a mount point inside our scratch dir: not ours to empty
        continue;
      }
      int sub = openat(dfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0 || !empty_directory(sub, dev, depth + 1)) ok = false;
      if (unlinkat(dfd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) ok = false;
    } else if (unlinkat(dfd, name.c_str(), 0) != 0 && errno != ENOENT) {
      ok = false;
    }
  }
  closedir(d);
  return ok;
}

core::Status remove_checked(const std::string& path, dev_t dev, ino_t ino) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return {};
    return tl::unexpected(core::errno_error(errno, path, "open scratch directory for removal"));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_dev != dev || st.st_ino != ino) {
    ::close(fd);
    return core::fail(core::ErrorCode::kPermissionDenied, path,
                      core::Message(N_("is no longer the scratch directory this run created; left alone")));
  }
  if (faccessat(fd, kScratchMarker, F_OK, AT_SYMLINK_NOFOLLOW) != 0) {
    ::close(fd);
    return core::fail(core::ErrorCode::kPermissionDenied, path,
                      core::Message(N_("has lost its marker file; left alone")));
  }
  bool emptied = empty_directory(fd, dev, 0);  // closes fd
  if (::rmdir(path.c_str()) != 0 && errno != ENOENT) {
    return tl::unexpected(core::errno_error(
        errno, path, emptied ? "remove scratch directory" : "remove scratch directory (some entries remain)"));
  }
  return {};
}

}  // namespace

ScratchDir::~ScratchDir() {
  if (auto s = remove(); !s) core::log(core::LogLevel::kWarn, "{}", core::describe(s.error()));
}

ScratchDir::ScratchDir(ScratchDir&& other) noexcept
    : path_(std::move(other.path_)), dev_(other.dev_), ino_(other.ino_) {
  other.path_.clear();
}

ScratchDir& ScratchDir::operator=(ScratchDir&& other) noexcept {
  if (this != &other) {
    (void)remove();
    path_ = std::move(other.path_);
    dev_ = other.dev_;
    ino_ = other.ino_;
    other.path_.clear();
  }
  return *this;
}

namespace {

// The directory a benchmark may write under, resolved: it exists, is a
// directory, and is not a kernel pseudo-filesystem (we never write to a device).
core::Result<std::string> usable_parent(const std::string& where) {
  struct stat st {};
  if (::stat(where.c_str(), &st) != 0) {
    const int err = errno;
    core::Error e = core::errno_error(err, where, "use as the benchmark directory");
    e.text = core::Message(N_("cannot be used as the benchmark directory: {}"), core::errno_arg(err));
    e.message = core::english(e.text);
    return tl::unexpected(std::move(e));
  }
  if (!S_ISDIR(st.st_mode)) {
    // A block device or file named by mistake: we never write to a device.
    return core::fail(core::ErrorCode::kInvalidArgument, where,
                      core::Message(N_("is not a directory; benchmarks write only inside a directory of their own")));
  }
  char resolved[PATH_MAX];
  if (::realpath(where.c_str(), resolved) == nullptr) {
    return tl::unexpected(core::errno_error(errno, where, "resolve"));
  }
  std::string real = resolved;
  for (const char* pseudo : {"/proc", "/sys", "/dev"}) {
    if (real == pseudo || core::starts_with(real, std::string(pseudo) + "/")) {
      return core::fail(core::ErrorCode::kInvalidArgument, real,
                        core::Message(N_("is a kernel pseudo-filesystem; choose a directory on the disk to measure")));
    }
  }
  return real;
}

// Why mkdtemp under `real` failed, in the words a user can act on.
core::Error mkdtemp_failure(int err, const std::string& real) {
  const core::Message why =
      err == EROFS ? core::Message(N_(
                         "is on a read-only filesystem; pass --dir with a writable directory on the disk to measure"))
      : err == EACCES
          ? core::Message(
                N_("is not writable by this user; pass --dir with a writable directory on the disk to measure"))
      : err == ENOSPC
          ? core::Message(N_("is on a full filesystem; pass --dir with a writable directory on the disk to measure"))
          : core::Message(
                N_("refused a new directory: {}; pass --dir with a writable directory on the disk to measure"),
                core::errno_arg(err));
  return core::make_error(err == EACCES || err == EROFS ? core::ErrorCode::kPermissionDenied : core::ErrorCode::kIo,
                          real, why);
}

// Earlier runs killed before they could remove their directories take space: say so.
void warn_of_stale_dirs(const std::string& real) {
  if (auto stale = stale_scratch_dirs(real); !stale.empty()) {
    core::log(
        core::LogLevel::kWarn, "{}",
        trnf("{0} scratch directory of earlier runs that were killed (their pid no longer runs) takes space: {1}; "
             "remove with rm -r once no other machine uses them",
             "{0} scratch directories of earlier runs that were killed (their pid no longer runs) take space: {1}; "
             "remove with rm -r once no other machine uses them",
             stale.size(), stale.size(), fmt::format("{}", fmt::join(stale, ", "))));
  }
}

}  // namespace

core::Result<ScratchDir> ScratchDir::create(const std::string& parent) {
  const std::string real = TFRIG_TRY(usable_parent(parent.empty() ? "." : parent));
  std::string pattern = (real == "/" ? std::string() : real) + "/" + kScratchPrefix + "XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) return tl::unexpected(mkdtemp_failure(errno, real));
  ScratchDir dir;
  dir.path_ = buf.data();
  struct stat own {};
  if (::lstat(dir.path_.c_str(), &own) != 0) {
    std::string p = dir.path_;
    dir.path_.clear();
    return tl::unexpected(core::errno_error(errno, p, "stat new scratch directory"));
  }
  dir.dev_ = own.st_dev;
  dir.ino_ = own.st_ino;
  register_dir(dir.path_, dir.dev_, dir.ino_);
  int fd = ::open(dir.file(kScratchMarker).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    int err = errno;
    ::rmdir(dir.path_.c_str());
    unregister_dir(dir.path_);
    std::string p = dir.path_;
    dir.path_.clear();
    return tl::unexpected(core::errno_error(err, p + "/" + kScratchMarker, "create marker"));
  }
  std::string text = fmt::format("tfrig bench scratch directory of pid {}; safe to delete\n", ::getpid());
  ssize_t w = ::write(fd, text.data(), text.size());
  ::close(fd);
  if (w != static_cast<ssize_t>(text.size())) {
    // The marker is present either way; a short write here only means a full disk,
    // which the benchmark itself reports when it writes its files.
    core::log(core::LogLevel::kDebug, "short write to scratch marker in {}", dir.path_);
  }
  core::log(core::LogLevel::kDebug, "scratch directory {}", dir.path_);
  warn_of_stale_dirs(real);
  return dir;
}

std::vector<std::string> stale_scratch_dirs(const std::string& parent) {
  std::vector<std::string> out;
  DIR* d = ::opendir(parent.c_str());
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (!core::starts_with(name, kScratchPrefix)) continue;
    const std::string dir = (parent == "/" ? std::string() : parent) + "/" + name;
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    // "tfrig bench scratch directory of pid N; ..." (written by create()).
    core::SysRoot here("/");
    auto marker = here.read_text(dir + "/" + kScratchMarker, 4096);
    if (!marker) continue;
    const size_t at = marker->find("of pid ");
    if (at == std::string::npos) continue;
    size_t end = at + 7;
    while (end < marker->size() && std::isdigit(static_cast<unsigned char>((*marker)[end]))) ++end;
    auto pid = core::parse_i64(std::string_view(*marker).substr(at + 7, end - at - 7));
    if (!pid || *pid <= 0) continue;
    if (::kill(static_cast<pid_t>(*pid), 0) != 0 && errno == ESRCH) out.push_back(dir);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

core::Status ScratchDir::remove() {
  if (path_.empty()) return {};
  std::string p = path_;
  auto s = remove_checked(p, dev_, ino_);
  unregister_dir(p);
  path_.clear();
  return s;
}

core::Status ensure_free_space(const std::string& dir, uint64_t bytes) {
  struct statvfs vfs {};
  if (::statvfs(dir.c_str(), &vfs) != 0) return tl::unexpected(core::errno_error(errno, dir, "statvfs"));
  uint64_t avail = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  if (avail < bytes) {
    return core::fail(core::ErrorCode::kIo, dir,
                      core::Message(N_("not enough free space: the benchmark needs {0} and {1} is free; "
                                       "use --size/--files for less or --dir for another filesystem"),
                                    core::format_bytes_decimal(bytes), core::format_bytes_decimal(avail)));
  }
  return {};
}

void remove_all_scratch_dirs() {
  std::vector<Registered> copy;
  {
    std::lock_guard lock(registry_mutex());
    copy = registry();
  }
  for (const auto& r : copy) {
    (void)remove_checked(r.path, r.dev, r.ino);
    unregister_dir(r.path);
  }
}

}  // namespace tfrig::bench
