#include "setup/write.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/errno_text.h"
#include "core/i18n.h"
#include "core/try.h"
#include "core/log.h"

namespace tfrig::setup {

namespace fs = std::filesystem;

namespace {

std::string user_name(uid_t uid) {
  const passwd* pw = ::getpwuid(uid);
  return pw && pw->pw_name ? std::string(pw->pw_name) + " (uid " + std::to_string(uid) + ")"
                           : "uid " + std::to_string(uid);
}

// Why DIR (which exists) is not a safe place for a script root will run; "" when it is.
std::string unsafe_reason(const struct stat& st) {
  if (st.st_uid != ::geteuid()) {
    return trf("belongs to {}, who could change install.sh before it runs", user_name(st.st_uid));
  }
  if (st.st_mode & S_IWOTH) return _("may be written by every user, who could change install.sh before it runs");
  return "";
}

void sync_dir(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

mode_t folder_mode() {
  const mode_t mask = ::umask(022);
  ::umask(mask);
  return 0755 & ~mask;
}

}  // namespace

core::Status write_outputs(const std::string& dir, const std::vector<OutputFile>& files, bool force) {
  return write_outputs(dir, files, force, [](const std::string& path, std::string_view content, unsigned mode) {
    return core::write_file_atomic(path, content, mode);
  });
}

namespace {

// What is at -o DIR already: nothing, or a folder of ours (empty, or with
// other files and --force); a link, a file or another user's folder is refused.
struct OutputFolder {
  fs::path target;  // DIR, absolute and normalized: "out/", "." and "a/../out" name the folder itself
  fs::path parent;  // where the staging folder goes
  bool exists = false;
  struct stat st {};
  bool merge = false;  // write into a DIR that holds other files
};

core::Result<OutputFolder> check_output_folder(const std::string& dir, bool force) {
  OutputFolder out;
  std::error_code abs_ec;
  out.target = fs::absolute(fs::path(dir), abs_ec).lexically_normal();
  if (abs_ec) out.target = fs::path(dir);
  while (!out.target.has_filename() && out.target.has_parent_path() && out.target != out.target.root_path())
    out.target = out.target.parent_path();
  out.parent = out.target.parent_path();
  if (out.parent.empty()) out.parent = ".";
  out.exists = ::lstat(out.target.c_str(), &out.st) == 0;
  if (!out.exists) return out;
  if (S_ISLNK(out.st.st_mode)) {
    return core::fail(
        core::ErrorCode::kInvalidArgument, dir,
        _("is a symbolic link; name the folder itself (where a link points can change after tfrig wrote)"));
  }
  if (!S_ISDIR(out.st.st_mode)) return core::fail(core::ErrorCode::kInvalidArgument, dir, _("-o must be a directory"));
  std::error_code ec;
  const bool empty = fs::is_empty(out.target, ec);
  const std::string unsafe = unsafe_reason(out.st);
  if (!unsafe.empty() && !force) {
    return core::fail(core::ErrorCode::kPermissionDenied, dir,
                      trf("{}; choose a folder of your own, or pass --force to write anyway", unsafe));
  }
  if (!empty && !force) {
    return core::fail(core::ErrorCode::kInvalidArgument, dir,
                      _("is not empty; choose a new directory or pass --force to replace tfrig's files in it"));
  }
  out.merge = !empty;
  if (out.merge && !unsafe.empty()) core::log(core::LogLevel::kWarn, "{}: {}", dir, unsafe);
  return out;
}

// --force into a DIR with other files: every file is written already; only renames remain.
core::Status move_files_into(const fs::path& target, const fs::path& staging, const std::vector<OutputFile>& files) {
  for (const auto& f : files) {
    const fs::path to = target / f.path;
    std::error_code ec;
    fs::create_directories(to.parent_path(), ec);
    if (ec)
      return core::fail(core::ErrorCode::kIo, to.parent_path().string(),
                        trf("cannot create: {}", core::error_code_text(ec)));
    if (::rename((staging / f.path).c_str(), to.c_str()) != 0) {
      const int err = errno;
      return core::fail(core::ErrorCode::kIo, to.string(),
                        trf("cannot put the written file in place: {}", core::errno_text(err)));
    }
  }
  return {};
}

}  // namespace

// The files written into a staging folder beside DIR, then the folder renamed
// into place (or, into a DIR with other files, each file renamed into it).
core::Status write_outputs(const std::string& dir, const std::vector<OutputFile>& files, bool force,
                           const FileWriter& writer) {
  const OutputFolder folder = TFRIG_TRY(check_output_folder(dir, force));
  const fs::path& target = folder.target;
  const fs::path& parent = folder.parent;
  // The staging folder: beside DIR (a rename does not cross file systems), a
  // short fixed name (a DIR of 255 bytes still has a legal sibling).
  std::string staging_name = (parent / ".tfrig-setup-XXXXXX").string();
  if (::mkdtemp(staging_name.data()) == nullptr) {
    const int err = errno;
    return core::fail(core::ErrorCode::kIo, parent.string(),
                      trf("cannot create a folder here: {}", core::errno_text(err)));
  }
  const fs::path staging(staging_name);
  auto give_up = [&](core::Error e) -> core::Status {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    return tl::unexpected(std::move(e));
  };
  for (const auto& f : files) {
    const fs::path path = staging / f.path;
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec)
      return give_up(
          {core::ErrorCode::kIo, path.parent_path().string(), trf("cannot create: {}", core::error_code_text(ec))});
    if (auto st_write = writer(path.string(), f.content, f.mode); !st_write) return give_up(st_write.error());
  }
  if (!folder.merge) {
    ::chmod(staging.c_str(), folder_mode());
    if (::rename(staging.c_str(), target.c_str()) == 0) {
      sync_dir(parent);
      return {};
    }
    const int err = errno;
    // An empty DIR of ours that cannot be replaced (a mount point, the current
    // folder): the files are renamed into it instead. Another user's stays refused.
    if (!folder.exists || !unsafe_reason(folder.st).empty() || (err != EBUSY && err != EINVAL && err != EXDEV)) {
      return give_up(
          {core::ErrorCode::kIo, dir, trf("cannot put the written folder in place: {}", core::errno_text(err))});
    }
  }
  if (auto moved = move_files_into(target, staging, files); !moved) return give_up(moved.error());
  std::error_code ignored;
  fs::remove_all(staging, ignored);
  sync_dir(target);
  return {};
}

}  // namespace tfrig::setup
