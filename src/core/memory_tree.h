// MemoryTree: a file tree held in memory (files with their bytes, folders,
// symlinks), the backend of a core::SysRoot that serves a capture from
// another machine without writing one byte of it to the file system.
//
// Paths are relative, '/'-separated. Symlinks resolve inside the tree only:
// an absolute target starts at the tree's root, ".." at the root stays
// there (as "/.." does on Linux), and more than kMaxLinks links on one
// path is a loop (ELOOP, the kernel's limit of 40: path_resolution(7)).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tfrig::core {

class MemoryTree {
 public:
  enum class Type { kFile, kDir, kLink };
  struct Node {
    Type type = Type::kDir;
    std::string data;                // kFile: the bytes; kLink: the target text
    std::set<std::string> children;  // kDir: the names it holds
    bool implicit = false;           // a folder made for a path below it, not named by an entry
  };

  static constexpr int kMaxLinks = 40;

  MemoryTree();

  // Adds one entry at a canonical relative path ("a/b/c": no empty, "." or
  // ".." component, no leading '/'); the folders above it are made when
  // missing. Returns why it cannot be added: a path that is not canonical,
  // a folder on the way that is a file or a symlink (an entry never lies
  // under a link), or an entry already there with another type or other
  // bytes. The same entry twice, and a folder named after its contents were
  // added, are fine.
  std::optional<std::string> add(std::string_view path, Type type, std::string data = {});

  struct Found {
    const Node* node = nullptr;
    std::string path;  // the real path in the tree, no links on it ("" = the root)
  };
  // Walks rel from the root as the kernel walks a path: every symlink on the
  // way is followed, the last one only when follow_last. Returns 0, ENOENT,
  // ENOTDIR or ELOOP. `escaped` (when given) is set when a ".." would have
  // climbed above the root.
  int resolve(std::string_view rel, bool follow_last, Found& out, bool* escaped = nullptr) const;

  // The node at a real path (no links on it), or null.
  const Node* at(std::string_view real) const;

  size_t size() const { return nodes_.size(); }
  // Every symlink's real path, for checking where each one leads.
  std::vector<std::string> links() const;

 private:
  std::map<std::string, Node, std::less<>> nodes_;  // real path -> node; "" is the root folder
};

// "a//b/./c/" -> {"a", "b", "c"}: the components of a path, empty and "."
// ones dropped (".." kept).
std::vector<std::string> path_components(std::string_view path);

}  // namespace tfrig::core
