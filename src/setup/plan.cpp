#include "setup/plan.h"

#include <algorithm>
#include <cctype>
#include <tuple>
#include <cstdlib>
#include <sstream>
#include <variant>

#include "core/i18n.h"
#include "core/text.h"
#include "core/try.h"
#include "probe/region.h"
#include "setup/quote.h"

namespace tfrig::setup {

namespace {

using core::Version;
using knowledge::Knowledge;
using knowledge::OsTarget;
using knowledge::SetupFacts;
using knowledge::TfBuild;

std::optional<Version> ver(std::string_view s) { return Version::parse(s); }

// A compute capability as NVIDIA writes it: "8.0", "12.1". A snapshot's value
// that is not one is dropped (the GPU is planned as unknown), so that only
// digits and a dot reach the plan, its notes and the files.
bool is_compute_capability(std::string_view s) {
  const size_t dot = s.find('.');
  auto digits = [](std::string_view d) {
    return !d.empty() && d.size() <= 2 && d.find_first_not_of("0123456789") == std::string_view::npos;
  };
  return dot != std::string_view::npos && digits(s.substr(0, dot)) && digits(s.substr(dot + 1));
}

// A name from a snapshot (a GPU's, an architecture's): one line of printable
// text, at most 200 bytes (nvidia-smi's names are under 64). The files quote
// it again for their language (quote.h); this keeps the plan printed on the
// terminal and README.md free of control characters too.
std::string foreign_name(const std::optional<std::string>& s) {
  std::string out = quote::one_line(s.value_or(""));
  if (out.size() > 200) out = out.substr(0, 200) + "...";
  return out;
}

// a >= b on the first two parts ("12.4" >= "12.3"); false when either is not a version.
bool minor_ge(std::string_view a, std::string_view b) {
  auto va = ver(a), vb = ver(b);
  if (!va || !vb) return false;
  if (va->major() != vb->major()) return va->major() > vb->major();
  return va->minor() >= vb->minor();
}

bool in_cc_range(const std::string& cc, const std::string& lo, const std::string& hi) {
  auto v = ver(cc), l = ver(lo), h = ver(hi);
  return v && l && h && *v >= *l && *v <= *h;
}

// The CUDA a driver branch ships with: the newest toolkit whose minimum Linux
// driver belongs to the branch ("550" -> "12.4").
std::string branch_cuda(const Knowledge& k, const std::string& branch) {
  std::optional<Version> best;
  for (const auto& t : k.toolkit_drivers()) {
    auto d = ver(t.min_linux);
    auto branch_v = core::parse_u64(branch);
    if (!d || !branch_v || d->major() != *branch_v) continue;
    auto c = ver(t.cuda);
    if (c && (!best || *c > *best)) best = c;
  }
  return best ? best->truncated(2) : "";
}

// The oldest driver that runs software built with this CUDA: the first
// toolkit release of that major.minor, else the minor-compat minimum.
std::string min_driver_for(const Knowledge& k, const std::string& cuda) {
  auto want = ver(cuda);
  if (!want) return "";
  std::optional<Version> best_cuda;
  std::string best;
  for (const auto& t : k.toolkit_drivers()) {
    auto c = ver(t.cuda);
    if (!c || c->major() != want->major() || c->minor() != want->minor()) continue;
    if (!best_cuda || *c < *best_cuda) {
      best_cuda = c;
      best = t.min_linux;
    }
  }
  if (!best.empty()) return best;
  auto m = k.min_driver_for_cuda(*want);
  return m && m->min_linux ? *m->min_linux : "";
}

bool gpu_allows_branch(const SetupFacts& f, const std::optional<std::string>& cc, const std::string& branch) {
  if (!cc) return true;
  auto b = core::parse_u64(branch);
  if (!b) return false;
  for (const auto& l : f.gpu_branch_limits) {
    if (!in_cc_range(*cc, l.cc_min, l.cc_max)) continue;
    if (l.first_branch) {
      auto fb = core::parse_u64(*l.first_branch);
      if (fb && *b < *fb) return false;
    }
    if (l.last_branch) {
      auto lb = core::parse_u64(*l.last_branch);
      if (lb && *b > *lb) return false;
    }
  }
  return true;
}

// The newest branch this OS offers that ships the CUDA needed and drives the GPU.
std::string choose_branch(const Knowledge& k, const OsTarget& os, const std::string& cuda,
                          const std::optional<std::string>& cc) {
  for (auto it = os.driver_branches.rbegin(); it != os.driver_branches.rend(); ++it) {
    if (!gpu_allows_branch(k.setup(), cc, *it)) continue;
    const std::string bc = branch_cuda(k, *it);
    if (!bc.empty() && minor_ge(bc, cuda)) return *it;
  }
  return "";
}

bool and_cuda_for(const Knowledge& k, const std::string& tf) {
  const std::string first = k.text("pip_cuda_extra_first_tf", "");
  return !first.empty() && minor_ge(tf, first);
}

bool needs_cuda_repo_libs(Method m, bool and_cuda) { return m == Method::kApt || (m == Method::kPip && !and_cuda); }

std::string python_range(const TfBuild& b) {
  if (b.python.empty()) return "?";
  return b.python_min() == b.python_max() ? b.python_min() : b.python_min() + "-" + b.python_max();
}

// The CUDA the installed software needs: the wheel's build CUDA, or the image's.
std::string cuda_needed(const Knowledge& k, Method m, const TfBuild& b) {
  if (m == Method::kNgc) {
    const auto* r = k.setup().ngc_for(b.tf);
    return r ? r->cuda : "";
  }
  return b.cuda;
}

const knowledge::CudnnPackage* cudnn_package_for(const SetupFacts& f, const std::string& cudnn) {
  auto v = ver(cudnn);
  if (!v) return nullptr;
  for (const auto& p : f.cudnn_packages) {
    auto m = core::parse_u64(p.cudnn_major);
    if (m && *m == v->major()) return &p;
  }
  return nullptr;
}

// Why this TF release cannot work here with this method; empty when it can.
std::string why_not(const Knowledge& k, const OsTarget& os, Method m, const GpuTarget& gpu, const TfBuild& b) {
  auto tf = ver(b.tf);
  if (!tf) return trf("TensorFlow {} is not a version", b.tf);
  const bool and_cuda = and_cuda_for(k, b.tf);
  if (m == Method::kPip || m == Method::kApt) {
    auto py = ver(os.python);
    if (!py || !b.supports_python(*py)) {
      return trf("TensorFlow {} supports Python {} but {} ships Python {} (tested-build table)", b.tf, python_range(b),
                 os.id, os.python);
    }
  }
  if (m == Method::kNgc && !k.setup().ngc_for(b.tf)) {
    return trf("no NGC TensorFlow release ships TensorFlow {} (setup.json ngc.releases)", tf->truncated(2));
  }
  if (gpu.cc && m == Method::kNgc) {
    // NVIDIA builds the NGC images for every capability from its minimum, not the official wheel's list.
    auto cc = ver(*gpu.cc), min = ver(k.setup().ngc_min_cc);
    if (cc && min && *cc < *min) {
      return trf("NGC TensorFlow images need compute capability {} or newer, not {}", k.setup().ngc_min_cc, *gpu.cc);
    }
  } else if (gpu.cc) {
    auto cc = ver(*gpu.cc);
    if (cc) {
      auto kv = k.kernel_support(*tf, *cc);
      if (kv.support == knowledge::KernelSupport::kNone || kv.support == knowledge::KernelSupport::kBelowMinimum) {
        return trf("TensorFlow {} has no kernels for compute capability {} ({})", b.tf, *gpu.cc, kv.detail);
      }
    }
  }
  const std::string cuda = cuda_needed(k, m, b);
  if (choose_branch(k, os, cuda, gpu.cc).empty()) {
    return gpu.cc ? trf("no driver branch offered on {} ships CUDA {} and drives compute capability {}", os.id, cuda,
                        *gpu.cc)
                  : trf("no driver branch offered on {} ships CUDA {}", os.id, cuda);
  }
  if (needs_cuda_repo_libs(m, and_cuda)) {
    if (!minor_ge(b.cuda, os.cuda_repo_min) || (os.cuda_repo_max && !minor_ge(*os.cuda_repo_max, b.cuda))) {
      return os.cuda_repo_max ? trf("NVIDIA's {} repository has no CUDA {} (it carries {} to {})", os.cuda_repo, b.cuda,
                                    os.cuda_repo_min, *os.cuda_repo_max)
                              : trf("NVIDIA's {} repository has no CUDA {} (it carries {} and later)", os.cuda_repo,
                                    b.cuda, os.cuda_repo_min);
    }
    if (!cudnn_package_for(k.setup(), b.cudnn)) return trf("no apt package known for cuDNN {}", b.cudnn);
  }
  return "";
}

core::Result<GpuTarget> resolve_gpu(const Knowledge& k, const inventory::Inventory* inv, const std::string& want) {
  GpuTarget g;
  if (want.empty() || want == "auto") {
    if (!inv) return g;
    if (!inv->gpus.empty()) {
      const auto& first = inv->gpus.front();
      g.from_machine = true;
      g.count = static_cast<int>(inv->gpus.size());
      g.name = foreign_name(first.name);
      if (first.compute_capability && is_compute_capability(*first.compute_capability)) g.cc = first.compute_capability;
      g.architecture = foreign_name(first.architecture);
      std::optional<knowledge::GpuMatch> m;
      if (!g.name.empty()) m = k.find_gpu(g.name);
      if (!m && first.pci_device_id) m = k.find_gpu_by_pci_id(*first.pci_device_id);
      if (m) {
        if (!g.cc) g.cc = m->compute_capability;
        if (g.architecture.empty()) g.architecture = m->architecture;
        if (g.name.empty()) g.name = m->name;
      }
      return g;
    }
    for (const auto& d : inv->pci.devices) {
      if (!d.is_gpu || !d.device_id) continue;
      ++g.count;
      if (g.count > 1) continue;
      g.from_machine = true;
      if (auto m = k.find_gpu_by_pci_id(*d.device_id)) {
        g.name = m->name;
        g.cc = m->compute_capability;
        g.architecture = m->architecture;
      }
    }
    return g;
  }
  if (core::starts_with(want, "cc:")) {
    const std::string cc = want.substr(3);
    if (!is_compute_capability(cc)) {
      return core::fail(core::ErrorCode::kInvalidArgument, "--gpu",
                        trf("expected cc:MAJOR.MINOR, got {}", quote::one_line(want)));
    }
    g.cc = cc;
    g.name = trf("compute capability {}", cc);
    return g;
  }
  auto m = k.find_gpu(want);
  if (!m) {
    return core::fail(core::ErrorCode::kInvalidArgument, "--gpu",
                      trf("no GPU named '{}' in the knowledge base (a name, PCI id, or cc:X.Y)", want));
  }
  g.name = m->name;
  g.cc = m->compute_capability;
  g.architecture = m->architecture;
  return g;
}

// "2.17" or "2.17.0" -> its row; "2.16.2" -> the 2.16.1 row with the version
// kept when the knowledge base knows that release (pip extras).
core::Result<std::pair<const TfBuild*, std::string>> resolve_tf(const Knowledge& k, const std::string& want) {
  auto v = ver(want);
  if (!v)
    return core::fail(core::ErrorCode::kInvalidArgument, "--tf", trf("expected a version like 2.17, got '{}'", want));
  const TfBuild* b = k.find_tf_build(*v);
  if (!b) {
    std::string known;
    for (const auto& r : k.tf_builds()) known += (known.empty() ? "" : ", ") + r.tf;
    return core::fail(core::ErrorCode::kInvalidArgument, "--tf",
                      trf("TensorFlow {} is not in the tested-build table (known: {})", want, known));
  }
  if (v->parts().size() <= 2 || *ver(b->tf) == *v) return std::make_pair(b, b->tf);
  for (const auto& r : k.tf_builds()) {
    if (r.tf == want) return std::make_pair(b, want);
  }
  if (const auto* p = k.pip_extra_for(*v); p && p->tf == want) return std::make_pair(b, want);
  return core::fail(
      core::ErrorCode::kInvalidArgument, "--tf",
      trf("TensorFlow {} is not in the knowledge base; use {} (its row {})", want, v->truncated(2), b->tf));
}

// The user's own --os and --gpu, repeated in every suggestion so that each
// can be pasted as it is (a suggestion without them means this machine).
std::string given_target(const SetupOptions& o) {
  std::string out;
  if (!o.os.empty()) out += " --os " + o.os;
  if (!o.gpu.empty() && o.gpu != "auto") {
    // A suggestion is pasted into a shell: the name as one shell word.
    out += " --gpu " + quote::sh_word(o.gpu);
  }
  return out;
}

std::vector<std::string> nearest(const Knowledge& k, const OsTarget& os, Method m, const GpuTarget& gpu,
                                 const TfBuild* wanted, const std::string& target) {
  const auto& rows = k.tf_builds();
  long wanted_index = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (&rows[i] == wanted) wanted_index = static_cast<long>(i);
  }
  std::vector<std::pair<long, std::string>> ok;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!why_not(k, os, m, gpu, rows[i]).empty()) continue;
    ok.emplace_back(std::labs(static_cast<long>(i) - wanted_index), rows[i].tf);
  }
  std::stable_sort(ok.begin(), ok.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < ok.size() && i < 3; ++i) {
    out.push_back("--tf " + ok[i].second + " --method " + std::string(method_name(m)) + target);
  }
  // The nearest release by another method (the same release first, when one works).
  std::pair<long, std::string> best{-1, ""};
  for (Method other : {Method::kPip, Method::kContainer, Method::kNgc, Method::kApt}) {
    if (other == m) continue;
    for (size_t i = 0; i < rows.size(); ++i) {
      const long d = std::labs(static_cast<long>(i) - wanted_index);
      if ((best.first >= 0 && d >= best.first) || !why_not(k, os, other, gpu, rows[i]).empty()) continue;
      best = {d, "--tf " + rows[i].tf + " --method " + std::string(method_name(other)) + target};
    }
  }
  if (best.first >= 0) out.push_back(best.second);
  return out;
}

std::string service_name(const std::string& tf) {
  auto v = ver(tf);
  return v ? "tf-" + std::to_string(v->major()) + "-" + std::to_string(v->minor()) : "tf";
}

void add_version(SetupPlan& p, const std::string& kind, const std::string& value) {
  if (value.empty()) return;
  for (const auto& [k, v] : p.versions) {
    if (k == kind && v == value) return;
  }
  p.versions.emplace_back(kind, value);
}

// Before anything is installed: the OS and root, then every download source.
void add_preflight_steps(const SetupFacts& f, SetupPlan& p) {
  p.steps.push_back(
      {"preflight", _("Check the OS and that the script runs as root"),
       trf("The packages and paths below are for {} only; installing drivers and writing /etc needs root.", p.os->id),
       "tfrig", _("Nothing to undo.")});
  p.steps.push_back(
      {"sources", _("Check that every download source answers"),
       trf("A source that does not answer (a blocked or slow network, a mirror that closed) would stall apt or pip "
           "halfway; each is asked once, with a {} s limit, before anything is installed. When default sources do not "
           "answer it says how to write the installation with mirrors (--mirror cn).",
           f.mirror_check_timeout_s),
       "tfrig; docs/setup.md", _("Nothing to undo.")});
}

// Where packages come from: the apt mirror, nouveau out of the way, NVIDIA's
// CUDA repository and its mirror.
void add_repository_steps(const SetupFacts& f, SetupPlan& p) {
  const Sources& src = p.sources;
  if (!src.apt_mirror.empty()) {
    p.steps.push_back(
        {"apt_mirror", trf("apt archive from {}", src.apt_mirror),
         trf("The {} archive named in /etc/apt is replaced by the mirror, so apt-get downloads the driver, Docker "
             "and Python packages from it.",
             p.os->id),
         src.apt_source.empty() ? std::string("--apt-mirror; docs/setup.md") : src.apt_source,
         _("Restore each file from its .tfrig-bak copy in /etc/apt, then sudo apt-get update.")});
  }
  p.steps.push_back(
      {"nouveau", _("Blacklist nouveau where it is bound"),
       _("If the open-source nouveau driver owns the GPU, the NVIDIA module cannot bind and nvidia-smi finds no device."),
       "https://documentation.ubuntu.com/server/how-to/graphics/install-nvidia-drivers/",
       _("sudo rm /etc/modprobe.d/blacklist-nouveau.conf && sudo update-initramfs -u, then reboot.")});
  if (p.cuda_repo) {
    p.steps.push_back(
        {"cuda_repo", trf("Add NVIDIA's CUDA apt repository ({} {})", f.keyring_package, f.keyring_version),
         p.driver.installer == "cuda-repo" && !p.cuda.needed
             ? trf("The driver for {} comes from NVIDIA's repository (there is no ubuntu-drivers).", p.os->id)
             : _("The CUDA toolkit and cuDNN packages pinned to the tested-build table come from NVIDIA's repository."),
         "https://docs.nvidia.com/cuda/cuda-installation-guide-linux/",
         "sudo apt-get purge " + f.keyring_package + " && sudo apt-get update."});
  }
  if (p.cuda_repo && src.cuda_repo_mirrored) {
    p.steps.push_back(
        {"cuda_repo_mirror", trf("NVIDIA's CUDA repository from {}", src.cuda_repo_base),
         trf("The keyring package names {} in /etc/apt/sources.list.d/cuda-*.list; the mirror serves the same folders.",
             src.cuda_repo_default),
         "https://github.com/aws/aws-parallelcluster-cookbook/pull/919",
         _("Restore /etc/apt/sources.list.d/cuda-*.list from its .tfrig-bak copy, then sudo apt-get update.")});
  }
}

// The driver, its persistence daemon and, where the release needs them on
// the host, CUDA and cuDNN held at the tested versions.
void add_driver_steps(SetupPlan& p) {
  p.steps.push_back({"driver",
                     p.driver.open ? trf("NVIDIA driver branch {} (open kernel modules)", p.driver.branch)
                                   : trf("NVIDIA driver branch {}", p.driver.branch),
                     p.driver.why,
                     p.driver.installer == "ubuntu-drivers"
                         ? "https://documentation.ubuntu.com/server/how-to/graphics/install-nvidia-drivers/"
                         : "https://docs.nvidia.com/cuda/cuda-installation-guide-linux/",
                     p.driver.installer == "ubuntu-drivers"
                         ? trf("{} and reboot.", "sudo apt-get --purge remove '*nvidia*" + p.driver.branch + "*'")
                         : trf("{} and reboot.", "sudo apt-get --purge remove " + p.driver.install_id)});
  p.steps.push_back(
      {"persistenced", _("Turn the NVIDIA persistence daemon on"),
       _("Without a persistent client the driver tears the GPU state down when the last process exits; every start "
         "then pays seconds of re-initialisation."),
       "https://docs.nvidia.com/deploy/driver-persistence/index.html",
       "sudo systemctl disable --now nvidia-persistenced."});
  if (p.cuda.needed) {
    p.steps.push_back(
        {"cuda",
         trf("CUDA {} ({}) and cuDNN {} ({}), held at those versions", p.cuda.cuda, p.cuda.package, p.cuda.cudnn,
             p.cuda.cudnn_package),
         trf("TensorFlow {} was built and tested with CUDA {} and cuDNN {}; another major version gives 'Could not "
             "load dynamic library'.",
             p.tfs.front().version, p.cuda.cuda, p.cuda.cudnn),
         "https://www.tensorflow.org/install/source#gpu",
         "sudo apt-mark unhold " + p.cuda.cudnn_package + " && sudo apt-get purge " + p.cuda.package + " " +
             p.cuda.cudnn_package + "; sudo rm /etc/ld.so.conf.d/90-tfrig-cuda.conf && sudo ldconfig."});
  }
}

// The pip method: a venv, its index mirror, TensorFlow.
void add_python_steps(SetupPlan& p) {
  const Sources& src = p.sources;
  p.steps.push_back({"python", trf("A Python {} virtual environment in {}", p.python, p.venv_dir),
                     trf("TensorFlow {} supports Python {}; a venv keeps its pins away from the system's Python.",
                         p.tfs.front().version, python_range(*p.tfs.front().build)),
                     "https://www.tensorflow.org/install/pip", "sudo rm -rf " + p.venv_dir + "."});
  if (!src.pip_index.empty()) {
    p.steps.push_back(
        {"pip_index", trf("pip in the venv downloads from {}", src.pip_index),
         _("pip.conf in the venv sets index-url, so the install below and every later pip install in the venv use "
           "the mirror."),
         "https://pip.pypa.io/en/stable/topics/configuration/", "rm " + p.venv_dir + "/pip.conf."});
  }
  p.steps.push_back(
      {"tensorflow", trf("Install {}", p.tfs.front().pip_requirement),
       p.tfs.front().and_cuda
           ? _("The [and-cuda] extra installs the NVIDIA CUDA and cuDNN wheels this release was tested with; the "
               "host needs only the driver.")
           : _("This release uses the CUDA and cuDNN installed by the step above."),
       "https://www.tensorflow.org/install/pip",
       p.venv_dir + "/bin/python -m pip uninstall " + p.tfs.front().pip_name + "."});
}

// The container methods: Docker, its registry mirror, the Container Toolkit.
void add_container_steps(const SetupFacts& f, SetupPlan& p) {
  const Sources& src = p.sources;
  p.steps.push_back({"docker", _("Docker engine"),
                     _("The container method runs TensorFlow in Docker; the host keeps only the driver."),
                     "https://www.tensorflow.org/install/docker", "sudo apt-get purge " + p.os->docker_package + "."});
  if (!src.docker_registry_mirror.empty()) {
    p.steps.push_back(
        {"registry_mirror", trf("Docker Hub through the registry mirror {}", src.docker_registry_mirror),
         _("registry-mirrors in /etc/docker/daemon.json: Docker pulls the TensorFlow images from Docker Hub "
           "through the mirror."),
         "https://docs.docker.com/docker-hub/image-library/mirror/",
         _("Remove the mirror from \"registry-mirrors\" in /etc/docker/daemon.json; sudo systemctl restart docker.")});
  }
  p.steps.push_back(
      {"container_toolkit", _("NVIDIA Container Toolkit: repository, package, Docker runtime"),
       _("The toolkit gives containers the host's driver (docker run --gpus all); nvidia-ctk registers its "
         "runtime in /etc/docker/daemon.json."),
       "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html",
       trf("sudo apt-get purge {}; remove the \"nvidia\" runtime from /etc/docker/daemon.json; sudo systemctl "
           "restart docker.",
           f.ctk_package)});
}

// The OS tuning of the configuration guide: swap, limits, CPU governor.
void add_tuning_steps(SetupPlan& p) {
  p.steps.push_back(
      {"swap", trf("Swap off and vm.swappiness={}", p.swappiness),
       _("The configuration guide (docs/guide.md): turn swap off on a training server; a paging host stalls the "
         "input pipeline and pinned buffers. Common practice, not an NVIDIA/TF rule."),
       "guide; https://www.kernel.org/doc/Documentation/admin-guide/sysctl/vm.rst",
       _("sudo rm /etc/sysctl.d/90-tfrig.conf; restore /etc/fstab from /etc/fstab.tfrig-bak; sudo swapon -a; sudo "
         "sysctl --system.")});
  p.steps.push_back(
      {"limits", trf("Open files {} and unlimited locked memory", p.nofile),
       _("Many TFRecord shards read in parallel hit 'Too many open files'; NCCL over RDMA needs locked memory."),
       "tensorflow/datasets#1441; NVIDIA/nccl-tests#206",
       _("sudo rm /etc/security/limits.d/90-tfrig.conf and log in again.")});
  p.steps.push_back(
      {"governor", trf("CPU frequency governor: {}", p.governor),
       _("Decoding and augmentation in tf.data run on the CPU; a power-saving governor slows the input pipeline. "
         "Common practice."),
       "https://www.kernel.org/doc/Documentation/admin-guide/pm/cpufreq.rst",
       _("Reboot (the setting is not persistent), or write the old governor back to "
         "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor.")});
}

// The installation's steps in the order install.sh runs them, each with what
// it does, why, its source and how to undo it.
void build_steps(const Knowledge& k, SetupPlan& p) {
  const SetupFacts& f = k.setup();
  const bool container = p.method == Method::kContainer || p.method == Method::kNgc;
  add_preflight_steps(f, p);
  add_repository_steps(f, p);
  add_driver_steps(p);
  if (!container) {
    add_python_steps(p);
  } else {
    add_container_steps(f, p);
  }
  add_tuning_steps(p);
  p.steps.push_back({"verify", _("Verify: nvidia-smi and a one-line TensorFlow GPU check"),
                     _("Prints the driver and GPUs the system sees, then whether TensorFlow lists a GPU."),
                     container ? "https://www.tensorflow.org/install/docker" : "https://www.tensorflow.org/install/pip",
                     _("Nothing to undo.")});
}

}  // namespace

std::string_view method_name(Method m) {
  switch (m) {
    case Method::kPip: return "pip";
    case Method::kApt: return "apt";
    case Method::kContainer: return "container";
    case Method::kNgc: return "ngc";
  }
  return "pip";
}

std::optional<Method> parse_method(std::string_view s) {
  if (s == "pip") return Method::kPip;
  if (s == "apt") return Method::kApt;
  if (s == "container") return Method::kContainer;
  if (s == "ngc") return Method::kNgc;
  return std::nullopt;
}

namespace {

using Releases = std::vector<std::pair<const TfBuild*, std::string>>;

// The OS the plan is for: --os, else the machine's.
core::Result<const OsTarget*> choose_os(const SetupFacts& f, const inventory::Inventory* inv, const SetupOptions& o) {
  if (f.os_targets.empty())
    return core::fail(core::ErrorCode::kParse, "setup.json", _("no os_targets in the knowledge base"));
  std::string known_os;
  for (const auto& t : f.os_targets) known_os += (known_os.empty() ? "" : ", ") + t.id;
  if (!o.os.empty()) {
    const OsTarget* os = f.find_os(o.os);
    if (!os)
      return core::fail(core::ErrorCode::kInvalidArgument, "--os", trf("unknown OS '{}' (known: {})", o.os, known_os));
    return os;
  }
  const std::string id = inv && inv->host.os_id ? *inv->host.os_id : "";
  const std::string version = inv && inv->host.os_version_id ? *inv->host.os_version_id : "";
  const OsTarget* os = f.find_os(id, version);
  if (!os) {
    return core::fail(core::ErrorCode::kInvalidArgument, "--os",
                      trf("this machine's OS ({}) has no setup recipe; pass --os, one of: {}",
                          id.empty() ? _("unknown") : id + " " + version, known_os));
  }
  return os;
}

// The releases asked for (or the newest that works), or why none can: an
// Error for a version the knowledge base does not know, a Refusal for one
// that cannot work here.
core::Result<std::variant<Releases, Refusal>> choose_releases(const Knowledge& k, const SetupOptions& o, SetupPlan& p) {
  const OsTarget& os = *p.os;
  Releases wanted;
  // Under a China preset without a registry mirror the container images come from NGC (plan_sources).
  const bool ngc_images = p.sources.images_from_ngc;
  if (o.tf.empty()) {
    for (const auto& b : k.tf_builds()) {
      if (why_not(k, os, o.method, p.gpu, b).empty() &&
          (!ngc_images || why_not(k, os, Method::kNgc, p.gpu, b).empty())) {
        wanted.emplace_back(&b, b.tf);
        break;
      }
    }
    if (wanted.empty()) {
      return Refusal{p.gpu.cc
                         ? trf("no TensorFlow release in the tested-build table works on {} with method {} and compute "
                               "capability {}",
                               os.id, method_name(o.method), *p.gpu.cc)
                         : trf("no TensorFlow release in the tested-build table works on {} with method {}", os.id,
                               method_name(o.method)),
                     nearest(k, os, o.method, p.gpu, nullptr, given_target(o))};
    }
    p.notes.push_back(
        trf("TensorFlow {}: the newest release this machine can run with method {} (pass --tf to choose).",
            wanted.front().second, method_name(o.method)));
    return wanted;
  }
  for (const auto& t : o.tf) {
    auto r = TFRIG_TRY(resolve_tf(k, t));
    wanted.push_back(r);
  }
  for (const auto& [b, version] : wanted) {
    std::string reason = why_not(k, os, o.method, p.gpu, *b);
    if (!reason.empty()) return Refusal{reason, nearest(k, os, o.method, p.gpu, b, given_target(o))};
    if (ngc_images) {
      // Docker Hub's image would not download there; without an NGC image nothing can stand in for it.
      const std::string ngc_reason = why_not(k, os, Method::kNgc, p.gpu, *b);
      if (!ngc_reason.empty()) {
        const std::string mirror = " --mirror " + o.mirrors.preset;
        std::vector<std::string> near = {
            "--tf " + b->tf + " --method container" + mirror + given_target(o) + " --docker-registry-mirror URL",
            "--tf " + b->tf + " --method pip" + mirror + given_target(o)};
        for (auto& n : nearest(k, os, Method::kNgc, p.gpu, b, given_target(o))) {
          if (near.size() < 4) near.push_back(n + mirror);
        }
        return Refusal{
            trf("TensorFlow {0}'s official image is on Docker Hub, which does not answer from mainland China, and "
                "NGC cannot stand in for it ({1}). Pass --docker-registry-mirror URL with your cloud's registry "
                "accelerator (Alibaba Cloud ACR https://ID.mirror.aliyuncs.com, Tencent Cloud "
                "https://mirror.ccs.tencentyun.com inside Tencent Cloud, Huawei Cloud SWR's accelerator), or "
                "install with --method pip",
                b->tf, ngc_reason),
            near};
      }
    }
  }
  return wanted;
}

// One TfTarget per release: the pip requirement or the image, and the kernel
// notes for this GPU. Returns the newest CUDA the releases need.
std::string plan_releases(const Knowledge& k, const Releases& wanted, SetupPlan& p) {
  const SetupFacts& f = k.setup();
  const bool container = p.method == Method::kContainer || p.method == Method::kNgc;
  std::string need_cuda;
  for (const auto& [b, version] : wanted) {
    TfTarget t;
    t.version = version;
    t.build = b;
    // [and-cuda] only for pip: the apt method uses the system's CUDA and cuDNN.
    t.and_cuda = p.method == Method::kPip && and_cuda_for(k, version);
    t.pip_name = b->package == "tensorflow_gpu" ? "tensorflow-gpu" : "tensorflow";
    t.pip_requirement = t.pip_name + (t.and_cuda ? "[and-cuda]" : "") + "==" + version;
    t.service = service_name(version);
    t.image_cuda = cuda_needed(k, p.method, *b);
    // NGC's image of this release: --method ngc, or a container from mainland
    // China without a registry mirror (choose_releases checked one exists).
    const bool from_ngc = p.method == Method::kNgc || (p.method == Method::kContainer && p.sources.images_from_ngc);
    if (from_ngc) {
      t.ngc = f.ngc_for(b->tf);
      t.image = f.ngc_repository + ":" + t.ngc->release + f.ngc_tag_suffix;
      if (p.method == Method::kContainer) t.image_cuda = t.ngc->cuda;
      add_version(p, "ngc_release", t.ngc->release);
      add_version(p, "tf", t.ngc->tf);
      if (t.ngc->uncertain) {
        p.notes.push_back(
            trf("NGC {} = TensorFlow {} with CUDA {} is UNCONFIRMED from NVIDIA's release notes (docs/setup.md); "
                "check the image's banner.",
                t.ngc->release, t.ngc->tf, t.ngc->cuda));
      }
    } else if (p.method == Method::kContainer) {
      // Docker Hub has images for the table's rows (x.y.0), not every patch.
      t.image = f.docker_repository + ":" + b->tf + f.docker_gpu_suffix;
      add_version(p, "tf", b->tf);
    }
    if (p.gpu.cc && !t.ngc && ver(b->tf) && ver(*p.gpu.cc)) {
      auto kv = k.kernel_support(*ver(b->tf), *ver(*p.gpu.cc));
      if (kv.support == knowledge::KernelSupport::kPtxJit && kv.uncertain) {
        // An inferred kernel list: the note says so and how to settle it after the install.
        t.kernel_note =
            kv.alternative
                // TRANSLATORS: {0} a release, {1} a compute capability, {2} "PTX compute_80 only (JIT)", {3}/{5}
                // the two candidate lists, {4} "sm_80 SASS", {6} how to check on the machine.
                ? trf("Uncertain: TensorFlow {0} may have only PTX for compute capability {1} ({2}, if the wheel "
                      "carries {3}: the first start JIT-compiles every kernel, 30 minutes or more), or {4} (if it "
                      "carries {5}); {6}.",
                      b->tf, *p.gpu.cc, kv.detail, kv.targets, kv.alternative_detail, kv.alternative_targets,
                      knowledge::kernel_list_check_hint())
                // TRANSLATORS: {0} a release, {1} a compute capability, {2} "PTX compute_90 only (JIT)", {3} how to check.
                : trf("TensorFlow {0} probably has only PTX for compute capability {1} ({2}): the driver would "
                      "JIT-compile every kernel on first start (30 minutes or more); uncertain, the kernel list is "
                      "inferred; {3}.",
                      b->tf, *p.gpu.cc, kv.detail, knowledge::kernel_list_check_hint());
        p.notes.push_back(t.kernel_note);
      } else if (kv.support == knowledge::KernelSupport::kPtxJit) {
        t.kernel_note =
            trf("TensorFlow {} has only PTX for compute capability {} ({}): the driver JIT-compiles every kernel on "
                "first start (30 minutes or more).",
                b->tf, *p.gpu.cc, kv.detail);
        p.notes.push_back(t.kernel_note);
      } else if (kv.support == knowledge::KernelSupport::kUnknown) {
        p.notes.push_back(
            trf("Which compute capabilities TensorFlow {} carries kernels for is not in the knowledge base.", b->tf));
      }
    }
    if (need_cuda.empty() || minor_ge(t.image_cuda, need_cuda)) need_cuda = t.image_cuda;
    add_version(p, "tf", version);
    add_version(p, "cuda", t.image_cuda);
    if (!container) {
      add_version(p, "cuda", b->cuda);
      add_version(p, "cudnn", b->cudnn);
    }
    p.tfs.push_back(std::move(t));
  }
  return need_cuda;
}

// The driver branch, its installer and kernel modules, and why.
void plan_driver(const Knowledge& k, const std::string& need_cuda, SetupPlan& p) {
  const SetupFacts& f = k.setup();
  const OsTarget& os = *p.os;
  DriverPlan& d = p.driver;
  d.branch = choose_branch(k, os, need_cuda, p.gpu.cc);
  d.branch_cuda = branch_cuda(k, d.branch);
  d.min_driver_cuda = need_cuda;
  d.min_driver = min_driver_for(k, need_cuda);
  d.installer = os.driver_installer;
  {
    auto cc = p.gpu.cc ? ver(*p.gpu.cc) : std::nullopt;
    auto sup = ver(f.open_supported_min_cc), req = ver(f.open_required_min_cc);
    auto branch_v = core::parse_u64(d.branch), from = core::parse_u64(f.open_default_from_branch);
    d.open = cc && ((req && *cc >= *req) || (sup && *cc >= *sup && branch_v && from && *branch_v >= *from));
  }
  if (d.installer == "ubuntu-drivers") {
    d.install_id = f.driver_package(d.open ? "ubuntu_drivers_server_open" : "ubuntu_drivers_server", d.branch);
    d.utils_package = f.driver_package("ubuntu_utils", d.branch);
  } else {
    d.install_id = f.driver_package(d.open ? "cuda_repo_open" : "cuda_repo_proprietary", d.branch);
  }
  // Open modules need a known GPU: without one, the proprietary modules drive every generation.
  if (!p.gpu.cc) {
    d.why = trf(
        "CUDA {} needs driver {} or newer; branch {} ships CUDA {} and is the newest branch {} offers. Proprietary kernel "
        "modules: the GPU is not known, and they drive every generation this branch supports.",
        need_cuda, d.min_driver, d.branch, d.branch_cuda, os.id);
  } else if (d.open) {
    d.why = trf(
        "CUDA {0} needs driver {1} or newer; branch {2} ships CUDA {3} and is the newest branch {4} offers that drives "
        "compute capability {5}. Open kernel modules: NVIDIA's default from branch {6} for compute capability {7} and newer.",
        need_cuda, d.min_driver, d.branch, d.branch_cuda, os.id, *p.gpu.cc, f.open_default_from_branch,
        f.open_supported_min_cc);
  } else {
    d.why = trf(
        "CUDA {0} needs driver {1} or newer; branch {2} ships CUDA {3} and is the newest branch {4} offers that drives "
        "compute capability {5}. Proprietary kernel modules (the open ones need compute capability {6} and branch {7} or "
        "newer).",
        need_cuda, d.min_driver, d.branch, d.branch_cuda, os.id, *p.gpu.cc, f.open_supported_min_cc,
        f.open_default_from_branch);
  }
  add_version(p, "driver_branch", d.branch);
  add_version(p, "cuda", d.branch_cuda);
  add_version(p, "min_driver", d.min_driver);
  if (p.gpu.name.find("SXM") != std::string::npos && d.installer == "ubuntu-drivers") {
    // jax-ml/jax#24866, NVIDIA Fabric Manager user guide: NVSwitch boards fail with CUDA_ERROR_SYSTEM_NOT_READY without it.
    p.notes.push_back(
        trf("An SXM GPU: on an NVSwitch (HGX) board also install {} (the same branch as the driver) and enable "
            "nvidia-fabricmanager.service.",
            f.driver_package("ubuntu_fabricmanager", d.branch)));
  }
  if (!p.gpu.cc) {
    p.notes.push_back(
        trf("No GPU known (none found, none given with --gpu): the driver is the proprietary {} branch and "
            "tuning.py picks the precision at run time.",
            d.branch));
  }
}

// CUDA and cuDNN from NVIDIA's repository (apt; pip before [and-cuda]), and
// whether that repository is added at all.
void plan_cuda_libraries(const Knowledge& k, SetupPlan& p) {
  const SetupFacts& f = k.setup();
  const bool container = p.method == Method::kContainer || p.method == Method::kNgc;
  const TfTarget& first = p.tfs.front();
  const auto* cudnn_pkg = cudnn_package_for(f, first.build->cudnn);
  auto cv = ver(first.build->cuda);
  if (!container && needs_cuda_repo_libs(p.method, first.and_cuda) && cv && cudnn_pkg) {
    CudaPlan& c = p.cuda;
    const std::map<std::string, std::string> vals{{"major", std::to_string(cv->major())},
                                                  {"minor", std::to_string(cv->minor())},
                                                  {"cuda_major", std::to_string(cv->major())},
                                                  {"cudnn", first.build->cudnn}};
    c.needed = true;
    c.cuda = first.build->cuda;
    c.package =
        knowledge::fill_template(p.method == Method::kApt ? f.cuda_toolkit_package : f.cuda_libraries_package, vals);
    c.cudnn = first.build->cudnn;
    c.cudnn_package = knowledge::fill_template(cudnn_pkg->package, vals);
    c.cudnn_prefix = knowledge::fill_template(cudnn_pkg->version_prefix, vals);
    c.cudnn_suffix = knowledge::fill_template(cudnn_pkg->version_suffix, vals);
    c.lib_dir = "/usr/local/cuda-" + c.cuda + "/lib64";
  }
  p.cuda_repo = p.cuda.needed || p.driver.installer == "cuda-repo";
  if (p.cuda_repo) add_version(p, "cuda_keyring", f.keyring_version);
}

// What the host itself contributes: the repository architecture, the venv's
// Python, whether nouveau holds the GPU.
void plan_host(const Knowledge& k, const inventory::Inventory* inv, SetupPlan& p) {
  const bool container = p.method == Method::kContainer || p.method == Method::kNgc;
  p.repo_arch = inv && inv->host.architecture == std::optional<std::string>("aarch64") ? "sbsa" : "x86_64";
  if (!container) {
    p.python = p.os->python;
    add_version(p, "python", p.python);
  }
  p.venv_dir = k.setup().venv_dir;
  add_version(p, "os", p.os->version_id);
  p.nouveau_bound = inv && (inv->driver.module_nouveau == std::optional<bool>(true) ||
                            std::any_of(inv->pci.devices.begin(), inv->pci.devices.end(), [](const auto& dev) {
                              return dev.is_gpu && dev.driver == std::optional<std::string>("nouveau");
                            }));
  if (p.os->uncertain) {
    p.notes.push_back(
        trf("The driver branches and CUDA range of {} are remembered, not read from the archive: install.sh checks "
            "the package exists before installing.",
            p.os->id));
  }
}

// A URL from a mirror option, checked before it is written into a shell
// script, a sed expression and a YAML file: http(s), no quoting or shell
// characters, no trailing slash.
core::Result<std::string> mirror_url(std::string_view option, const std::string& url) {
  if (url.empty()) return std::string();
  if (!core::starts_with(url, "https://") && !core::starts_with(url, "http://")) {
    return core::fail(core::ErrorCode::kInvalidArgument, std::string(option),
                      trf("expected an http:// or https:// URL, got '{}'", url));
  }
  for (char c : url) {
    if (static_cast<unsigned char>(c) <= ' ' ||
        std::string_view("'\"`$\\#;|&<>(){}*?[]!^@%").find(c) != std::string_view::npos) {
      return core::fail(core::ErrorCode::kInvalidArgument, std::string(option),
                        trf("the URL '{}' holds '{}', which a URL for install.sh may not", url, std::string(1, c)));
    }
  }
  std::string out = url;
  while (out.size() > 8 && out.back() == '/') out.pop_back();
  return out;
}

// The mirror an option names, else the preset's, else "" (the default).
core::Result<std::pair<std::string, const knowledge::SourceUrl*>> pick(std::string_view option,
                                                                       const std::string& given,
                                                                       const knowledge::SourceUrl* preset) {
  auto u = TFRIG_TRY(mirror_url(option, given));
  if (!u.empty()) return std::make_pair(u, static_cast<const knowledge::SourceUrl*>(nullptr));
  if (preset && !preset->url.empty()) return std::make_pair(preset->url, preset);
  return std::make_pair(std::string(), static_cast<const knowledge::SourceUrl*>(nullptr));
}

void add_check(Sources& s, std::string what, std::string url, bool mirror) {
  for (const auto& c : s.checks) {
    if (c.url == url) return;
  }
  s.checks.push_back({std::move(what), std::move(url), mirror});
}

}  // namespace

// setup.json's "tuna" (= "cn") preset docker_hub_note, marked here so that
// translators see it (a test checks it equals the knowledge base's text).
const char* const kCnDockerHubNote = N_(
    "No public Docker Hub mirror in China is dependable for multi-gigabyte TensorFlow images (see "
    "unusable_docker_hub_mirrors): under a China preset the container images come from NGC (nvcr.io) unless you pass "
    "--docker-registry-mirror with your cloud's registry accelerator (Alibaba Cloud ACR https://ID.mirror.aliyuncs.com, "
    "Tencent Cloud https://mirror.ccs.tencentyun.com inside Tencent Cloud, Huawei Cloud SWR's accelerator).");

std::vector<std::string> mirror_choices(const SetupFacts& f) {
  std::vector<std::string> out;
  for (const auto& p : f.mirror_presets) {
    out.push_back(p.id);
    for (const auto& a : p.aliases) out.push_back(a);
  }
  out.push_back("auto");
  return out;
}

namespace {

// A host and the hosts under it: "abc.mirror.aliyuncs.com" is under "mirror.aliyuncs.com"
// (as doctor's os.configured_for_china matches setup.json's mirrors.china hosts).
bool host_under(const std::string& host, const std::string& h) {
  return !h.empty() && (host == h || (host.size() > h.size() && core::ends_with(host, "." + h)));
}

// Every host a preset's URLs name.
std::vector<std::string> preset_hosts(const knowledge::MirrorPreset& pr) {
  std::vector<std::string> out;
  auto add = [&](const knowledge::SourceUrl& u) {
    const std::string h = probe::url_host(u.url);
    if (!h.empty() && std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  };
  for (const auto& a : pr.apt) {
    add(a.url);
    add(a.security);
  }
  for (const auto* u : {&pr.pip_index, &pr.conda, &pr.docker_registry_mirror}) add(*u);
  return out;
}

// --mirror auto: what the host probe read on the machine (or its snapshot) --
// the download hosts its pip, apt and Docker configurations name, its locale
// and time zone (probe/region.cpp, the same facts doctor's
// os.configured_for_china judges) -- against the presets' hosts. A cloud's
// intranet host (it resolves only inside that cloud) says the machine is on
// it; a public mirror already configured is kept; any other sign of mainland
// China gives the first China preset; none gives the default sources.
struct PresetChoice {
  const knowledge::MirrorPreset* preset = nullptr;
  std::string reason;
};

PresetChoice choose_auto_preset(const SetupFacts& f, const inventory::Inventory* inv) {
  if (!inv)
    return {nullptr, _("--mirror auto: nothing is known of the machine (it was not probed and no snapshot was given): "
                       "the default sources.")};
  const auto& r = inv->region;
  // The file naming the OS archive came with the machine's image: it counts double
  // (sources.list, or the deb822 ubuntu.sources / debian.sources of Ubuntu 24.04 and Debian 12).
  auto weight = [](const inventory::ConfiguredSource& src) {
    return src.file == "/etc/apt/sources.list" || core::ends_with(src.file, "/ubuntu.sources") ||
                   core::ends_with(src.file, "/debian.sources")
               ? 2
               : 1;
  };
  // Intranet presets first; the most weight wins, ties to the knowledge base's order.
  const knowledge::MirrorPreset* best = nullptr;
  const inventory::ConfiguredSource* seen = nullptr;
  int best_n = 0;
  for (bool intranet : {true, false}) {
    for (const auto& pr : f.mirror_presets) {
      if (pr.intranet != intranet) continue;
      const auto hosts = preset_hosts(pr);
      int n = 0;
      const inventory::ConfiguredSource* heaviest = nullptr;
      for (const auto& src : r.sources) {
        if (std::any_of(hosts.begin(), hosts.end(), [&](const std::string& h) { return host_under(src.host, h); })) {
          n += weight(src);
          if (!heaviest || weight(src) > weight(*heaviest)) heaviest = &src;
        }
      }
      if (n > best_n) {
        best = &pr;
        best_n = n;
        seen = heaviest;
      }
    }
    if (best) break;
  }
  if (best) {
    return {best,
            best->intranet
                // TRANSLATORS: {0} a preset id, {1} a file, {2} a host name.
                ? trf("--mirror auto chose {0}: {1} names {2}, a host that answers only inside that cloud, so this "
                      "machine runs there and its intranet mirror is free of public traffic.",
                      best->id, seen->file, seen->host)
                : trf("--mirror auto chose {0}: {1} names {2}; the machine already downloads from it.", best->id,
                      seen->file, seen->host)};
  }
  // Other signs of mainland China: the locale, the time zone, another mirror of China (setup.json mirrors.china).
  std::string sign;
  if (r.locale && std::find(f.china.locales.begin(), f.china.locales.end(),
                            r.locale->substr(0, r.locale->find_first_of(".@"))) != f.china.locales.end()) {
    sign = trf("locale {}", *r.locale);
  } else if (r.time_zone && std::find(f.china.time_zones.begin(), f.china.time_zones.end(), *r.time_zone) !=
                                f.china.time_zones.end()) {
    sign = trf("time zone {}", *r.time_zone);
  } else {
    for (const auto& src : r.sources) {
      if (std::any_of(f.china.mirror_hosts.begin(), f.china.mirror_hosts.end(),
                      [&](const std::string& h) { return host_under(src.host, h); })) {
        sign = trf("{} names {}", src.file, src.host);
        break;
      }
    }
  }
  if (!sign.empty()) {
    for (const auto& pr : f.mirror_presets) {
      if (pr.china && pr.cloud.empty()) {
        return {&pr,
                trf("--mirror auto chose {0}: the machine looks set up for mainland China ({1}) and names no cloud's "
                    "mirror.",
                    pr.id, sign)};
      }
    }
  }
  return {nullptr,
          _("--mirror auto: nothing on the machine says mainland China (locale, time zone, package sources): the "
            "default sources.")};
}

// --mirror: a preset by id or alias, or auto's choice.
core::Result<PresetChoice> choose_preset(const SetupFacts& f, const inventory::Inventory* inv, const MirrorOptions& m) {
  if (m.preset.empty()) return PresetChoice{};
  if (m.preset == "auto") return choose_auto_preset(f, inv);
  if (const auto* pr = f.find_preset(m.preset)) return PresetChoice{pr, ""};
  std::string known;
  for (const auto& c : mirror_choices(f)) known += (known.empty() ? "" : ", ") + c;
  return core::fail(core::ErrorCode::kInvalidArgument, "--mirror",
                    trf("no mirror preset '{}' in the knowledge base (known: {})", m.preset, known));
}

// What a preset decides before the releases are chosen: under a China preset,
// container images come from NGC unless a registry mirror is known.
void plan_preset(const SetupFacts& f, const SetupOptions& o, const PresetChoice& choice, SetupPlan& p) {
  Sources& s = p.sources;
  const auto* preset = choice.preset;
  s.auto_reason = choice.reason;
  if (!choice.reason.empty()) p.notes.push_back(choice.reason);
  if (!preset) return;
  s.preset = o.mirrors.preset == "auto" ? preset->id : o.mirrors.preset;
  s.preset_description = preset->description;
  s.china = preset->china;
  s.images_from_ngc = preset->china && o.method == Method::kContainer && o.mirrors.docker_registry.empty() &&
                      preset->docker_registry_mirror.url.empty();
  if (s.images_from_ngc) {
    // Translated by its English text: kCnDockerHubNote puts the note in the catalog.
    const auto* tuna = f.find_preset("cn");
    p.notes.push_back(_(tuna && !tuna->docker_hub_note.empty() ? tuna->docker_hub_note.c_str() : kCnDockerHubNote));
  }
}

// apt: the OS archive named in /etc/apt, and Debian's security archive.
core::Status plan_apt_source(const Knowledge& k, const SetupOptions& o, const knowledge::MirrorPreset* preset,
                             SetupPlan& p) {
  const SetupFacts& f = k.setup();
  const MirrorOptions& m = o.mirrors;
  Sources& s = p.sources;
  const std::string arch = p.repo_arch == "sbsa" ? "aarch64" : "x86_64";
  const knowledge::AptMirror* preset_apt = preset ? preset->apt_for(p.os->os_id, arch) : nullptr;
  auto apt = TFRIG_TRY(pick("--apt-mirror", m.apt, preset_apt ? &preset_apt->url : nullptr));
  if (!apt.first.empty()) {
    const knowledge::AptArchive* archive = f.apt_archive(p.os->os_id, arch);
    if (!archive) {
      return core::fail(core::ErrorCode::kInvalidArgument, "--apt-mirror",
                        trf("the knowledge base does not say where {} names its archive for {}", p.os->id, arch));
    }
    s.apt_mirror = apt.first;
    s.apt_pattern = archive->pattern;
    s.apt_rewrites.push_back({archive->pattern, s.apt_mirror});
    if (apt.second) {
      auto it = f.source_urls.find(apt.second->source);
      if (it != f.source_urls.end()) s.apt_source = it->second;
    }
    add_check(s, _("apt archive mirror"), s.apt_mirror + "/", true);
    // Debian's security archive: the preset's mirror of it (a --apt-mirror of one's own leaves it as it is).
    if (apt.second && !archive->security_pattern.empty() && preset_apt && !preset_apt->security.url.empty()) {
      auto sec = TFRIG_TRY(mirror_url("--mirror", preset_apt->security.url));
      s.apt_rewrites.push_back({archive->security_pattern, sec});
      add_check(s, _("apt security archive mirror"), sec + "/", true);
    }
  }
  return {};
}

// NVIDIA's CUDA repository (the keyring, the driver on Debian, CUDA and cuDNN).
core::Status plan_cuda_repo_source(const Knowledge& k, const SetupOptions& o, const knowledge::MirrorPreset* preset,
                                   SetupPlan& p) {
  const SetupFacts& f = k.setup();
  const MirrorOptions& m = o.mirrors;
  Sources& s = p.sources;
  auto cuda = TFRIG_TRY(pick("--cuda-repo", m.cuda_repo, preset ? &preset->cuda_repo : nullptr));
  s.cuda_repo_default = f.cuda_repo_url_base;
  s.cuda_repo_mirrored = !cuda.first.empty();
  s.cuda_repo_base = s.cuda_repo_mirrored ? cuda.first : f.cuda_repo_url_base;
  if (p.cuda_repo) {
    add_check(s, s.cuda_repo_mirrored ? _("CUDA repository mirror") : _("NVIDIA CUDA repository"),
              s.cuda_repo_base + "/" + p.os->cuda_repo + "/" + p.repo_arch + "/" + f.keyring_package + "_" +
                  f.keyring_version + "_all.deb",
              s.cuda_repo_mirrored);
    if (cuda.second && cuda.second->uncertain) {
      p.notes.push_back(
          trf("The CUDA repository mirror {} is NVIDIA's China host, not documented by NVIDIA (docs/setup.md): "
              "install.sh checks it answers.",
              s.cuda_repo_base));
    }
  }
  return {};
}

// pip (pip and apt methods; a container's pip gets PIP_INDEX_URL from the
// Dockerfile), conda, and Hugging Face's endpoint from China.
core::Status plan_python_sources(const Knowledge& k, const SetupOptions& o, const knowledge::MirrorPreset* preset,
                                 SetupPlan& p) {
  const SetupFacts& f = k.setup();
  const MirrorOptions& m = o.mirrors;
  Sources& s = p.sources;
  const bool container = p.method == Method::kContainer || p.method == Method::kNgc;
  auto pip = TFRIG_TRY(pick("--pip-index", m.pip_index, preset ? &preset->pip_index : nullptr));
  s.pip_index = pip.first;
  // pip ignores an index over plain http unless its host is trusted (an intranet mirror).
  if (core::starts_with(s.pip_index, "http://")) s.pip_trusted_host = probe::url_host(s.pip_index);
  if (preset && !preset->conda.url.empty()) {
    auto conda = TFRIG_TRY(mirror_url("--mirror", preset->conda.url));
    s.conda = conda;
  }
  if (s.china && !f.china_downloads.hf_endpoint.url.empty()) {
    auto hf = TFRIG_TRY(mirror_url("--mirror", f.china_downloads.hf_endpoint.url));
    s.hf_endpoint = hf;
    p.notes.push_back(
        trf("Keras Applications weights and TensorFlow Datasets download from {} on first use, which does not "
            "answer dependably from mainland China: README.md says how to fetch them beforehand into {} and "
            "{}. Hugging Face downloads go through {} (HF_ENDPOINT in tfrig.env), a community mirror not run "
            "by Hugging Face.",
            probe::url_host(f.china_downloads.keras_weights.url), f.china_downloads.keras_cache,
            f.china_downloads.tfds_data_dir, s.hf_endpoint));
  }
  if (!container) {
    add_check(s, s.pip_index.empty() ? std::string("PyPI") : _("PyPI mirror"),
              (s.pip_index.empty() ? f.default_pip_index.url : s.pip_index) + "/pip/", !s.pip_index.empty());
  }
  return {};
}

// The NVIDIA Container Toolkit repository, and the registry the images come from.
core::Status plan_container_sources(const Knowledge& k, const SetupOptions& o, const knowledge::MirrorPreset* preset,
                                    SetupPlan& p) {
  const SetupFacts& f = k.setup();
  const MirrorOptions& m = o.mirrors;
  Sources& s = p.sources;
  const bool container = p.method == Method::kContainer || p.method == Method::kNgc;
  auto ctk =
      TFRIG_TRY(pick("--container-toolkit-repo", m.container_toolkit, preset ? &preset->container_toolkit : nullptr));
  s.ctk_mirrored = !ctk.first.empty();
  const std::string ctk_base = s.ctk_mirrored ? ctk.first : f.ctk_repo_base;
  // The knowledge base's URLs are under repo_base; a mirror keeps the paths below it.
  auto rebase = [&](const std::string& url) {
    return core::starts_with(url, f.ctk_repo_base) ? ctk_base + url.substr(f.ctk_repo_base.size()) : url;
  };
  s.ctk_gpgkey_url = rebase(f.ctk_gpgkey_url);
  s.ctk_list_url = rebase(f.ctk_list_url);
  // NVIDIA's list names nvidia.github.io; the mirror's copy too (ustclug/mirrorhelp).
  s.ctk_list_from = s.ctk_mirrored ? "deb " + f.ctk_repo_base : "deb https://";
  s.ctk_list_to = "deb [signed-by=" + f.ctk_keyring + "] " + (s.ctk_mirrored ? ctk_base : "https://");
  auto registry = TFRIG_TRY(
      pick("--docker-registry-mirror", m.docker_registry, preset ? &preset->docker_registry_mirror : nullptr));
  s.docker_registry_mirror = container ? registry.first : "";
  if (container) {
    add_check(s, s.ctk_mirrored ? _("Container Toolkit mirror") : _("NVIDIA Container Toolkit repository"),
              s.ctk_gpgkey_url, s.ctk_mirrored);
    if (p.method == Method::kNgc || s.images_from_ngc) {
      add_check(s, _("NGC registry"), f.ngc_registry.url, false);
    } else if (!s.docker_registry_mirror.empty()) {
      add_check(s, _("Docker Hub registry mirror"), s.docker_registry_mirror + "/v2/", true);
    } else {
      add_check(s, _("Docker Hub registry"), f.docker_hub_registry.url, false);
    }
  }
  return {};
}

// Where every download comes from: the defaults of the knowledge base, the
// --mirror preset, and the single options over both; and what install.sh
// checks answers before relying on it.
core::Status plan_sources(const Knowledge& k, const SetupOptions& o, const knowledge::MirrorPreset* preset,
                          SetupPlan& p) {
  TFRIG_TRY(plan_apt_source(k, o, preset, p));
  TFRIG_TRY(plan_cuda_repo_source(k, o, preset, p));
  TFRIG_TRY(plan_python_sources(k, o, preset, p));
  TFRIG_TRY(plan_container_sources(k, o, preset, p));
  return {};
}

// Mixed precision for the GPU, the allocator, and the OS tuning values.
void plan_tuning(const Knowledge& k, SetupPlan& p) {
  p.fp16_min_cc = k.text("mixed_float16_min_cc", "");
  p.bf16_min_cc = k.text("mixed_bfloat16_min_cc", "");
  add_version(p, "cc", p.fp16_min_cc);
  add_version(p, "cc", p.bf16_min_cc);
  if (p.gpu.cc) {
    add_version(p, "cc", *p.gpu.cc);
    auto cc = ver(*p.gpu.cc), fp16 = ver(p.fp16_min_cc), bf16 = ver(p.bf16_min_cc);
    if (cc && bf16 && *cc >= *bf16) {
      p.mixed_precision = "mixed_bfloat16";
      p.mixed_precision_why =
          trf("compute capability {} >= {}: bfloat16 Tensor Cores, float32's range, no loss scaling", *p.gpu.cc,
              p.bf16_min_cc);
    } else if (cc && fp16 && *cc >= *fp16) {
      p.mixed_precision = "mixed_float16";
      p.mixed_precision_why =
          trf("compute capability {} has float16 Tensor Cores (>= {}) but no bfloat16 ones (< {}); Keras' "
              "fit() scales the loss",
              *p.gpu.cc, p.fp16_min_cc, p.bf16_min_cc);
    } else {
      p.mixed_precision_why = trf("compute capability {} < {}: no Tensor Cores, mixed precision would not be faster",
                                  *p.gpu.cc, p.fp16_min_cc);
    }
  }
  p.cuda_malloc_async_min_cuda = k.text("cuda_malloc_async_min_cuda", "");
  add_version(p, "cuda", p.cuda_malloc_async_min_cuda);
  p.cuda_malloc_async =
      !p.cuda_malloc_async_min_cuda.empty() && std::all_of(p.tfs.begin(), p.tfs.end(), [&](const TfTarget& t) {
        return minor_ge(t.image_cuda, p.cuda_malloc_async_min_cuda);
      });
  // Clamped to what the kernel accepts before the conversion (vm.rst: swappiness 0-200;
  // nofile at most fs.nr_open's ceiling): a --knowledge file may hold any number.
  p.swappiness = static_cast<int>(std::clamp(k.number("swappiness_max", 10), 0.0, 200.0));
  p.nofile =
      std::to_string(static_cast<long long>(std::clamp(k.number("nofile_recommended", 1048576), 1024.0, 2147483584.0)));
  p.governor = k.text("governor_recommended", "performance");
}

// Values install.sh hands to apt-get, dpkg, pip, curl and sed. Quoting
// (quote.h) keeps each one word, but a word that starts with "-" is an option
// to the command (apt-get -o...::Pre-Invoke runs a command), and "#", "&" or
// "\" end or change a sed expression. The knowledge base may be a
// --knowledge folder from elsewhere, so such a value is refused, not quoted.
core::Status check_command_words(const Knowledge& k, const SetupPlan& p) {
  const SetupFacts& f = k.setup();
  constexpr std::string_view kWord = "+.:_=[]-";              // package names, versions, "nvidia:550-server"
  constexpr std::string_view kPath = "+.:_=/@-";              // images, paths, URLs
  constexpr std::string_view kSed = "+.:_=/@-()[]{}|?*^$ ,";  // sed patterns and replacements
  auto bad = [](std::string_view v, std::string_view extra, bool may_be_empty) {
    if (v.empty()) return !may_be_empty;
    if (v.front() == '-') return true;
    for (char c : v) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && extra.find(c) == std::string_view::npos) return true;
    }
    return false;
  };
  std::vector<std::tuple<std::string, std::string, std::string_view, bool>> words = {
      {"driver package", p.driver.install_id, kWord, false},
      {"nvidia-utils package", p.driver.utils_package, kWord, true},
      {"CUDA package", p.cuda.package, kWord, true},
      {"cuDNN package", p.cuda.cudnn_package, kWord, true},
      {"cuDNN version prefix", p.cuda.cudnn_prefix, kWord, true},
      {"cuDNN version suffix", p.cuda.cudnn_suffix, kWord, true},
      {"CUDA library folder", p.cuda.lib_dir, kPath, true},
      {"docker_package", p.os->docker_package, kWord, true},
      {"ctk_package", f.ctk_package, kWord, true},
      {"keyring_package", f.keyring_package, kWord, true},
      {"keyring_version", f.keyring_version, kWord, true},
      {"cuda_repo", p.os->cuda_repo, kWord, true},
      {"ctk_keyring", f.ctk_keyring, kPath, true},
      {"ctk_list_file", f.ctk_list_file, kPath, true},
      {"venv_dir", p.venv_dir, kPath, true},
      {"python", p.python, kWord, true},
      {"governor", p.governor, kWord, false},
      {"ctk_gpgkey_url", p.sources.ctk_gpgkey_url, kPath, true},
      {"ctk_list_url", p.sources.ctk_list_url, kPath, true},
      {"cuda_repo_url_base", p.sources.cuda_repo_default, kSed, true},
      {"apt_archives pattern", p.sources.apt_pattern, kSed, true},
      {"ctk_repo_base", p.sources.ctk_list_from, kSed, true},
      {"ctk_keyring", p.sources.ctk_list_to, kSed, true},
  };
  for (const auto& [key, value] : f.apt_packages) words.emplace_back("apt_packages " + key, value, kWord, true);
  for (const auto& t : p.tfs) {
    words.emplace_back("pip requirement", t.pip_requirement, kWord, true);
    words.emplace_back("image", t.image, kPath, true);
  }
  for (const auto& [what, value, allowed, may_be_empty] : words) {
    if (bad(value, allowed, may_be_empty)) {
      return core::fail(
          core::ErrorCode::kParse, "setup.json",
          trf("{} is '{}': install.sh passes it to a command, which needs one word of letters, digits and "
              "'{}', not starting with '-'",
              what, quote::one_line(value), allowed));
    }
  }
  return {};
}

}  // namespace

core::Result<PlanOutcome> make_setup_plan(const Knowledge& k, const inventory::Inventory* inv, const SetupOptions& o) {
  auto os = TFRIG_TRY(choose_os(k.setup(), inv, o));
  const bool container = o.method == Method::kContainer || o.method == Method::kNgc;
  if (o.tf.size() > 1 && !container) {
    return core::fail(core::ErrorCode::kInvalidArgument, "--tf",
                      _("several TensorFlow versions (A/B) need --method container or ngc: one service per version"));
  }
  auto gpu = TFRIG_TRY(resolve_gpu(k, inv, o.gpu));

  auto choice = TFRIG_TRY(choose_preset(k.setup(), inv, o.mirrors));

  PlanOutcome out;
  SetupPlan p;
  p.os = os;
  p.method = o.method;
  p.gpu = gpu;
  plan_preset(k.setup(), o, choice, p);
  auto releases = TFRIG_TRY(choose_releases(k, o, p));
  if (auto* refusal = std::get_if<Refusal>(&releases)) {
    out.refusal = std::move(*refusal);
    return out;
  }
  const std::string need_cuda = plan_releases(k, std::get<Releases>(releases), p);
  plan_driver(k, need_cuda, p);
  plan_cuda_libraries(k, p);
  plan_host(k, inv, p);
  TFRIG_TRY(plan_sources(k, o, choice.preset, p));
  plan_tuning(k, p);
  build_steps(k, p);
  TFRIG_TRY(check_command_words(k, p));
  out.plan = std::move(p);
  return out;
}

std::string plan_summary(const SetupPlan& p) {
  std::ostringstream s;
  const std::string gpu = p.gpu.name.empty() ? _("unknown") : p.gpu.name;
  // A GPU given as --gpu cc:X.Y is named "compute capability X.Y" already.
  const bool cc_shown = !p.gpu.cc || p.gpu.name == trf("compute capability {}", *p.gpu.cc);
  s << (cc_shown ? trf("tfrig setup: {}, method {}, GPU {}", p.os->id, method_name(p.method), gpu)
                 : trf("tfrig setup: {}, method {}, GPU {} (compute capability {})", p.os->id, method_name(p.method),
                       gpu, *p.gpu.cc))
    << "\n";
  for (const auto& t : p.tfs) {
    const std::string built = t.ngc ? "CUDA " + t.image_cuda : "CUDA " + t.image_cuda + ", cuDNN " + t.build->cudnn;
    s << "  "
      << (!t.image.empty()
              ? trf("TensorFlow {}: image {} ({})", t.version, t.image, built)
              : trf("TensorFlow {}: {} in a Python {} venv ({})", t.version, t.pip_requirement, p.python, built))
      << "\n";
  }
  s << "  "
    << (p.driver.open
            ? trf("Driver: branch {} open via {} (needs >= {})", p.driver.branch, p.driver.installer,
                  p.driver.min_driver)
            : trf("Driver: branch {} via {} (needs >= {})", p.driver.branch, p.driver.installer, p.driver.min_driver))
    << "\n";
  if (p.cuda.needed) s << "  CUDA: " << p.cuda.package << ", " << p.cuda.cudnn_package << " " << p.cuda.cudnn << ".x\n";
  s << "  "
    << trf("Mixed precision: {}",
           p.mixed_precision.empty() ? (p.gpu.cc ? _("none (float32)") : _("decided at run time")) : p.mixed_precision)
    << "\n";
  std::string urls;
  for (size_t i = 0; i < p.sources.checks.size(); ++i) urls += (i ? ", " : "") + p.sources.checks[i].url;
  std::string ids;
  for (size_t i = 0; i < p.steps.size(); ++i) ids += (i ? ", " : "") + p.steps[i].id;
  s << "  "
    << (p.sources.preset.empty() ? trf("Sources: {}", urls) : trf("Sources (--mirror {}): {}", p.sources.preset, urls))
    << "\n";
  s << "  " << trf("Steps: {}", ids) << "\n";
  for (const auto& n : p.notes) s << "  " << trf("note: {}", n) << "\n";
  return s.str();
}

std::string refusal_text(const Refusal& r) {
  std::ostringstream s;
  s << trf("tfrig setup: refused: {}", r.reason) << "\n";
  if (r.nearest.empty()) {
    s << "  " << _("no nearby combination works either") << "\n";
  } else {
    s << "  " << _("nearest that work:") << "\n";
    for (const auto& n : r.nearest) s << "    tfrig setup " << n << "\n";
  }
  return s.str();
}

}  // namespace tfrig::setup
