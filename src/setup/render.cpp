#include "setup/render.h"

#include <sstream>

#include "core/i18n.h"

#include "setup/templates.h"

namespace tfrig::setup {

using Values = quote::Values;

namespace {

bool is_container(const SetupPlan& p) { return p.method == Method::kContainer || p.method == Method::kNgc; }

std::string gpu_label(const SetupPlan& p) {
  if (p.gpu.name.empty() && !p.gpu.cc) return _("unknown GPU");
  const std::string s = p.gpu.name.empty() ? "GPU" : p.gpu.name;
  // A GPU given as --gpu cc:X.Y is named "compute capability X.Y" already (plan.cpp).
  if (p.gpu.cc && p.gpu.name != trf("compute capability {}", *p.gpu.cc))
    return trf("{} (compute capability {})", s, *p.gpu.cc);
  return s;
}

std::string tf_list(const SetupPlan& p) {
  std::string s;
  for (const auto& t : p.tfs) s += (s.empty() ? "" : ", ") + t.version;
  return s;
}

// The one-line check the verification step runs (inside the venv or the image).
constexpr const char* kTfCheck =
    "import tensorflow as tf; g = tf.config.list_physical_devices(\"GPU\"); "
    "print(\"TensorFlow\", tf.__version__, \"sees\", len(g), \"GPU(s):\", g); raise SystemExit(0 if g else 1)";

}  // namespace

std::string fill(std::string text, const Values& values, quote::Lang lang) {
  // Messages first: a message's own @KEY@ fields are filled below, in the translation,
  // each quoted for where it stands in the file (quote.h).
  return quote::fill(localize(text), values, lang);
}

namespace {

// A section used once per item ("source_check" per download source): its
// @KEY@ fields renamed @KEY_n@, so that the whole file is filled in one pass
// and no value is ever searched for fields again.
std::string numbered(std::string text, const std::vector<std::string>& keys, size_t n) {
  for (const auto& key : keys) {
    const std::string from = "@" + key + "@", to = "@" + key + "_" + std::to_string(n) + "@";
    for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size())) {
      text.replace(pos, from.size(), to);
    }
  }
  return text;
}

}  // namespace

namespace {

// The plan's values by the @KEY@ fields of install.sh.in.
Values install_sh_values(const SetupPlan& p, const knowledge::Knowledge& k) {
  const auto& f = k.setup();
  const auto& t = p.tfs.front();
  auto get = [&](const std::map<std::string, std::string>& m, const std::string& key) {
    auto it = m.find(key);
    return it == m.end() ? std::string() : it->second;
  };
  return Values{
      {"OS", p.os->id},
      {"OS_ID", p.os->os_id},
      {"OS_VERSION", p.os->version_id},
      {"METHOD", std::string(method_name(p.method))},
      {"GPU", gpu_label(p)},
      {"TF", is_container(p) ? tf_list(p) : t.version},
      {"VENV_DIR", p.venv_dir},
      {"KEYRING_PKG", f.keyring_package},
      {"KEYRING_VERSION", f.keyring_version},
      {"CUDA_REPO", p.os->cuda_repo},
      {"ARCH", p.repo_arch},
      {"KEYRING_URL", p.sources.cuda_repo_base + "/" + p.os->cuda_repo + "/" + p.repo_arch + "/" + f.keyring_package +
                          "_" + f.keyring_version + "_all.deb"},
      {"CHECK_TIMEOUT", std::to_string(f.mirror_check_timeout_s)},
      {"APT_MIRROR", p.sources.apt_mirror},
      {"APT_PATTERN", p.sources.apt_pattern},
      {"CUDA_REPO_BASE", p.sources.cuda_repo_base},
      {"CUDA_REPO_DEFAULT", p.sources.cuda_repo_default},
      {"PIP_INDEX", p.sources.pip_index},
      {"REGISTRY_MIRROR", p.sources.docker_registry_mirror},
      {"CTK_LIST_FROM", p.sources.ctk_list_from},
      {"CTK_LIST_TO", p.sources.ctk_list_to},
      {"BRANCH", p.driver.branch},
      // TRANSLATORS: follows the driver branch number in install.sh ("branch 580 (open kernel modules)").
      {"OPEN", p.driver.open ? _(" (open kernel modules)") : ""},
      {"MIN_CUDA", p.driver.min_driver_cuda},
      {"MIN_DRIVER", p.driver.min_driver},
      {"UBUNTU_DRIVERS_PKG", get(f.apt_packages, "ubuntu_drivers")},
      {"DRIVER_LIST_NAME", "nvidia-driver-" + p.driver.branch + "-server" + (p.driver.open ? "-open" : "")},
      {"INSTALL_ID", p.driver.install_id},
      {"UTILS_PKG", p.driver.utils_package},
      {"CUDA", p.cuda.cuda},
      {"CUDA_PKG", p.cuda.package},
      {"CUDNN", p.cuda.cudnn},
      {"CUDNN_PKG", p.cuda.cudnn_package},
      {"CUDNN_PREFIX", p.cuda.cudnn_prefix},
      {"CUDNN_SUFFIX", p.cuda.cudnn_suffix},
      {"CUDA_LIB_DIR", p.cuda.lib_dir},
      {"PYTHON", p.python},
      {"VENV_PKG", get(f.apt_packages, "venv")},
      {"PIP_PKG", get(f.apt_packages, "pip")},
      {"PIP_NAME", t.pip_name},
      {"PIP_REQ", t.pip_requirement},
      {"DOCKER_PKG", p.os->docker_package},
      {"CTK_KEYRING", f.ctk_keyring},
      {"CTK_GPGKEY", p.sources.ctk_gpgkey_url},
      {"CTK_LIST_URL", p.sources.ctk_list_url},
      {"CTK_LIST_FILE", f.ctk_list_file},
      {"CTK_PKG", f.ctk_package},
      {"SWAPPINESS", std::to_string(p.swappiness)},
      {"NOFILE", p.nofile},
      {"GOVERNOR", p.governor},
      {"TF_CHECK", kTfCheck},
  };
}

// The sections of one step; the per-item sections (a source check, an apt
// rewrite, an image to verify) numbered, with their values added to `v`.
std::string install_sh_step(const Step& st, const SetupPlan& p, const Template& t_sh, Values& v) {
  std::string s;
  if (st.id == "driver") {
    s += t_sh.section("driver");
    s += t_sh.section(p.driver.installer == "ubuntu-drivers" ? "driver_ubuntu_drivers" : "driver_cuda_repo");
    s += t_sh.section("driver_end");
  } else if (st.id == "sources") {
    s += t_sh.section("sources");
    for (size_t i = 0; i < p.sources.checks.size(); ++i) {
      const auto& c = p.sources.checks[i];
      s += numbered(t_sh.section("source_check"), {"CHECK_KIND", "CHECK_WHAT", "CHECK_URL"}, i);
      v.emplace_back("CHECK_KIND_" + std::to_string(i), c.mirror ? "mirror" : "default");
      v.emplace_back("CHECK_WHAT_" + std::to_string(i), c.what);
      v.emplace_back("CHECK_URL_" + std::to_string(i), c.url);
    }
    // Written with a preset, the advice never repeats it: what is left is the image registry.
    s += t_sh.section(p.sources.preset.empty() ? "sources_advice_default" : "sources_advice_preset");
    s += t_sh.section("sources_end");
  } else if (st.id == "apt_mirror") {
    s += t_sh.section("apt_mirror");
    for (size_t i = 0; i < p.sources.apt_rewrites.size(); ++i) {
      s += numbered(t_sh.section("apt_rewrite"), {"APT_PATTERN", "APT_MIRROR"}, i);
      v.emplace_back("APT_PATTERN_" + std::to_string(i), p.sources.apt_rewrites[i].pattern);
      v.emplace_back("APT_MIRROR_" + std::to_string(i), p.sources.apt_rewrites[i].mirror);
    }
    s += t_sh.section("apt_mirror_end");
  } else if (st.id == "verify") {
    s += t_sh.section("verify");
    if (is_container(p)) {
      for (size_t i = 0; i < p.tfs.size(); ++i) {
        s += numbered(t_sh.section("verify_image"), {"IMAGE"}, i);
        v.emplace_back("IMAGE_" + std::to_string(i), p.tfs[i].image);
      }
    } else {
      s += t_sh.section("verify_pip");
    }
    s += t_sh.section("verify_end");
  } else {
    s += t_sh.section(st.id);
  }
  return s;
}

}  // namespace

// install.sh: its head, one function per step and the calls in the plan's order.
std::string render_install_sh(const SetupPlan& p, const knowledge::Knowledge& k) {
  Values v = install_sh_values(p, k);
  const Template& t_sh = setup_template("install.sh.in");
  std::string s = t_sh.section("head");
  if (!is_container(p)) s += t_sh.section("venv");
  s += t_sh.section("globals");
  std::string calls;
  for (const auto& st : p.steps) {
    calls += "  step_" + st.id + "\n";
    s += install_sh_step(st, p, t_sh, v);
  }
  calls.pop_back();
  // The calls are code tfrig writes (its own step ids), not values: put in as they are.
  std::string footer = t_sh.section("footer");
  footer.replace(footer.find("@CALLS@"), 7, calls);
  s += footer;
  return fill(s, v, quote::Lang::kShell);
}

std::string render_env(const SetupPlan& p) {
  const Template& t = setup_template("tfrig.env.in");
  const std::string text = t.section("head") + t.section(p.cuda_malloc_async ? "malloc_async" : "no_malloc_async") +
                           t.section("tail") + (p.sources.hf_endpoint.empty() ? "" : t.section("hf_endpoint"));
  return fill(text, {{"MALLOC_ASYNC_MIN_CUDA", p.cuda_malloc_async_min_cuda}, {"HF_ENDPOINT", p.sources.hf_endpoint}},
              quote::Lang::kEnv);
}

std::string render_tuning_py(const SetupPlan& p) {
  const Template& t = setup_template("tuning.py.in");
  // "8.0" -> ("8", "0"): the Python tuple the policy compares with.
  auto major = [](const std::string& cc) { return cc.substr(0, cc.find('.')); };
  auto minor = [](const std::string& cc) { return cc.substr(cc.find('.') + 1); };
  const std::string planned = p.mixed_precision.empty() ? std::string("float32") : p.mixed_precision;
  const std::string text = t.section("head") + t.section(p.gpu.cc ? "planned" : "unplanned") + t.section("body");
  return fill(text,
              {{"GPU", gpu_label(p)},
               {"FP16_MIN_CC", p.fp16_min_cc},
               {"BF16_MIN_CC", p.bf16_min_cc},
               {"PLANNED_WHY", p.mixed_precision_why},
               // Code: quote::py_code writes None as it is and a policy name as a string literal.
               {"PLANNED_POLICY", p.gpu.cc ? planned : std::string("None")},
               {"PLANNED", planned},
               {"FP16_MAJOR", major(p.fp16_min_cc)},
               {"FP16_MINOR", minor(p.fp16_min_cc)},
               {"BF16_MAJOR", major(p.bf16_min_cc)},
               {"BF16_MINOR", minor(p.bf16_min_cc)}},
              quote::Lang::kPython);
}

std::string render_sysctl(const SetupPlan& p) {
  return fill(setup_template("sysctl.conf.in").section("head"), {{"SWAPPINESS", std::to_string(p.swappiness)}},
              quote::Lang::kConf);
}

std::string render_limits(const SetupPlan& p) {
  return fill(setup_template("limits.conf.in").section("head"), {{"NOFILE", p.nofile}}, quote::Lang::kConf);
}

std::string render_dockerfile(const SetupPlan& p) {
  const Template& t = setup_template("Dockerfile.in");
  const auto& first = p.tfs.front();
  const std::string text =
      t.section("head") + t.section(first.ngc ? "ngc" : "official") + t.section("body") +
      (p.sources.pip_index.empty() ? "" : t.section("pip_index")) +
      (p.sources.pip_index.empty() || p.sources.pip_trusted_host.empty() ? "" : t.section("pip_trusted_host")) +
      t.section("tail");
  return fill(text,
              {{"IMAGE", first.image},
               {"SERVICE", first.service},
               {"PIP_INDEX", p.sources.pip_index},
               {"PIP_TRUSTED_HOST", p.sources.pip_trusted_host}},
              quote::Lang::kDockerfile);
}

std::string render_compose(const SetupPlan& p, const knowledge::Knowledge& k) {
  const auto& f = k.setup();
  const Template& t = setup_template("compose.yaml.in");
  std::string s =
      fill(t.section("head") + (p.sources.docker_registry_mirror.empty() ? "" : t.section("registry_mirror")) +
               t.section("top"),
           {{"FIRST_SERVICE", p.tfs.front().service}, {"REGISTRY_MIRROR", p.sources.docker_registry_mirror}},
           quote::Lang::kYaml);
  for (const auto& tf : p.tfs) {
    s += fill(t.section("service"),
              {{"SERVICE", tf.service},
               {"IMAGE", tf.image},
               {"TF", tf.version},
               {"SHM_SIZE", f.shm_size},
               {"MEMLOCK", f.memlock},
               {"STACK", f.stack},
               {"NOFILE", p.nofile}},
              quote::Lang::kYaml);
  }
  return s;
}

namespace {

// README.md under a China preset: the downloads TensorFlow users meet on first
// run that no package mirror covers, and how to have them beforehand.
std::string first_run_downloads(const SetupPlan& p, const knowledge::Knowledge& k) {
  const auto& d = k.setup().china_downloads;
  std::ostringstream s;
  s << "\n## " << _("First-run downloads from mainland China") << "\n\n"
    << trf("Some downloads come from {} when a program first needs them; that host does not answer dependably from "
           "mainland China, and no package mirror covers it. Fetch them beforehand on a machine that reaches it and copy them "
           "over:",
           d.keras_weights.url.empty() ? std::string("storage.googleapis.com") : d.keras_weights.url)
    << "\n\n"
    << "- "
    << trf("Keras Applications weights (`tf.keras.applications.ResNet50(weights=\"imagenet\")` and the others) are the "
           "`.h5` files under {0}; put each into `{1}` under the same file name (KERAS_HOME moves `~/.keras`) and Keras uses "
           "it without downloading, or pass the file's path as `weights=`.",
           d.keras_weights.url, d.keras_cache)
    << "\n"
    << "- "
    << trf("TensorFlow Datasets: `tfds build NAME --data_dir DIR` (or `tfds.load(NAME, data_dir=DIR)`) where the sources "
           "answer, copy DIR to `{0}` here (or point TFDS_DATA_DIR at it) and load with `tfds.load(NAME, download=False)`.",
           d.tfds_data_dir)
    << "\n";
  if (!p.sources.hf_endpoint.empty()) {
    s << "- "
      << trf("Hugging Face (`transformers`, `datasets`, `huggingface_hub`): `tfrig.env` sets HF_ENDPOINT={}, a community "
             "mirror not run by Hugging Face; delete that line to download from huggingface.co.",
             p.sources.hf_endpoint)
      << "\n";
  }
  if (!p.sources.conda.empty()) {
    s << "- " << trf("conda: `condarc` points conda's channels at {}; copy it to `~/.condarc`.", p.sources.conda)
      << "\n";
  }
  return s.str();
}

}  // namespace

namespace {

// The title and the table of the files written.
void readme_files(std::ostringstream& s, const SetupPlan& p) {
  // TRANSLATORS: the generated README.md (Markdown): keep `...` code spans, | table | cells and URLs.
  s << "# " << trf("TensorFlow GPU server setup: {}, {}, {}", p.os->id, method_name(p.method), gpu_label(p)) << "\n\n"
    << _("Written by `tfrig setup`; nothing here has run yet. The files:") << "\n\n"
    << "| " << _("file") << " | " << _("what") << " |\n| --- | --- |\n"
    << "| `install.sh` | " << _("every step below, idempotent; `--dry-run` prints the commands") << " |\n";
  if (is_container(p)) {
    s << "| `Dockerfile`, `compose.yaml` | " << _("the TensorFlow image(s), one compose service per version") << " |\n";
  }
  s << "| `tfrig.env` | " << _("TensorFlow tuning variables, one comment per line") << " |\n"
    << "| `tuning.py` | " << _("mixed precision for this GPU and a tf.data input pipeline over TFRecord shards")
    << " |\n"
    << "| `sysctl.d/90-tfrig.conf` | " << _("`vm.swappiness`, installed to /etc/sysctl.d") << " |\n"
    << "| `security/limits.d/90-tfrig.conf` | "
    << _("open files and locked memory, installed to /etc/security/limits.d") << " |\n"
    << "| `modprobe.d/blacklist-nouveau.conf` | " << _("installed only where nouveau is loaded") << " |\n";
  if (p.cuda.needed) {
    s << "| `ld.so.conf.d/90-tfrig-cuda.conf` | " << trf("puts {} on the loader's path", p.cuda.lib_dir) << " |\n";
  }
  if (!p.sources.pip_index.empty() && !is_container(p)) {
    s << "| `pip.conf` | " << trf("the venv's pip index: {}", p.sources.pip_index) << " |\n";
  }
  if (!p.sources.docker_registry_mirror.empty()) {
    s << "| `docker/daemon.json` | " << _("`registry-mirrors`, installed to /etc/docker when there is none") << " |\n";
  }
  if (!p.sources.conda.empty()) {
    s << "| `condarc` | "
      << trf("conda's channels from {}: copy it to ~/.condarc if you use conda (not installed)", p.sources.conda)
      << " |\n";
  }
}

// The plan: each TensorFlow, the driver, CUDA, mixed precision, the notes.
void readme_plan(std::ostringstream& s, const SetupPlan& p) {
  s << "\n## " << _("The plan") << "\n\n";
  for (const auto& t : p.tfs) {
    std::string what;
    if (!t.image.empty()) {
      what = t.ngc ? trf("TensorFlow {} in `{}` (NGC {}: TensorFlow {}, CUDA {})", t.version, t.image, t.ngc->release,
                         t.ngc->tf, t.ngc->cuda)
                   : trf("TensorFlow {} in `{}`", t.version, t.image);
    } else {
      what = trf("TensorFlow {}: `pip install {}` in a Python {} venv ({})", t.version, t.pip_requirement, p.python,
                 p.venv_dir);
    }
    s << "- "
      << trf("{}; built and tested with CUDA {} and cuDNN {}, Python {} to {} (TensorFlow's tested-build table).", what,
             t.build->cuda, t.build->cudnn, t.build->python_min(), t.build->python_max())
      << "\n";
  }
  s << "- " << trf("NVIDIA driver branch {} (`{}`): {}", p.driver.branch, p.driver.install_id, p.driver.why) << "\n";
  if (p.cuda.needed) {
    s << "- "
      << trf("`{}` and `{}` {}x, held with apt-mark.", p.cuda.package, p.cuda.cudnn_package, p.cuda.cudnn_prefix)
      << "\n";
  }
  s << "- "
    << (p.gpu.cc ? trf("Mixed precision: {}: {}.",
                       p.mixed_precision.empty() ? _("none (float32)") : "`" + p.mixed_precision + "`",
                       p.mixed_precision_why)
                 : _("Mixed precision: chosen at run time from the GPU's compute capability (tuning.py)."))
    << "\n";
  for (const auto& n : p.notes) s << "- " << trf("Note: {}", n) << "\n";
}

// The download sources install.sh checks, the mirror preset, and the
// first-run downloads from China.
void readme_download_sources(std::ostringstream& s, const SetupPlan& p, const knowledge::Knowledge& k) {
  const auto& f = k.setup();
  s << "\n## " << _("Download sources") << "\n\n"
    << trf("`install.sh` first checks that each answers (a HEAD request, {} s; `--dry-run` lists them):",
           f.mirror_check_timeout_s)
    << "\n\n";
  for (const auto& c : p.sources.checks) s << "- " << trf("{0}: {1}", c.what, c.url) << "\n";
  if (!p.sources.apt_mirror.empty())
    s << "- " << trf("apt: the archive in /etc/apt becomes {}", p.sources.apt_mirror) << "\n";
  if (!p.sources.preset.empty()) {
    s << "\n"
      << trf("Mirror preset `{}`; each mirror and why it was chosen: docs/setup.md in the tfrig repository.",
             p.sources.preset)
      << "\n";
  }
  if (p.sources.china) s << first_run_downloads(p, k);
}

// How to run install.sh, then TensorFlow (compose or the venv).
void readme_how_to_run(std::ostringstream& s, const SetupPlan& p) {
  s << "\n## " << _("How to run it") << "\n\n"
    << "```\n./install.sh --dry-run      # " << _("read what it would do; changes nothing") << "\n"
    << "sudo ./install.sh            # " << _("do it; reboot when it says so, then run it again")
    << "\n```\n\n"
    // TRANSLATORS: README.md; "ok: ... (skipping)" is what install.sh prints for a step already done.
    << _("Every step first checks whether it is already done and prints `ok: ... (skipping)`, so running it\n"
         "again is safe and verifies the machine.")
    << "\n";
  if (is_container(p)) {
    s << "\n" << _("Then, with the Compose plugin (`docker compose`):") << "\n\n```\ndocker compose build\n";
    for (const auto& t : p.tfs) s << "docker compose run --rm " << t.service << "\n";
    s << "```\n";
  } else {
    s << "\n" << trf("Then: `set -a; . ./tfrig.env; set +a; {}/bin/python train.py`.", p.venv_dir) << "\n";
  }
}

// Each step: why, its source, how to undo it.
void readme_steps(std::ostringstream& s, const SetupPlan& p) {
  s << "\n## " << _("The steps, why, and how to undo each") << "\n\n";
  int i = 1;
  for (const auto& st : p.steps) {
    s << i++ << ". **" << st.title << "** (`step_" << st.id << "`)\n"
      << "   - " << trf("Why: {}", st.why) << "\n"
      << "   - " << trf("Source: {}", st.source) << "\n"
      << "   - " << trf("Undo: {}", st.undo) << "\n";
  }
}

// The public sources the plan follows.
void readme_references(std::ostringstream& s, const knowledge::Knowledge& k) {
  const auto& f = k.setup();
  s << "\n## " << _("Sources") << "\n\n"
    << "- "
    << _("The configuration guide tfrig follows (docs/guide.md in the tfrig repository): the version matrix, swap off,\n"
         "  open files, Docker with the NVIDIA Container Toolkit, mixed precision, XLA.")
    << "\n"
    << "- TensorFlow: https://www.tensorflow.org/install/source#gpu " << _("(tested builds)")
    << ", https://www.tensorflow.org/install/pip,\n"
    << "  https://www.tensorflow.org/install/docker, https://www.tensorflow.org/guide/mixed_precision,\n"
    << "  https://www.tensorflow.org/guide/data_performance.\n"
    << "- NVIDIA: https://docs.nvidia.com/cuda/cuda-installation-guide-linux/ ("
    << trf("repository, {}", f.keyring_package) << "),\n"
    << "  https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html,\n"
    << "  https://docs.nvidia.com/deploy/driver-persistence/index.html.\n"
    << "- Ubuntu: https://documentation.ubuntu.com/server/how-to/graphics/install-nvidia-drivers/.\n";
}

}  // namespace

// README.md: the files, the plan, the sources, how to run it, the steps, the references.
std::string render_readme(const SetupPlan& p, const knowledge::Knowledge& k) {
  std::ostringstream s;
  readme_files(s, p);
  readme_plan(s, p);
  readme_download_sources(s, p, k);
  readme_how_to_run(s, p);
  readme_steps(s, p);
  readme_references(s, k);
  return s.str();
}

std::vector<OutputFile> render_all(const SetupPlan& p, const knowledge::Knowledge& k) {
  std::vector<OutputFile> out;
  out.push_back({"README.md", render_readme(p, k), 0644});
  out.push_back({"install.sh", render_install_sh(p, k), 0755});
  out.push_back({"tfrig.env", render_env(p), 0644});
  out.push_back({"tuning.py", render_tuning_py(p), 0644});
  out.push_back({"sysctl.d/90-tfrig.conf", render_sysctl(p), 0644});
  out.push_back({"security/limits.d/90-tfrig.conf", render_limits(p), 0644});
  out.push_back({"modprobe.d/blacklist-nouveau.conf",
                 fill(setup_template("blacklist-nouveau.conf.in").section("head"), {}, quote::Lang::kConf), 0644});
  if (p.cuda.needed) {
    out.push_back({"ld.so.conf.d/90-tfrig-cuda.conf",
                   fill(setup_template("ld-cuda.conf.in").section("head"),
                        {{"CUDA", p.cuda.cuda}, {"TF", p.tfs.front().version}, {"CUDA_LIB_DIR", p.cuda.lib_dir}},
                        quote::Lang::kConf),
                   0644});
  }
  if (!p.sources.pip_index.empty() && !is_container(p)) {
    const Template& t = setup_template("pip.conf.in");
    out.push_back({"pip.conf",
                   fill(t.section("head") + (p.sources.pip_trusted_host.empty() ? "" : t.section("trusted_host")),
                        {{"PIP_INDEX", p.sources.pip_index}, {"PIP_TRUSTED_HOST", p.sources.pip_trusted_host}},
                        quote::Lang::kConf),
                   0644});
  }
  if (!p.sources.conda.empty()) {
    const std::string& c = p.sources.conda;
    out.push_back({"condarc",
                   fill(setup_template("condarc.in").section("head"),
                        {{"CONDA", c},
                         {"CONDA_MAIN", c + "/pkgs/main"},
                         {"CONDA_R", c + "/pkgs/r"},
                         {"CONDA_CLOUD", c + "/cloud"}},
                        quote::Lang::kYaml),
                   0644});
  }
  if (!p.sources.docker_registry_mirror.empty()) {
    out.push_back({"docker/daemon.json",
                   fill(setup_template("daemon.json.in").section("head"),
                        {{"REGISTRY_MIRROR", p.sources.docker_registry_mirror}}, quote::Lang::kJson),
                   0644});
  }
  if (is_container(p)) {
    out.push_back({"Dockerfile", render_dockerfile(p), 0644});
    out.push_back({"compose.yaml", render_compose(p, k), 0644});
  }
  return out;
}

}  // namespace tfrig::setup
