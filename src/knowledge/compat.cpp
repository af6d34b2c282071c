#include "knowledge/compat.h"

#include <fmt/format.h>

#include "core/table.h"
#include "core/text.h"

namespace tfrig::knowledge {

namespace {

using core::Version;

const Version& v214() {
  static const Version v = *Version::parse("2.14");
  return v;
}

std::string uncertain(bool u) { return u ? " (uncertain fact)" : ""; }

struct GpuInfo {
  std::string name;
  Version cc;
  bool uncertain = false;
  std::string architecture;
};

std::optional<GpuInfo> resolve_gpu(const Knowledge& k, const std::string& text) {
  if (core::starts_with(text, "cc:") || core::starts_with(text, "sm_")) {
    std::string cc = text.substr(3);
    if (core::starts_with(text, "sm_") && cc.size() >= 2) cc = cc.substr(0, cc.size() - 1) + "." + cc.substr(cc.size() - 1);
    auto v = Version::parse(cc);
    if (!v) return std::nullopt;
    return GpuInfo{"compute capability " + v->text(), *v, false, ""};
  }
  auto m = k.find_gpu(text);
  if (!m || !m->compute_capability) return std::nullopt;
  auto v = Version::parse(*m->compute_capability);
  if (!v) return std::nullopt;
  return GpuInfo{m->name, *v, m->uncertain, m->architecture};
}

// The newest known release that passes every given constraint.
struct Constraints {
  std::optional<Version> driver;
  std::optional<GpuInfo> gpu;
  std::optional<Version> python;
  bool windows_native = false;
};

bool release_ok(const Knowledge& k, const TfBuild& b, const Constraints& c, bool allow_jit) {
  auto tf = Version::parse(b.tf);
  if (!tf) return false;
  if (c.windows_native && *tf > *Version::parse(k.text("windows_native_last_gpu_tf", "2.10"))) {
    // Past 2.10 the native Windows build has no GPU at all.
    if (!(tf->major() == 2 && tf->minor() <= 10)) return false;
  }
  if (c.python && !b.supports_python(*c.python)) return false;
  if (c.driver) {
    auto cuda = Version::parse(b.cuda);
    auto min = cuda ? k.min_driver_for_cuda(*cuda) : std::nullopt;
    if (!min || !min->min_linux) return false;
    if (*c.driver < *Version::parse(*min->min_linux)) return false;
  }
  if (c.gpu && c.driver) {
    // An architecture the driver branch dropped (Kepler after R470) runs nothing.
    const auto* arch = k.architecture_support(static_cast<int>(c.gpu->cc.major()));
    if (arch && arch->last_driver_branch && c.driver->major() > static_cast<uint64_t>(*arch->last_driver_branch)) return false;
  }
  if (c.gpu) {
    auto s = k.kernel_support(*tf, c.gpu->cc).support;
    if (!(s == KernelSupport::kSass || (allow_jit && s == KernelSupport::kPtxJit))) return false;
  }
  return true;
}

std::string install_line(const TfBuild& b) {
  auto tf = Version::parse(b.tf);
  if (tf && *tf >= v214()) {
    return fmt::format("`pip install 'tensorflow[and-cuda]=={}'` (brings CUDA {} and cuDNN {} as pip wheels)", tf->truncated(2) + ".*", b.cuda, b.cudnn);
  }
  return fmt::format("install CUDA {} and cuDNN {} on the system, then `pip install {}=={}`", b.cuda, b.cudnn,
                     b.package == "tensorflow_gpu" ? "tensorflow-gpu" : "tensorflow", b.tf);
}

}  // namespace

const CompatCheck* CompatAnswer::find(const std::string& part) const {
  for (const auto& c : checks) {
    if (c.part == part) return &c;
  }
  return nullptr;
}

namespace {

// What the query pins down, parsed once: the later parts and the search for
// the nearest working combination all judge against the same values.
Constraints constraints_of(const Knowledge& k, const CompatQuery& q) {
  Constraints cons;
  if (q.driver) cons.driver = Version::parse(*q.driver);
  if (q.gpu) cons.gpu = resolve_gpu(k, *q.gpu);
  if (q.python) cons.python = Version::parse(*q.python);
  cons.windows_native = q.os && *q.os == "windows";
  return cons;
}

// The release every other part is judged against: the one asked for, or the
// newest known when none was given.
struct TfChoice {
  const TfBuild* build = nullptr;  // null: not in the tested-build table
  std::optional<Version> tf;       // null: not given and no table, or not a version
  std::optional<CompatCheck> check;
};

TfChoice choose_tf(const Knowledge& k, const CompatQuery& q) {
  TfChoice c;
  if (q.tf) {
    c.tf = Version::parse(*q.tf);
    if (!c.tf) {
      c.check = CompatCheck{"tf", "no", "'" + *q.tf + "' is not a version"};
      return c;
    }
    c.build = k.find_tf_build(*c.tf);
    if (c.build) {
      c.check = CompatCheck{"tf", "yes",
                            fmt::format("TensorFlow {} was built and tested with CUDA {}, cuDNN {}, Python {}-{}", c.build->tf,
                                        c.build->cuda, c.build->cudnn, c.build->python_min(), c.build->python_max())};
    } else {
      c.check = CompatCheck{"tf", "no",
                            fmt::format("TensorFlow {} is not in the tested-build table (newest known: {})", c.tf->text(),
                                        k.newest_tf() ? k.newest_tf()->tf : "none")};
    }
  } else if (k.newest_tf()) {
    c.build = k.newest_tf();
    c.tf = Version::parse(c.build->tf);
    c.check = CompatCheck{"tf", "yes",
                          fmt::format("no --tf given: judging the newest known release, {} (CUDA {}, cuDNN {})", c.build->tf,
                                      c.build->cuda, c.build->cudnn)};
  }
  return c;
}

// Native Windows lost the GPU after TF 2.10; WSL2 and Linux keep it.
std::optional<CompatCheck> judge_os(const CompatQuery& q, const std::optional<Version>& tf) {
  if (!q.os) return std::nullopt;
  const std::string& os = *q.os;
  if (os == "windows") {
    if (tf && (tf->major() > 2 || (tf->major() == 2 && tf->minor() > 10))) {
      return CompatCheck{"os", "no", fmt::format("TensorFlow 2.10 was the last release with GPU support on native Windows; {} "
                                                 "needs WSL2 for the GPU",
                                                 tf->text())};
    }
    return CompatCheck{"os", "yes", "TensorFlow <= 2.10 supports the GPU on native Windows (with the CUDA/cuDNN of its table)"};
  }
  if (os == "wsl") {
    return CompatCheck{"os", "caveats", "WSL2 works: the GPU comes from the Windows driver (>= 528.33 for CUDA 12); do not install a "
                                        "Linux driver inside WSL"};
  }
  if (os == "macos") return CompatCheck{"os", "no", "no CUDA on macOS: TensorFlow has no NVIDIA GPU support there"};
  return CompatCheck{"os", "yes", "Linux is the platform the tested builds are for"};
}

// A release has wheels for a range of Python minors only.
std::optional<CompatCheck> judge_python(const CompatQuery& q, const TfBuild* build, const Constraints& cons) {
  if (!q.python) return std::nullopt;
  if (!cons.python) return CompatCheck{"python", "no", "'" + *q.python + "' is not a Python version"};
  const Version& py = *cons.python;
  if (!build) return CompatCheck{"python", "caveats", "unknown TensorFlow release: no Python range to compare"};
  if (build->supports_python(py)) {
    return CompatCheck{"python", "yes", fmt::format("Python {} is in {}-{}", py.truncated(2), build->python_min(), build->python_max())};
  }
  return CompatCheck{"python", "no", fmt::format("TensorFlow {} has wheels for Python {}-{} only, not {}", build->tf,
                                                 build->python_min(), build->python_max(), py.truncated(2))};
}

// Whether the release ships kernels (SASS, or PTX to JIT) for the GPU's
// compute capability.
std::optional<CompatCheck> judge_gpu(const Knowledge& k, const CompatQuery& q, const std::optional<Version>& tf,
                                     const Constraints& cons) {
  if (!q.gpu) return std::nullopt;
  if (!cons.gpu) {
    return CompatCheck{"gpu", "caveats", "'" + *q.gpu + "' is not in the GPU catalog: pass its compute capability as --gpu cc:X.Y"};
  }
  const GpuInfo& g = *cons.gpu;
  if (!tf) return CompatCheck{"gpu", "caveats", "unknown TensorFlow release"};
  auto v = k.kernel_support(*tf, g.cc);
  const std::string who = fmt::format("{} (compute capability {}{})", g.name, g.cc.text(), uncertain(g.uncertain));
  switch (v.support) {
    case KernelSupport::kSass:
      return CompatCheck{"gpu", v.uncertain || g.uncertain ? "caveats" : "yes",
                         fmt::format("{}: native kernels ({}){}", who, v.detail, v.uncertain ? "; the per-release kernel list is inferred" : "")};
    case KernelSupport::kPtxJit:
      return CompatCheck{"gpu", "caveats", fmt::format("{}: {}; the first start JIT-compiles every kernel (30 minutes or more)", who, v.detail)};
    case KernelSupport::kNone:
      return CompatCheck{"gpu", "no", fmt::format("{}: {} (\"no kernel image is available\")", who, v.detail)};
    case KernelSupport::kBelowMinimum: return CompatCheck{"gpu", "no", fmt::format("{}: {}", who, v.detail)};
    case KernelSupport::kUnknown: return CompatCheck{"gpu", "caveats", fmt::format("{}: {}", who, v.detail)};
  }
  return std::nullopt;
}

// The driver against the minimum of the release's CUDA (Windows has its own
// minimums), and against the last branch that supports a Kepler GPU.
std::optional<CompatCheck> judge_driver(const Knowledge& k, const CompatQuery& q, const TfBuild* build, const Constraints& cons) {
  if (!q.driver) return std::nullopt;
  if (!cons.driver) return CompatCheck{"driver", "no", "'" + *q.driver + "' is not a driver version"};
  const Version& d = *cons.driver;
  auto cuda = build ? Version::parse(build->cuda) : std::nullopt;
  auto min = cuda ? k.min_driver_for_cuda(*cuda) : std::nullopt;
  std::string kepler;
  if (cons.gpu && cons.gpu->cc.major() == 3) {
    if (const auto* arch = k.architecture_support(3);
        arch && arch->last_driver_branch && d.major() > static_cast<uint64_t>(*arch->last_driver_branch)) {
      kepler = fmt::format("; driver branch {} no longer supports Kepler GPUs (last: R{}){}", d.major(), *arch->last_driver_branch,
                           uncertain(arch->uncertain));
    }
  }
  if (!min || !min->min_linux) return CompatCheck{"driver", "caveats", "the minimum driver for this release's CUDA is not known"};
  const bool windows = q.os.value_or("linux") == "windows";
  auto minv = *Version::parse(windows && min->min_windows ? *min->min_windows : *min->min_linux);
  if (d < minv) {
    return CompatCheck{"driver", "no", fmt::format("driver {} is older than {} that CUDA {} needs{}", d.text(), minv.text(), build->cuda,
                                                   uncertain(min->uncertain))};
  }
  if (!kepler.empty()) {
    return CompatCheck{"driver", "no", fmt::format("driver {} meets CUDA {}'s minimum {}{}", d.text(), build->cuda, minv.text(), kepler)};
  }
  return CompatCheck{"driver", min->uncertain ? "caveats" : "yes",
                     fmt::format("driver {} >= {} (minimum for CUDA {}{}){}", d.text(), minv.text(), build->cuda,
                                 min->minor_version_compatibility ? " with minor-version compatibility" : "", uncertain(min->uncertain))};
}

// A system CUDA toolkit: the release loads libraries of its own CUDA major;
// from 2.14 the pip wheels bring their own, so a different system copy is a
// caveat (keep it off the loader path), not a failure.
std::optional<CompatCheck> judge_cuda(const Knowledge& k, const CompatQuery& q, const TfChoice& chosen, const Constraints& cons) {
  if (!q.cuda) return std::nullopt;
  const TfBuild* build = chosen.build;
  auto c = Version::parse(*q.cuda);
  auto need = build ? Version::parse(build->cuda) : std::nullopt;
  if (!c) return CompatCheck{"cuda", "no", "'" + *q.cuda + "' is not a CUDA version"};
  if (!need) return CompatCheck{"cuda", "caveats", "unknown TensorFlow release"};
  std::string driver_note;
  bool driver_too_old = false;
  if (cons.driver) {
    if (auto m = k.min_driver_for_cuda(*c); m && m->min_linux && *cons.driver < *Version::parse(*m->min_linux)) {
      driver_too_old = true;
      driver_note = fmt::format("; and driver {} is too old for CUDA {} itself (needs {})", cons.driver->text(), c->truncated(2), *m->min_linux);
    }
  }
  const bool pip = *chosen.tf >= v214();
  if (c->major() == need->major() && (c->major() >= 11 || c->minor() == need->minor())) {
    const bool older = c->minor() < need->minor();
    return CompatCheck{"cuda", driver_too_old ? "no" : (older ? "caveats" : "yes"),
                       fmt::format("system CUDA {} has the major version TF {} was built with ({}){}{}", c->truncated(2), build->tf,
                                   build->cuda, older ? ", but an older minor: some kernels may need newer PTX support" : "", driver_note)};
  }
  if (pip) {
    return CompatCheck{"cuda", driver_too_old ? "no" : "caveats",
                       fmt::format("system CUDA {} is not the CUDA {} TF {} needs; with `pip install tensorflow[and-cuda]` TF uses "
                                   "its own CUDA {} wheels, so keep CUDA {} off LD_LIBRARY_PATH{}",
                                   c->truncated(2), need->major(), build->tf, build->cuda, c->truncated(2), driver_note)};
  }
  return CompatCheck{"cuda", "no", fmt::format("TensorFlow {} loads CUDA {} libraries (libcudart of major {}); system CUDA {} does "
                                               "not provide them{}",
                                               build->tf, build->cuda, need->major(), c->truncated(2), driver_note)};
}

// A system cuDNN: same major and an equal or newer minor, or (2.14+) the
// wheel's own copy, as long as the system one is not found first.
std::optional<CompatCheck> judge_cudnn(const CompatQuery& q, const TfChoice& chosen) {
  if (!q.cudnn) return std::nullopt;
  const TfBuild* build = chosen.build;
  auto c = Version::parse(*q.cudnn);
  auto need = build ? Version::parse(build->cudnn) : std::nullopt;
  if (!c) return CompatCheck{"cudnn", "no", "'" + *q.cudnn + "' is not a cuDNN version"};
  if (!need) return CompatCheck{"cudnn", "caveats", "unknown TensorFlow release"};
  const bool pip = *chosen.tf >= v214();
  const bool ok = c->major() == need->major() && c->minor() >= need->minor();
  if (ok) {
    return CompatCheck{"cudnn", "yes", fmt::format("cuDNN {} has the major of {} and an equal or newer minor", c->truncated(2), build->cudnn)};
  }
  if (pip) {
    return CompatCheck{"cudnn", "caveats",
                       fmt::format("system cuDNN {} does not match the {} TF {} was built with; the [and-cuda] wheel brings cuDNN "
                                   "{}, but a system copy found first gives \"Loaded runtime CuDNN library {} but source was "
                                   "compiled with {}\"",
                                   c->truncated(2), build->cudnn, build->tf, build->cudnn, c->truncated(2), build->cudnn)};
  }
  return CompatCheck{"cudnn", "no", fmt::format("TensorFlow {} needs cuDNN {}.x >= {}; {} gives \"Loaded runtime CuDNN library {} "
                                                "but source was compiled with {}\"",
                                                build->tf, need->major(), build->cudnn, c->truncated(2), c->truncated(2), build->cudnn)};
}

// The worst part decides: one "no" makes the answer no, else one caveat.
std::string overall_verdict(const std::vector<CompatCheck>& checks) {
  std::string verdict = "yes";
  for (const auto& c : checks) {
    if (c.verdict == "no") verdict = "no";
    if (c.verdict == "caveats" && verdict == "yes") verdict = "caveats";
  }
  return verdict;
}

// When the answer is no: the newest release that fits what was given (native
// kernels first, then PTX JIT), the driver branch an old architecture needs,
// and what the asked-for release itself needs.
std::vector<std::string> nearest_combinations(const Knowledge& k, const TfBuild* build, const Constraints& cons) {
  std::vector<std::string> out;
  const TfBuild* best = nullptr;
  bool best_jit = false;
  for (bool jit : {false, true}) {
    for (const auto& b : k.tf_builds()) {
      if (release_ok(k, b, cons, jit)) {
        best = &b;
        best_jit = jit;
        break;
      }
    }
    if (best) break;
  }
  std::vector<std::string> given;
  if (cons.driver) given.push_back("driver " + cons.driver->text());
  if (cons.gpu) given.push_back(cons.gpu->name);
  if (cons.python) given.push_back("Python " + cons.python->truncated(2));
  if (cons.windows_native) given.push_back("native Windows");
  std::string given_text;
  for (const auto& g : given) given_text += (given_text.empty() ? "" : ", ") + g;
  if (best) {
    out.push_back(fmt::format("Newest TensorFlow for {}: {}{} -- {}", given_text.empty() ? "these constraints" : given_text, best->tf,
                              best_jit ? " (PTX JIT only: slow first start)" : "", install_line(*best)));
  } else if (!given.empty()) {
    out.push_back(fmt::format("No known TensorFlow release works with {}", given_text));
  }
  if (cons.gpu && cons.driver) {
    const auto* arch = k.architecture_support(static_cast<int>(cons.gpu->cc.major()));
    if (arch && arch->last_driver_branch && cons.driver->major() > static_cast<uint64_t>(*arch->last_driver_branch)) {
      Constraints relaxed = cons;
      relaxed.driver.reset();
      for (const auto& b : k.tf_builds()) {
        auto cuda = Version::parse(b.cuda);
        auto min = cuda ? k.min_driver_for_cuda(*cuda) : std::nullopt;
        if (!min || !min->min_linux || Version::parse(*min->min_linux)->major() > static_cast<uint64_t>(*arch->last_driver_branch)) continue;
        if (!release_ok(k, b, relaxed, false)) continue;
        out.push_back(fmt::format("{} GPUs need driver branch R{} or older{}; with it the newest TensorFlow is "
                                  "{} -- {}",
                                  arch->name, *arch->last_driver_branch, uncertain(arch->uncertain), b.tf, install_line(b)));
        break;
      }
    }
  }
  if (build) {
    auto cuda = Version::parse(build->cuda);
    if (auto min = cuda ? k.min_driver_for_cuda(*cuda) : std::nullopt; min && min->min_linux) {
      out.push_back(fmt::format("Minimum driver for TensorFlow {}: {} (CUDA {}){}", build->tf, *min->min_linux, build->cuda,
                                uncertain(min->uncertain)));
    }
    out.push_back(fmt::format("CUDA/cuDNN for TensorFlow {}: {}", build->tf, install_line(*build)));
    out.push_back(fmt::format("Python for TensorFlow {}: {}-{}", build->tf, build->python_min(), build->python_max()));
  }
  if (cons.gpu && cons.gpu->cc < *Version::parse(k.tf_min_capability())) {
    out.push_back("This GPU is below every TensorFlow release's minimum: replace it (`tfrig plan`).");
  }
  return out;
}

}  // namespace

// Each part of the query is judged by its own step, in the order the answer
// lists them; the steps share only the chosen release and the constraints.
CompatAnswer check_compat(const Knowledge& k, const CompatQuery& q) {
  const Constraints cons = constraints_of(k, q);
  const TfChoice chosen = choose_tf(k, q);
  CompatAnswer a;
  a.tf = chosen.build ? chosen.build->tf : (chosen.tf ? chosen.tf->text() : "");
  for (auto& check : {chosen.check, judge_os(q, chosen.tf), judge_python(q, chosen.build, cons), judge_gpu(k, q, chosen.tf, cons),
                      judge_driver(k, q, chosen.build, cons), judge_cuda(k, q, chosen, cons), judge_cudnn(q, chosen)}) {
    if (check) a.checks.push_back(check.value());
  }
  a.verdict = overall_verdict(a.checks);
  if (a.verdict == "no") a.alternatives = nearest_combinations(k, chosen.build, cons);
  return a;
}

nlohmann::json compat_to_json(const CompatAnswer& a) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : a.checks) checks.push_back({{"part", c.part}, {"verdict", c.verdict}, {"reason", c.reason}});
  return nlohmann::json{{"verdict", a.verdict}, {"tf", a.tf}, {"checks", checks}, {"alternatives", a.alternatives}};
}

std::string compat_to_text(const CompatAnswer& a) {
  std::string out = fmt::format("TensorFlow {}: {}\n\n", a.tf.empty() ? "?" : a.tf,
                                a.verdict == "yes" ? "yes" : a.verdict == "no" ? "no" : "yes, with caveats");
  for (const auto& c : a.checks) out += fmt::format("  {:<8} {:<8} {}\n", c.part, c.verdict, c.reason);
  if (!a.alternatives.empty()) {
    out += "\nNearest working combinations:\n";
    for (const auto& alt : a.alternatives) out += "  - " + alt + "\n";
  }
  return out;
}

namespace {

std::string kernels_of(const Knowledge& k, const Version& tf) {
  const auto* r = k.compute_for(tf);
  if (!r) return "?";
  if (r->sass.empty()) return r->documented_minimum ? ">= " + *r->documented_minimum + " (docs)" : "?";
  std::string out;
  for (const auto& s : r->sass) out += (out.empty() ? "" : ",") + s;
  for (const auto& p : r->ptx) out += (out.empty() ? "" : ",") + ("ptx" + p);
  return out + (r->uncertain ? " ?" : "");
}

}  // namespace

std::string compat_matrix_text(const Knowledge& k) {
  core::Table t({"TF", "Python", "CUDA", "cuDNN", "min driver", "GPU kernels (SASS, PTX)", "install"});
  for (const auto& b : k.tf_builds()) {
    auto tf = Version::parse(b.tf);
    auto cuda = Version::parse(b.cuda);
    auto min = cuda ? k.min_driver_for_cuda(*cuda) : std::nullopt;
    t.add_row({b.tf, b.python_min() + "-" + b.python_max(), b.cuda, b.cudnn,
               min && min->min_linux ? *min->min_linux + (min->uncertain ? " ?" : "") : "?",
               tf ? kernels_of(k, *tf) : "?", tf && *tf >= v214() ? "tensorflow[and-cuda]" : "system CUDA"});
  }
  return t.render("") + "\n'?' marks an uncertain or unknown fact (tfrig knowledge --sources).\n";
}

nlohmann::json compat_matrix_json(const Knowledge& k) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& b : k.tf_builds()) {
    auto tf = Version::parse(b.tf);
    auto cuda = Version::parse(b.cuda);
    auto min = cuda ? k.min_driver_for_cuda(*cuda) : std::nullopt;
    const auto* comp = tf ? k.compute_for(*tf) : nullptr;
    rows.push_back({{"tf", b.tf},
                    {"python", b.python},
                    {"cuda", b.cuda},
                    {"cudnn", b.cudnn},
                    {"min_driver_linux", min && min->min_linux ? nlohmann::json(*min->min_linux) : nlohmann::json()},
                    {"sass", comp ? nlohmann::json(comp->sass) : nlohmann::json()},
                    {"ptx", comp ? nlohmann::json(comp->ptx) : nlohmann::json()},
                    {"source", b.source}});
  }
  return nlohmann::json{{"rows", rows}};
}

}  // namespace tfrig::knowledge
