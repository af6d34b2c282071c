#!/usr/bin/env bash
# install.sh -- 由 `tfrig setup` 为 ubuntu-22.04 生成，安装方式 container，NVIDIA A100-SXM4-80GB（计算能力 8.0），
# TensorFlow 2.15.0, 2.17.0。它不会自动运行：请先阅读 README.md，然后
#   ./install.sh --dry-run     打印每条命令，不做任何改动，不需要 root
#   sudo ./install.sh          执行安装；每一步都先检查，无事可做时打印 "已满足：...（跳过）"，
#                              所以再运行一次不会改动任何东西。
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="${TFRIG_ROOT:-}"            # 每个文件路径前加上的临时根目录（测试用）
DRY_RUN=0
SKIP_SOURCE_CHECK=0
REBOOT_NEEDED=0
DEFAULT_SOURCE_FAILED=0
MIRROR_FAILED=0

usage() {
  cat <<'USAGE'
用法：install.sh [--dry-run] [--skip-source-check] [--help]
  --dry-run             只打印每条命令和每个下载源，不实际执行
                        （不需要 root，不做任何改动）
  --skip-source-check   不预先检查各下载源是否有响应
环境变量：TFRIG_ROOT=DIR 给读写的文件路径加上前缀（一个临时的根目录）；
          TFRIG_VENV=DIR 把 Python 环境放到别处。
USAGE
}

while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) DRY_RUN=1 ;;
    --skip-source-check) SKIP_SOURCE_CHECK=1 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "install.sh: 未知选项 '$1'" >&2; usage >&2; exit 64 ;;
  esac
  shift
done

step() { printf '\n==> %s\n' "$*"; }
ok() { printf '    已满足：%s（跳过）\n' "$*"; }
note() { printf '    %s\n' "$*"; }
run() {
  if [ "$DRY_RUN" -eq 1 ]; then
    printf '    将运行：'
    printf ' %q' "$@"
    printf '\n'
  else
    printf '    +'
    printf ' %q' "$@"
    printf '\n'
    "$@"
  fi
}
# put_file SRC DEST MODE: 把本脚本旁边的文件安装到目标位置（内容不同时才安装）。
put_file() {
  local src="$HERE/$1" dest="$ROOT$2" mode="$3"
  if [ -f "$dest" ] && cmp -s "$src" "$dest"; then
    ok "$2 已是最新"
    return 0
  fi
  run install -D -m "$mode" "$src" "$dest"
}
# pipefail 下不用 `cmd | grep -q`：grep -q 匹配到第一行就退出，写入端收到的
# SIGPIPE 会让整条管道失败；所以先把输出保存下来再匹配。
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
    ok "$* 均已安装"
    return 0
  fi
  run env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
}
# check_source KIND WHAT URL: URL 能否在限时内响应 HEAD 请求？任何 HTTP 响应都算（镜像仓库的 401 也算）；
# KIND 为 "mirror" 或 "default"，决定没有响应时给出什么建议。
check_source() {
  local kind="$1" what="$2" url="$3"
  if [ "$DRY_RUN" -eq 1 ]; then
    note "将检查：$what $url"
    return 0
  fi
  if ! command -v curl >/dev/null 2>&1; then
    note "没有安装 curl，未检查：$what $url"
    return 0
  fi
  if curl -sS -I -o /dev/null --max-time 5 "$url" 2>/dev/null; then
    note "有响应：$what $url"
  else
    note "5 秒内没有响应：$what $url"
    if [ "$kind" = mirror ]; then
      MIRROR_FAILED=1
    else
      DEFAULT_SOURCE_FAILED=1
    fi
  fi
}
# version_ge A B: 按版本号顺序 A >= B。
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]; }

step_preflight() {
  step "预检：ubuntu 22.04，以 root 身份运行"
  local os_id="" os_version=""
  if [ -r "$ROOT/etc/os-release" ]; then
    os_id="$(sed -n 's/^ID=//p' "$ROOT/etc/os-release" | tr -d '"')"
    os_version="$(sed -n 's/^VERSION_ID=//p' "$ROOT/etc/os-release" | tr -d '"')"
  fi
  if [ "$os_id" = "ubuntu" ] && [ "$os_version" = "22.04" ]; then
    ok "本机是 ubuntu 22.04"
  elif [ "$DRY_RUN" -eq 1 ]; then
    note "警告：脚本是为 ubuntu 22.04 生成的，本机却是 '${os_id:-?} ${os_version:-?}'（演练继续）"
  else
    echo "install.sh: 脚本是为 ubuntu 22.04 生成的，但本机是 '${os_id:-unknown} ${os_version:-}'；" \
      "请在本机（或加 --os）重新运行 tfrig setup" >&2
    exit 1
  fi
  if [ "$DRY_RUN" -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: 安装驱动和软件包、写入 /etc 需要 root 权限：" \
      "请运行 'sudo $0'（或用 '$0 --dry-run' 查看命令）" >&2
    exit 77
  fi
}

step_sources() {
  step "检查下载源是否有响应（每个限时 5 秒）"
  if [ "$SKIP_SOURCE_CHECK" -eq 1 ]; then
    ok "--skip-source-check"
    return 0
  fi
  check_source mirror "apt 软件源镜像" "https://mirrors.tuna.tsinghua.edu.cn/ubuntu/"
  check_source mirror "Container Toolkit 镜像源" "https://mirrors.ustc.edu.cn/libnvidia-container/gpgkey"
  check_source default "NGC 镜像仓库" "https://nvcr.io/v2/"
  if [ "$DEFAULT_SOURCE_FAILED" -eq 1 ]; then
    #@# Written with a mirror preset already: the advice names what is left (the image registry), never the same preset.
    cat >&2 <<'ADVICE'
install.sh: a default download source did not answer although this installation already uses
  mirrors (the registry above is the one left without one). Write it again with a registry that
  answers from your network: --docker-registry-mirror URL with your cloud's registry accelerator
  (Alibaba Cloud ACR https://ID.mirror.aliyuncs.com, Tencent Cloud https://mirror.ccs.tencentyun.com
  inside Tencent Cloud, Huawei Cloud SWR's accelerator), or install without containers:
  --method pip. To go on anyway: ./install.sh --skip-source-check
install.sh：默认下载源没有响应，而本安装已经使用了镜像（见上，剩下的是镜像仓库）。请用在你的网络中
  能访问的镜像仓库重新生成：--docker-registry-mirror URL，填写你所用云的镜像加速器（阿里云 ACR：
  https://ID.mirror.aliyuncs.com ；腾讯云内网：https://mirror.ccs.tencentyun.com ；华为云 SWR 镜像加速器），
  或不用容器安装：--method pip。仍要继续：./install.sh --skip-source-check
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

step_apt_mirror() {
  step "apt 软件源改用 https://mirrors.tuna.tsinghua.edu.cn/ubuntu"
  local f changed=0
  for f in "$ROOT/etc/apt/sources.list" "$ROOT"/etc/apt/sources.list.d/*.list "$ROOT"/etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    if grep -Eq 'https?://([a-z]{2}[.]archive|archive|security)[.]ubuntu[.]com/ubuntu([/ ]|$)' "$f"; then
      #@# The first rewrite of a file keeps its .tfrig-bak copy; a second (Debian's security archive) keeps that copy.
      if [ -e "$f.tfrig-bak" ] && [ "$changed" -eq 1 ]; then
        run sed -i -E 's#https?://([a-z]{2}[.]archive|archive|security)[.]ubuntu[.]com/ubuntu([/ ]|$)#https://mirrors.tuna.tsinghua.edu.cn/ubuntu\2#g' "$f"
      else
        run sed -i.tfrig-bak -E 's#https?://([a-z]{2}[.]archive|archive|security)[.]ubuntu[.]com/ubuntu([/ ]|$)#https://mirrors.tuna.tsinghua.edu.cn/ubuntu\2#g' "$f"
      fi
      changed=1
    fi
  done
  if [ "$changed" -eq 1 ]; then
    run apt-get update
  else
    ok "/etc/apt 中没有文件使用默认软件源"
  fi
}

step_nouveau() {
  step "如果 nouveau 占用了 GPU，将其加入黑名单"
  if [ ! -d "$ROOT/sys/module/nouveau" ]; then
    ok "nouveau 未加载"
    return 0
  fi
  if [ -f "$ROOT/etc/modprobe.d/blacklist-nouveau.conf" ] && grep -q '^blacklist nouveau' "$ROOT/etc/modprobe.d/blacklist-nouveau.conf"; then
    ok "nouveau 已在黑名单中（下次重启后不再加载）"
    REBOOT_NEEDED=1
    return 0
  fi
  put_file modprobe.d/blacklist-nouveau.conf /etc/modprobe.d/blacklist-nouveau.conf 0644
  run update-initramfs -u
  REBOOT_NEEDED=1
}

step_driver() {
  step "NVIDIA 驱动 580 分支（开源内核模块）：CUDA 12.8.0 需要 570.26 或更新的驱动"
  local have=""
  if command -v nvidia-smi >/dev/null 2>&1; then
    have="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1 || true)"
  fi
  if [ -n "$have" ] && version_ge "$have" "570.26"; then
    ok "驱动 $have 已加载，且 >= 570.26"
    return 0
  fi
  if [ -n "$have" ]; then
    note "驱动 $have 比 570.26 旧：安装 580 分支"
  fi
  apt_install ubuntu-drivers-common
  local offered=""
  if command -v ubuntu-drivers >/dev/null 2>&1; then
    offered="$(ubuntu-drivers list --gpgpu 2>/dev/null || true)"
  fi
  if command -v ubuntu-drivers >/dev/null 2>&1 && ! grep -q "nvidia-driver-580-server-open" <<<"$offered"; then
    if [ "$DRY_RUN" -eq 0 ]; then
      echo "install.sh: 本机的 ubuntu-drivers 不提供 nvidia-driver-580-server-open；请查看 'ubuntu-drivers list --gpgpu'" >&2
      exit 1
    fi
    note "警告：本机的 ubuntu-drivers 不提供 nvidia-driver-580-server-open"
  fi
  run ubuntu-drivers install --gpgpu nvidia:580-server-open
  apt_install nvidia-utils-580-server
  REBOOT_NEEDED=1
}

step_persistenced() {
  step "开启 NVIDIA 持久化守护进程"
  if systemctl is-active --quiet nvidia-persistenced 2>/dev/null; then
    ok "nvidia-persistenced 正在运行"
    return 0
  fi
  if systemctl is-enabled --quiet nvidia-persistenced 2>/dev/null; then
    ok "nvidia-persistenced 已启用（随驱动启动）"
    return 0
  fi
  run systemctl enable nvidia-persistenced
  if [ -d "$ROOT/sys/module/nvidia" ]; then
    run systemctl start nvidia-persistenced
  else
    note "nvidia 内核模块尚未加载：守护进程会在重启后启动"
  fi
}

step_docker() {
  step "Docker 引擎"
  if command -v docker >/dev/null 2>&1; then
    ok "docker 已安装"
    return 0
  fi
  apt_install docker.io
}

step_container_toolkit() {
  step "NVIDIA Container Toolkit：软件源、软件包、Docker 运行时"
  if [ -f "$ROOT/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg" ]; then
    ok "/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg 已存在"
  else
    apt_install curl gnupg ca-certificates
    if [ "$DRY_RUN" -eq 1 ]; then
      printf '    将运行： curl -fsSL %s | gpg --dearmor -o %s\n' "https://mirrors.ustc.edu.cn/libnvidia-container/gpgkey" "$ROOT/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg"
    else
      curl -fsSL "https://mirrors.ustc.edu.cn/libnvidia-container/gpgkey" | gpg --dearmor -o "$ROOT/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg"
    fi
  fi
  if [ -f "$ROOT/etc/apt/sources.list.d/nvidia-container-toolkit.list" ]; then
    ok "/etc/apt/sources.list.d/nvidia-container-toolkit.list 已存在"
  else
    if [ "$DRY_RUN" -eq 1 ]; then
      printf '    将运行： curl -fsSL %s | sed (signed-by %s) > %s\n' "https://mirrors.ustc.edu.cn/libnvidia-container/stable/deb/nvidia-container-toolkit.list" "/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg" "$ROOT/etc/apt/sources.list.d/nvidia-container-toolkit.list"
    else
      curl -fsSL "https://mirrors.ustc.edu.cn/libnvidia-container/stable/deb/nvidia-container-toolkit.list" |
        sed 's#deb https://nvidia.github.io/libnvidia-container#deb [signed-by=/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg] https://mirrors.ustc.edu.cn/libnvidia-container#g' >"$ROOT/etc/apt/sources.list.d/nvidia-container-toolkit.list"
    fi
    run apt-get update
  fi
  apt_install nvidia-container-toolkit
  if [ -f "$ROOT/etc/docker/daemon.json" ] && grep -q 'nvidia-container-runtime' "$ROOT/etc/docker/daemon.json"; then
    ok "/etc/docker/daemon.json 已有 nvidia 运行时"
  else
    run nvidia-ctk runtime configure --runtime=docker
    run systemctl restart docker
  fi
}

step_swap() {
  step "关闭交换分区，vm.swappiness=10"
  if [ -z "$(swapon --show --noheadings 2>/dev/null || true)" ]; then
    ok "没有启用的交换分区"
  else
    run swapoff -a
  fi
  if grep -Eq '^[^#].*[[:space:]]swap[[:space:]]' "$ROOT/etc/fstab" 2>/dev/null; then
    run sed -i.tfrig-bak -E 's|^([^#].*[[:space:]]swap[[:space:]].*)$|# tfrig: \1|' "$ROOT/etc/fstab"
  else
    ok "/etc/fstab 中没有交换分区条目"
  fi
  put_file sysctl.d/90-tfrig.conf /etc/sysctl.d/90-tfrig.conf 0644
  if [ "$(sysctl -n vm.swappiness 2>/dev/null || true)" = "10" ]; then
    ok "vm.swappiness 已是 10"
  else
    run sysctl -p "$ROOT/etc/sysctl.d/90-tfrig.conf"
  fi
}

step_limits() {
  step "打开文件数上限 1048576，锁定内存不设上限"
  put_file security/limits.d/90-tfrig.conf /etc/security/limits.d/90-tfrig.conf 0644
  note "这些限制对新登录生效；由 systemd 启动的服务要改用 LimitNOFILE= / LimitMEMLOCK="
}

step_governor() {
  step "CPU 调速器：performance"
  local f n=0 changed=0
  for f in "$ROOT"/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    if [ "$(cat "$f")" != "performance" ]; then
      changed=$((changed + 1))
      if [ "$DRY_RUN" -eq 1 ]; then
        printf '    将运行： echo performance > %s\n' "$f"
      else
        echo performance >"$f"
      fi
    fi
  done
  if [ "$n" -eq 0 ]; then
    ok "本机没有 cpufreq（虚拟机，或频率固定）"
  elif [ "$changed" -eq 0 ]; then
    ok "全部 $n 个 CPU 都在用 performance"
  else
    note "已在 $n 个 CPU 中的 $changed 个上设置，重启后失效（用 cpupower.service 或 tuned 持久化）"
  fi
}

step_verify() {
  step "验证：nvidia-smi 和一行 TensorFlow GPU 检查"
  if [ "$DRY_RUN" -eq 0 ] && [ "$REBOOT_NEEDED" -eq 1 ]; then
    note "请先重启（驱动或 nouveau 有变动），再运行 ./install.sh：已完成的步骤会跳过"
    return 0
  fi
  run nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv
  run docker run --rm --gpus all nvcr.io/nvidia/tensorflow:24.02-tf2-py3 nvidia-smi
  run docker run --rm --gpus all nvcr.io/nvidia/tensorflow:24.02-tf2-py3 python -c 'import tensorflow as tf; g = tf.config.list_physical_devices("GPU"); print("TensorFlow", tf.__version__, "sees", len(g), "GPU(s):", g); raise SystemExit(0 if g else 1)'
  run docker run --rm --gpus all nvcr.io/nvidia/tensorflow:25.02-tf2-py3 nvidia-smi
  run docker run --rm --gpus all nvcr.io/nvidia/tensorflow:25.02-tf2-py3 python -c 'import tensorflow as tf; g = tf.config.list_physical_devices("GPU"); print("TensorFlow", tf.__version__, "sees", len(g), "GPU(s):", g); raise SystemExit(0 if g else 1)'
}

main() {
  step_preflight
  step_sources
  step_apt_mirror
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
    echo "install.sh: 演练结束；没有做任何改动。"
  elif [ "$REBOOT_NEEDED" -eq 1 ]; then
    echo "install.sh: 完成；请重启以加载 NVIDIA 驱动，然后再运行一次进行验证。"
  else
    echo "install.sh: 完成。"
  fi
}

main
