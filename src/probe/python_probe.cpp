// python: Python environments and, in each, TensorFlow (distribution,
// version, what CUDA/cuDNN it was built for), Keras and NVIDIA's CUDA wheels.
// Everything comes from files: *.dist-info/METADATA and the build_info.py
// the TensorFlow wheel ships. Python is never run.
#include <fmt/format.h>

#include "core/text.h"
#include "probe/parse/dist_info.h"
#include "probe/probe.h"
#include "probe/probes.h"
#include "probe/python_envs.h"

namespace tfrig::probe {

namespace {

// The distributions that install the `tensorflow` package (PyPI project
// names; tensorflow-gpu was an alias of tensorflow from 2.1 to 2.11,
// tensorflow-intel is what `tensorflow` pulls in on Windows, tensorflow-macos
// on Apple silicon).
constexpr const char* kTensorFlowDists[] = {"tensorflow",         "tensorflow-cpu",   "tensorflow-gpu",
                                            "tf-nightly",         "tf-nightly-cpu",   "tf-nightly-gpu",
                                            "tensorflow-intel",   "tensorflow-macos", "tensorflow-aarch64",
                                            "tensorflow-cpu-aws", "intel-tensorflow"};

bool is_tensorflow_dist(const std::string& name) {
  for (const char* d : kTensorFlowDists) {
    if (name == d) return true;
  }
  return false;
}

class PythonProbe final : public Probe {
 public:
  std::string_view id() const override { return "python"; }
  ProbeStatus run(const Context& ctx, inventory::Inventory& out) const override {
    const core::SysRoot& root = ctx.root;
    ProblemLog problems;
    int with_tf = 0;
    for (const auto& site : find_python_sites(root, ctx.python_prefixes)) {
      inventory::PythonEnvironment env;
      env.prefix = site.prefix;
      env.kind = site.kind;
      env.python_version = site.python_version;
      env.site_packages = site.site_packages;
      scan_site(root, site.site_packages, env, problems);
      with_tf += env.tensorflow ? 1 : 0;
      out.python.environments.push_back(std::move(env));
    }
    ProbeStatus status;
    problems.into(status);
    if (out.python.environments.empty() && !root.is_dir("usr") && ctx.python_prefixes.empty()) {
      // A captured tree of /proc and /sys only: nothing says Python is missing.
      status.state = State::kSkipped;
      status.set_detail(
          core::Message(N_("no usr folder under {}: Python environments were not examined"), root.full_path("/")));
      return status;
    }
    if (out.python.environments.empty()) {
      status.state = State::kAbsent;
      status.set_detail(core::Message(N_("no Python site-packages found")));
      return status;
    }
    status.state = State::kOk;
    std::vector<core::MessageArg> tf;
    for (const auto& e : out.python.environments) {
      if (!e.tensorflow) continue;
      tf.emplace_back(core::Message(N_("{0} {1} in {2}"), e.tensorflow->distribution, e.tensorflow->version, e.prefix));
    }
    const size_t envs = out.python.environments.size();
    if (with_tf == 0) {
      status.set_detail(
          core::Message::plural(NP_("{} environment, no TensorFlow", "{} environments, no TensorFlow"), envs, envs));
    } else {
      status.set_detail(
          core::Message::plural(NP_("{0} environment, TensorFlow: {1}", "{0} environments, TensorFlow: {1}"), envs,
                                envs, core::MessageArg::list(std::move(tf))));
    }
    return status;
  }

  void merge(inventory::Inventory& into, inventory::Inventory&& from) const override {
    into.python = std::move(from.python);
  }

 private:
  static void scan_site(const core::SysRoot& root, const std::string& site, inventory::PythonEnvironment& env,
                        ProblemLog& problems) {
    auto entries = root.list_dir(site);
    if (!entries) {
      problems.add(entries.error());
      return;
    }
    for (const auto& entry : *entries) {
      auto split = parse::split_dist_info_dir(entry);
      if (!split) continue;
      const auto& [name, dir_version] = *split;
      const bool tf = is_tensorflow_dist(name);
      const bool keras = name == "keras";
      const bool nvidia = core::starts_with(name, "nvidia-");
      if (!tf && !keras && !nvidia) continue;
      // METADATA is authoritative; the directory name is the fallback.
      std::string dist_name = name;
      std::string version = dir_version;
      std::optional<std::string> requires_python;
      const std::string meta_path = site + "/" + entry + "/METADATA";
      if (auto text = root.read_text(meta_path, 4 << 20); text) {
        if (auto meta = parse::parse_dist_metadata(*text)) {
          dist_name = parse::normalize_dist_name(meta->name);
          version = meta->version;
          requires_python = meta->requires_python;
        } else {
          problems.add(root.full_path(meta_path), meta.error());
        }
      } else {
        problems.add(text.error());
      }
      if (tf) {
        // Two TensorFlow distributions in one environment overwrite each
        // other's files; keep the first and say so.
        if (env.tensorflow) {
          problems.add(core::Message(N_("{0}; {1}"),
                                     core::Message(N_("{0}: {1}"), site,
                                                   core::Message(N_("both {0} and {1} are installed"),
                                                                 env.tensorflow->distribution, dist_name)),
                                     core::Message(N_("they share the tensorflow/ package"))));
          continue;
        }
        inventory::TensorFlowInstall install;
        install.distribution = dist_name;
        install.version = version;
        install.requires_python = requires_python;
        read_build_info(root, site, install, problems);
        env.tensorflow = std::move(install);
      } else if (keras) {
        env.keras_version = version;
      } else {
        env.nvidia_wheels.push_back({dist_name, version});
      }
    }
  }

  static void read_build_info(const core::SysRoot& root, const std::string& site, inventory::TensorFlowInstall& tf,
                              ProblemLog& problems) {
    const std::string path = site + "/tensorflow/python/platform/build_info.py";
    auto text = root.read_text(path, 1 << 20);
    if (!text) {
      if (text.error().code != core::ErrorCode::kNotFound) problems.add(text.error());
      return;
    }
    auto info = parse::parse_tf_build_info(*text);
    if (!info) {
      problems.add(root.full_path(path), info.error());
      return;
    }
    tf.built_cuda = info->cuda_version;
    tf.built_cudnn = info->cudnn_version;
    tf.is_cuda_build = info->is_cuda_build;
    tf.compute_capabilities = info->compute_capabilities;
  }
};

}  // namespace

std::shared_ptr<const Probe> make_python_probe() { return std::make_shared<PythonProbe>(); }

}  // namespace tfrig::probe
