// A scratch directory that provably belongs to this run: created by us with
// mkdtemp (so it did not exist before), stamped with a marker file, and
// remembered by device and inode. Removal re-checks both before deleting
// anything, never follows a symlink, and only ever runs inside that
// directory, so a wrong --dir can cost at most a refusal, never user data.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"

namespace tfrig::bench {

// The marker's name inside every scratch directory.
inline constexpr const char* kScratchMarker = ".tfrig-bench-scratch";
// Scratch directories are named kScratchPrefix + six random characters.
inline constexpr const char* kScratchPrefix = "tfrig-bench-";

class ScratchDir {
 public:
  ScratchDir() = default;
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ScratchDir(ScratchDir&& other) noexcept;
  ScratchDir& operator=(ScratchDir&& other) noexcept;

  // Creates parent/tfrig-bench-XXXXXX. Refuses a parent that is not an
  // existing directory, that lives in /proc, /sys or /dev, or where this user
  // may not write; each refusal says which and why.
  static core::Result<ScratchDir> create(const std::string& parent);

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  bool active() const { return !path_.empty(); }

  // Deletes everything inside and the directory itself, after checking that
  // it is still the directory we made. Safe to call twice.
  core::Status remove();

 private:
  std::string path_;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
};

// Checks that `dir`'s filesystem has `bytes` free for this user (statvfs
// f_bavail), naming both numbers when not.
core::Status ensure_free_space(const std::string& dir, uint64_t bytes);

// Scratch directories under parent whose marker names a pid that no longer
// runs here (a run killed with -9): named in a warning by create(), never
// removed automatically (on a shared filesystem the pid may be another
// host's live run). Sorted.
std::vector<std::string> stale_scratch_dirs(const std::string& parent);

// Removes every scratch directory still registered: the last resort of the
// interrupt watcher when the main thread does not finish in time.
void remove_all_scratch_dirs();

}  // namespace tfrig::bench
