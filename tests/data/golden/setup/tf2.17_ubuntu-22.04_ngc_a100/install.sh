#!/usr/bin/env bash
# install.sh -- written by `tfrig setup` for ubuntu-22.04, method ngc, NVIDIA A100-SXM4-80GB (compute capability 8.0),
# TensorFlow 2.17.0. It never ran on its own: read README.md, then
#   ./install.sh --dry-run     prints every command, changes nothing, needs no root
#   sudo ./install.sh          does it; every step checks first and says "ok: ... (skipping)"
#                              when there is nothing to do, so a second run changes nothing.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="${TFRIG_ROOT:-}"            # a throwaway root every file path is prefixed with (tests)
DRY_RUN=0
SKIP_SOURCE_CHECK=0
REBOOT_NEEDED=0
DEFAULT_SOURCE_FAILED=0
MIRROR_FAILED=0

usage() {
  cat <<'USAGE'
Usage: install.sh [--dry-run] [--skip-source-check] [--help]
  --dry-run             print every command and every download source instead of using them
                        (no root needed, nothing changes)
  --skip-source-check   do not first check that each download source answers
Environment: TFRIG_ROOT=DIR prefixes the files it reads and writes (a throwaway root);
             TFRIG_VENV=DIR puts the Python environment elsewhere.
USAGE
}

while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) DRY_RUN=1 ;;
    --skip-source-check) SKIP_SOURCE_CHECK=1 ;;
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
# check_source KIND WHAT URL: does URL answer a HEAD request in time? Any HTTP answer counts
# (a registry's 401 too); KIND "mirror" or "default" says what to advise when it does not.
check_source() {
  local kind="$1" what="$2" url="$3"
  if [ "$DRY_RUN" -eq 1 ]; then
    note "would check: $what $url"
    return 0
  fi
  if ! command -v curl >/dev/null 2>&1; then
    note "curl is not installed: not checked: $what $url"
    return 0
  fi
  if curl -sS -I -o /dev/null --max-time 5 "$url" 2>/dev/null; then
    note "answers: $what $url"
  else
    note "no answer within 5 s: $what $url"
    if [ "$kind" = mirror ]; then
      MIRROR_FAILED=1
    else
      DEFAULT_SOURCE_FAILED=1
    fi
  fi
}
# version_ge A B: A >= B in version order.
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]; }

step_preflight() {
  step "Preflight: ubuntu 22.04, run as root"
  local os_id="" os_version=""
  if [ -r "$ROOT/etc/os-release" ]; then
    os_id="$(sed -n 's/^ID=//p' "$ROOT/etc/os-release" | tr -d '"')"
    os_version="$(sed -n 's/^VERSION_ID=//p' "$ROOT/etc/os-release" | tr -d '"')"
  fi
  if [ "$os_id" = "ubuntu" ] && [ "$os_version" = "22.04" ]; then
    ok "this machine is ubuntu 22.04"
  elif [ "$DRY_RUN" -eq 1 ]; then
    note "warning: written for ubuntu 22.04, this machine says '${os_id:-?} ${os_version:-?}' (a dry run goes on)"
  else
    echo "install.sh: written for ubuntu 22.04 but this machine is '${os_id:-unknown} ${os_version:-}';" \
      "run tfrig setup on this machine (or with --os) again" >&2
    exit 1
  fi
  if [ "$DRY_RUN" -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: installing the driver and packages and writing /etc needs root:" \
      "run 'sudo $0' (or '$0 --dry-run' to see the commands)" >&2
    exit 77
  fi
}

step_sources() {
  step "Download sources answer (5 s each)"
  if [ "$SKIP_SOURCE_CHECK" -eq 1 ]; then
    ok "--skip-source-check"
    return 0
  fi
  check_source default "NVIDIA Container Toolkit repository" "https://nvidia.github.io/libnvidia-container/gpgkey"
  check_source default "NGC registry" "https://nvcr.io/v2/"
  if [ "$DEFAULT_SOURCE_FAILED" -eq 1 ]; then
    cat >&2 <<'ADVICE'
install.sh: a default download source did not answer. From mainland China, write the
  installation again with mirrors: tfrig setup --mirror auto (or tuna, ustc, aliyun, tencent,
  huaweicloud and their -intranet presets on those clouds; with the same options as before),
  or name your own with --apt-mirror, --pip-index, --cuda-repo, --container-toolkit-repo,
  --docker-registry-mirror. To go on anyway: ./install.sh --skip-source-check
install.sh：默认下载源没有响应。如果在中国大陆，请用国内镜像重新生成安装脚本：
  tfrig setup --mirror auto（或 tuna、ustc、aliyun、tencent、huaweicloud，在这些云上可用其 -intranet
  内网预设；其余选项与之前相同），或用 --apt-mirror、--pip-index、--cuda-repo、
  --container-toolkit-repo、--docker-registry-mirror 指定镜像。仍要继续：./install.sh --skip-source-check
ADVICE
    exit 69
  fi
  if [ "$MIRROR_FAILED" -eq 1 ]; then
    echo "install.sh: a mirror did not answer (above): choose another with the option that set it" \
      "(--apt-mirror, --pip-index, --cuda-repo, --container-toolkit-repo, --docker-registry-mirror)" \
      "and write the installation again, or go on with --skip-source-check" >&2
    echo "install.sh：镜像没有响应（见上）：请用对应选项换一个镜像并重新生成安装脚本，或加 --skip-source-check 继续" >&2
    exit 69
  fi
}

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

step_driver() {
  step "NVIDIA driver branch 580 (open kernel modules): CUDA 12.8.0 needs driver 570.26 or newer"
  local have=""
  if command -v nvidia-smi >/dev/null 2>&1; then
    have="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1 || true)"
  fi
  if [ -n "$have" ] && version_ge "$have" "570.26"; then
    ok "driver $have is loaded and >= 570.26"
    return 0
  fi
  if [ -n "$have" ]; then
    note "driver $have is older than 570.26: installing branch 580"
  fi
  apt_install ubuntu-drivers-common
  local offered=""
  if command -v ubuntu-drivers >/dev/null 2>&1; then
    offered="$(ubuntu-drivers list --gpgpu 2>/dev/null || true)"
  fi
  if command -v ubuntu-drivers >/dev/null 2>&1 && ! grep -q "nvidia-driver-580-server-open" <<<"$offered"; then
    if [ "$DRY_RUN" -eq 0 ]; then
      echo "install.sh: ubuntu-drivers does not offer nvidia-driver-580-server-open here; see 'ubuntu-drivers list --gpgpu'" >&2
      exit 1
    fi
    note "warning: ubuntu-drivers does not offer nvidia-driver-580-server-open on this machine"
  fi
  run ubuntu-drivers install --gpgpu nvidia:580-server-open
  apt_install nvidia-utils-580-server
  REBOOT_NEEDED=1
}

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

step_docker() {
  step "Docker engine"
  if command -v docker >/dev/null 2>&1; then
    ok "docker is installed"
    return 0
  fi
  apt_install docker.io
}

step_container_toolkit() {
  step "NVIDIA Container Toolkit: repository, package, Docker runtime"
  if [ -f "$ROOT/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg" ]; then
    ok "/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg exists"
  else
    apt_install curl gnupg ca-certificates
    if [ "$DRY_RUN" -eq 1 ]; then
      printf '    would run: curl -fsSL %s | gpg --dearmor -o %s\n' "https://nvidia.github.io/libnvidia-container/gpgkey" "$ROOT/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg"
    else
      curl -fsSL "https://nvidia.github.io/libnvidia-container/gpgkey" | gpg --dearmor -o "$ROOT/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg"
    fi
  fi
  if [ -f "$ROOT/etc/apt/sources.list.d/nvidia-container-toolkit.list" ]; then
    ok "/etc/apt/sources.list.d/nvidia-container-toolkit.list exists"
  else
    if [ "$DRY_RUN" -eq 1 ]; then
      printf '    would run: curl -fsSL %s | sed (signed-by %s) > %s\n' "https://nvidia.github.io/libnvidia-container/stable/deb/nvidia-container-toolkit.list" "/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg" "$ROOT/etc/apt/sources.list.d/nvidia-container-toolkit.list"
    else
      curl -fsSL "https://nvidia.github.io/libnvidia-container/stable/deb/nvidia-container-toolkit.list" |
        sed 's#deb https://#deb [signed-by=/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg] https://#g' >"$ROOT/etc/apt/sources.list.d/nvidia-container-toolkit.list"
    fi
    run apt-get update
  fi
  apt_install nvidia-container-toolkit
  if [ -f "$ROOT/etc/docker/daemon.json" ] && grep -q 'nvidia-container-runtime' "$ROOT/etc/docker/daemon.json"; then
    ok "/etc/docker/daemon.json has the nvidia runtime"
  else
    run nvidia-ctk runtime configure --runtime=docker
    run systemctl restart docker
  fi
}

step_swap() {
  step "Swap off and vm.swappiness=10"
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
  if [ "$(sysctl -n vm.swappiness 2>/dev/null || true)" = "10" ]; then
    ok "vm.swappiness is 10"
  else
    run sysctl -p "$ROOT/etc/sysctl.d/90-tfrig.conf"
  fi
}

step_limits() {
  step "Open files 1048576 and unlimited locked memory"
  put_file security/limits.d/90-tfrig.conf /etc/security/limits.d/90-tfrig.conf 0644
  note "limits apply to new logins; services started by systemd use LimitNOFILE= / LimitMEMLOCK= instead"
}

step_governor() {
  step "CPU frequency governor: performance"
  local f n=0 changed=0
  for f in "$ROOT"/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    if [ "$(cat "$f")" != "performance" ]; then
      changed=$((changed + 1))
      if [ "$DRY_RUN" -eq 1 ]; then
        printf '    would run: echo performance > %s\n' "$f"
      else
        echo performance >"$f"
      fi
    fi
  done
  if [ "$n" -eq 0 ]; then
    ok "no cpufreq on this machine (a VM, or a fixed frequency)"
  elif [ "$changed" -eq 0 ]; then
    ok "all $n CPUs use performance"
  else
    note "set on $changed of $n CPUs until the next boot (persist with cpupower.service or tuned)"
  fi
}

step_verify() {
  step "Verify: nvidia-smi and a one-line TensorFlow GPU check"
  if [ "$DRY_RUN" -eq 0 ] && [ "$REBOOT_NEEDED" -eq 1 ]; then
    note "reboot first (driver or nouveau changed), then run ./install.sh again: done steps are skipped"
    return 0
  fi
  run nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv
  run docker run --rm --gpus all nvcr.io/nvidia/tensorflow:25.02-tf2-py3 nvidia-smi
  run docker run --rm --gpus all nvcr.io/nvidia/tensorflow:25.02-tf2-py3 python -c 'import tensorflow as tf; g = tf.config.list_physical_devices("GPU"); print("TensorFlow", tf.__version__, "sees", len(g), "GPU(s):", g); raise SystemExit(0 if g else 1)'
}

main() {
  step_preflight
  step_sources
  step_nouveau
  step_driver
  step_persistenced
  step_docker
  step_container_toolkit
  step_swap
  step_limits
  step_governor
  step_verify
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
