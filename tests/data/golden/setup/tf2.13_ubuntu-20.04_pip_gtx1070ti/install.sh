#!/usr/bin/env bash
# install.sh -- written by `tfrig setup` for ubuntu-20.04, method pip, GeForce GTX 1070 Ti (compute capability 6.1),
# TensorFlow 2.13.0. It never ran on its own: read README.md, then
#   ./install.sh --dry-run     prints every command, changes nothing, needs no root
#   sudo ./install.sh          does it; every step checks first and says "ok: ... (skipping)"
#                              when there is nothing to do, so a second run changes nothing.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="${TFRIG_ROOT:-}"            # a throwaway root every file path is prefixed with (tests)
VENV="${TFRIG_VENV:-/opt/tfrig/venv}"
DRY_RUN=0
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

step_preflight() {
  step "Preflight: ubuntu 20.04, run as root"
  local os_id="" os_version=""
  if [ -r "$ROOT/etc/os-release" ]; then
    os_id="$(sed -n 's/^ID=//p' "$ROOT/etc/os-release" | tr -d '"')"
    os_version="$(sed -n 's/^VERSION_ID=//p' "$ROOT/etc/os-release" | tr -d '"')"
  fi
  if [ "$os_id" = "ubuntu" ] && [ "$os_version" = "20.04" ]; then
    ok "this machine is ubuntu 20.04"
  elif [ "$DRY_RUN" -eq 1 ]; then
    note "warning: written for ubuntu 20.04, this machine says '${os_id:-?} ${os_version:-?}' (a dry run goes on)"
  else
    echo "install.sh: written for ubuntu 20.04 but this machine is '${os_id:-unknown} ${os_version:-}';" \
      "run tfrig setup on this machine (or with --os) again" >&2
    exit 1
  fi
  if [ "$DRY_RUN" -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: installing the driver and packages and writing /etc needs root:" \
      "run 'sudo $0' (or '$0 --dry-run' to see the commands)" >&2
    exit 77
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

step_cuda_repo() {
  step "NVIDIA CUDA apt repository (cuda-keyring 1.1-1, ubuntu2004/x86_64)"
  if have_pkg cuda-keyring; then
    ok "cuda-keyring is installed"
    return 0
  fi
  apt_install curl ca-certificates
  local deb="${TMPDIR:-/tmp}/cuda-keyring_1.1-1_all.deb"
  run curl -fsSL -o "$deb" "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2004/x86_64/cuda-keyring_1.1-1_all.deb"
  run dpkg -i "$deb"
  run apt-get update
}

step_driver() {
  step "NVIDIA driver branch 570: CUDA 11.8 needs driver 520.61.05 or newer"
  local have=""
  if command -v nvidia-smi >/dev/null 2>&1; then
    have="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1 || true)"
  fi
  if [ -n "$have" ] && version_ge "$have" "520.61.05"; then
    ok "driver $have is loaded and >= 520.61.05"
    return 0
  fi
  if [ -n "$have" ]; then
    note "driver $have is older than 520.61.05: installing branch 570"
  fi
  apt_install ubuntu-drivers-common
  local offered=""
  if command -v ubuntu-drivers >/dev/null 2>&1; then
    offered="$(ubuntu-drivers list --gpgpu 2>/dev/null || true)"
  fi
  if command -v ubuntu-drivers >/dev/null 2>&1 && ! grep -q "nvidia-driver-570-server" <<<"$offered"; then
    if [ "$DRY_RUN" -eq 0 ]; then
      echo "install.sh: ubuntu-drivers does not offer nvidia-driver-570-server here; see 'ubuntu-drivers list --gpgpu'" >&2
      exit 1
    fi
    note "warning: ubuntu-drivers does not offer nvidia-driver-570-server on this machine"
  fi
  run ubuntu-drivers install --gpgpu nvidia:570-server
  apt_install nvidia-utils-570-server
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

step_cuda() {
  step "CUDA 11.8 (cuda-libraries-11-8) and cuDNN 8.6 (libcudnn8), held"
  apt_install cuda-libraries-11-8
  local have="" want=""
  if have_pkg libcudnn8; then
    # shellcheck disable=SC2016 # ${Version} is dpkg-query's field
    have="$(dpkg-query -W -f='${Version}' libcudnn8 2>/dev/null || true)"
  fi
  case "$have" in
    "8.6."*"+cuda11"*) ok "libcudnn8 $have is installed" ;;
    *)
      want="$(apt-cache madison libcudnn8 2>/dev/null | awk -v p="8.6." -v s="+cuda11" \
        '{ v = $3; if (index(v, p) == 1 && index(v, s) > 0) print v }' | sort -V | tail -n 1 || true)"
      if [ -z "$want" ]; then
        if [ "$DRY_RUN" -eq 0 ]; then
          echo "install.sh: no libcudnn8 8.6.*+cuda11 in the apt sources (is the CUDA repository added?)" >&2
          exit 1
        fi
        want="8.6.*+cuda11"
        note "the newest libcudnn8 $want from 'apt-cache madison' would be pinned"
      fi
      run env DEBIAN_FRONTEND=noninteractive apt-get install -y "libcudnn8=$want"
      ;;
  esac
  local holds
  holds="$(apt-mark showhold 2>/dev/null || true)"
  if grep -qx libcudnn8 <<<"$holds"; then
    ok "libcudnn8 is held"
  else
    run apt-mark hold libcudnn8
  fi
  if [ -f "$ROOT/etc/ld.so.conf.d/90-tfrig-cuda.conf" ] && cmp -s "$HERE/ld.so.conf.d/90-tfrig-cuda.conf" "$ROOT/etc/ld.so.conf.d/90-tfrig-cuda.conf"; then
    ok "the loader finds /usr/local/cuda-11.8/lib64"
  else
    put_file ld.so.conf.d/90-tfrig-cuda.conf /etc/ld.so.conf.d/90-tfrig-cuda.conf 0644
    run ldconfig
  fi
}

step_python() {
  step "Python 3.8 virtual environment in $VENV"
  if [ -x "$VENV/bin/python" ]; then
    ok "$VENV exists ($("$VENV/bin/python" --version 2>&1 || echo '?'))"
    return 0
  fi
  apt_install python3-venv python3-pip
  run python3.8 -m venv "$VENV"
}

step_tensorflow() {
  step "TensorFlow 2.13.0: tensorflow==2.13.0"
  local have=""
  if [ -x "$VENV/bin/python" ]; then
    have="$("$VENV/bin/python" -m pip show tensorflow 2>/dev/null | sed -n 's/^Version: //p' || true)"
  fi
  if [ "$have" = "2.13.0" ]; then
    ok "tensorflow $have is installed in $VENV"
    return 0
  fi
  run "$VENV/bin/python" -m pip install --upgrade pip
  run "$VENV/bin/python" -m pip install "tensorflow==2.13.0"
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
  run "$VENV/bin/python" -c 'import tensorflow as tf; g = tf.config.list_physical_devices("GPU"); print("TensorFlow", tf.__version__, "sees", len(g), "GPU(s):", g); raise SystemExit(0 if g else 1)'
}

main() {
  step_preflight
  step_nouveau
  step_cuda_repo
  step_driver
  step_persistenced
  step_cuda
  step_python
  step_tensorflow
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
