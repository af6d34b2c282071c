#include "knowledge/setup_facts.h"

#include <algorithm>

#include "core/version.h"

namespace tfrig::knowledge {

namespace {

using nlohmann::json;

std::string s(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

std::optional<std::string> os(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->is_string() ? it->get<std::string>() : it->dump();
}

std::vector<std::string> list(const json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& v : *it) out.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  return out;
}

const json& obj(const json& j, const char* key) {
  static const json kEmpty = json::object();
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kEmpty;
}

const json& arr(const json& j, const char* key) {
  static const json kEmpty = json::array();
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

std::map<std::string, std::string> string_map(const json& j) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : j.items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

SourceUrl source_url(const json& j) {
  if (!j.is_object()) return {};
  return SourceUrl{s(j, "url"), s(j, "source"), j.value("uncertain", false)};
}

std::vector<std::string> strings(const json& j, const char* key) { return list(j, key); }

}  // namespace

std::string fill_template(std::string text, const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values) {
    const std::string token = "{" + key + "}";
    for (size_t pos = text.find(token); pos != std::string::npos; pos = text.find(token, pos + value.size())) {
      text.replace(pos, token.size(), value);
    }
  }
  return text;
}

const OsTarget* SetupFacts::find_os(std::string_view id) const {
  for (const auto& o : os_targets) {
    if (o.id == id) return &o;
  }
  return nullptr;
}

const OsTarget* SetupFacts::find_os(std::string_view os_id, std::string_view version_id) const {
  for (const auto& o : os_targets) {
    if (o.os_id == os_id && o.version_id == version_id) return &o;
  }
  return nullptr;
}

std::string SetupFacts::driver_package(const std::string& name, const std::string& branch) const {
  auto it = driver_packages.find(name);
  if (it == driver_packages.end()) return "";
  return fill_template(it->second, {{"branch", branch}});
}

const NgcRelease* SetupFacts::ngc_for(std::string_view tf) const {
  auto want = core::Version::parse(tf);
  if (!want) return nullptr;
  const NgcRelease* best = nullptr;
  for (const auto& r : ngc_releases) {
    auto v = core::Version::parse(r.tf);
    if (!v || v->major() != want->major() || v->minor() != want->minor()) continue;
    auto rel = core::Version::parse(r.release);
    auto best_rel = best ? core::Version::parse(best->release) : std::nullopt;
    if (!best || (rel && best_rel && *rel > *best_rel)) best = &r;
  }
  return best;
}

const AptMirror* MirrorPreset::apt_for(std::string_view os_id, std::string_view arch) const {
  for (const auto& a : apt) {
    if (a.os_id == os_id && (a.arch == arch || a.arch == "any")) return &a;
  }
  return nullptr;
}

const MirrorPreset* SetupFacts::find_preset(std::string_view id) const {
  for (const auto& p : mirror_presets) {
    if (p.id == id || std::find(p.aliases.begin(), p.aliases.end(), id) != p.aliases.end()) return &p;
  }
  return nullptr;
}

const AptArchive* SetupFacts::apt_archive(std::string_view os_id, std::string_view arch) const {
  for (const auto& a : apt_archives) {
    if (a.os_id == os_id && (a.arch == arch || a.arch == "any")) return &a;
  }
  return nullptr;
}

namespace {

// NVIDIA's CUDA repository keyring and the Container Toolkit's repository.
void setup_repositories(const json& doc, SetupFacts& f) {
  const json& keyring = obj(doc, "cuda_keyring");
  f.keyring_package = s(keyring, "package");
  f.keyring_version = s(keyring, "version");
  f.cuda_repo_url_base = s(keyring, "url_base");
  f.keyring_source = s(keyring, "source");
  const json& ctk = obj(doc, "container_toolkit");
  f.ctk_gpgkey_url = s(ctk, "gpgkey_url");
  f.ctk_list_url = s(ctk, "list_url");
  f.ctk_keyring = s(ctk, "keyring");
  f.ctk_list_file = s(ctk, "list_file");
  f.ctk_package = s(ctk, "package");
  f.ctk_source = s(ctk, "source");
  f.ctk_repo_base = s(ctk, "repo_base");
}

// The operating systems setup writes for.
void setup_os_targets(const json& doc, SetupFacts& f) {
  for (const auto& r : arr(doc, "os_targets")) {
    OsTarget t;
    t.id = s(r, "id");
    t.os_id = s(r, "os_id");
    t.version_id = s(r, "version_id");
    t.codename = s(r, "codename");
    t.cuda_repo = s(r, "cuda_repo");
    t.python = s(r, "python");
    t.driver_installer = s(r, "driver_installer");
    t.driver_branches = list(r, "driver_branches");
    t.cuda_repo_min = s(r, "cuda_repo_min");
    t.cuda_repo_max = os(r, "cuda_repo_max");
    t.docker_package = s(r, "docker_package");
    t.source = s(r, "source");
    t.uncertain = r.value("uncertain", false);
    t.note = s(r, "note");
    f.os_targets.push_back(std::move(t));
  }
}

// The driver: packages, the open kernel module, the branches per GPU
// generation; CUDA's and cuDNN's packages; the sources they cite.
void setup_driver_facts(const json& doc, SetupFacts& f) {
  for (const auto& r : arr(doc, "sources")) {
    if (r.is_object()) f.source_urls[s(r, "id")] = s(r, "url");
  }
  f.driver_packages = string_map(obj(doc, "driver_packages"));
  const json& open = obj(doc, "open_module");
  f.open_supported_min_cc = s(open, "supported_min_cc");
  f.open_required_min_cc = s(open, "required_min_cc");
  f.open_default_from_branch = s(open, "default_from_branch");
  f.open_source = s(open, "source");
  for (const auto& r : arr(doc, "gpu_branch_limits")) {
    f.gpu_branch_limits.push_back(GpuBranchLimit{s(r, "cc_min"), s(r, "cc_max"), os(r, "first_branch"),
                                                 os(r, "last_branch"), s(r, "source"), r.value("uncertain", true)});
  }
  const json& cuda = obj(doc, "cuda_packages");
  f.cuda_toolkit_package = s(cuda, "toolkit");
  f.cuda_libraries_package = s(cuda, "libraries");
  for (const auto& r : arr(cuda, "cudnn")) {
    f.cudnn_packages.push_back(
        CudnnPackage{s(r, "cudnn_major"), s(r, "package"), s(r, "version_prefix"), s(r, "version_suffix")});
  }
}

// The images (Docker Hub, NGC), the container limits, the venv and apt packages.
void setup_image_facts(const json& doc, SetupFacts& f) {
  const json& hub = obj(doc, "docker_hub");
  f.docker_repository = s(hub, "repository");
  f.docker_gpu_suffix = s(hub, "gpu_suffix");
  f.docker_source = s(hub, "source");
  const json& ngc = obj(doc, "ngc");
  f.ngc_repository = s(ngc, "repository");
  f.ngc_tag_suffix = s(ngc, "tag_suffix");
  f.ngc_final_release = s(ngc, "final_release");
  f.ngc_min_cc = s(ngc, "min_cc");
  for (const auto& r : arr(ngc, "releases")) {
    f.ngc_releases.push_back(NgcRelease{s(r, "release"), s(r, "tf"), s(r, "cuda"), s(r, "min_driver"), s(r, "source"),
                                        r.value("uncertain", true)});
  }
  const json& c = obj(doc, "container");
  f.shm_size = s(c, "shm_size");
  f.memlock = s(c, "memlock");
  f.stack = s(c, "stack");
  f.container_source = s(c, "source");
  f.venv_dir = s(doc, "venv_dir");
  f.apt_packages = string_map(obj(doc, "apt_packages"));
}

// One --mirror preset: its mirrors of each download source.
MirrorPreset mirror_preset_of(const json& r) {
  MirrorPreset p;
  p.id = s(r, "id");
  p.aliases = list(r, "aliases");
  p.description = s(r, "description");
  p.cloud = s(r, "cloud");
  p.intranet = r.value("intranet", false);
  p.china = r.value("china", false);
  for (const auto& a : arr(r, "apt")) {
    p.apt.push_back(AptMirror{s(a, "os_id"), s(a, "arch"), source_url(a), source_url(obj(a, "security"))});
  }
  p.pip_index = source_url(obj(r, "pip_index"));
  p.conda = source_url(obj(r, "conda"));
  p.cuda_repo = source_url(obj(r, "cuda_repo"));
  p.container_toolkit = source_url(obj(r, "container_toolkit"));
  p.docker_registry_mirror = source_url(obj(r, "docker_registry_mirror"));
  p.docker_hub_note = s(r, "docker_hub_note");
  return p;
}

// The download sources: defaults, apt archives, presets, mirrors known not to
// work, the downloads from China, the signals of a machine in China.
void setup_mirror_facts(const json& doc, SetupFacts& f) {
  const json& m = obj(doc, "mirrors");
  if (auto it = m.find("check_timeout_s"); it != m.end() && it->is_number_integer()) {
    // A HEAD request; more than a minute would make a dead source stall the script.
    f.mirror_check_timeout_s = std::clamp(it->get<int>(), 1, 60);
  }
  const json& defaults = obj(m, "defaults");
  f.default_pip_index = source_url(obj(defaults, "pip_index"));
  f.docker_hub_registry = source_url(obj(defaults, "docker_hub_registry"));
  f.ngc_registry = source_url(obj(defaults, "ngc_registry"));
  for (const auto& r : arr(m, "apt_archives")) {
    f.apt_archives.push_back(AptArchive{s(r, "os_id"), s(r, "arch"), s(r, "pattern"), s(r, "default"), s(r, "source"),
                                        s(r, "security_pattern"), s(r, "security_default")});
  }
  for (const auto& r : arr(m, "presets")) f.mirror_presets.push_back(mirror_preset_of(r));
  for (const auto& r : arr(m, "unusable_docker_hub_mirrors")) {
    f.unusable_docker_hub_mirrors.push_back(UnusableMirror{s(r, "host"), s(r, "why"), s(r, "source")});
  }
  const json& dl = obj(m, "china_downloads");
  f.china_downloads = ChinaDownloads{source_url(obj(dl, "hf_endpoint")),
                                     source_url(obj(dl, "keras_weights")),
                                     s(dl, "keras_cache"),
                                     s(dl, "tfds_data_dir"),
                                     s(dl, "tfds_source"),
                                     s(dl, "gcs_source")};
  const json& china = obj(m, "china");
  f.china = ChinaSignals{strings(china, "locales"), strings(china, "time_zones"), strings(china, "mirror_hosts")};
}

}  // namespace

SetupFacts parse_setup_facts(const json& doc) {
  SetupFacts f;
  setup_repositories(doc, f);
  setup_os_targets(doc, f);
  setup_driver_facts(doc, f);
  setup_image_facts(doc, f);
  setup_mirror_facts(doc, f);
  return f;
}

}  // namespace tfrig::knowledge
