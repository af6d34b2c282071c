// CUDA stack rules: the libraries the target TensorFlow dlopens, resolved the
// way the loader would, and cuDNN copies that shadow each other.
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/text.h"
#include "rules/areas.h"
#include "rules/util.h"

namespace tfrig::rules {

namespace {

namespace u = util;
using core::Version;

core::Message where(const inventory::CudaLibrary& l) {
  return l.version ? core::Message(N_("{0} ({1}, {2})"), l.path, l.found_via, *l.version)
                   : core::Message(N_("{0} ({1})"), l.path, l.found_via);
}

core::Message install_fix(const Context& ctx) {
  const auto& t = ctx.target;
  static const Version k214 = *Version::parse("2.14");
  if (t.tf >= k214) {
    std::string py = t.env ? t.env->prefix + "/bin/python3" : "python3";
    return core::Message(N_("`{} -m pip install 'tensorflow[and-cuda]=={}'` (the NVIDIA wheels TF finds through its "
                            "RUNPATH; only the driver comes from the system)"),
                         py, t.tf.text());
  }
  if (!t.build)
    return core::Message(
        N_("Install the CUDA and cuDNN versions of TensorFlow's tested-build table, then `sudo ldconfig`."));
  auto cuda = Version::parse(t.build->cuda);
  auto cudnn = Version::parse(t.build->cudnn);
  return core::Message(
      N_("Install CUDA {} and cuDNN {} (`sudo apt install cuda-toolkit-{}-{} libcudnn{}` from NVIDIA's "
         "CUDA repository), make them visible (`echo /usr/local/cuda-{}/lib64 | sudo tee "
         "/etc/ld.so.conf.d/cuda.conf && sudo ldconfig`)"),
      t.build->cuda, t.build->cudnn, cuda ? cuda->major() : 0, cuda ? cuda->minor() : 0, cudnn ? cudnn->major() : 0,
      t.build->cuda);
}

Check library_missing(const Context& ctx) {
  if (!ctx.probed("cuda_libs"))
    return Check::skip(core::Message(N_("CUDA libraries on the loader path (the cuda_libs probe did not run)")));
  const auto* fam = ctx.k.libraries_for(ctx.target.tf);
  if (!fam)
    return Check::skip(
        core::Message(N_("the sonames {} loads (not in tf_libraries.json)"), ctx.target.label_message()));
  std::vector<Evidence> ev;
  std::vector<std::string> missing;
  for (const auto& family : ctx.k.registration_libraries(ctx.target.tf)) {
    const std::string soname = fam->soname(family);
    if (soname.empty()) continue;
    if (const auto* lib = u::would_load(ctx, soname)) {
      ev.push_back({soname, core::Message(N_("would load {}"), where(*lib)),
                    core::Message(N_("dynamic loader order (ld.so(8))"))});
      continue;
    }
    missing.push_back(soname);
    std::optional<core::Message> others;
    for (const auto& l : ctx.inv.cuda.libraries) {
      if (l.family != family) continue;
      // TRANSLATORS: {0} a library's soname, {1} its path and how it was found.
      core::Message here(N_("{0} at {1}"), l.soname, where(l));
      others = others ? core::Message(N_("{0}; {1}"), std::move(*others), std::move(here)) : std::move(here);
    }
    ev.push_back(
        {soname,
         !others ? core::Message(N_("missing")) : core::Message(N_("missing; present but not usable: {}"), *others),
         core::Message(N_("dynamic loader order (ld.so(8))"))});
  }
  if (missing.empty()) return Check::pass();
  ev.push_back(
      {core::Message(N_("sonames of {}"), ctx.target.label_message()),
       u::uncertain_value("CUDA " + fam->cuda, fam->uncertain, core::Message(N_("derived from TF's dso_loader rules"))),
       u::knowledge_source("tf_libraries.json", "tsl-dso-loader")});
  Check c;
  c.add(Hit{"host",
            core::Message(N_("{} cannot dlopen {}: it logs \"Cannot dlopen some GPU libraries\" and skips registering "
                             "GPU devices (runs on the CPU)."),
                          ctx.target.label_message(), u::listed(missing)),
            ev,
            install_fix(ctx),
            {}});
  return c;
}

std::string major_minor(const std::string& v) {
  auto p = Version::parse(v);
  return p ? p->truncated(2) : v;
}

Check cudnn_conflict(const Context& ctx) {
  if (!ctx.probed("cuda_libs"))
    return Check::skip(core::Message(N_("CUDA libraries on the loader path (the cuda_libs probe did not run)")));
  std::map<std::string, std::vector<const inventory::CudaLibrary*>> by_version;
  for (const auto& l : ctx.inv.cuda.libraries) {
    if (l.family != "cudnn" || !l.version || !u::loader_searched(ctx, l)) continue;
    by_version[major_minor(*l.version)].push_back(&l);
  }
  if (by_version.empty())
    return Check::skip(core::Message(N_("cuDNN versions (no versioned libcudnn on the loader path)")));
  const auto* fam = ctx.k.libraries_for(ctx.target.tf);
  const inventory::CudaLibrary* loaded = fam ? u::would_load(ctx, fam->soname("cudnn")) : nullptr;
  Check c;
  std::vector<Evidence> ev;
  for (const auto& [ver, libs] : by_version) {
    for (const auto* l : libs) ev.push_back({"cuDNN " + ver, where(*l), core::Message(N_("loader search"))});
  }
  if (ctx.target.build && loaded && loaded->version) {
    auto have = Version::parse(*loaded->version);
    auto need = Version::parse(ctx.target.build->cudnn);
    if (have && need && (have->major() != need->major() || have->minor() < need->minor())) {
      ev.push_back({core::Message(N_("TF built with cuDNN")), ctx.target.build->cudnn,
                    u::knowledge_source("tf_builds.json", ctx.target.build->source)});
      c.add(Hit{loaded->soname,
                core::Message(
                    N_("{} would load cuDNN {} from {} but was built with {}: \"Loaded runtime CuDNN library: "
                       "{} but source was compiled with: {}\" and convolutions fail (\"DNN library is not found\")."),
                    ctx.target.label_message(), *loaded->version, loaded->path, ctx.target.build->cudnn,
                    *loaded->version, ctx.target.build->cudnn),
                ev,
                core::Message(N_("Make cuDNN {}.x (>= {}) the first on the loader path: remove or hide the older copy "
                                 "({}), or unset LD_LIBRARY_PATH entries that point at it; {}."),
                              need->major(), ctx.target.build->cudnn, loaded->path, install_fix(ctx)),
                Severity::kError});
      return c;
    }
  }
  if (by_version.size() < 2) return Check::pass();
  c.add(
      Hit{"host",
          core::Message(N_("{} cuDNN versions are on the loader path; whichever is found first wins, and another "
                           "framework or LD_LIBRARY_PATH can make TensorFlow load the wrong one{}."),
                        by_version.size(),
                        loaded ? core::MessageArg(core::Message(N_(" (TensorFlow would load {})"), loaded->path))
                               : core::MessageArg("")),
          ev,
          core::Message(N_("Keep one cuDNN per major version on the loader path: remove the others or isolate them per "
                           "environment (pip nvidia-cudnn wheels inside each venv).")),
          {}});
  return c;
}

}  // namespace

std::vector<Rule> cuda_stack_rules() {
  return {
      {"cuda.library_missing",
       "cuda",
       Severity::kError,
       N_("A CUDA library TensorFlow needs cannot be loaded"),
       N_("Every library TF must dlopen to register a GPU (cudart, cublas, cublasLt, cufft, cusolver, cusparse, cudnn) "
          "at the soname of the target release, resolved in the loader's order: LD_LIBRARY_PATH, the nvidia wheels on "
          "TF's RUNPATH (>= 2.14), /etc/ld.so.cache, default directories."),
       N_("One missing library and TF logs \"Cannot dlopen some GPU libraries\" and silently runs on the CPU "
          "(tensorflow/tensorflow gpu_device.cc; the TSL dso_loader)."),
       N_("TF >= 2.14: `pip install 'tensorflow[and-cuda]==VERSION'`; older: install the CUDA/cuDNN of the tested-build "
          "table and run `sudo ldconfig`."),
       {"https://www.tensorflow.org/install/pip", "https://github.com/tensorflow/tensorflow/issues/60646"},
       library_missing},
      {"cuda.cudnn_version_conflict",
       "cuda",
       Severity::kWarning,
       N_("Several cuDNN versions can shadow each other"),
       N_("cuDNN copies on the loader path, and the version TF would load against the one it was built with."),
       N_("TF needs the same cuDNN major and an equal or newer minor; an older copy found first gives \"Loaded runtime "
          "CuDNN library X but source was compiled with Y\" (tensorflow#60913)."),
       N_("Keep one cuDNN per major on the loader path; make the one TF needs come first."),
       {"https://github.com/tensorflow/tensorflow/issues/60913"},
       cudnn_conflict},
  };
}

}  // namespace tfrig::rules
