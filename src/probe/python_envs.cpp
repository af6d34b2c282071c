#include "probe/python_envs.h"

#include <algorithm>
#include <set>

#include "core/text.h"
#include "core/version.h"

namespace tfrig::probe {

namespace {

std::string join(const std::string& a, const std::string& b) {
  if (a.empty() || a == "/") return "/" + b;
  return a + "/" + b;
}

// "python3.11" -> "3.11"
std::optional<std::string> python_dir_version(const std::string& name) {
  if (!core::starts_with(name, "python")) return std::nullopt;
  std::string v = name.substr(6);
  if (v.empty() || !core::Version::parse(v)) return std::nullopt;
  if (v.find('.') == std::string::npos) return std::nullopt;  // "python3" (Debian's shared dir)
  return v;
}

class Finder {
 public:
  Finder(const core::SysRoot& root) : root_(root) {}

  // prefix/lib/pythonX.Y/{site,dist}-packages
  void add_prefix(const std::string& prefix, const std::string& kind) {
    auto libs = root_.list_dir(join(prefix, "lib"));
    if (!libs) return;
    std::optional<std::string> pyvenv_version = venv_version(prefix);
    for (const auto& name : *libs) {
      auto version = python_dir_version(name);
      if (!version) continue;
      for (const char* leaf : {"site-packages", "dist-packages"}) {
        const std::string site = join(join(prefix, "lib"), name + "/" + leaf);
        if (root_.is_dir(site)) add({prefix, kind, pyvenv_version ? pyvenv_version : version, site});
      }
    }
  }

  void add(PythonSite site) {
    const std::string key = resolve_in_root(root_, site.site_packages);
    if (!seen_.insert(key).second) return;
    sites_.push_back(std::move(site));
  }

  // pyvenv.cfg (PEP 405): "version = 3.11.4" (venv) or "version_info = 3.11.4.final.0" (virtualenv).
  std::optional<std::string> venv_version(const std::string& prefix) {
    auto text = root_.read_text(join(prefix, "pyvenv.cfg"), 1 << 16);
    if (!text) return std::nullopt;
    for (auto line : core::split_lines(*text)) {
      const size_t eq = line.find('=');
      if (eq == std::string_view::npos) continue;
      const auto key = core::trim(line.substr(0, eq));
      if (key != "version" && key != "version_info") continue;
      auto v = core::Version::parse(core::trim(line.substr(eq + 1)));
      if (v) return v->truncated(2);
    }
    return std::nullopt;
  }

  void add_conda_root(const std::string& prefix, const std::string& kind) {
    if (!root_.is_dir(prefix)) return;
    add_prefix(prefix, kind);
    if (auto envs = root_.list_dir(join(prefix, "envs"))) {
      for (const auto& e : *envs) add_prefix(join(prefix, "envs/" + e), "conda");
    }
  }

  std::vector<PythonSite> take() { return std::move(sites_); }

 private:
  const core::SysRoot& root_;
  std::set<std::string> seen_;
  std::vector<PythonSite> sites_;
};

}  // namespace

std::string resolve_in_root(const core::SysRoot& root, const std::string& path) {
  // Linux gives up after 40 links (path_resolution(7)); so do we.
  constexpr int kMaxLinks = 40;
  std::vector<std::string> todo;
  for (auto part : core::split(path, '/')) {
    if (!part.empty() && part != ".") todo.emplace_back(part);
  }
  std::reverse(todo.begin(), todo.end());
  std::vector<std::string> done;
  int links = 0;
  while (!todo.empty()) {
    std::string part = std::move(todo.back());
    todo.pop_back();
    if (part == "..") {
      if (!done.empty()) done.pop_back();
      continue;
    }
    std::string candidate = "/";
    for (const auto& d : done) candidate += d + "/";
    candidate += part;
    auto target = root.read_link(candidate);
    if (!target) {
      done.push_back(std::move(part));
      continue;
    }
    if (++links > kMaxLinks) return path;
    if (!target->empty() && target->front() == '/') done.clear();
    auto parts = core::split(*target, '/');
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
      if (!it->empty() && *it != ".") todo.emplace_back(*it);
    }
  }
  std::string out;
  for (const auto& d : done) out += "/" + d;
  return out.empty() ? "/" : out;
}

std::vector<PythonSite> find_python_sites(const core::SysRoot& root, const std::vector<std::string>& given_prefixes) {
  Finder f(root);
  for (const auto& p : given_prefixes) f.add_prefix(p, "given");
  if (auto venv = root.env("VIRTUAL_ENV"); venv && !venv->empty()) f.add_prefix(*venv, "venv");
  if (auto conda = root.env("CONDA_PREFIX"); conda && !conda->empty()) f.add_conda_root(*conda, "conda");

  // System Python: Debian's shared dist-packages takes the newest python3.X
  // under /usr/lib as its version.
  std::optional<std::string> newest;
  if (auto libs = root.list_dir("usr/lib")) {
    std::optional<core::Version> best;
    for (const auto& name : *libs) {
      auto v = python_dir_version(name);
      if (!v) continue;
      auto parsed = core::Version::parse(*v);
      if (parsed && (!best || *best < *parsed)) {
        best = parsed;
        newest = v;
      }
    }
  }
  if (root.is_dir("usr/lib/python3/dist-packages")) {
    f.add({"/usr", "system", newest, "/usr/lib/python3/dist-packages"});
  }
  f.add_prefix("/usr", "system");
  f.add_prefix("/usr/local", "system");

  // User installs: this user's HOME; on a captured tree every home found.
  std::vector<std::string> homes;
  if (auto home = root.env("HOME"); home && !home->empty()) homes.push_back(*home);
  if (!root.is_live()) {
    if (auto users = root.list_dir("home")) {
      for (const auto& u : *users) homes.push_back("/home/" + u);
    }
    homes.emplace_back("/root");
  }
  for (const auto& h : homes) f.add_prefix(join(h, ".local"), "user");

  // Conda installs in their usual places.
  for (const char* p : {"/opt/conda", "/opt/miniconda3", "/opt/anaconda3", "/opt/miniforge3"})
    f.add_conda_root(p, "conda");
  for (const auto& h : homes) {
    for (const char* d : {"miniconda3", "anaconda3", "miniforge3", "mambaforge"}) f.add_conda_root(join(h, d), "conda");
  }
  return f.take();
}

}  // namespace tfrig::probe
