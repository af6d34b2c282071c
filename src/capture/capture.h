// tfrig capture: the files the probes read on this machine, packed so that
// another machine can run the same probes on them (`doctor --from FILE`).
//
// The probes run once here with the root recording every access
// (core::AccessLog). The archive then holds exactly that: the bytes each read
// returned, the entries of each listed directory (as empty files, links or
// folders), the symlinks on every path (absolute targets made relative, so an
// unpacked capture never reaches outside itself), and a manifest with the
// environment variables the probes asked for and the --data/--python options.
// What the probes learn from the running kernel through NVML is not a file
// and is not in the capture (docs/capture.md).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "capture/tar.h"
#include "core/access_log.h"
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
// entry is the manifest.
bool is_capture(std::string_view bytes);

struct Unpacked {
  Manifest manifest;
  std::string root_dir;  // the tree, ready for core::SysRoot(root_dir, env)
};
// Unpacks a capture (gzip'd or not) into dir (which must exist and be empty).
// Refuses absolute paths, "..", and symlinks that would leave the tree.
core::Result<Unpacked> unpack_capture(std::string_view bytes, const std::string& dir);

}  // namespace tfrig::capture
