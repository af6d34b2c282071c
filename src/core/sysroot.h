// SysRoot: the only way tfrig reads the machine.
// Every path is relative to a root ("/" live, a captured tree in tests, --root
// on the command line, or a capture held in memory), so the same probes run on
// this machine and on files captured from another. Every error carries the
// full path that failed.
//
// A root in memory (core::MemoryTree, built from a capture's entries) never
// touches the file system: every call below answers from the tree, and its
// links resolve inside it. Nothing may open full_path() itself (it is a name
// for messages); what a probe needs beyond reading goes through this class
// (is_file, accessible, real_path), so it works on both kinds of root.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace tfrig::core {

class AccessLog;   // core/access_log.h
class MemoryTree;  // core/memory_tree.h

class SysRoot {
 public:
  using EnvMap = std::map<std::string, std::string, std::less<>>;

  // Root "/" with the process environment.
  SysRoot();
  // Any other root starts with an empty environment: it is another machine.
  explicit SysRoot(std::string root);
  SysRoot(std::string root, EnvMap env);
  // A tree in memory (a capture): `label` names it in messages (full_path
  // gives label + "/proc/cpuinfo"); env holds the facts the capture recorded.
  SysRoot(std::shared_ptr<const MemoryTree> tree, std::string label, EnvMap env);

  // The root folder, or the label of a tree in memory.
  const std::string& root() const { return root_; }
  bool is_live() const { return !tree_ && root_ == "/"; }
  bool in_memory() const { return tree_ != nullptr; }

  // root + rel, with exactly one slash between them ("/proc/cpuinfo" or
  // "proc/cpuinfo" both work).
  std::string full_path(std::string_view rel) const;

  // Reads a whole file (proc and sys files report size 0, so it reads until
  // EOF). Refuses directories, FIFOs and devices so that a fixture can never
  // block the run; stops with an error past max_bytes.
  Result<std::string> read_text(std::string_view rel, size_t max_bytes = kDefaultMaxBytes) const;
  // First line, trimmed: the shape of most sysfs attributes.
  Result<std::string> read_line(std::string_view rel) const;
  // Sorted entry names, without "." and "..".
  Result<std::vector<std::string>> list_dir(std::string_view rel) const;
  Result<std::string> read_link(std::string_view rel) const;
  bool exists(std::string_view rel) const;
  // What the path itself is (lstat: a symlink is kLink), not recorded.
  enum class Kind { kMissing, kFile, kDir, kLink, kOther };
  Kind kind_of(std::string_view rel) const;
  bool is_dir(std::string_view rel) const;
  // A regular file, symlinks followed (stat): what `which` looks for.
  bool is_file(std::string_view rel) const;
  // access(2) with R_OK/W_OK. In memory: a capture records no permissions,
  // so an entry that exists is taken as readable and writable.
  bool accessible(std::string_view rel, int mode) const;
  // The path as the machine under the root sees it, every symlink resolved
  // ("/data" -> "/mnt/disk1/data"); fails with the full path when it does
  // not exist or (on disk) resolves outside the root.
  Result<std::string> real_path(std::string_view rel) const;

  std::optional<std::string> env(std::string_view name) const;
  const EnvMap& env_map() const { return env_; }

  static constexpr size_t kDefaultMaxBytes = 16u << 20;

  // Records every later read, listing, lookup and environment query into log
  // (shared by the copies the probes hold); `tfrig capture` packs what it saw.
  void record_to(std::shared_ptr<AccessLog> log) { log_ = std::move(log); }

 private:
  Result<std::string> read_text_unrecorded(std::string_view rel, size_t max_bytes) const;
  Result<std::string> read_text_memory(std::string_view rel, size_t max_bytes) const;

  std::string root_;
  std::shared_ptr<const MemoryTree> tree_;
  EnvMap env_;
  std::shared_ptr<AccessLog> log_;
};

// Turns an errno from a failed call on `path` into an Error.
Error errno_error(int err, std::string path, std::string_view action);

// The environment of this process as a map.
SysRoot::EnvMap process_environment();

}  // namespace tfrig::core
