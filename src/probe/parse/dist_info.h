// Python packaging metadata, read from files (no Python is run):
//  - *.dist-info/METADATA, the Core Metadata format (packaging.python.org
//    "Core metadata specifications"): RFC 822 style headers, then a body.
//  - *.dist-info directory names "<name>-<version>.dist-info" (PEP 427/491).
//  - tensorflow/python/platform/build_info.py, which every TensorFlow wheel
//    ships: a Python literal (a dict, or collections.OrderedDict of pairs)
//    with cuda_version, cudnn_version, cuda_compute_capabilities,
//    is_cuda_build (`tf.sysconfig.get_build_info()` returns it).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace tfrig::probe::parse {

struct DistMetadata {
  std::string name;                             // "Name:" as written ("tensorflow", "nvidia-cudnn-cu12")
  std::string version;                          // "Version:"
  std::optional<std::string> requires_python;   // "Requires-Python:"
  std::optional<std::string> metadata_version;  // "Metadata-Version:"
  std::vector<std::string> requires_dist;       // every "Requires-Dist:" value
};
// Headers end at the first empty line; continuation lines (leading space or
// tab) are folded. Name and Version are required.
core::Result<DistMetadata> parse_dist_metadata(std::string_view text);

// PEP 503 normalised name: lower case, runs of "-", "_", "." become "-".
std::string normalize_dist_name(std::string_view name);

// "tensorflow_cpu-2.15.0.dist-info" -> {"tensorflow-cpu", "2.15.0"}.
std::optional<std::pair<std::string, std::string>> split_dist_info_dir(std::string_view dir);

struct TfBuildInfo {
  std::optional<std::string> cuda_version;        // "12.2" (Windows wheels: "64_112")
  std::optional<std::string> cudnn_version;       // "8"
  std::vector<std::string> compute_capabilities;  // "sm_60", "compute_90"
  std::optional<bool> is_cuda_build;
  std::optional<bool> is_rocm_build;
  std::optional<bool> is_tensorrt_build;
};
// Reads the keys it knows from build_info.py; absent keys stay null.
// Fails only when no build_info literal is found at all.
core::Result<TfBuildInfo> parse_tf_build_info(std::string_view text);

}  // namespace tfrig::probe::parse
