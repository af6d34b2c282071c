#!/usr/bin/env bash
# tfrig doctor against the inventory tools people use, side by side in one run:
# inxi -F and lshw -short (Debian packages). Prints the median wall time of
# each over N runs and the ratio. Usage: bench/doctor.sh [runs=15] [tfrig binary]
set -euo pipefail
runs="${1:-15}"
tfrig="${2:-$(dirname "$0")/../build/tfrig}"
for tool in inxi lshw; do
  command -v "$tool" >/dev/null || { echo "installing $tool"; apt-get install -y -qq "$tool" >/dev/null; }
done

# Median wall time in milliseconds of a command run $runs times (after one warm-up).
median_ms() {
  "$@" >/dev/null 2>&1 || true
  local times=()
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f", m/1000}'
}

echo "runs per tool: $runs  (machine: $(nproc) cores, $(uname -r))"
t_tfrig=$(median_ms "$tfrig" doctor)
t_json=$(median_ms "$tfrig" doctor --format json)
t_inxi=$(median_ms inxi -F)
t_lshw=$(median_ms lshw -short)
printf '%-28s %10s ms\n' "tfrig doctor" "$t_tfrig" "tfrig doctor --format json" "$t_json" "inxi -F" "$t_inxi" "lshw -short" "$t_lshw"
awk -v a="$t_inxi" -v b="$t_tfrig" -v c="$t_lshw" 'BEGIN {printf "inxi -F / tfrig doctor: %.1fx\nlshw -short / tfrig doctor: %.1fx\n", a/b, c/b}'

# The GPU-stack probes on this machine and on a root with 20 Python environments.
echo
bash "$(dirname "$0")/doctor-stack.sh" "$runs" "$tfrig"
