#include "core/sysroot.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "core/access_log.h"
#include "core/errno_text.h"
#include "core/i18n.h"
#include "core/exit_code.h"
#include "core/memory_tree.h"
#include "core/text.h"
#include "core/unique_fd.h"

extern char** environ;

namespace tfrig::core {

Error errno_error(int err, std::string path, std::string_view action) {
  const ErrorCode code = error_code_for_errno(err);
  // TRANSLATORS: a file operation ("open", "read") and the system's reason ("No such file or directory").
  Message text(N_("{0} failed: {1}"), file_action_arg(action), errno_arg(err));
  if (err == ELOOP) text = Message(N_("{} (symlink loop)"), std::move(text));
  return make_error(code, std::move(path), std::move(text));
}

SysRoot::EnvMap process_environment() {
  SysRoot::EnvMap env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  return env;
}

SysRoot::SysRoot() : SysRoot("/", process_environment()) {}

// A captured tree is another machine (or a test fixture): this process's
// environment (LD_LIBRARY_PATH, HOME, VIRTUAL_ENV, ...) says nothing about
// it, so only the live root sees the environment.
SysRoot::SysRoot(std::string root) : SysRoot(root, (root.empty() || root == "/") ? process_environment() : EnvMap{}) {}

SysRoot::SysRoot(std::string root, EnvMap env) : root_(std::move(root)), env_(std::move(env)) {
  if (root_.empty()) root_.assign(1, '/');
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

SysRoot::SysRoot(std::shared_ptr<const MemoryTree> tree, std::string label, EnvMap env)
    : root_(std::move(label)), tree_(std::move(tree)), env_(std::move(env)) {
  // full_path appends "/rel": a label ending in '/' would double it.
  while (!root_.empty() && root_.back() == '/') root_.pop_back();
  if (root_.empty()) root_ = "capture";
  if (!tree_) tree_ = std::make_shared<const MemoryTree>();
}

std::string SysRoot::full_path(std::string_view rel) const {
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  // Built by appending: GCC 12 warns falsely (-Wrestrict) on "/" + string.
  std::string out;
  out.reserve(root_.size() + rel.size() + 1);
  if (root_ != "/") out.append(root_);
  if (rel.empty() && !out.empty()) return out;
  out.push_back('/');
  out.append(rel);
  return out;
}

Result<std::string> SysRoot::read_text(std::string_view rel, size_t max_bytes) const {
  auto out = read_text_unrecorded(rel, max_bytes);
  if (log_) {
    if (out) {
      log_->read(rel, *out);
    } else {
      log_->looked_up(rel);
    }
  }
  return out;
}

Result<std::string> SysRoot::read_text_memory(std::string_view rel, size_t max_bytes) const {
  const std::string path = full_path(rel);
  MemoryTree::Found f;
  if (int err = tree_->resolve(rel, true, f); err != 0) return tl::unexpected(errno_error(err, path, "open"));
  if (f.node->type == MemoryTree::Type::kDir)
    return fail(ErrorCode::kIo, path, Message(N_("is a directory, expected a file")));
  if (f.node->data.size() > max_bytes)
    return fail(ErrorCode::kIo, path, Message(N_("larger than the {} bytes expected"), max_bytes));
  return f.node->data;
}

Result<std::string> SysRoot::read_text_unrecorded(std::string_view rel, size_t max_bytes) const {
  if (tree_) return read_text_memory(rel, max_bytes);
  const std::string path = full_path(rel);
  // O_NONBLOCK: a FIFO planted in a fixture must not hang the run.
  UniqueFd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!file.valid()) return tl::unexpected(errno_error(errno, path, "open"));
  struct stat st {};
  if (::fstat(file.get(), &st) != 0) return tl::unexpected(errno_error(errno, path, "stat"));
  if (S_ISDIR(st.st_mode)) return fail(ErrorCode::kIo, path, Message(N_("is a directory, expected a file")));
  if (!S_ISREG(st.st_mode))
    return fail(ErrorCode::kIo, path, Message(N_("is not a regular file (device, FIFO or socket)")));
  std::string out;
  if (st.st_size > 0) out.reserve(std::min<size_t>(static_cast<size_t>(st.st_size), max_bytes));
  char buf[16384];
  while (true) {
    ssize_t n = ::read(file.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return tl::unexpected(errno_error(errno, path, "read"));
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes) {
      return fail(ErrorCode::kIo, path, Message(N_("larger than the {} bytes expected"), max_bytes));
    }
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

Result<std::string> SysRoot::read_line(std::string_view rel) const {
  auto text = read_text(rel, 1u << 20);
  if (!text) return tl::unexpected(text.error());
  std::string_view view(*text);
  size_t nl = view.find('\n');
  if (nl != std::string_view::npos) view = view.substr(0, nl);
  // Some sysfs files end in NUL padding: drop it; a NUL inside is binary data.
  while (!view.empty() && view.back() == '\0') view.remove_suffix(1);
  if (size_t nul = view.find('\0'); nul != std::string_view::npos) {
    return fail(ErrorCode::kParse, full_path(rel),
                Message(N_("binary data (NUL byte at offset {}), expected one line of text"), nul));
  }
  return std::string(trim(view));
}

Result<std::vector<std::string>> SysRoot::list_dir(std::string_view rel) const {
  if (log_) log_->listed(rel);
  const std::string path = full_path(rel);
  if (tree_) {
    MemoryTree::Found f;
    int err = tree_->resolve(rel, true, f);
    if (err == 0 && f.node->type != MemoryTree::Type::kDir) err = ENOTDIR;
    if (err != 0) return tl::unexpected(errno_error(err, path, "opendir"));
    return std::vector<std::string>(f.node->children.begin(), f.node->children.end());
  }
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return tl::unexpected(errno_error(errno, path, "opendir"));
  std::vector<std::string> names;
  errno = 0;
  while (struct dirent* entry = ::readdir(dir)) {
    std::string_view name(entry->d_name);
    if (name == "." || name == "..") continue;
    names.emplace_back(name);
  }
  int err = errno;
  ::closedir(dir);
  if (err != 0) return tl::unexpected(errno_error(err, path, "readdir"));
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::string> SysRoot::read_link(std::string_view rel) const {
  if (log_) log_->looked_up(rel);
  const std::string path = full_path(rel);
  if (tree_) {
    MemoryTree::Found f;
    int err = tree_->resolve(rel, false, f);
    if (err == 0 && f.node->type != MemoryTree::Type::kLink) err = EINVAL;
    if (err != 0) return tl::unexpected(errno_error(err, path, "readlink"));
    return f.node->data;
  }
  char buf[4096];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
  if (n < 0) return tl::unexpected(errno_error(errno, path, "readlink"));
  if (static_cast<size_t>(n) == sizeof buf)
    return fail(ErrorCode::kIo, path, Message(N_("symlink target longer than 4095 bytes")));
  return std::string(buf, static_cast<size_t>(n));
}

bool SysRoot::exists(std::string_view rel) const {
  if (log_) log_->looked_up(rel);
  if (tree_) {
    MemoryTree::Found f;
    return tree_->resolve(rel, true, f) == 0;
  }
  struct stat st {};
  return ::stat(full_path(rel).c_str(), &st) == 0;
}

SysRoot::Kind SysRoot::kind_of(std::string_view rel) const {
  if (tree_) {
    MemoryTree::Found f;
    if (tree_->resolve(rel, false, f) != 0) return Kind::kMissing;
    switch (f.node->type) {
      case MemoryTree::Type::kLink: return Kind::kLink;
      case MemoryTree::Type::kDir: return Kind::kDir;
      case MemoryTree::Type::kFile: return Kind::kFile;
    }
    return Kind::kMissing;
  }
  struct stat st {};
  if (::lstat(full_path(rel).c_str(), &st) != 0) return Kind::kMissing;
  if (S_ISLNK(st.st_mode)) return Kind::kLink;
  if (S_ISDIR(st.st_mode)) return Kind::kDir;
  if (S_ISREG(st.st_mode)) return Kind::kFile;
  return Kind::kOther;
}

bool SysRoot::is_dir(std::string_view rel) const {
  if (log_) log_->looked_up(rel);
  if (tree_) {
    MemoryTree::Found f;
    return tree_->resolve(rel, true, f) == 0 && f.node->type == MemoryTree::Type::kDir;
  }
  struct stat st {};
  return ::stat(full_path(rel).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool SysRoot::is_file(std::string_view rel) const {
  if (log_) log_->looked_up(rel);
  if (tree_) {
    MemoryTree::Found f;
    return tree_->resolve(rel, true, f) == 0 && f.node->type == MemoryTree::Type::kFile;
  }
  struct stat st {};
  return ::stat(full_path(rel).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool SysRoot::accessible(std::string_view rel, int mode) const {
  if (tree_) {
    MemoryTree::Found f;
    return tree_->resolve(rel, true, f) == 0;
  }
  return ::access(full_path(rel).c_str(), mode) == 0;
}

Result<std::string> SysRoot::real_path(std::string_view rel) const {
  const std::string full = full_path(rel);
  if (tree_) {
    MemoryTree::Found f;
    if (int err = tree_->resolve(rel, true, f); err != 0) return tl::unexpected(errno_error(err, full, "resolve"));
    return "/" + f.path;
  }
  char resolved[PATH_MAX];
  if (::realpath(full.c_str(), resolved) == nullptr) return tl::unexpected(errno_error(errno, full, "resolve"));
  std::string lookup = resolved;
  if (is_live()) return lookup;
  // Compared with the root's own resolved path (it may be relative or a
  // symlink), on a '/' boundary so /x/r never matches /x/r2.
  char root_resolved[PATH_MAX];
  if (::realpath(root_.c_str(), root_resolved) == nullptr)
    return fail(ErrorCode::kNotFound, root_, Message(N_("cannot resolve the root")));
  const std::string r = root_resolved;
  if (lookup == r) return std::string("/");
  if (starts_with(lookup, r + "/")) return lookup.substr(r.size());
  // The whole sentence in one message (a data path's error stores it: storage probe).
  return fail(ErrorCode::kNotFound, "", Message(N_("{0} resolves to {1}, outside the root {2}"), full, lookup, r));
}

std::optional<std::string> SysRoot::env(std::string_view name) const {
  auto it = env_.find(name);
  std::optional<std::string> value;
  if (it != env_.end()) value = it->second;
  if (log_) log_->env(name, value);
  return value;
}

}  // namespace tfrig::core
