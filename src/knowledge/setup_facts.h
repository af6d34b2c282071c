// The facts `tfrig setup` writes into scripts and container files: the OS
// targets (CUDA repository folder, Python, driver branches offered), the
// package names by template, the open kernel module rule, the driver branch
// limits per GPU generation, the NVIDIA Container Toolkit repository, the
// TensorFlow images on Docker Hub and NGC, and the container limits.
// data/knowledge/setup.json; every row names its source.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tfrig::knowledge {

struct OsTarget {
  std::string id;          // "ubuntu-22.04"
  std::string os_id;       // os-release ID
  std::string version_id;  // os-release VERSION_ID
  std::string codename;
  std::string cuda_repo;                     // "ubuntu2204": the folder of NVIDIA's CUDA repository
  std::string python;                        // the python3 the release ships
  std::string driver_installer;              // "ubuntu-drivers" or "cuda-repo"
  std::vector<std::string> driver_branches;  // offered on this release
  std::string cuda_repo_min;                 // the oldest CUDA the repository folder carries
  std::optional<std::string> cuda_repo_max;  // the newest, when the folder stopped
  std::string docker_package;
  std::string source;
  bool uncertain = false;
  std::string note;
};

struct NgcRelease {
  std::string release;  // "24.02"
  std::string tf;       // "2.15.0"
  std::string cuda;
  std::string min_driver;
  std::string source;
  bool uncertain = true;
};

// Driver branches a GPU generation can use (by compute capability range).
struct GpuBranchLimit {
  std::string cc_min;
  std::string cc_max;
  std::optional<std::string> first_branch;
  std::optional<std::string> last_branch;
  std::string source;
  bool uncertain = true;
};

struct CudnnPackage {
  std::string cudnn_major;
  std::string package;         // templates: {cuda_major}
  std::string version_prefix;  // {cudnn}
  std::string version_suffix;  // {cuda_major}
};

// A download source: a URL with the id of its row in "sources".
struct SourceUrl {
  std::string url;
  std::string source;
  bool uncertain = false;
};

// Where an OS's apt archive is named in /etc/apt: install.sh replaces what
// `pattern` (an extended regex with exactly one group) matches by the mirror.
struct AptArchive {
  std::string os_id;  // os-release ID
  std::string arch;   // "x86_64", "aarch64", "any"
  std::string pattern;
  std::string default_url;
  std::string source;
  // Debian's security archive (debian-security), a second archive with its own mirror; "" = none.
  std::string security_pattern;
  std::string security_default;
};

struct AptMirror {
  std::string os_id, arch;
  SourceUrl url;
  SourceUrl security;  // the mirror of the security archive (Debian's debian-security)
};

// --mirror PRESET: the mirrors it sets (an empty url: none, keep the default).
struct MirrorPreset {
  std::string id;
  std::vector<std::string> aliases;  // other names of the preset ("cn" for "tuna")
  std::string description;
  std::string cloud;      // "aliyun", "tencent", "huaweicloud"; "" for a university mirror
  bool intranet = false;  // answers only inside that cloud's network
  bool china = false;     // a mainland China preset: containers avoid Docker Hub, first-run downloads noted
  std::vector<AptMirror> apt;
  SourceUrl pip_index, conda, cuda_repo, container_toolkit, docker_registry_mirror;
  std::string docker_hub_note;

  // The apt mirror for this OS and machine architecture; nullptr if none.
  const AptMirror* apt_for(std::string_view os_id, std::string_view arch) const;
};

// Downloads TensorFlow users meet on first run, outside the package mirrors.
struct ChinaDownloads {
  SourceUrl hf_endpoint;    // HF_ENDPOINT under a China preset (a community mirror)
  SourceUrl keras_weights;  // where tf.keras.applications weights come from
  std::string keras_cache, tfds_data_dir, tfds_source, gcs_source;
};

struct UnusableMirror {
  std::string host, why, source;
};

// What tells that a machine is set up for mainland China (doctor).
struct ChinaSignals {
  std::vector<std::string> locales;       // "zh_CN"
  std::vector<std::string> time_zones;    // "Asia/Shanghai"
  std::vector<std::string> mirror_hosts;  // "mirrors.tuna.tsinghua.edu.cn"
};

struct SetupFacts {
  std::map<std::string, std::string> source_urls;  // "sources" rows: id -> url
  std::string keyring_package, keyring_version, cuda_repo_url_base, keyring_source;
  std::string ctk_gpgkey_url, ctk_list_url, ctk_keyring, ctk_list_file, ctk_package, ctk_source;
  std::vector<OsTarget> os_targets;
  std::map<std::string, std::string> driver_packages;  // name -> template with {branch}
  std::string open_supported_min_cc, open_required_min_cc, open_default_from_branch, open_source;
  std::vector<GpuBranchLimit> gpu_branch_limits;
  std::string cuda_toolkit_package, cuda_libraries_package;  // {major}-{minor}
  std::vector<CudnnPackage> cudnn_packages;
  std::string docker_repository, docker_gpu_suffix, docker_source;
  std::string ngc_repository, ngc_tag_suffix, ngc_final_release;
  std::string ngc_min_cc;  // the oldest compute capability the NGC images support
  std::vector<NgcRelease> ngc_releases;
  std::string shm_size, memlock, stack, container_source;
  std::string venv_dir;
  std::map<std::string, std::string> apt_packages;
  std::string ctk_repo_base;  // the Container Toolkit repository the gpgkey and list URLs are under
  int mirror_check_timeout_s = 5;
  SourceUrl default_pip_index, docker_hub_registry, ngc_registry;
  std::vector<AptArchive> apt_archives;
  std::vector<MirrorPreset> mirror_presets;
  std::vector<UnusableMirror> unusable_docker_hub_mirrors;
  ChinaSignals china;
  ChinaDownloads china_downloads;

  const OsTarget* find_os(std::string_view id) const;
  const OsTarget* find_os(std::string_view os_id, std::string_view version_id) const;
  std::string driver_package(const std::string& name, const std::string& branch) const;
  // The newest NGC release that ships this TF major.minor; nullptr if none.
  const NgcRelease* ngc_for(std::string_view tf) const;
  // By id or alias ("cn" is "tuna").
  const MirrorPreset* find_preset(std::string_view id) const;
  // The archive row for this OS and architecture ("any" rows match every one).
  const AptArchive* apt_archive(std::string_view os_id, std::string_view arch) const;
};

// Reads setup.json; throws nlohmann::json::exception on a wrong type (the
// loader turns it into an error naming the file).
SetupFacts parse_setup_facts(const nlohmann::json& doc);

// "{branch}" -> value, every occurrence.
std::string fill_template(std::string text, const std::map<std::string, std::string>& values);

}  // namespace tfrig::knowledge
