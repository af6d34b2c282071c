// TensorFlow rules: the installed package against this machine and the
// published tables (Python range, GPU build, pip CUDA wheels, platform).
#include <fmt/format.h>

#include "core/i18n.h"
#include "core/text.h"
#include "rules/areas.h"
#include "rules/util.h"

namespace tfrig::rules {

namespace {

namespace u = util;
using core::Version;

Check python_unsupported(const Context& ctx) {
  if (!ctx.probed("python"))
    return Check::skip(core::Message(N_("Python environments (the python probe did not run)")));
  if (!ctx.target.build)
    return Check::skip(
        core::Message(N_("the Python range of {} (not in the tested-build table)"), ctx.target.label_message()));
  const auto& b = *ctx.target.build;
  std::vector<const inventory::PythonEnvironment*> envs;
  if (ctx.target.env) {
    envs.push_back(ctx.target.env);
  } else {
    for (const auto& e : ctx.inv.python.environments) envs.push_back(&e);
  }
  if (envs.empty()) return Check::skip(core::Message(N_("a Python installation (none found)")));
  Check c;
  bool known = false;
  for (const auto* e : envs) {
    if (!e->python_version) continue;
    auto pv = Version::parse(*e->python_version);
    if (!pv) continue;
    known = true;
    if (b.supports_python(*pv)) continue;
    const bool installed = ctx.target.env == e;
    c.add(Hit{
        e->prefix,
        installed ? core::Message(N_("{} runs on Python {}, outside the {}-{} it was built and tested for: the wheel "
                                     "should not have installed, imports can fail."),
                                  ctx.target.label_message(), pv->truncated(2), b.python_min(), b.python_max())
                  : core::Message(N_("Python {} in {} is outside {}-{} of {}: `pip install tensorflow=={}` finds no "
                                     "wheel there."),
                                  pv->truncated(2), e->prefix, b.python_min(), b.python_max(),
                                  ctx.target.label_message(), ctx.target.tf.text()),
        {{"Python", pv->text(), e->prefix},
         {core::Message(N_("Python range of TF {}"), b.tf), b.python_min() + "-" + b.python_max(),
          u::knowledge_source("tf_builds.json", b.source)}},
        core::Message(N_("Create an environment with a supported Python: `uv venv --python {} ~/.venvs/tf` (or "
                         "`conda create -n tf python={}`), then install TensorFlow there; or pick a TF release for "
                         "Python {} with `tfrig compat --python {}`."),
                      b.python_max(), b.python_max(), pv->truncated(2), pv->truncated(2)),
        installed ? std::optional<Severity>() : Severity::kWarning});
  }
  if (!known) return Check::skip(core::Message(N_("Python version of the environments")));
  return c;
}

Check cpu_package_on_gpu(const Context& ctx) {
  if (!ctx.probed("python"))
    return Check::skip(core::Message(N_("Python environments (the python probe did not run)")));
  const auto* e = ctx.target.env;
  if (!e) return Check::skip(core::Message(N_("an installed TensorFlow (none found)")));
  if (u::gpu_count(ctx) == 0) return Check::skip(core::Message(N_("an NVIDIA GPU (none found)")));
  const auto& tf = *e->tensorflow;
  const bool cpu = tf.distribution == "tensorflow-cpu" || tf.distribution == "tensorflow-intel" ||
                   tf.distribution == "intel-tensorflow" || tf.is_cuda_build == false;
  if (!cpu) return Check::pass();
  Check c;
  c.add(
      Hit{e->prefix,
          core::Message(N_("{} {} in {} is a CPU-only build on a machine with an NVIDIA GPU: it never uses the GPU."),
                        tf.distribution, tf.version, e->prefix),
          {{core::Message(N_("distribution")), tf.distribution, e->site_packages.value_or(e->prefix)},
           {core::Message(N_("CUDA build")), tf.is_cuda_build ? Text(u::yes_no(*tf.is_cuda_build)) : Text("unknown"),
            "tensorflow build info"}},
          core::Message(
              N_("`{}/bin/python3 -m pip uninstall -y {} && {}/bin/python3 -m pip install 'tensorflow[and-cuda]=={}'`"),
              e->prefix, tf.distribution, e->prefix, tf.version),
          {}});
  return c;
}

Check and_cuda_missing(const Context& ctx) {
  if (!ctx.probed("python"))
    return Check::skip(core::Message(N_("Python environments (the python probe did not run)")));
  const auto* e = ctx.target.env;
  if (!e) return Check::skip(core::Message(N_("an installed TensorFlow (none found)")));
  static const Version k214 = *Version::parse("2.14");
  if (ctx.target.tf < k214 || e->tensorflow->distribution == "tensorflow-cpu") return Check::pass();
  if (!e->nvidia_wheels.empty()) return Check::pass();
  // System CUDA of the right major counts: then the wheels are not needed.
  const auto* fam = ctx.k.libraries_for(ctx.target.tf);
  if (fam && u::would_load(ctx, fam->soname("cudart"))) return Check::pass();
  Check c;
  const auto* extra = ctx.k.pip_extra_for(ctx.target.tf);
  std::vector<Evidence> ev{{core::Message(N_("nvidia-* wheels in {}"), e->prefix), core::Message(N_("none")),
                            e->site_packages.value_or(e->prefix)},
                           {core::Message(N_("system {}"), fam ? fam->soname("cudart") : std::string("libcudart")),
                            core::Message(N_("not found")), core::Message(N_("loader search"))}};
  if (extra) {
    // TRANSLATORS: {0} how sure the knowledge base is of its source ("medium"), as written there.
    ev.push_back({core::Message(N_("pins of tensorflow[and-cuda]=={}"), extra->tf),
                  u::uncertain_value(core::Message::plural(NP_("{} nvidia wheel", "{} nvidia wheels"),
                                                           extra->packages.size(), extra->packages.size()),
                                     extra->uncertain, core::Message(N_("{} source"), extra->confidence)),
                  u::knowledge_source("tf_pip_extras.json", extra->source)});
  }
  c.add(
      Hit{e->prefix,
          core::Message(N_("TensorFlow {} was installed without its NVIDIA wheels (plain `pip install tensorflow`) and "
                           "no system CUDA {} is on the loader path: it runs on the CPU."),
                        ctx.target.tf.text(),
                        fam ? core::MessageArg(fam->cuda) : core::MessageArg(core::Message(N_("runtime")))),
          ev,
          core::Message(N_("`{}/bin/python3 -m pip install 'tensorflow[and-cuda]=={}'`"), e->prefix,
                        e->tensorflow->version),
          {}});
  return c;
}

Check wsl_advice(const Context& ctx) {
  if (!ctx.inv.host.wsl) return Check::skip(core::Message(N_("whether this is WSL")));
  if (!*ctx.inv.host.wsl) return Check::pass();
  Check c;
  c.add(Hit{
      "host",
      core::Message(
          N_("This is WSL2: TensorFlow > 2.10 has no GPU support on native Windows, and in WSL2 the GPU comes from "
             "the Windows driver (>= 528.33 for CUDA 12); never install a Linux NVIDIA driver inside WSL.")),
      {{"WSL", core::Message(N_("yes")), "/proc/version"}},
      core::Message(N_(
          "Install or upgrade the NVIDIA driver on Windows, then `pip install 'tensorflow[and-cuda]'` inside WSL2.")),
      {}});
  return c;
}

Check not_installed(const Context& ctx) {
  if (!ctx.probed("python"))
    return Check::skip(core::Message(N_("Python environments (the python probe did not run)")));
  if (u::tf_env(ctx.inv)) return Check::pass();
  Check c;
  std::string envs;
  for (const auto& e : ctx.inv.python.environments) envs += (envs.empty() ? "" : ", ") + e.prefix;
  c.add(Hit{"host",
            core::Message(N_("No TensorFlow installed in any Python environment found; the checks assume {}."),
                          ctx.target.label_message()),
            {{core::Message(N_("Python environments")), envs.empty() ? "none" : envs, "python probe"}},
            core::Message(N_("`python3 -m venv ~/.venvs/tf && ~/.venvs/tf/bin/pip install 'tensorflow[and-cuda]=={}'`"),
                          ctx.target.tf.text()),
            {}});
  return c;
}

}  // namespace

std::vector<Rule> tensorflow_rules() {
  return {
      {"tf.python_unsupported",
       "tf",
       Severity::kError,
       N_("Python outside the release's supported range"),
       N_("The Python version of TF's environment (or of each environment, when TF is not installed) against the "
          "tested-build table."),
       N_("TF wheels exist only for the Python versions of the tested-build table (tensorflow.org/install/source#gpu)."),
       N_("Use a Python in the range (a venv or conda env), or a TF release for this Python."),
       {"https://www.tensorflow.org/install/source#gpu"},
       python_unsupported},
      {"tf.cpu_package_on_gpu_host",
       "tf",
       Severity::kError,
       N_("CPU-only TensorFlow on a GPU machine"),
       N_("The installed distribution (tensorflow-cpu, intel builds) and its CUDA build flag, when a GPU is present."),
       N_("A CPU build never uses the GPU, whatever the driver and CUDA."),
       N_("Replace it: `pip uninstall tensorflow-cpu && pip install 'tensorflow[and-cuda]'`."),
       {"https://www.tensorflow.org/install/pip"},
       cpu_package_on_gpu},
      {"tf.and_cuda_missing",
       "tf",
       Severity::kError,
       N_("TF >= 2.14 without its NVIDIA wheels and no system CUDA"),
       N_("For TF >= 2.14: nvidia-* wheels in TF's environment, else a system libcudart of the right major."),
       N_("From 2.14 the CUDA libraries come from the tensorflow[and-cuda] extra; a plain `pip install tensorflow` has "
          "none (tensorflow/tensorflow tensorflow/tools/pip_package/setup.py)."),
       N_("`pip install 'tensorflow[and-cuda]==VERSION'`."),
       {"https://www.tensorflow.org/install/pip"},
       and_cuda_missing},
      {"tf.wsl_advice",
       "tf",
       Severity::kInfo,
       N_("WSL2: the GPU comes from the Windows driver"),
       N_("Whether tfrig runs inside WSL."),
       N_("TensorFlow 2.10 was the last release with GPU support on native Windows; from 2.11 use WSL2 "
          "(https://www.tensorflow.org/install/pip; docs/guide.md)."),
       N_("Keep the NVIDIA driver on Windows current; install TF with [and-cuda] inside WSL2."),
       {"https://www.tensorflow.org/install/pip#windows-wsl2"},
       wsl_advice},
      {"tf.not_installed",
       "tf",
       Severity::kInfo,
       N_("TensorFlow is not installed"),
       N_("TensorFlow in every Python environment found."),
       N_("Without an installed release the checks judge the newest known one (or --tf)."),
       N_("`pip install 'tensorflow[and-cuda]==VERSION'` in a venv."),
       {"https://www.tensorflow.org/install/pip"},
       not_installed},
  };
}

}  // namespace tfrig::rules
