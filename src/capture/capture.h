// tfrig capture: the files the probes read on this machine, packed so that
// another machine can run the same probes on them (`doctor --from FILE`).
//
// The probes run once here with the root recording every access
// (core::AccessLog). The archive then holds exactly that: the bytes each read
// returned, the entries of each listed directory (as empty files, links or
// folders), the symlinks on every path (absolute targets made relative, so an
// capture never reaches outside itself), and a manifest with the environment
// variables the probes asked for and the --data/--python options.
//
// Reading one (load_capture) never writes to the file system: the archive is
// inflated into memory within limits (a capture comes from a stranger) and
// served through a core::SysRoot over a core::MemoryTree.
// What the probes learn from the running kernel through NVML is not a file
// and is not in the capture (docs/capture.md).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "capture/tar.h"
#include "core/access_log.h"
#include "core/memory_tree.h"
#include "core/result.h"
#include "core/sysroot.h"

namespace tfrig::capture {

inline constexpr std::string_view kManifestName = "tfrig-capture.json";
inline constexpr std::string_view kTreePrefix = "root/";

struct Manifest {
  int format = 1;
  std::string tool_version;
  std::string captured_at;
  std::map<std::string, std::string> env;  // the variables the probes read that were set
  std::vector<std::string> data_paths;
  std::vector<std::string> python_prefixes;
};

// The tar entries (manifest first, then the tree under root/) for what `log`
// recorded on `root`. Reads the root only for the kind of each path and the
// text of symlinks; file bytes come from the log, as the probes saw them.
std::vector<TarEntry> capture_entries(const core::SysRoot& root, const core::AccessLog::Snapshot& log,
                                      const Manifest& manifest);

// True when the bytes (gzip'd or not) are a tfrig capture: a tar whose first
// entry is the manifest. Inflates a few kB at most (a bomb costs nothing
// here); a capture cut short is still one (load_capture says where it ends).
bool is_capture(std::string_view bytes);

// The environment variables a capture may hand the probes: facts about the
// other machine that the probes read inside the archive (PATH to look for
// docker, LD_LIBRARY_PATH for the folders the loader searches, HOME, ...).
// Nothing else is taken: TFRIG_* (tfrig's own configuration, such as the
// NVML library to load), LD_PRELOAD and the other loader variables, and any
// name the probes do not read, so a capture can never steer what this
// process loads, opens or runs.
bool is_fact_variable(std::string_view name);

// Limits on reading a capture: each refusal names its command-line flag.
struct Limits {
  uint64_t max_bytes = uint64_t{256} << 20;       // --max-capture-bytes: the archive inflated
  uint64_t max_entries = 50'000;                  // --max-capture-entries
  uint64_t max_entry_bytes = uint64_t{16} << 20;  // --max-capture-entry-bytes (what SysRoot reads of one file)
  uint64_t max_ratio = 200;                       // --max-capture-ratio: inflated bytes per gzip byte
};
// The ratio is judged once this much has inflated: a small capture of empty
// files compresses well and is no bomb.
inline constexpr uint64_t kRatioFloor = uint64_t{4} << 20;

struct Loaded {
  Manifest manifest;  // env: only the fact variables
  std::shared_ptr<const core::MemoryTree> tree;
  std::vector<std::string> dropped_env;  // names in the manifest's env that were not taken
};
// Reads a capture (gzip'd or not) into memory. Fails (kParse or
// kUnsupported: exit 65) naming the entry that is absolute, empty, holds a
// "..", lies outside root/ or under a symlink, conflicts with an earlier
// entry, or is a symlink that leads outside the tree; naming the offset of a
// damaged or cut-short archive; naming the limit and its flag.
core::Result<Loaded> load_capture(std::string_view bytes, const Limits& limits = {});

}  // namespace tfrig::capture
