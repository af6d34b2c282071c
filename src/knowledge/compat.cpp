#include "knowledge/compat.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/display_width.h"
#include "core/i18n.h"
#include "core/table.h"
#include "core/text.h"

namespace tfrig::knowledge {

namespace {

using core::Version;

const Version& v214() {
  static const Version v = *Version::parse("2.14");
  return v;
}

core::MessageArg uncertain(bool u) {
  return u ? core::MessageArg(core::Message(N_(" (uncertain fact)"))) : core::MessageArg(std::string());
}

struct GpuInfo {
  core::MessageArg name;  // a catalog name, or "compute capability 8.6" for cc:8.6
  Version cc;
  bool uncertain = false;
  std::string architecture;
  bool from_cc = false;  // given as cc:X.Y: the name is the compute capability itself
};

std::optional<GpuInfo> resolve_gpu(const Knowledge& k, const std::string& text) {
  if (core::starts_with(text, "cc:") || core::starts_with(text, "sm_")) {
    std::string cc = text.substr(3);
    if (core::starts_with(text, "sm_") && cc.size() >= 2)
      cc = cc.substr(0, cc.size() - 1) + "." + cc.substr(cc.size() - 1);
    auto v = Version::parse(cc);
    if (!v) return std::nullopt;
    return GpuInfo{core::Message(N_("compute capability {}"), v->text()), *v, false, "", true};
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
    if (arch && arch->last_driver_branch && c.driver->major() > static_cast<uint64_t>(*arch->last_driver_branch))
      return false;
  }
  if (c.gpu) {
    auto s = k.kernel_support(*tf, c.gpu->cc).support;
    if (!(s == KernelSupport::kSass || (allow_jit && s == KernelSupport::kPtxJit))) return false;
  }
  return true;
}

core::Message install_line(const TfBuild& b) {
  auto tf = Version::parse(b.tf);
  if (tf && *tf >= v214()) {
    return core::Message(N_("`pip install 'tensorflow[and-cuda]=={}'` (brings CUDA {} and cuDNN {} as pip wheels)"),
                         tf->truncated(2) + ".*", b.cuda, b.cudnn);
  }
  return core::Message(N_("install CUDA {} and cuDNN {} on the system, then `pip install {}=={}`"), b.cuda, b.cudnn,
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
      c.check = CompatCheck{"tf", "no", core::Message(N_("'{}' is not a version"), *q.tf)};
      return c;
    }
    c.build = k.find_tf_build(*c.tf);
    if (c.build) {
      c.check = CompatCheck{
          "tf", "yes",
          core::Message(N_("TensorFlow {} was built and tested with CUDA {}, cuDNN {}, Python {}-{}"), c.build->tf,
                        c.build->cuda, c.build->cudnn, c.build->python_min(), c.build->python_max())};
    } else {
      c.check = CompatCheck{
          "tf", "no",
          k.newest_tf()
              ? core::Message(N_("TensorFlow {} is not in the tested-build table (newest known: {})"), c.tf->text(),
                              k.newest_tf()->tf)
              : core::Message(N_("TensorFlow {} is not in the tested-build table (it is empty)"), c.tf->text())};
    }
  } else if (k.newest_tf()) {
    c.build = k.newest_tf();
    c.tf = Version::parse(c.build->tf);
    c.check = CompatCheck{"tf", "yes",
                          core::Message(N_("no --tf given: judging the newest known release, {} (CUDA {}, cuDNN {})"),
                                        c.build->tf, c.build->cuda, c.build->cudnn)};
  }
  return c;
}

// Native Windows lost the GPU after TF 2.10; WSL2 and Linux keep it.
std::optional<CompatCheck> judge_os(const CompatQuery& q, const std::optional<Version>& tf) {
  if (!q.os) return std::nullopt;
  const std::string& os = *q.os;
  if (os == "windows") {
    if (tf && (tf->major() > 2 || (tf->major() == 2 && tf->minor() > 10))) {
      return CompatCheck{"os", "no",
                         core::Message(N_("TensorFlow 2.10 was the last release with GPU support on native Windows; {} "
                                          "needs WSL2 for the GPU"),
                                       tf->text())};
    }
    return CompatCheck{
        "os", "yes",
        core::Message(N_("TensorFlow <= 2.10 supports the GPU on native Windows (with the CUDA/cuDNN of its table)"))};
  }
  if (os == "wsl") {
    return CompatCheck{
        "os", "caveats",
        core::Message(N_("WSL2 works: the GPU comes from the Windows driver (>= 528.33 for CUDA 12); do not install a "
                         "Linux driver inside WSL"))};
  }
  if (os == "macos")
    return CompatCheck{"os", "no", core::Message(N_("no CUDA on macOS: TensorFlow has no NVIDIA GPU support there"))};
  return CompatCheck{"os", "yes", core::Message(N_("Linux is the platform the tested builds are for"))};
}

// A release has wheels for a range of Python minors only.
std::optional<CompatCheck> judge_python(const CompatQuery& q, const TfBuild* build, const Constraints& cons) {
  if (!q.python) return std::nullopt;
  if (!cons.python) return CompatCheck{"python", "no", core::Message(N_("'{}' is not a Python version"), *q.python)};
  const Version& py = *cons.python;
  if (!build)
    return CompatCheck{"python", "caveats",
                       core::Message(N_("unknown TensorFlow release: no Python range to compare"))};
  if (build->supports_python(py)) {
    return CompatCheck{
        "python", "yes",
        core::Message(N_("Python {} is in {}-{}"), py.truncated(2), build->python_min(), build->python_max())};
  }
  return CompatCheck{"python", "no",
                     core::Message(N_("TensorFlow {} has wheels for Python {}-{} only, not {}"), build->tf,
                                   build->python_min(), build->python_max(), py.truncated(2))};
}

// What a kernel verdict means for the GPU, in words (used where the verdict is
// one of two candidates and cannot be stated alone).
core::MessageArg kernel_outcome(KernelSupport s, const core::MessageArg& detail) {
  switch (s) {
    case KernelSupport::kSass:
      // TRANSLATORS: {} is the kernels ("sm_80 SASS").
      return core::Message(N_("native kernels ({})"), detail);
    case KernelSupport::kPtxJit:
      // TRANSLATORS: {} is "PTX compute_80 only (JIT)".
      return core::Message(N_("{}: the first start JIT-compiles every kernel (30 minutes or more)"), detail);
    case KernelSupport::kNone:
      // TRANSLATORS: {} is "the wheel has sm_60, ... and nothing for 5.0".
      return core::Message(N_("no kernels ({})"), detail);
    case KernelSupport::kBelowMinimum:
    case KernelSupport::kUnknown: return detail;
  }
  return detail;
}

// Whether the release ships kernels (SASS, or PTX to JIT) for the GPU's
// compute capability.
std::optional<CompatCheck> judge_gpu(const Knowledge& k, const CompatQuery& q, const std::optional<Version>& tf,
                                     const Constraints& cons) {
  if (!q.gpu) return std::nullopt;
  if (!cons.gpu) {
    return CompatCheck{
        "gpu", "caveats",
        core::Message(N_("'{}' is not in the GPU catalog: pass its compute capability as --gpu cc:X.Y"), *q.gpu)};
  }
  const GpuInfo& g = *cons.gpu;
  if (!tf) return CompatCheck{"gpu", "caveats", core::Message(N_("unknown TensorFlow release"))};
  auto v = k.kernel_support(*tf, g.cc);
  // TRANSLATORS: {0} is a GPU name, {1} its compute capability ("8.6"), {2} " (uncertain fact)" or nothing.
  const core::Message who =
      g.from_cc ? core::Message(N_("{0}{1}"), g.name, uncertain(g.uncertain))
                : core::Message(N_("{0} (compute capability {1}{2})"), g.name, g.cc.text(), uncertain(g.uncertain));
  if (v.uncertain && v.support != KernelSupport::kUnknown && v.support != KernelSupport::kBelowMinimum) {
    // The release's kernel list is inferred: never state its consequence
    // flatly (2.15 on CC 9.0 is PTX JIT under one candidate list and native
    // sm_90 under the other). Both outcomes, or the one with "probably".
    CompatCheck c{
        "gpu", v.support == KernelSupport::kNone ? "no" : "caveats", {}, true, kernel_list_check_hint_message()};
    if (v.alternative) {
      c.reason = core::Message(
          // TRANSLATORS: {0} the GPU, {1} a release, {2}/{4} what the GPU gets under each candidate list ("PTX compute_80
          // only (JIT): the first start JIT-compiles every kernel (30 minutes or more)"), {3}/{5} the two lists.
          N_("{0}: uncertain, TensorFlow {1}'s compiled kernel list was inferred from build files, not read from the "
             "wheel: {2} if the wheel carries {3}; {4} if it carries {5}"),
          who, tf->truncated(2), kernel_outcome(v.support, v.detail_message), v.targets,
          kernel_outcome(*v.alternative, v.alternative_detail_message), v.alternative_targets);
      // Either outcome that is not a failure leaves the answer at caveats.
      if (v.support == KernelSupport::kNone && *v.alternative != KernelSupport::kNone) c.verdict = "caveats";
    } else {
      c.reason = core::Message(
          N_(
              // TRANSLATORS: {0} the GPU, {1} what it probably gets ("native kernels (sm_80 SASS)"), {2} the list, {3} a release.
              "{0}: probably {1} (the wheel probably carries {2}); uncertain, TensorFlow {3}'s compiled kernel list was "
              "inferred from build files, not read from the wheel"),
          who, kernel_outcome(v.support, v.detail_message), v.targets, tf->truncated(2));
    }
    return c;
  }
  switch (v.support) {
    case KernelSupport::kSass:
      return CompatCheck{"gpu",
                         g.uncertain ? "caveats" : "yes",
                         // TRANSLATORS: {0} is the GPU, {1} the kernels ("sm_80 SASS").
                         core::Message(N_("{0}: native kernels ({1})"), who, v.detail_message),
                         g.uncertain,
                         {}};
    case KernelSupport::kPtxJit:
      return CompatCheck{"gpu", "caveats",
                         core::Message(N_("{0}: {1}; the first start JIT-compiles every kernel (30 minutes or more)"),
                                       who, v.detail_message)};
    case KernelSupport::kNone:
      return CompatCheck{"gpu", "no",
                         core::Message(N_("{0}: {1} (\"no kernel image is available\")"), who, v.detail_message)};
    case KernelSupport::kBelowMinimum:
      return CompatCheck{"gpu", "no", core::Message(N_("{0}: {1}"), who, v.detail_message)};
    case KernelSupport::kUnknown:
      return CompatCheck{"gpu", "caveats", core::Message(N_("{0}: {1}"), who, v.detail_message), true,
                         kernel_list_check_hint_message()};
  }
  return std::nullopt;
}

// The driver against the minimum of the release's CUDA (Windows has its own
// minimums), and against the last branch that supports a Kepler GPU.
std::optional<CompatCheck> judge_driver(const Knowledge& k, const CompatQuery& q, const TfBuild* build,
                                        const Constraints& cons) {
  if (!q.driver) return std::nullopt;
  if (!cons.driver) return CompatCheck{"driver", "no", core::Message(N_("'{}' is not a driver version"), *q.driver)};
  const Version& d = *cons.driver;
  auto cuda = build ? Version::parse(build->cuda) : std::nullopt;
  auto min = cuda ? k.min_driver_for_cuda(*cuda) : std::nullopt;
  core::MessageArg kepler = std::string();
  bool kepler_dropped = false;
  if (cons.gpu && cons.gpu->cc.major() == 3) {
    if (const auto* arch = k.architecture_support(3);
        arch && arch->last_driver_branch && d.major() > static_cast<uint64_t>(*arch->last_driver_branch)) {
      kepler_dropped = true;
      kepler = core::Message(N_("; driver branch {} no longer supports Kepler GPUs (last: R{}){}"), d.major(),
                             *arch->last_driver_branch, uncertain(arch->uncertain));
    }
  }
  if (!min || !min->min_linux)
    return CompatCheck{"driver", "caveats",
                       core::Message(N_("the minimum driver for this release's CUDA is not known"))};
  const bool windows = q.os.value_or("linux") == "windows";
  auto minv = *Version::parse(windows && min->min_windows ? *min->min_windows : *min->min_linux);
  if (d < minv) {
    return CompatCheck{
        "driver",
        "no",
        // TRANSLATORS: {0} the driver, {1} the minimum, {2} the CUDA version, {3} " (uncertain fact)" or nothing.
        core::Message(N_("driver {0} is older than {1} that CUDA {2} needs{3}"), d.text(), minv.text(), build->cuda,
                      uncertain(min->uncertain)),
        min->uncertain,
        {}};
  }
  if (kepler_dropped) {
    const auto* arch = k.architecture_support(3);
    return CompatCheck{
        "driver",
        "no",
        // TRANSLATORS: {3} is "; driver branch ... no longer supports Kepler GPUs ...".
        core::Message(N_("driver {0} meets CUDA {1}'s minimum {2}{3}"), d.text(), build->cuda, minv.text(), kepler),
        arch && arch->uncertain,
        {}};
  }
  // TRANSLATORS: {0} the driver, {1} the minimum, {2} the CUDA version, {3} " (uncertain fact)" or nothing.
  return CompatCheck{
      "driver",
      min->uncertain ? "caveats" : "yes",
      min->minor_version_compatibility
          ? core::Message(N_("driver {0} >= {1} (minimum for CUDA {2} with minor-version compatibility){3}"), d.text(),
                          minv.text(), build->cuda, uncertain(min->uncertain))
          : core::Message(N_("driver {0} >= {1} (minimum for CUDA {2}){3}"), d.text(), minv.text(), build->cuda,
                          uncertain(min->uncertain)),
      min->uncertain,
      {}};
}

// A system CUDA toolkit: the release loads libraries of its own CUDA major;
// from 2.14 the pip wheels bring their own, so a different system copy is a
// caveat (keep it off the loader path), not a failure.
std::optional<CompatCheck> judge_cuda(const Knowledge& k, const CompatQuery& q, const TfChoice& chosen,
                                      const Constraints& cons) {
  if (!q.cuda) return std::nullopt;
  const TfBuild* build = chosen.build;
  auto c = Version::parse(*q.cuda);
  auto need = build ? Version::parse(build->cuda) : std::nullopt;
  if (!c) return CompatCheck{"cuda", "no", core::Message(N_("'{}' is not a CUDA version"), *q.cuda)};
  if (!need) return CompatCheck{"cuda", "caveats", core::Message(N_("unknown TensorFlow release"))};
  core::MessageArg driver_note = std::string();
  bool driver_too_old = false;
  if (cons.driver) {
    if (auto m = k.min_driver_for_cuda(*c); m && m->min_linux && *cons.driver < *Version::parse(*m->min_linux)) {
      driver_too_old = true;
      driver_note = core::Message(N_("; and driver {} is too old for CUDA {} itself (needs {})"), cons.driver->text(),
                                  c->truncated(2), *m->min_linux);
    }
  }
  const bool pip = *chosen.tf >= v214();
  if (c->major() == need->major() && (c->major() >= 11 || c->minor() == need->minor())) {
    const bool older = c->minor() < need->minor();
    return CompatCheck{
        "cuda", driver_too_old ? "no" : (older ? "caveats" : "yes"),
        older
            ? core::Message(
                  // TRANSLATORS: {3} is "; and driver ... is too old ..." or nothing.
                  N_("system CUDA {0} has the major version TF {1} was built with ({2}), but an older minor: some kernels "
                     "may need newer PTX support{3}"),
                  c->truncated(2), build->tf, build->cuda, driver_note)
            : core::Message(N_("system CUDA {0} has the major version TF {1} was built with ({2}){3}"), c->truncated(2),
                            build->tf, build->cuda, driver_note)};
  }
  if (pip) {
    return CompatCheck{
        "cuda", driver_too_old ? "no" : "caveats",
        core::Message(
            N_("system CUDA {} is not the CUDA {} TF {} needs; with `pip install tensorflow[and-cuda]` TF uses "
               "its own CUDA {} wheels, so keep CUDA {} off LD_LIBRARY_PATH{}"),
            c->truncated(2), need->major(), build->tf, build->cuda, c->truncated(2), driver_note)};
  }
  return CompatCheck{
      "cuda", "no",
      core::Message(N_("TensorFlow {} loads CUDA {} libraries (libcudart of major {}); system CUDA {} does "
                       "not provide them{}"),
                    build->tf, build->cuda, need->major(), c->truncated(2), driver_note)};
}

// A system cuDNN: same major and an equal or newer minor, or (2.14+) the
// wheel's own copy, as long as the system one is not found first.
std::optional<CompatCheck> judge_cudnn(const CompatQuery& q, const TfChoice& chosen) {
  if (!q.cudnn) return std::nullopt;
  const TfBuild* build = chosen.build;
  auto c = Version::parse(*q.cudnn);
  auto need = build ? Version::parse(build->cudnn) : std::nullopt;
  if (!c) return CompatCheck{"cudnn", "no", core::Message(N_("'{}' is not a cuDNN version"), *q.cudnn)};
  if (!need) return CompatCheck{"cudnn", "caveats", core::Message(N_("unknown TensorFlow release"))};
  const bool pip = *chosen.tf >= v214();
  const bool ok = c->major() == need->major() && c->minor() >= need->minor();
  if (ok) {
    return CompatCheck{
        "cudnn", "yes",
        core::Message(N_("cuDNN {} has the major of {} and an equal or newer minor"), c->truncated(2), build->cudnn)};
  }
  if (pip) {
    // TRANSLATORS: the quoted text is TensorFlow's own log line: keep it in English.
    return CompatCheck{
        "cudnn", "caveats",
        core::Message(
            N_("system cuDNN {0} does not match the {1} TF {2} was built with; the [and-cuda] wheel brings cuDNN "
               "{1}, but a system copy found first gives \"Loaded runtime CuDNN library {0} but source was "
               "compiled with {1}\""),
            c->truncated(2), build->cudnn, build->tf)};
  }
  return CompatCheck{
      "cudnn", "no",
      // TRANSLATORS: the quoted text is TensorFlow's own log line: keep it in English.
      core::Message(N_("TensorFlow {0} needs cuDNN {1}.x >= {2}; {3} gives \"Loaded runtime CuDNN library {3} "
                       "but source was compiled with {2}\""),
                    build->tf, need->major(), build->cudnn, c->truncated(2))};
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
std::vector<core::Message> nearest_combinations(const Knowledge& k, const TfBuild* build, const Constraints& cons) {
  std::vector<core::Message> out;
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
  std::vector<core::MessageArg> given;
  if (cons.driver) given.push_back(core::Message(N_("driver {}"), cons.driver->text()));
  if (cons.gpu) given.push_back(cons.gpu->name);
  if (cons.python) given.push_back("Python " + cons.python->truncated(2));  // a product and its version
  if (cons.windows_native) given.push_back(core::Message(N_("native Windows")));
  const core::MessageArg given_text = core::MessageArg::list(given);
  if (best) {
    // TRANSLATORS: {0} is what was given ("driver 470.82, Tesla K80"), {1} a release, {2} " (PTX JIT only ...)" or
    // nothing, {3} how to install it.
    const core::MessageArg jit = best_jit ? core::MessageArg(core::Message(N_(" (PTX JIT only: slow first start)")))
                                          : core::MessageArg(std::string());
    out.push_back(given.empty()
                      ? core::Message(N_("Newest TensorFlow: {0}{1} -- {2}"), best->tf, jit, install_line(*best))
                      : core::Message(N_("Newest TensorFlow for {0}: {1}{2} -- {3}"), given_text, best->tf, jit,
                                      install_line(*best)));
  } else if (!given.empty()) {
    out.push_back(core::Message(N_("No known TensorFlow release works with {}"), given_text));
  }
  if (cons.gpu && cons.driver) {
    const auto* arch = k.architecture_support(static_cast<int>(cons.gpu->cc.major()));
    if (arch && arch->last_driver_branch && cons.driver->major() > static_cast<uint64_t>(*arch->last_driver_branch)) {
      Constraints relaxed = cons;
      relaxed.driver.reset();
      for (const auto& b : k.tf_builds()) {
        auto cuda = Version::parse(b.cuda);
        auto min = cuda ? k.min_driver_for_cuda(*cuda) : std::nullopt;
        if (!min || !min->min_linux ||
            Version::parse(*min->min_linux)->major() > static_cast<uint64_t>(*arch->last_driver_branch))
          continue;
        if (!release_ok(k, b, relaxed, false)) continue;
        // TRANSLATORS: {0} is an architecture ("Kepler"), {1} a driver branch ("470"), {2} " (uncertain fact)" or
        // nothing, {3} a release, {4} how to install it.
        out.push_back(core::Message(N_("{0} GPUs need driver branch R{1} or older{2}; with it the newest TensorFlow is "
                                       "{3} -- {4}"),
                                    arch->name, *arch->last_driver_branch, uncertain(arch->uncertain), b.tf,
                                    install_line(b)));
        break;
      }
    }
  }
  if (build) {
    auto cuda = Version::parse(build->cuda);
    if (auto min = cuda ? k.min_driver_for_cuda(*cuda) : std::nullopt; min && min->min_linux) {
      out.push_back(core::Message(N_("Minimum driver for TensorFlow {}: {} (CUDA {}){}"), build->tf, *min->min_linux,
                                  build->cuda, uncertain(min->uncertain)));
    }
    out.push_back(core::Message(N_("CUDA/cuDNN for TensorFlow {}: {}"), build->tf, install_line(*build)));
    out.push_back(
        core::Message(N_("Python for TensorFlow {}: {}-{}"), build->tf, build->python_min(), build->python_max()));
  }
  if (cons.gpu && cons.gpu->cc < *Version::parse(k.tf_min_capability())) {
    out.push_back(
        core::Message(N_("This GPU is below every TensorFlow release's minimum: replace it (`tfrig plan`).")));
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
  for (auto& check :
       {chosen.check, judge_os(q, chosen.tf), judge_python(q, chosen.build, cons), judge_gpu(k, q, chosen.tf, cons),
        judge_driver(k, q, chosen.build, cons), judge_cuda(k, q, chosen, cons), judge_cudnn(q, chosen)}) {
    if (check) a.checks.push_back(check.value());
  }
  a.verdict = overall_verdict(a.checks);
  if (a.verdict == "no") a.alternatives = nearest_combinations(k, chosen.build, cons);
  return a;
}

namespace {

// A message in a language, for the renderers below.
std::string say(const core::Message& m, std::string_view language) { return core::render(m, language); }
std::string say(const core::MessageArg& a, std::string_view language) {
  return core::render(core::Message("{}", a), language);
}

}  // namespace

nlohmann::json compat_to_json(const CompatAnswer& a, std::string_view language) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : a.checks) {
    checks.push_back({{"part", c.part},
                      {"verdict", c.verdict},
                      {"uncertain", c.uncertain},
                      {"reason", say(c.reason, language)},
                      {"check", c.check.empty() ? nlohmann::json() : nlohmann::json(say(c.check, language))}});
  }
  nlohmann::json alternatives = nlohmann::json::array();
  for (const auto& alt : a.alternatives) alternatives.push_back(say(alt, language));
  return nlohmann::json{{"verdict", a.verdict}, {"tf", a.tf}, {"checks", checks}, {"alternatives", alternatives}};
}

core::MessageArg compat_verdict_message(const std::string& verdict) {
  if (verdict == "yes") return core::Message::in_context(NC_("compat verdict", "yes"));
  if (verdict == "no") return core::Message::in_context(NC_("compat verdict", "no"));
  if (verdict == "caveats") return core::Message::in_context(NC_("compat verdict", "caveats"));
  return verdict;
}

core::MessageArg compat_part_message(const std::string& part) {
  if (part == "tf") return core::Message::in_context(NC_("compat part", "tf"));
  if (part == "os") return core::Message::in_context(NC_("compat part", "os"));
  if (part == "python") return core::Message::in_context(NC_("compat part", "python"));
  if (part == "driver") return core::Message::in_context(NC_("compat part", "driver"));
  if (part == "gpu") return core::Message::in_context(NC_("compat part", "gpu"));
  if (part == "cuda") return core::Message::in_context(NC_("compat part", "cuda"));
  if (part == "cudnn") return core::Message::in_context(NC_("compat part", "cudnn"));
  return part;
}

std::string compat_to_text(const CompatAnswer& a, std::string_view language, size_t width) {
  const core::MessageArg overall = a.verdict == "caveats" ? core::MessageArg(core::Message(N_("yes, with caveats")))
                                                          : compat_verdict_message(a.verdict);
  std::string out =
      // TRANSLATORS: the answer's first line: {0} is a release ("2.15.0"), {1} yes / no / yes, with caveats.
      say(core::Message(N_("TensorFlow {0}: {1}"), a.tf.empty() ? "?" : a.tf, overall), language) + "\n\n";
  // Columns padded by display width: a Chinese word takes two columns a character.
  size_t part_width = 8;
  size_t verdict_width = 8;
  for (const auto& c : a.checks) {
    part_width = std::max(part_width, core::display_width(say(compat_part_message(c.part), language)));
    verdict_width = std::max(verdict_width, core::display_width(say(compat_verdict_message(c.verdict), language)));
  }
  for (const auto& c : a.checks) {
    // The reason and the command that checks it hang under the reason's column.
    const std::string prefix = "  " + core::pad_right(say(compat_part_message(c.part), language), part_width) + " " +
                               core::pad_right(say(compat_verdict_message(c.verdict), language), verdict_width) + " ";
    const std::string indent(part_width + verdict_width + 4, ' ');
    out += core::wrap_hanging(prefix, say(c.reason, language), width) + "\n";
    if (!c.check.empty()) out += core::wrap_hanging(indent, say(c.check, language), width) + "\n";
  }
  if (!a.alternatives.empty()) {
    out += "\n" + say(core::Message(N_("Nearest working combinations:")), language) + "\n";
    for (const auto& alt : a.alternatives) out += core::wrap_hanging("  - ", say(alt, language), width) + "\n";
  }
  return out;
}

namespace {

std::string kernels_of(const Knowledge& k, const Version& tf, std::string_view language) {
  const auto* r = k.compute_for(tf);
  if (!r) return "?";
  if (r->sass.empty())
    // TRANSLATORS: a table cell: the minimum compute capability the documentation states ("3.5").
    return r->documented_minimum ? say(core::Message(N_(">= {} (docs)"), *r->documented_minimum), language) : "?";
  std::string out;
  for (const auto& s : r->sass) out += (out.empty() ? "" : ",") + s;
  for (const auto& p : r->ptx) out += (out.empty() ? "" : ",") + ("ptx" + p);
  return out + (r->uncertain ? " ?" : "");
}

nlohmann::json alternatives_json(const TfCompute* comp) {
  nlohmann::json out = nlohmann::json::array();
  if (comp) {
    for (const auto& a : comp->alternatives)
      out.push_back({{"sass", a.sass}, {"ptx", a.ptx}, {"applies_if", a.applies_if}});
  }
  return out;
}

}  // namespace

std::string compat_matrix_text(const Knowledge& k, std::string_view language, size_t width) {
  core::Table t({"TF", "Python", "CUDA", "cuDNN",
                 say(core::Message::in_context(NC_("compat matrix", "min driver")), language),
                 say(core::Message::in_context(NC_("compat matrix", "GPU kernels (SASS, PTX)")), language),
                 say(core::Message::in_context(NC_("compat matrix", "install")), language)});
  for (const auto& b : k.tf_builds()) {
    auto tf = Version::parse(b.tf);
    auto cuda = Version::parse(b.cuda);
    auto min = cuda ? k.min_driver_for_cuda(*cuda) : std::nullopt;
    t.add_row({b.tf, b.python_min() + "-" + b.python_max(), b.cuda, b.cudnn,
               min && min->min_linux ? *min->min_linux + (min->uncertain ? " ?" : "") : "?",
               tf ? kernels_of(k, *tf, language) : "?",
               tf && *tf >= v214() ? "tensorflow[and-cuda]" : say(core::Message(N_("system CUDA")), language)});
  }
  return t.render("", width) + "\n" +
         core::wrap_display(
             say(core::Message(N_("'?' marks an uncertain or unknown fact (tfrig knowledge --sources).")), language),
             width, "") +
         "\n" +
         core::wrap_display(
             say(core::Message(
                     N_("Kernel lists marked '?' were inferred from build files, not read from the wheels; {}."),
                     kernel_list_check_hint_message()),
                 language),
             width, "") +
         "\n";
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
                    {"kernels_uncertain", comp ? comp->uncertain : true},
                    {"kernels_alternatives", alternatives_json(comp)},
                    {"source", b.source}});
  }
  return nlohmann::json{{"rows", rows}};
}

}  // namespace tfrig::knowledge
