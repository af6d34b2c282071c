// tfrig setup, the plan: from the machine (or a snapshot), the knowledge base
// and the options, which TensorFlow, driver branch, packages, images and OS
// settings to install, step by step with why. Pure: no I/O; the renderers
// (render.h) turn a plan into files.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"
#include "inventory/inventory.h"
#include "knowledge/knowledge.h"
#include "knowledge/setup_facts.h"

namespace tfrig::setup {

enum class Method { kPip, kApt, kContainer, kNgc };
std::string_view method_name(Method m);
std::optional<Method> parse_method(std::string_view s);

// --mirror and the single options it sets; "" keeps the default source.
struct MirrorOptions {
  std::string preset;             // "tuna", "cn" (= tuna), "aliyun-intranet", ..., "auto"; "" = none
  std::string apt;                // --apt-mirror URL
  std::string pip_index;          // --pip-index URL
  std::string docker_registry;    // --docker-registry-mirror URL
  std::string cuda_repo;          // --cuda-repo URL (the folder holding ubuntu2204/, debian12/, ...)
  std::string container_toolkit;  // --container-toolkit-repo URL (the libnvidia-container folder)
};

struct SetupOptions {
  std::vector<std::string> tf;  // empty: the newest the machine can run
  std::string os;               // "" = this machine's
  Method method = Method::kPip;
  std::string gpu = "auto";  // "auto", a name/PCI id, or "cc:X.Y"
  MirrorOptions mirrors;
};

struct GpuTarget {
  std::string name;               // "NVIDIA A100-SXM4-80GB"; "" when unknown
  std::optional<std::string> cc;  // "8.0"
  std::string architecture;
  int count = 0;  // on the machine (0 when given by --gpu)
  bool from_machine = false;
};

// One TensorFlow release to install (several only for container methods).
struct TfTarget {
  std::string version;  // "2.17.0": a row of the tested-build table (or pip extras)
  const knowledge::TfBuild* build = nullptr;
  std::string pip_name;         // "tensorflow", "tensorflow-gpu"
  std::string pip_requirement;  // "tensorflow[and-cuda]==2.17.0"
  bool and_cuda = false;        // the pip extra pulls CUDA/cuDNN wheels
  std::string image;            // container/ngc: the FROM image
  std::string image_cuda;       // the CUDA the image (or the wheel) needs
  const knowledge::NgcRelease* ngc = nullptr;
  std::string service;      // compose service name: "tf-2-17"
  std::string kernel_note;  // PTX JIT or unknown kernels on this GPU
};

struct DriverPlan {
  std::string branch;           // "550"
  std::string branch_cuda;      // the CUDA the branch ships with: "12.4"
  bool open = false;            // open kernel modules
  std::string installer;        // "ubuntu-drivers" or "cuda-repo"
  std::string install_id;       // "nvidia:550-server" or the apt package
  std::string utils_package;    // nvidia-utils-550-server (ubuntu-drivers --gpgpu has no nvidia-smi)
  std::string min_driver;       // the oldest driver that runs the CUDA needed: "545.23.06"
  std::string min_driver_cuda;  // that CUDA: "12.3"
  std::string why;
};

struct CudaPlan {  // apt method, and pip for TF before [and-cuda]
  bool needed = false;
  std::string cuda;           // "12.3"
  std::string package;        // cuda-toolkit-12-3 / cuda-libraries-11-8
  std::string cudnn;          // "8.9"
  std::string cudnn_package;  // libcudnn8
  std::string cudnn_prefix;   // "8.9."
  std::string cudnn_suffix;   // "+cuda12"
  std::string lib_dir;        // /usr/local/cuda-12.3/lib64
};

// One download source install.sh checks answers before it relies on it.
struct SourceCheck {
  std::string what;     // "PyPI index"
  std::string url;      // what a HEAD request goes to
  bool mirror = false;  // a mirror (its failure names the option), else a default source
};

// One archive install.sh points at a mirror: the URLs `pattern` (sed -E, one
// group) matches in /etc/apt become `mirror`.
struct AptRewrite {
  std::string pattern;
  std::string mirror;
};

// Where install.sh (and the container files) download from.
struct Sources {
  std::string preset;                    // the preset as given ("cn") or as --mirror auto chose it; "" = none
  std::string preset_description;        // "Tsinghua University TUNA, mainland China"
  bool china = false;                    // a mainland China preset (setup.json "china")
  std::string auto_reason;               // --mirror auto: what it chose and why
  std::string apt_mirror;                // "" = /etc/apt is left as it is
  std::string apt_pattern;               // the archive URLs apt_mirror replaces (sed -E, one group)
  std::string apt_source;                // the apt mirror's public source (URL)
  std::vector<AptRewrite> apt_rewrites;  // apt_mirror's, then the security archive's (Debian)
  std::string pip_index;                 // "" = pip's default index
  std::string pip_trusted_host;   // the index's host when it is http:// (pip ignores a plain-http index otherwise)
  std::string conda;              // the preset's Anaconda mirror (condarc); "" = none
  std::string hf_endpoint;        // HF_ENDPOINT (tfrig.env) under a China preset; "" = none
  std::string cuda_repo_base;     // NVIDIA's CUDA repository or its mirror
  std::string cuda_repo_default;  // the repository the keyring's list names
  bool cuda_repo_mirrored = false;
  std::string ctk_gpgkey_url, ctk_list_url;
  std::string ctk_list_from, ctk_list_to;  // the sed that adds signed-by (and the mirror) to the list
  bool ctk_mirrored = false;
  std::string docker_registry_mirror;  // "" = Docker Hub directly
  // A China preset and a container method with no registry mirror: the images come from NGC.
  bool images_from_ngc = false;
  std::vector<SourceCheck> checks;
};

struct Step {
  std::string id;  // "driver"
  std::string title;
  std::string why;
  std::string source;  // URL or reference
  std::string undo;
};

struct SetupPlan {
  const knowledge::OsTarget* os = nullptr;
  Method method = Method::kPip;
  GpuTarget gpu;
  std::vector<TfTarget> tfs;
  DriverPlan driver;
  CudaPlan cuda;
  bool cuda_repo = false;  // the NVIDIA CUDA apt repository is added
  std::string repo_arch;   // "x86_64" or "sbsa"
  std::string python;      // the venv's Python (pip/apt)
  std::string venv_dir;
  bool nouveau_bound = false;   // the snapshot shows nouveau loaded or bound
  std::string mixed_precision;  // "mixed_float16", "mixed_bfloat16", "" (float32)
  std::string mixed_precision_why;
  std::string fp16_min_cc, bf16_min_cc;
  bool cuda_malloc_async = false;
  std::string cuda_malloc_async_min_cuda;
  int swappiness = 10;
  std::string nofile;
  std::string governor;
  Sources sources;
  std::vector<Step> steps;
  std::vector<std::string> notes;  // assumptions and caveats, printed and in the README
  // Every version the outputs contain, with what it is ("tf", "cuda", ...):
  // the test checks each against the knowledge base.
  std::vector<std::pair<std::string, std::string>> versions;
};

// Why a combination cannot work, and the nearest ones that can.
struct Refusal {
  std::string reason;
  std::vector<std::string> nearest;  // "--tf 2.15 (Python 3.9-3.11)" style suggestions
};

struct PlanOutcome {
  std::optional<SetupPlan> plan;
  std::optional<Refusal> refusal;
};

// An Error for options that name nothing known (an OS, a GPU, a TF version);
// a Refusal (in the outcome) for known parts that cannot work together.
core::Result<PlanOutcome> make_setup_plan(const knowledge::Knowledge& k, const inventory::Inventory* inv,
                                          const SetupOptions& options);

// The English text of setup.json's "tuna" (= "cn") preset docker_hub_note, as
// marked for the message catalog (the note is shown translated when the texts match).
extern const char* const kCnDockerHubNote;

// The --mirror values: every preset id and alias of the knowledge base, and "auto".
std::vector<std::string> mirror_choices(const knowledge::SetupFacts& f);

// The short plan `tfrig setup` prints.
std::string plan_summary(const SetupPlan& plan);
std::string refusal_text(const Refusal& r);

}  // namespace tfrig::setup
