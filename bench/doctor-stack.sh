#!/usr/bin/env bash
# The GPU-stack probes' cost: reading the loader cache and scanning
# site-packages must stay in milliseconds. Times `tfrig doctor` on
# this machine and on a copy of tests/data/roots/stack-cuda12 grown to 20
# Python environments (conda envs, each with TensorFlow and NVIDIA wheels),
# and prints the median seconds each probe took over N runs, from the JSON
# report's own per-probe timings. Meant to be called from bench/doctor.sh.
# Usage: bench/doctor-stack.sh [runs=15] [tfrig binary]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
runs="${1:-15}"
tfrig="${2:-$here/../build/tfrig}"
scratch="$(mktemp -d -t tfrig-bench-stack.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT INT TERM

root="$scratch/stack-20-envs"
cp -a "$here/../tests/data/roots/stack-cuda12" "$root"
for i in $(seq -w 1 20); do
  mkdir -p "$root/opt/conda/envs/env$i"
  cp -a "$root/home/ml/venvs/tf216/lib" "$root/opt/conda/envs/env$i/"
done

# Median of each stack probe's seconds over $runs runs of one doctor command.
probe_medians() {
  local out="$scratch/times"
  : > "$out"
  for _ in $(seq "$runs"); do
    "$@" doctor --format json 2>/dev/null |
      python3 -c 'import json,sys; [print(p["id"], p["seconds"]) for p in json.load(sys.stdin)["probes"]]' >> "$out"
  done
  for id in nvidia_driver nvml cuda_libs python containers; do
    grep "^$id " "$out" | awk '{print $2}' | sort -g |
      awk -v id="$id" '{a[NR]=$1} END {if (NR) printf "  %-14s %8.2f ms (median of %d)\n", id, 1000*((NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2), NR}'
  done
}

echo "tfrig doctor on this machine ($(nproc) cores, $(uname -r)):"
probe_medians "$tfrig"
echo "tfrig doctor on stack-cuda12 grown to $(find "$root/opt/conda/envs" -maxdepth 1 -mindepth 1 | wc -l) conda envs:"
HOME=/home/ml VIRTUAL_ENV=/home/ml/venvs/tf216 probe_medians "$tfrig" --root "$root"
