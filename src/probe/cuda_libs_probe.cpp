// cuda_libs: the CUDA user-space libraries the dynamic loader would find,
// without running anything (no `ldconfig -p`, no dlopen of CUDA).
//
// The loader's order (ld.so(8), "Rpath token expansion" and the search
// order): LD_LIBRARY_PATH, then /etc/ld.so.cache, then the default
// directories. Each library found there is recorded with found_via naming
// the step, and `resolved` marks the file dlopen(soname) would load. Also
// recorded, never resolved: libraries in ld.so.conf directories missing from
// a stale cache ("ld.so.conf": run ldconfig), CUDA toolkits under
// /usr/local/cuda* ("cuda_toolkit") and NVIDIA's pip wheels in every Python
// environment ("pip_wheel:<prefix>": TensorFlow >= 2.14 finds these through
// its own RPATH, see data/reference/tf_dso_names.yaml).
#include <fnmatch.h>

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/text.h"
#include "core/version.h"
#include "probe/parse/dist_info.h"
#include "probe/parse/ld_so_cache.h"
#include "probe/probe.h"
#include "probe/probes.h"
#include "probe/python_envs.h"

namespace tfrig::probe {

namespace {

// lib<base>.so -> family. The CUDA libraries TensorFlow dlopens (cudart,
// cublas, cublasLt, cufft, curand, cusolver, cusparse, cudnn, nccl, cupti,
// nvinfer: tf_dso_names.yaml), libcuda and NVML from the driver, and nvrtc /
// nvJitLink that XLA uses. cuDNN 9 splits into libcudnn_*.so.9 and cuDNN 8
// into libcudnn_{ops,cnn,adv}_{infer,train}.so.8: each is its own family.
std::optional<std::string> family_of(std::string_view base) {
  static const std::set<std::string, std::less<>> kFamilies = {"cudart",   "cublas",    "cublasLt", "cufft", "curand",
                                                               "cusolver", "cusparse",  "cudnn",    "nccl",  "cupti",
                                                               "nvrtc",    "nvJitLink", "nvinfer"};
  if (base == "cuda") return "libcuda";
  if (base == "nvidia-ml") return "nvml";
  if (kFamilies.count(base) > 0) return std::string(base);
  if (core::starts_with(base, "cudnn_")) return std::string(base);
  return std::nullopt;
}

int family_rank(std::string_view family) {
  static constexpr std::string_view kOrder[] = {"libcuda", "nvml",   "cudart",   "cublas",   "cublasLt",
                                                "cufft",   "curand", "cusolver", "cusparse", "cudnn"};
  for (size_t i = 0; i < std::size(kOrder); ++i) {
    if (family == kOrder[i]) return static_cast<int>(i);
  }
  if (core::starts_with(family, "cudnn_")) return 10;
  if (family == "nccl") return 11;
  if (family == "cupti") return 12;
  if (family == "nvrtc") return 13;
  if (family == "nvJitLink") return 14;
  return 15;
}

// The pip distribution that ships a family (NVIDIA's wheel names, with or
// without the -cu11/-cu12 suffix CUDA 13 wheels dropped).
std::optional<std::string_view> dist_prefix_of(std::string_view family) {
  if (family == "cudart") return "nvidia-cuda-runtime";
  if (family == "cublas" || family == "cublasLt") return "nvidia-cublas";
  if (family == "cufft") return "nvidia-cufft";
  if (family == "curand") return "nvidia-curand";
  if (family == "cusolver") return "nvidia-cusolver";
  if (family == "cusparse") return "nvidia-cusparse";
  if (family == "nccl") return "nvidia-nccl";
  if (family == "cupti") return "nvidia-cuda-cupti";
  if (family == "nvrtc") return "nvidia-cuda-nvrtc";
  if (family == "nvJitLink") return "nvidia-nvjitlink";
  if (family == "cudnn" || core::starts_with(family, "cudnn_")) return "nvidia-cudnn";
  return std::nullopt;
}

struct LibName {
  std::string base;     // "cudart"
  std::string version;  // "12.2.140", "12", "" for the bare .so
};

// "libcudart.so.12.2.140" -> {cudart, 12.2.140}; nullopt if not lib*.so*.
std::optional<LibName> split_lib_name(std::string_view name) {
  if (!core::starts_with(name, "lib")) return std::nullopt;
  const size_t so = name.find(".so");
  if (so == std::string_view::npos || so <= 3) return std::nullopt;
  std::string_view rest = name.substr(so + 3);
  if (!rest.empty() && rest.front() != '.') return std::nullopt;
  if (!rest.empty()) rest.remove_prefix(1);
  for (char c : rest) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.')) return std::nullopt;
  }
  return LibName{std::string(name.substr(3, so - 3)), std::string(rest)};
}

size_t version_parts(const std::string& v) {
  return v.empty() ? 0 : static_cast<size_t>(std::count(v.begin(), v.end(), '.')) + 1;
}

std::string dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Multiarch triplets Debian and Ubuntu use (wiki.debian.org/Multiarch/Tuples).
constexpr const char* kTriplets[] = {"x86_64-linux-gnu", "aarch64-linux-gnu", "powerpc64le-linux-gnu"};

// cudnn_version.h: "#define CUDNN_MAJOR 9" and friends (cuDNN >= 8; cuDNN 7
// kept them in cudnn.h).
std::optional<std::string> cudnn_header_version(std::string_view text) {
  std::optional<std::string> major, minor, patch;
  for (auto line : core::split_lines(text)) {
    auto f = core::split_ws(line);
    if (f.size() < 3 || f[0] != "#define") continue;
    if (f[1] == "CUDNN_MAJOR") major = std::string(f[2]);
    if (f[1] == "CUDNN_MINOR") minor = std::string(f[2]);
    if (f[1] == "CUDNN_PATCHLEVEL") patch = std::string(f[2]);
  }
  if (!major || !minor || !core::parse_u64(*major) || !core::parse_u64(*minor)) return std::nullopt;
  return *major + "." + *minor + (patch && core::parse_u64(*patch) ? "." + *patch : "");
}

class Scanner {
 public:
  Scanner(const core::SysRoot& root, ProblemLog& problems) : root_(root), problems_(problems) {}

  // One library file seen at `path` under the name `soname`.
  void add(const std::string& family, const std::string& soname, const std::string& path, const std::string& found_via,
           bool loader_searched) {
    const std::string real = resolve(path);
    if (!root_.exists(real)) return;  // dangling cache entry or symlink
    if (!seen_.insert(real + "\n" + soname).second) return;
    inventory::CudaLibrary lib;
    lib.family = family;
    lib.soname = soname;
    lib.path = path;
    lib.found_via = found_via;
    if (loader_searched) {
      lib.resolved = resolved_.insert(soname).second;
    } else {
      lib.resolved = false;
    }
    set_version(lib, real);
    libs_.push_back(std::move(lib));
  }

  // Every CUDA soname in a directory. ldconfig links each soname to the
  // real file (libcudart.so.12 -> libcudart.so.12.2.140), so a versioned
  // name that another versioned name of the same library links to is the
  // real file, not a soname; a lone file (pip wheels ship libcudart.so.12
  // itself) is its own soname.
  void scan_dir(const std::string& dir, const std::string& found_via, bool loader_searched) {
    const std::string real_dir = resolve_dir(dir);
    // Each directory once, under the first (strongest) way it was reached:
    // /lib/x86_64-linux-gnu is /usr/lib/x86_64-linux-gnu on merged-/usr
    // systems, and ld.so.conf lists the default dirs again.
    if (!scanned_.insert(real_dir).second) return;
    // Listed through its resolved path: an absolute symlink in a captured
    // tree must point into the tree, not at this machine.
    auto names = root_.list_dir(real_dir);
    if (!names) {
      if (names.error().code != core::ErrorCode::kNotFound &&
          names.error().code != core::ErrorCode::kPermissionDenied) {
        problems_.add(names.error());
      }
      return;
    }
    if (loader_searched) ++loader_dirs_;
    std::vector<std::pair<std::string, std::string>> candidates;  // name, base
    std::set<std::string> link_targets;
    for (const auto& n : *names) {
      auto ln = split_lib_name(n);
      if (!ln || ln->version.empty() || !family_of(ln->base)) continue;
      candidates.emplace_back(n, ln->base);
      if (auto target = root_.read_link(real_dir + "/" + n)) {
        auto tn = split_lib_name(basename(*target));
        if (tn && tn->base == ln->base && basename(*target) != n) link_targets.insert(basename(*target));
      }
    }
    for (const auto& [name, base] : candidates) {
      if (link_targets.count(name) > 0) continue;
      add(*family_of(base), name, dir == "/" ? "/" + name : dir + "/" + name, found_via, loader_searched);
    }
  }

  std::vector<inventory::CudaLibrary> take() { return std::move(libs_); }
  // Directories of the loader's own search that exist (LD_LIBRARY_PATH, the defaults).
  int loader_dirs() const { return loader_dirs_; }

 private:
  // Symlinks resolved inside the root, with directories cached: this VM
  // answers a readlink in ~50 us, and a path has five or six components.
  const std::string& resolve_dir(const std::string& dir) {
    auto it = dir_cache_.find(dir);
    if (it != dir_cache_.end()) return it->second;
    return dir_cache_.emplace(dir, resolve_in_root(root_, dir)).first->second;
  }
  std::string resolve(const std::string& path) {
    const std::string& dir = resolve_dir(dirname(path));
    const std::string joined = (dir == "/" ? "" : dir) + "/" + basename(path);
    if (!root_.read_link(joined)) return joined;  // not a link: done
    return resolve_in_root(root_, joined);
  }

  void set_version(inventory::CudaLibrary& lib, const std::string& real) {
    auto soname = split_lib_name(lib.soname);
    auto file = split_lib_name(basename(real));
    // 1. The real file's name: libcudart.so.12.2.140, libcuda.so.535.104.05.
    if (file && version_parts(file->version) >= 3) {
      lib.version = file->version;
      lib.version_source = "file_name";
      return;
    }
    // 2. The package that installed it: pip wheels, and toolkits installed
    //    from wheels (a dist-info directory beside lib/).
    if (auto pkg = package_version(lib.family, dirname(real))) {
      lib.version = pkg->second;
      lib.version_source = "package:" + pkg->first + "-" + pkg->second;
      return;
    }
    // 3. cuDNN's header next to the library.
    if (lib.family == "cudnn" || core::starts_with(lib.family, "cudnn_")) {
      if (auto v = cudnn_version(dirname(real)); v && soname && core::starts_with(*v, soname->version + ".")) {
        lib.version = *v;
        lib.version_source = "cudnn_version.h";
        return;
      }
    }
    // 4. Only the soname's major version.
    if (soname && !soname->version.empty()) {
      lib.version = soname->version;
      lib.version_source = "soname";
    }
  }

  std::optional<std::pair<std::string, std::string>> package_version(const std::string& family,
                                                                     const std::string& libdir) {
    auto prefix = dist_prefix_of(family);
    if (!prefix) return std::nullopt;
    std::vector<std::string> dist_dirs;
    dist_dirs.push_back(dirname(libdir) + "/dist-info");
    // <site>/nvidia/<pkg>/lib: the dist-info is in <site>.
    if (const size_t at = libdir.rfind("/nvidia/"); at != std::string::npos) dist_dirs.push_back(libdir.substr(0, at));
    for (const auto& d : dist_dirs) {
      for (const auto& [name, version] : dist_infos(d)) {
        if (name == *prefix || core::starts_with(name, std::string(*prefix) + "-cu"))
          return std::make_pair(name, version);
      }
    }
    return std::nullopt;
  }

  const std::vector<std::pair<std::string, std::string>>& dist_infos(const std::string& dir) {
    auto it = dist_cache_.find(dir);
    if (it != dist_cache_.end()) return it->second;
    std::vector<std::pair<std::string, std::string>> found;
    if (auto names = root_.list_dir(dir)) {
      for (const auto& n : *names) {
        if (auto s = parse::split_dist_info_dir(n); s && core::starts_with(s->first, "nvidia-")) found.push_back(*s);
      }
    }
    return dist_cache_.emplace(dir, std::move(found)).first->second;
  }

  std::optional<std::string> cudnn_version(const std::string& libdir) {
    std::vector<std::string> headers = {dirname(libdir) + "/include/cudnn_version.h", "/usr/include/cudnn_version.h"};
    for (const char* t : kTriplets) headers.push_back(std::string("/usr/include/") + t + "/cudnn_version.h");
    for (const auto& h : headers) {
      auto text = root_.read_text(h, 1 << 20);
      if (!text) continue;
      if (auto v = cudnn_header_version(*text)) return v;
    }
    return std::nullopt;
  }

  const core::SysRoot& root_;
  ProblemLog& problems_;
  std::set<std::string> seen_;
  std::set<std::string> scanned_;
  int loader_dirs_ = 0;
  std::set<std::string> resolved_;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> dist_cache_;
  std::map<std::string, std::string> dir_cache_;
  std::vector<inventory::CudaLibrary> libs_;
};

// ld.so.conf and its include chain, in the order ldconfig reads them.
void conf_dirs(const core::SysRoot& root, const std::string& file, int depth, std::vector<std::string>& out,
               ProblemLog& problems) {
  // glibc's ldconfig has no depth limit but refuses nothing; a loop here
  // would never end, so stop at a depth no real configuration reaches.
  constexpr int kMaxDepth = 8;
  if (depth > kMaxDepth) {
    problems.add(core::Message(N_("{}: include chain deeper than 8, stopped"), root.full_path(file)));
    return;
  }
  auto text = root.read_text(file, 1 << 20);
  if (!text) {
    if (text.error().code != core::ErrorCode::kNotFound) problems.add(text.error());
    return;
  }
  for (const auto& line : parse::parse_ld_so_conf(*text)) {
    if (!line.directory.empty()) {
      out.push_back(line.directory);
      continue;
    }
    std::string glob = line.include_glob;
    if (glob.front() != '/') glob = dirname(file) + "/" + glob;
    const std::string dir = dirname(glob);
    const std::string pattern = basename(glob);
    auto names = root.list_dir(dir);
    if (!names) continue;
    for (const auto& n : *names) {  // list_dir is sorted, like glob(3)
      if (::fnmatch(pattern.c_str(), n.c_str(), FNM_PERIOD) == 0)
        conf_dirs(root, dir + "/" + n, depth + 1, out, problems);
    }
  }
}

class CudaLibsProbe final : public Probe {
 public:
  std::string_view id() const override { return "cuda_libs"; }
  // The loader's search, in its order: LD_LIBRARY_PATH, the loader cache,
  // the default folders, ld.so.conf's folders; then where CUDA is installed
  // beside them: toolkits under /usr/local and NVIDIA's pip wheels.
  ProbeStatus run(const Context& ctx, inventory::Inventory& out) const override {
    const core::SysRoot& root = ctx.root;
    ProblemLog problems;
    Scanner scan(root, problems);

    // 1. LD_LIBRARY_PATH (an empty element means the current directory; skipped).
    if (auto llp = root.env("LD_LIBRARY_PATH")) {
      for (auto dir : core::split(*llp, ':')) {
        if (!dir.empty() && dir.front() == '/') scan.scan_dir(std::string(dir), "LD_LIBRARY_PATH", true);
      }
    }
    // 2. The loader cache.
    const bool have_cache = scan_loader_cache(root, scan, problems);
    // 3. The default directories (glibc's system dirs; Debian adds the
    //    multiarch ones through ld.so.conf.d, but the loader trusts them too).
    std::vector<std::string> defaults;
    for (const char* t : kTriplets) {
      defaults.push_back(std::string("/lib/") + t);
      defaults.push_back(std::string("/usr/lib/") + t);
    }
    for (const char* d : {"/lib64", "/usr/lib64", "/lib", "/usr/lib"}) defaults.emplace_back(d);
    for (const auto& d : defaults) scan.scan_dir(d, "default_dir", true);
    // 4. ld.so.conf directories: libraries there that the cache lacks.
    std::vector<std::string> confs;
    conf_dirs(root, "/etc/ld.so.conf", 0, confs, problems);
    for (const auto& d : confs) scan.scan_dir(d, "ld.so.conf", false);
    // 5. CUDA toolkits.
    scan_toolkits(root, scan, out.cuda);
    // 6. NVIDIA's pip wheels: <site-packages>/nvidia/<package>/lib.
    for (const auto& site : find_python_sites(root, ctx.python_prefixes)) {
      const std::string nv = site.site_packages + "/nvidia";
      auto pkgs = root.list_dir(nv);
      if (!pkgs) continue;
      for (const auto& p : *pkgs) scan.scan_dir(nv + "/" + p + "/lib", "pip_wheel:" + site.prefix, false);
    }

    out.cuda.libraries = scan.take();
    // Report order: the driver's libraries, then the runtime and math
    // libraries, cuDNN and its parts, the rest; loader order within a family.
    std::stable_sort(out.cuda.libraries.begin(), out.cuda.libraries.end(),
                     [](const inventory::CudaLibrary& a, const inventory::CudaLibrary& b) {
                       return family_rank(a.family) < family_rank(b.family);
                     });

    ProbeStatus status;
    if (!have_cache)
      problems.add(
          core::Message(N_("{}: not readable; the loader cache was not consulted"), root.full_path("etc/ld.so.cache")));
    problems.into(status);
    status.state = out.cuda.libraries.empty() && out.cuda.toolkits.empty() ? State::kAbsent : State::kOk;
    // A captured tree without /etc/ld.so.cache and library folders (only /proc
    // and /sys copied): nothing says the libraries are missing, so the rules
    // must not judge them.
    if (!have_cache && scan.loader_dirs() == 0 && out.cuda.libraries.empty() && out.cuda.toolkits.empty()) {
      status.state = State::kSkipped;
      status.set_detail(
          core::Message(N_("no loader cache and no library folders under {}: the CUDA libraries were not examined"),
                        root.full_path("/")));
      return status;
    }
    status.set_detail(
        core::Message::plural(NP_("{0} CUDA libraries, {1} toolkit: {2}", "{0} CUDA libraries, {1} toolkits: {2}"),
                              out.cuda.toolkits.size(), out.cuda.libraries.size(), out.cuda.toolkits.size(),
                              core::MessageArg::list(library_summary(out.cuda.libraries))));
    return status;
  }

  void merge(inventory::Inventory& into, inventory::Inventory&& from) const override {
    into.cuda = std::move(from.cuda);
  }

 private:
  // The loader cache's 64-bit libraries of the families tfrig knows; false
  // when the cache could not be read.
  static bool scan_loader_cache(const core::SysRoot& root, Scanner& scan, ProblemLog& problems) {
    auto bytes = root.read_text("etc/ld.so.cache", 64u << 20);
    if (!bytes) {
      if (bytes.error().code != core::ErrorCode::kNotFound) problems.add(bytes.error());
      return false;
    }
    auto cache = parse::parse_ld_so_cache(*bytes);
    if (!cache) {
      problems.add(root.full_path("etc/ld.so.cache"), cache.error());
      return false;
    }
    for (const auto& e : cache->entries) {
      const std::string abi = parse::ld_cache_abi(e.flags);
      // Only the 64-bit ABI libraries a 64-bit TensorFlow can load.
      if (abi == "32-bit" || abi == "x32" || abi == "armhf" || abi == "armsf" || abi == "mips64-n32") continue;
      auto ln = split_lib_name(e.soname);
      if (!ln || ln->version.empty()) continue;
      if (auto fam = family_of(ln->base)) scan.add(*fam, e.soname, e.path, "ld.so.cache", true);
    }
    return true;
  }

  // The CUDA toolkits under /usr/local (cuda, cuda-X.Y) and their library folders.
  static void scan_toolkits(const core::SysRoot& root, Scanner& scan, inventory::CudaInfo& cuda) {
    if (auto names = root.list_dir("usr/local")) {
      for (const auto& n : *names) {
        if (n != "cuda" && !core::starts_with(n, "cuda-")) continue;
        const std::string tk = "/usr/local/" + n;
        if (!root.is_dir(resolve_in_root(root, tk))) continue;
        cuda.toolkits.push_back(toolkit(root, tk));
        scan.scan_dir(tk + "/lib64", "cuda_toolkit", false);
        scan.scan_dir(tk + "/lib", "cuda_toolkit", false);
        // CUPTI ships outside lib64 in the runfile and .deb toolkits.
        scan.scan_dir(tk + "/extras/CUPTI/lib64", "cuda_toolkit", false);
        if (auto targets = root.list_dir(resolve_in_root(root, tk + "/targets"))) {
          for (const auto& t : *targets) scan.scan_dir(tk + "/targets/" + t + "/lib", "cuda_toolkit", false);
        }
      }
    }
  }

  // One pick per family the summary names: a library the loader resolves first.
  static std::vector<core::MessageArg> library_summary(const std::vector<inventory::CudaLibrary>& libraries) {
    std::vector<core::MessageArg> summary;
    for (const char* fam : {"libcuda", "cudart", "cublas", "cudnn", "nccl"}) {
      const inventory::CudaLibrary* pick = nullptr;
      for (const auto& l : libraries) {
        if (l.family == fam && (pick == nullptr || (l.resolved == true && pick->resolved != true))) pick = &l;
      }
      if (pick == nullptr)
        // TRANSLATORS: a library family the loader does not find ("libcuda none").
        summary.emplace_back(core::Message(N_("{} none"), fam));
      else
        summary.emplace_back(std::string(fam) + " " + pick->version.value_or("?") +
                             (pick->resolved == true ? "" : " (" + pick->found_via + ")"));
    }
    return summary;
  }

  static inventory::CudaToolkit toolkit(const core::SysRoot& root, const std::string& tk) {
    inventory::CudaToolkit t;
    t.path = tk;
    if (auto link = root.read_link(tk)) t.link_target = *link;
    const std::string real = resolve_in_root(root, tk);
    // version.json (CUDA >= 11.1): {"cuda": {"name": "CUDA SDK", "version": "12.2.20230823"}, ...}
    if (auto text = root.read_text(real + "/version.json", 1 << 20)) {
      auto j = nlohmann::json::parse(*text, nullptr, false);
      if (!j.is_discarded() && j.is_object() && j.contains("cuda") && j["cuda"].is_object() &&
          j["cuda"].contains("version") && j["cuda"]["version"].is_string()) {
        t.version = j["cuda"]["version"].get<std::string>();
        t.version_source = "version.json";
        return t;
      }
    }
    // version.txt (CUDA <= 11.0): "CUDA Version 10.2.89"
    if (auto text = root.read_text(real + "/version.txt", 1 << 16)) {
      auto words = core::split_ws(core::trim(*text));
      if (words.size() >= 3 && words[0] == "CUDA" && words[1] == "Version" && core::Version::parse(words[2])) {
        t.version = std::string(words[2]);
        t.version_source = "version.txt";
        return t;
      }
    }
    // Toolkits assembled from NVIDIA's wheels keep their dist-info
    // (this machine's /usr/local/cuda-13.0): the runtime's version.
    if (auto names = root.list_dir(real + "/dist-info")) {
      for (const auto& n : *names) {
        auto s = parse::split_dist_info_dir(n);
        if (s && (s->first == "nvidia-cuda-runtime" || core::starts_with(s->first, "nvidia-cuda-runtime-cu"))) {
          t.version = s->second;
          t.version_source = "dist-info";
          return t;
        }
      }
    }
    // Last: the directory name, "cuda-12.2".
    const std::string leaf = basename(tk);
    if (core::starts_with(leaf, "cuda-") && core::Version::parse(leaf.substr(5))) {
      t.version = leaf.substr(5);
      t.version_source = "directory_name";
    } else if (t.link_target) {
      const std::string target = basename(*t.link_target);
      if (core::starts_with(target, "cuda-") && core::Version::parse(target.substr(5))) {
        t.version = target.substr(5);
        t.version_source = "directory_name";
      }
    }
    return t;
  }
};

}  // namespace

std::shared_ptr<const Probe> make_cuda_libs_probe() { return std::make_shared<CudaLibsProbe>(); }

}  // namespace tfrig::probe
