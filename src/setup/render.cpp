#include "setup/render.h"

#include <sstream>

namespace tfrig::setup {

namespace {

using Values = std::vector<std::pair<std::string, std::string>>;

bool is_container(const SetupPlan& p) { return p.method == Method::kContainer || p.method == Method::kNgc; }

std::string gpu_label(const SetupPlan& p) {
  if (p.gpu.name.empty() && !p.gpu.cc) return "unknown GPU";
  std::string s = p.gpu.name.empty() ? "GPU" : p.gpu.name;
  if (p.gpu.cc && p.gpu.name.find("compute capability") == std::string::npos) s += " (compute capability " + *p.gpu.cc + ")";
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

constexpr const char* kHeader = R"SH(#!/usr/bin/env bash
# install.sh -- written by `tfrig setup` for @OS@, method @METHOD@, @GPU@,
# TensorFlow @TF@. It never ran on its own: read README.md, then
#   ./install.sh --dry-run     prints every command, changes nothing, needs no root
#   sudo ./install.sh          does it; every step checks first and says "ok: ... (skipping)"
#                              when there is nothing to do, so a second run changes nothing.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="${TFRIG_ROOT:-}"            # a throwaway root every file path is prefixed with (tests)
@VENV_LINE@DRY_RUN=0
REBOOT_NEEDED=0

usage() {
  cat <<'USAGE'
Usage: install.sh [--dry-run] [--help]
  --dry-run   print every command instead of running it (no root needed, nothing changes)
Environment: TFRIG_ROOT=DIR prefixes the files it reads and writes (a throwaway root);
             TFRIG_VENV=DIR puts the Python environment elsewhere.
USAGE
}

while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) DRY_RUN=1 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "install.sh: unknown option '$1'" >&2; usage >&2; exit 64 ;;
  esac
  shift
done

step() { printf '\n==> %s\n' "$*"; }
ok() { printf '    ok: %s (skipping)\n' "$*"; }
note() { printf '    %s\n' "$*"; }
run() {
  if [ "$DRY_RUN" -eq 1 ]; then
    printf '    would run:'
    printf ' %q' "$@"
    printf '\n'
  else
    printf '    +'
    printf ' %q' "$@"
    printf '\n'
    "$@"
  fi
}
# put_file SRC DEST MODE: installs a file shipped next to this script when it differs.
put_file() {
  local src="$HERE/$1" dest="$ROOT$2" mode="$3"
  if [ -f "$dest" ] && cmp -s "$src" "$dest"; then
    ok "$2 is up to date"
    return 0
  fi
  run install -D -m "$mode" "$src" "$dest"
}
# No `cmd | grep -q` under pipefail: grep -q exits at the first match and the writer's
# SIGPIPE would fail the pipeline; outputs are captured first.
have_pkg() {
  # shellcheck disable=SC2016 # ${Status} is dpkg-query's field, not a shell variable
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]
}
apt_install() {
  local missing=() p
  for p in "$@"; do
    have_pkg "$p" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    ok "installed: $*"
    return 0
  fi
  run env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
}
# version_ge A B: A >= B in version order.
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]; }
)SH";

constexpr const char* kPreflight = R"SH(
step_preflight() {
  step "Preflight: @OS_ID@ @OS_VERSION@, run as root"
  local os_id="" os_version=""
  if [ -r "$ROOT/etc/os-release" ]; then
    os_id="$(sed -n 's/^ID=//p' "$ROOT/etc/os-release" | tr -d '"')"
    os_version="$(sed -n 's/^VERSION_ID=//p' "$ROOT/etc/os-release" | tr -d '"')"
  fi
  if [ "$os_id" = "@OS_ID@" ] && [ "$os_version" = "@OS_VERSION@" ]; then
    ok "this machine is @OS_ID@ @OS_VERSION@"
  elif [ "$DRY_RUN" -eq 1 ]; then
    note "warning: written for @OS_ID@ @OS_VERSION@, this machine says '${os_id:-?} ${os_version:-?}' (a dry run goes on)"
  else
    echo "install.sh: written for @OS_ID@ @OS_VERSION@ but this machine is '${os_id:-unknown} ${os_version:-}';" \
      "run tfrig setup on this machine (or with --os) again" >&2
    exit 1
  fi
  if [ "$DRY_RUN" -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: installing the driver and packages and writing /etc needs root:" \
      "run 'sudo $0' (or '$0 --dry-run' to see the commands)" >&2
    exit 77
  fi
}
)SH";

constexpr const char* kNouveau = R"SH(
step_nouveau() {
  step "Blacklist nouveau where it is bound"
  if [ ! -d "$ROOT/sys/module/nouveau" ]; then
    ok "nouveau is not loaded"
    return 0
  fi
  if [ -f "$ROOT/etc/modprobe.d/blacklist-nouveau.conf" ] && grep -q '^blacklist nouveau' "$ROOT/etc/modprobe.d/blacklist-nouveau.conf"; then
    ok "nouveau is blacklisted already (it goes at the next reboot)"
    REBOOT_NEEDED=1
    return 0
  fi
  put_file modprobe.d/blacklist-nouveau.conf /etc/modprobe.d/blacklist-nouveau.conf 0644
  run update-initramfs -u
  REBOOT_NEEDED=1
}
)SH";

constexpr const char* kCudaRepo = R"SH(
step_cuda_repo() {
  step "NVIDIA CUDA apt repository (@KEYRING_PKG@ @KEYRING_VERSION@, @CUDA_REPO@/@ARCH@)"
  if have_pkg @KEYRING_PKG@; then
    ok "@KEYRING_PKG@ is installed"
    return 0
  fi
  apt_install curl ca-certificates
  local deb="${TMPDIR:-/tmp}/@KEYRING_PKG@_@KEYRING_VERSION@_all.deb"
  run curl -fsSL -o "$deb" "@KEYRING_URL@"
  run dpkg -i "$deb"
  run apt-get update
}
)SH";

constexpr const char* kDriverCommon = R"SH(
step_driver() {
  step "NVIDIA driver branch @BRANCH@@OPEN@: CUDA @MIN_CUDA@ needs driver @MIN_DRIVER@ or newer"
  local have=""
  if command -v nvidia-smi >/dev/null 2>&1; then
    have="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1 || true)"
  fi
  if [ -n "$have" ] && version_ge "$have" "@MIN_DRIVER@"; then
    ok "driver $have is loaded and >= @MIN_DRIVER@"
    return 0
  fi
  if [ -n "$have" ]; then
    note "driver $have is older than @MIN_DRIVER@: installing branch @BRANCH@"
  fi
)SH";

constexpr const char* kDriverUbuntu = R"SH(  apt_install @UBUNTU_DRIVERS_PKG@
  local offered=""
  if command -v ubuntu-drivers >/dev/null 2>&1; then
    offered="$(ubuntu-drivers list --gpgpu 2>/dev/null || true)"
  fi
  if command -v ubuntu-drivers >/dev/null 2>&1 && ! grep -q "@DRIVER_LIST_NAME@" <<<"$offered"; then
    if [ "$DRY_RUN" -eq 0 ]; then
      echo "install.sh: ubuntu-drivers does not offer @DRIVER_LIST_NAME@ here; see 'ubuntu-drivers list --gpgpu'" >&2
      exit 1
    fi
    note "warning: ubuntu-drivers does not offer @DRIVER_LIST_NAME@ on this machine"
  fi
  run ubuntu-drivers install --gpgpu @INSTALL_ID@
  apt_install @UTILS_PKG@
  REBOOT_NEEDED=1
}
)SH";

constexpr const char* kDriverCudaRepo = R"SH(  apt_install "linux-headers-$(uname -r)" @INSTALL_ID@
  REBOOT_NEEDED=1
}
)SH";

constexpr const char* kPersistenced = R"SH(
step_persistenced() {
  step "NVIDIA persistence daemon on"
  if systemctl is-active --quiet nvidia-persistenced 2>/dev/null; then
    ok "nvidia-persistenced is active"
    return 0
  fi
  if systemctl is-enabled --quiet nvidia-persistenced 2>/dev/null; then
    ok "nvidia-persistenced is enabled (it starts with the driver)"
    return 0
  fi
  run systemctl enable nvidia-persistenced
  if [ -d "$ROOT/sys/module/nvidia" ]; then
    run systemctl start nvidia-persistenced
  else
    note "the nvidia module is not loaded yet: the daemon starts after the reboot"
  fi
}
)SH";

constexpr const char* kCuda = R"SH(
step_cuda() {
  step "CUDA @CUDA@ (@CUDA_PKG@) and cuDNN @CUDNN@ (@CUDNN_PKG@), held"
  apt_install @CUDA_PKG@
  local have="" want=""
  if have_pkg @CUDNN_PKG@; then
    # shellcheck disable=SC2016 # ${Version} is dpkg-query's field
    have="$(dpkg-query -W -f='${Version}' @CUDNN_PKG@ 2>/dev/null || true)"
  fi
  case "$have" in
    "@CUDNN_PREFIX@"*"@CUDNN_SUFFIX@"*) ok "@CUDNN_PKG@ $have is installed" ;;
    *)
      want="$(apt-cache madison @CUDNN_PKG@ 2>/dev/null | awk -v p="@CUDNN_PREFIX@" -v s="@CUDNN_SUFFIX@" \
        '{ v = $3; if (index(v, p) == 1 && index(v, s) > 0) print v }' | sort -V | tail -n 1 || true)"
      if [ -z "$want" ]; then
        if [ "$DRY_RUN" -eq 0 ]; then
          echo "install.sh: no @CUDNN_PKG@ @CUDNN_PREFIX@*@CUDNN_SUFFIX@ in the apt sources (is the CUDA repository added?)" >&2
          exit 1
        fi
        want="@CUDNN_PREFIX@*@CUDNN_SUFFIX@"
        note "the newest @CUDNN_PKG@ $want from 'apt-cache madison' would be pinned"
      fi
      run env DEBIAN_FRONTEND=noninteractive apt-get install -y "@CUDNN_PKG@=$want"
      ;;
  esac
  local holds
  holds="$(apt-mark showhold 2>/dev/null || true)"
  if grep -qx @CUDNN_PKG@ <<<"$holds"; then
    ok "@CUDNN_PKG@ is held"
  else
    run apt-mark hold @CUDNN_PKG@
  fi
  if [ -f "$ROOT/etc/ld.so.conf.d/90-tfrig-cuda.conf" ] && cmp -s "$HERE/ld.so.conf.d/90-tfrig-cuda.conf" "$ROOT/etc/ld.so.conf.d/90-tfrig-cuda.conf"; then
    ok "the loader finds @CUDA_LIB_DIR@"
  else
    put_file ld.so.conf.d/90-tfrig-cuda.conf /etc/ld.so.conf.d/90-tfrig-cuda.conf 0644
    run ldconfig
  fi
}
)SH";

constexpr const char* kPython = R"SH(
step_python() {
  step "Python @PYTHON@ virtual environment in $VENV"
  if [ -x "$VENV/bin/python" ]; then
    ok "$VENV exists ($("$VENV/bin/python" --version 2>&1 || echo '?'))"
    return 0
  fi
  apt_install @VENV_PKG@ @PIP_PKG@
  run python@PYTHON@ -m venv "$VENV"
}

step_tensorflow() {
  step "TensorFlow @TF@: @PIP_REQ@"
  local have=""
  if [ -x "$VENV/bin/python" ]; then
    have="$("$VENV/bin/python" -m pip show @PIP_NAME@ 2>/dev/null | sed -n 's/^Version: //p' || true)"
  fi
  if [ "$have" = "@TF@" ]; then
    ok "@PIP_NAME@ $have is installed in $VENV"
    return 0
  fi
  run "$VENV/bin/python" -m pip install --upgrade pip
  run "$VENV/bin/python" -m pip install "@PIP_REQ@"
}
)SH";

constexpr const char* kDocker = R"SH(
step_docker() {
  step "Docker engine"
  if command -v docker >/dev/null 2>&1; then
    ok "docker is installed"
    return 0
  fi
  apt_install @DOCKER_PKG@
}

step_container_toolkit() {
  step "NVIDIA Container Toolkit: repository, package, Docker runtime"
  if [ -f "$ROOT@CTK_KEYRING@" ]; then
    ok "@CTK_KEYRING@ exists"
  else
    apt_install curl gnupg ca-certificates
    if [ "$DRY_RUN" -eq 1 ]; then
      printf '    would run: curl -fsSL %s | gpg --dearmor -o %s\n' "@CTK_GPGKEY@" "$ROOT@CTK_KEYRING@"
    else
      curl -fsSL "@CTK_GPGKEY@" | gpg --dearmor -o "$ROOT@CTK_KEYRING@"
    fi
  fi
  if [ -f "$ROOT@CTK_LIST_FILE@" ]; then
    ok "@CTK_LIST_FILE@ exists"
  else
    if [ "$DRY_RUN" -eq 1 ]; then
      printf '    would run: curl -fsSL %s | sed (signed-by %s) > %s\n' "@CTK_LIST_URL@" "@CTK_KEYRING@" "$ROOT@CTK_LIST_FILE@"
    else
      curl -fsSL "@CTK_LIST_URL@" |
        sed 's#deb https://#deb [signed-by=@CTK_KEYRING@] https://#g' >"$ROOT@CTK_LIST_FILE@"
    fi
    run apt-get update
  fi
  apt_install @CTK_PKG@
  if [ -f "$ROOT/etc/docker/daemon.json" ] && grep -q 'nvidia-container-runtime' "$ROOT/etc/docker/daemon.json"; then
    ok "/etc/docker/daemon.json has the nvidia runtime"
  else
    run nvidia-ctk runtime configure --runtime=docker
    run systemctl restart docker
  fi
}
)SH";

constexpr const char* kSwap = R"SH(
step_swap() {
  step "Swap off and vm.swappiness=@SWAPPINESS@"
  if [ -z "$(swapon --show --noheadings 2>/dev/null || true)" ]; then
    ok "no active swap"
  else
    run swapoff -a
  fi
  if grep -Eq '^[^#].*[[:space:]]swap[[:space:]]' "$ROOT/etc/fstab" 2>/dev/null; then
    run sed -i.tfrig-bak -E 's|^([^#].*[[:space:]]swap[[:space:]].*)$|# tfrig: \1|' "$ROOT/etc/fstab"
  else
    ok "no swap line in /etc/fstab"
  fi
  put_file sysctl.d/90-tfrig.conf /etc/sysctl.d/90-tfrig.conf 0644
  if [ "$(sysctl -n vm.swappiness 2>/dev/null || true)" = "@SWAPPINESS@" ]; then
    ok "vm.swappiness is @SWAPPINESS@"
  else
    run sysctl -p "$ROOT/etc/sysctl.d/90-tfrig.conf"
  fi
}
)SH";

constexpr const char* kLimits = R"SH(
step_limits() {
  step "Open files @NOFILE@ and unlimited locked memory"
  put_file security/limits.d/90-tfrig.conf /etc/security/limits.d/90-tfrig.conf 0644
  note "limits apply to new logins; services started by systemd use LimitNOFILE= / LimitMEMLOCK= instead"
}
)SH";

constexpr const char* kGovernor = R"SH(
step_governor() {
  step "CPU frequency governor: @GOVERNOR@"
  local f n=0 changed=0
  for f in "$ROOT"/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    if [ "$(cat "$f")" != "@GOVERNOR@" ]; then
      changed=$((changed + 1))
      if [ "$DRY_RUN" -eq 1 ]; then
        printf '    would run: echo @GOVERNOR@ > %s\n' "$f"
      else
        echo @GOVERNOR@ >"$f"
      fi
    fi
  done
  if [ "$n" -eq 0 ]; then
    ok "no cpufreq on this machine (a VM, or a fixed frequency)"
  elif [ "$changed" -eq 0 ]; then
    ok "all $n CPUs use @GOVERNOR@"
  else
    note "set on $changed of $n CPUs until the next boot (persist with cpupower.service or tuned)"
  fi
}
)SH";

constexpr const char* kVerifyHead = R"SH(
step_verify() {
  step "Verify: nvidia-smi and a one-line TensorFlow GPU check"
  if [ "$DRY_RUN" -eq 0 ] && [ "$REBOOT_NEEDED" -eq 1 ]; then
    note "reboot first (driver or nouveau changed), then run ./install.sh again: done steps are skipped"
    return 0
  fi
  run nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv
)SH";

constexpr const char* kVerifyPip = R"SH(  run "$VENV/bin/python" -c '@TF_CHECK@'
}
)SH";

constexpr const char* kVerifyContainerImage = R"SH(  run docker run --rm --gpus all @IMAGE@ nvidia-smi
  run docker run --rm --gpus all @IMAGE@ python -c '@TF_CHECK@'
)SH";

constexpr const char* kFooter = R"SH(
main() {
@CALLS@
  printf '\n'
  if [ "$DRY_RUN" -eq 1 ]; then
    echo "install.sh: dry run done; nothing was changed."
  elif [ "$REBOOT_NEEDED" -eq 1 ]; then
    echo "install.sh: done; reboot to load the NVIDIA driver, then run it again to verify."
  else
    echo "install.sh: done."
  fi
}

main
)SH";

}  // namespace

std::string fill(std::string text, const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [key, value] : values) {
    const std::string token = "@" + key + "@";
    for (size_t pos = text.find(token); pos != std::string::npos; pos = text.find(token, pos + value.size())) {
      text.replace(pos, token.size(), value);
    }
  }
  return text;
}

std::string render_install_sh(const SetupPlan& p, const knowledge::Knowledge& k) {
  const auto& f = k.setup();
  const auto& t = p.tfs.front();
  auto get = [&](const std::map<std::string, std::string>& m, const std::string& key) {
    auto it = m.find(key);
    return it == m.end() ? std::string() : it->second;
  };
  const Values v{
      {"OS", p.os->id},
      {"OS_ID", p.os->os_id},
      {"OS_VERSION", p.os->version_id},
      {"METHOD", std::string(method_name(p.method))},
      {"GPU", gpu_label(p)},
      {"TF", is_container(p) ? tf_list(p) : t.version},
      {"VENV_LINE", is_container(p) ? "" : "VENV=\"${TFRIG_VENV:-" + p.venv_dir + "}\"\n"},
      {"KEYRING_PKG", f.keyring_package},
      {"KEYRING_VERSION", f.keyring_version},
      {"CUDA_REPO", p.os->cuda_repo},
      {"ARCH", p.repo_arch},
      {"KEYRING_URL", f.cuda_repo_url_base + "/" + p.os->cuda_repo + "/" + p.repo_arch + "/" + f.keyring_package + "_" +
                          f.keyring_version + "_all.deb"},
      {"BRANCH", p.driver.branch},
      {"OPEN", p.driver.open ? " (open kernel modules)" : ""},
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
      {"CTK_GPGKEY", f.ctk_gpgkey_url},
      {"CTK_LIST_URL", f.ctk_list_url},
      {"CTK_LIST_FILE", f.ctk_list_file},
      {"CTK_PKG", f.ctk_package},
      {"SWAPPINESS", std::to_string(p.swappiness)},
      {"NOFILE", p.nofile},
      {"GOVERNOR", p.governor},
      {"TF_CHECK", kTfCheck},
  };
  std::string s = kHeader;
  std::string calls;
  for (const auto& st : p.steps) {
    calls += "  step_" + st.id + "\n";
    if (st.id == "preflight") s += kPreflight;
    if (st.id == "nouveau") s += kNouveau;
    if (st.id == "cuda_repo") s += kCudaRepo;
    if (st.id == "driver") {
      s += kDriverCommon;
      s += p.driver.installer == "ubuntu-drivers" ? kDriverUbuntu : kDriverCudaRepo;
    }
    if (st.id == "persistenced") s += kPersistenced;
    if (st.id == "cuda") s += kCuda;
    if (st.id == "python") s += kPython;
    if (st.id == "docker") s += kDocker;
    if (st.id == "swap") s += kSwap;
    if (st.id == "limits") s += kLimits;
    if (st.id == "governor") s += kGovernor;
    if (st.id == "verify") {
      s += kVerifyHead;
      if (is_container(p)) {
        for (const auto& tt : p.tfs) s += fill(kVerifyContainerImage, {{"IMAGE", tt.image}});
        s += "}\n";
      } else {
        s += kVerifyPip;
      }
    }
  }
  // step_tensorflow is defined with step_python.
  calls.pop_back();
  s += fill(kFooter, {{"CALLS", calls}});
  return fill(s, v);
}

std::string render_env(const SetupPlan& p) {
  std::ostringstream s;
  s << "# tfrig.env -- TensorFlow tuning for this machine, written by `tfrig setup`.\n"
    << "# KEY=VALUE lines: read by `docker compose` (env_file), `docker run --env-file`, and a shell with\n"
    << "#   set -a; . ./tfrig.env; set +a\n"
    << "# Each line says what it does and when not to use it.\n\n"
    << "# XLA auto-clustering: fuses ops into larger kernels (docs/guide.md: good for Transformers; TF's XLA\n"
    << "# docs: most internal benchmarks run faster). Not when input shapes change every step (each new\n"
    << "# shape recompiles) or under memory pressure (use --tf_xla_auto_jit=1). An unknown flag aborts TF.\n"
    << "TF_XLA_FLAGS=--tf_xla_auto_jit=2\n\n";
  if (p.cuda_malloc_async) {
    s << "# CUDA's stream-ordered allocator instead of TF's BFC allocator: less fragmentation, memory\n"
      << "# returned to the pool. Needs CUDA " << p.cuda_malloc_async_min_cuda
      << " or newer (this TF's is). Not on GPUs or drivers without memory pools\n"
      << "# (TF stops with \"cuda_malloc_async isn't currently supported\"): delete the line then.\n"
      << "TF_GPU_ALLOCATOR=cuda_malloc_async\n\n";
  } else {
    s << "# TF_GPU_ALLOCATOR=cuda_malloc_async is left out: this TensorFlow's CUDA is older than "
      << p.cuda_malloc_async_min_cuda << ".\n\n";
  }
  s << "# Dedicated threads per GPU to launch kernels, so tf.data's CPU work does not delay them (TF's GPU\n"
    << "# performance guide). Not needed when the profiler shows no gaps between steps.\n"
    << "TF_GPU_THREAD_MODE=gpu_private\n\n"
    << "# Grow GPU memory as needed instead of mapping nearly all of it at start. Use it when several\n"
    << "# processes share a GPU; it does nothing with cuda_malloc_async and costs a little speed\n"
    << "# (fragmentation), so it is off for one training job per GPU:\n"
    << "# TF_FORCE_GPU_ALLOW_GROWTH=true\n\n"
    << "# GPU indices in the same order as nvidia-smi (PCI bus order). Harmless everywhere.\n"
    << "CUDA_DEVICE_ORDER=PCI_BUS_ID\n";
  return s.str();
}

std::string render_tuning_py(const SetupPlan& p) {
  std::ostringstream s;
  s << "\"\"\"tuning.py -- written by `tfrig setup` for " << gpu_label(p) << ".\n\n"
    << "Import it at the top of a training script (or copy the parts):\n"
    << "    from tuning import set_precision, tfrecord_dataset\n"
    << "    set_precision()\n"
    << "    ds = tfrecord_dataset(\"/data/train-*.tfrecord\", parse_fn, batch_size=256)\n\n"
    << "Mixed precision (TF guide \"Mixed precision\"): float16 math needs Tensor Cores, compute\n"
    << "capability " << p.fp16_min_cc << " or newer; bfloat16 needs " << p.bf16_min_cc
    << " or newer (NVIDIA), has float32's range and needs\n"
    << "no loss scaling. Below " << p.fp16_min_cc << " mixed precision is not faster, so float32 stays.\n";
  if (p.gpu.cc) {
    s << "Planned for this GPU: " << (p.mixed_precision.empty() ? "float32" : p.mixed_precision) << " ("
      << p.mixed_precision_why << ").\n";
  } else {
    s << "The GPU was not known when this was written: the policy is chosen at run time.\n";
  }
  s << "Keep the model's last layer in float32: layers.Activation(\"softmax\", dtype=\"float32\").\n"
    << "\"\"\"\n\n"
    << "import tensorflow as tf\n\n"
    << "FLOAT16_MIN_CC = (" << p.fp16_min_cc.substr(0, p.fp16_min_cc.find('.')) << ", "
    << p.fp16_min_cc.substr(p.fp16_min_cc.find('.') + 1) << ")\n"
    << "BFLOAT16_MIN_CC = (" << p.bf16_min_cc.substr(0, p.bf16_min_cc.find('.')) << ", "
    << p.bf16_min_cc.substr(p.bf16_min_cc.find('.') + 1) << ")\n"
    << "PLANNED_POLICY = " << (p.gpu.cc ? "\"" + (p.mixed_precision.empty() ? std::string("float32") : p.mixed_precision) + "\"" : std::string("None"))
    << "\n\n\n"
    << "def policy_for(cc):\n"
    << "    \"\"\"The mixed precision policy for a compute capability (major, minor).\"\"\"\n"
    << "    if cc >= BFLOAT16_MIN_CC:\n"
    << "        return \"mixed_bfloat16\"\n"
    << "    if cc >= FLOAT16_MIN_CC:\n"
    << "        return \"mixed_float16\"\n"
    << "    return \"float32\"\n\n\n"
    << "def set_precision():\n"
    << "    \"\"\"Sets the global Keras policy from the first GPU's compute capability.\"\"\"\n"
    << "    gpus = tf.config.list_physical_devices(\"GPU\")\n"
    << "    if not gpus:\n"
    << "        print(\"tuning: no GPU visible; float32\")\n"
    << "        return \"float32\"\n"
    << "    cc = tf.config.experimental.get_device_details(gpus[0]).get(\"compute_capability\")\n"
    << "    policy = policy_for(tuple(cc)) if cc else (PLANNED_POLICY or \"float32\")\n"
    << "    if PLANNED_POLICY and policy != PLANNED_POLICY:\n"
    << "        print(\"tuning: this GPU wants\", policy, \"not the planned\", PLANNED_POLICY)\n"
    << "    tf.keras.mixed_precision.set_global_policy(policy)\n"
    << "    return policy\n\n\n"
    << "def tfrecord_dataset(pattern, parse_fn, batch_size, shuffle_files=True):\n"
    << "    \"\"\"TFRecord shards -> parsed, batched, prefetched batches (TF guide \"Better performance\n"
    << "    with the tf.data API\"): interleave reads several shards at once, map parses in parallel,\n"
    << "    prefetch overlaps the input with the training step; AUTOTUNE sizes each.\"\"\"\n"
    << "    autotune = tf.data.AUTOTUNE\n"
    << "    files = tf.data.Dataset.list_files(pattern, shuffle=shuffle_files)\n"
    << "    ds = files.interleave(\n"
    << "        tf.data.TFRecordDataset,\n"
    << "        cycle_length=autotune,\n"
    << "        num_parallel_calls=autotune,\n"
    << "        deterministic=False,\n"
    << "    )\n"
    << "    ds = ds.map(parse_fn, num_parallel_calls=autotune, deterministic=False)\n"
    << "    ds = ds.batch(batch_size, drop_remainder=True)\n"
    << "    return ds.prefetch(autotune)\n";
  return s.str();
}

std::string render_sysctl(const SetupPlan& p) {
  std::ostringstream s;
  s << "# /etc/sysctl.d/90-tfrig.conf -- written by `tfrig setup`; applied at boot, or now with\n"
    << "#   sudo sysctl -p /etc/sysctl.d/90-tfrig.conf\n"
    << "# Undo: delete this file and run `sudo sysctl --system` (the kernel default is 60).\n\n"
    << "# Prefer dropping file cache over swapping process memory out: a training host that pages\n"
    << "# stalls tf.data workers and pinned buffers (docs/guide.md: swap off; the kernel's vm.rst:\n"
    << "# 0-200, default 60). The value is common practice, not an NVIDIA or TensorFlow rule.\n"
    << "vm.swappiness = " << p.swappiness << "\n";
  return s.str();
}

std::string render_limits(const SetupPlan& p) {
  std::ostringstream s;
  s << "# /etc/security/limits.d/90-tfrig.conf -- written by `tfrig setup`; read by pam_limits at login.\n"
    << "# Undo: delete this file and log in again. Services under systemd use LimitNOFILE=/LimitMEMLOCK=.\n\n"
    << "# Open files: tf.data interleaving many TFRecord shards fails with \"Too many open files\" at the\n"
    << "# usual 1024 (tensorflow/datasets#1441); docs/guide.md: raise ulimit -n.\n"
    << "*    soft    nofile     " << p.nofile << "\n"
    << "*    hard    nofile     " << p.nofile << "\n"
    << "# Locked memory: NCCL over InfiniBand/RoCE registers pinned buffers; a low limit fails with\n"
    << "# \"ibv_reg_mr failed: Cannot allocate memory\" (NVIDIA/nccl-tests#206).\n"
    << "*    soft    memlock    unlimited\n"
    << "*    hard    memlock    unlimited\n";
  return s.str();
}

std::string render_dockerfile(const SetupPlan& p) {
  std::ostringstream s;
  const auto& t = p.tfs.front();
  s << "# Dockerfile -- written by `tfrig setup`. One file for every TensorFlow version in compose.yaml:\n"
    << "# each service passes its image as TF_IMAGE. Build alone with\n"
    << "#   docker build --build-arg TF_IMAGE=" << t.image << " -t tfrig/" << t.service << " .\n"
    << (p.method == Method::kNgc ? "# NGC images: NVIDIA's TensorFlow build, CUDA, cuDNN, NCCL and DALI inside.\n"
                                 : "# Official TensorFlow images: the host needs only the driver and the NVIDIA Container Toolkit.\n")
    << "ARG TF_IMAGE=" << t.image << "\n"
    << "FROM ${TF_IMAGE}\n\n"
    << "# The tuning snippet (mixed precision, tf.data over TFRecord shards) on the import path.\n"
    << "COPY tuning.py /opt/tfrig/tuning.py\n"
    << "ENV PYTHONPATH=/opt/tfrig\n"
    << "WORKDIR /workspace\n\n"
    << "# The default command is the GPU check; `docker compose run SERVICE python train.py` runs yours.\n"
    << "CMD [\"python\", \"-c\", \"import tensorflow as tf; print(tf.__version__, tf.config.list_physical_devices('GPU'))\"]\n";
  return s.str();
}

std::string render_compose(const SetupPlan& p, const knowledge::Knowledge& k) {
  const auto& f = k.setup();
  std::ostringstream s;
  s << "# compose.yaml -- written by `tfrig setup`: one service per TensorFlow version, for A/B runs:\n"
    << "#   docker compose run --rm " << p.tfs.front().service << " python train.py\n"
    << "# GPUs are reserved through deploy.resources.reservations.devices (Compose GPU support); the\n"
    << "# NGC banner's advice on /dev/shm and locked memory is in shm_size and ulimits.\n"
    << "name: tfrig\n"
    << "services:\n";
  for (const auto& t : p.tfs) {
    s << "  " << t.service << ":\n"
      << "    build:\n"
      << "      context: .\n"
      << "      dockerfile: Dockerfile\n"
      << "      args:\n"
      << "        TF_IMAGE: \"" << t.image << "\"\n"
      << "    image: \"tfrig/" << t.service << ":" << t.version << "\"\n"
      << "    env_file:\n"
      << "      - tfrig.env\n"
      << "    shm_size: \"" << f.shm_size << "\"\n"
      << "    ulimits:\n"
      << "      memlock: " << f.memlock << "\n"
      << "      stack: " << f.stack << "\n"
      << "      nofile:\n"
      << "        soft: " << p.nofile << "\n"
      << "        hard: " << p.nofile << "\n"
      << "    volumes:\n"
      << "      - ./:/workspace\n"
      << "    working_dir: /workspace\n"
      << "    deploy:\n"
      << "      resources:\n"
      << "        reservations:\n"
      << "          devices:\n"
      << "            - driver: nvidia\n"
      << "              count: all\n"
      << "              capabilities: [gpu]\n";
  }
  return s.str();
}

std::string render_readme(const SetupPlan& p, const knowledge::Knowledge& k) {
  const auto& f = k.setup();
  std::ostringstream s;
  s << "# TensorFlow GPU server setup: " << p.os->id << ", " << method_name(p.method) << ", " << gpu_label(p) << "\n\n"
    << "Written by `tfrig setup`; nothing here has run yet. The files:\n\n"
    << "| file | what |\n| --- | --- |\n"
    << "| `install.sh` | every step below, idempotent; `--dry-run` prints the commands |\n";
  if (is_container(p)) {
    s << "| `Dockerfile`, `compose.yaml` | the TensorFlow image(s), one compose service per version |\n";
  }
  s << "| `tfrig.env` | TensorFlow tuning variables, one comment per line |\n"
    << "| `tuning.py` | mixed precision for this GPU and a tf.data input pipeline over TFRecord shards |\n"
    << "| `sysctl.d/90-tfrig.conf` | `vm.swappiness`, installed to /etc/sysctl.d |\n"
    << "| `security/limits.d/90-tfrig.conf` | open files and locked memory, installed to /etc/security/limits.d |\n"
    << "| `modprobe.d/blacklist-nouveau.conf` | installed only where nouveau is loaded |\n";
  if (p.cuda.needed) s << "| `ld.so.conf.d/90-tfrig-cuda.conf` | puts " << p.cuda.lib_dir << " on the loader's path |\n";
  s << "\n## The plan\n\n";
  for (const auto& t : p.tfs) {
    s << "- TensorFlow " << t.version;
    if (!t.image.empty()) {
      s << " in `" << t.image << "`";
      if (t.ngc) s << " (NGC " << t.ngc->release << ": TensorFlow " << t.ngc->tf << ", CUDA " << t.ngc->cuda << ")";
    } else {
      s << ": `pip install " << t.pip_requirement << "` in a Python " << p.python << " venv (" << p.venv_dir << ")";
    }
    s << "; built and tested with CUDA " << t.build->cuda << " and cuDNN " << t.build->cudnn << ", Python "
      << t.build->python_min() << " to " << t.build->python_max() << " (TensorFlow's tested-build table).\n";
  }
  s << "- NVIDIA driver branch " << p.driver.branch << " (`" << p.driver.install_id << "`): " << p.driver.why << "\n";
  if (p.cuda.needed) {
    s << "- `" << p.cuda.package << "` and `" << p.cuda.cudnn_package << "` " << p.cuda.cudnn_prefix << "x, held with apt-mark.\n";
  }
  s << "- Mixed precision: "
    << (p.gpu.cc ? (p.mixed_precision.empty() ? std::string("none (float32)") : "`" + p.mixed_precision + "`") + ": " +
                       p.mixed_precision_why
                 : std::string("chosen at run time from the GPU's compute capability (tuning.py)"))
    << ".\n";
  for (const auto& n : p.notes) s << "- Note: " << n << "\n";
  s << "\n## How to run it\n\n"
    << "```\n./install.sh --dry-run      # read what it would do; changes nothing\n"
    << "sudo ./install.sh            # do it; reboot when it says so, then run it again\n```\n\n"
    << "Every step first checks whether it is already done and prints `ok: ... (skipping)`, so running it\n"
    << "again is safe and verifies the machine.\n";
  if (is_container(p)) {
    s << "\nThen, with the Compose plugin (`docker compose`):\n\n```\ndocker compose build\n";
    for (const auto& t : p.tfs) s << "docker compose run --rm " << t.service << "\n";
    s << "```\n";
  } else {
    s << "\nThen: `set -a; . ./tfrig.env; set +a; " << p.venv_dir << "/bin/python train.py`.\n";
  }
  s << "\n## The steps, why, and how to undo each\n\n";
  int i = 1;
  for (const auto& st : p.steps) {
    s << i++ << ". **" << st.title << "** (`step_" << st.id << "`)\n"
      << "   - Why: " << st.why << "\n"
      << "   - Source: " << st.source << "\n"
      << "   - Undo: " << st.undo << "\n";
  }
  s << "\n## Sources\n\n"
    << "- The configuration guide tfrig follows (docs/guide.md in the tfrig repository): the version matrix, swap off,\n"
    << "  open files, Docker with the NVIDIA Container Toolkit, mixed precision, XLA.\n"
    << "- TensorFlow: https://www.tensorflow.org/install/source#gpu (tested builds), https://www.tensorflow.org/install/pip,\n"
    << "  https://www.tensorflow.org/install/docker, https://www.tensorflow.org/guide/mixed_precision,\n"
    << "  https://www.tensorflow.org/guide/data_performance.\n"
    << "- NVIDIA: https://docs.nvidia.com/cuda/cuda-installation-guide-linux/ (repository, " << f.keyring_package << "),\n"
    << "  https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html,\n"
    << "  https://docs.nvidia.com/deploy/driver-persistence/index.html.\n"
    << "- Ubuntu: https://documentation.ubuntu.com/server/how-to/graphics/install-nvidia-drivers/.\n";
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
                 "# Written by `tfrig setup`: keep nouveau off the GPU so the NVIDIA driver can bind\n"
                 "# (Ubuntu Server docs, install NVIDIA drivers). Undo: delete, update-initramfs -u, reboot.\n"
                 "blacklist nouveau\noptions nouveau modeset=0\n",
                 0644});
  if (p.cuda.needed) {
    out.push_back({"ld.so.conf.d/90-tfrig-cuda.conf",
                   "# Written by `tfrig setup`: CUDA " + p.cuda.cuda + "'s libraries for TensorFlow " +
                       p.tfs.front().version + ". Undo: delete, run ldconfig.\n" + p.cuda.lib_dir + "\n",
                   0644});
  }
  if (is_container(p)) {
    out.push_back({"Dockerfile", render_dockerfile(p), 0644});
    out.push_back({"compose.yaml", render_compose(p, k), 0644});
  }
  return out;
}

}  // namespace tfrig::setup
