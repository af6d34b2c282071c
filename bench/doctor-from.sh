#!/usr/bin/env bash
# tfrig doctor --from a gzipped nvidia-bug-report log, next to the least any
# reader of it does: `zcat FILE | grep -c Xid` (decompress, one pass over the
# text). Runs each RUNS times, interleaved (tfrig, zcat|grep, tfrig, ...) so
# that a change in load weighs on both, and prints the medians and the ratio.
# Usage: bench/doctor-from.sh FILE.log.gz [runs=11] [tfrig binary]
# With TFRIG_STAGES=1 tfrig's -v log is kept: it names where the time went.
set -euo pipefail
file="$1"
runs="${2:-11}"
here="$(cd "$(dirname "$0")/.." && pwd)"
tfrig="${3:-$here/build/tfrig}"
[ -f "$file" ] || { echo "no such file: $file" >&2; exit 66; }
t=(); g=(); tc=(); gc=()
scratch="$(mktemp -d -t tfrig-from.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT INT TERM
# "wall cpu" seconds of a command; CPU is the time it and its children (both
# ends of the pipe) ran, which a loaded machine disturbs less than wall time:
# perf's task-clock where perf is installed (linux-perf), else user+sys from
# /usr/bin/time (10 ms steps).
timed() {
  if command -v perf >/dev/null 2>&1; then
    local a b
    a=$(date +%s.%N)
    perf stat -x, -e task-clock -o "$scratch/p" "$@" >/dev/null 2>&1 || true
    b=$(date +%s.%N)
    awk -F, -v w="$(echo "$b - $a" | bc)" '/task-clock/ {printf "%.4f %.4f", w, $1 / 1000}' "$scratch/p"
    return
  fi
  /usr/bin/time -f '%e %U %S' -o "$scratch/t" "$@" >/dev/null 2>&1 || true
  tail -n 1 "$scratch/t" | awk '{printf "%s %.3f", $1, $2 + $3}'
}
"$tfrig" doctor --from "$file" --format json >/dev/null 2>&1 || true  # warm the page cache
for _ in $(seq "$runs"); do
  read -r w c <<<"$(timed "$tfrig" doctor --from "$file" --format json)"
  t+=("$w"); tc+=("$c")
  read -r w c <<<"$(timed bash -c 'zcat "$1" | grep -c Xid' _ "$file")"
  g+=("$w"); gc+=("$c")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
tm=$(median "${t[@]}"); gm=$(median "${g[@]}"); tcm=$(median "${tc[@]}"); gcm=$(median "${gc[@]}")
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s: %s bytes gzipped, %s bytes of text; medians of %d runs\n' "$(basename "$file")" "$(stat -c %s "$file")" "$(zcat "$file" | wc -c)" "$runs"
printf '%-40s %8s %8s\n' "" "wall s" "CPU s"
printf '%-40s %8.3f %8.3f\n' "tfrig doctor --from FILE --format json" "$tm" "$tcm"
printf '%-40s %8.3f %8.3f\n' "zcat FILE | grep -c Xid" "$gm" "$gcm"
awk -v t="$tm" -v g="$gm" -v tc="$tcm" -v gc="$gcm" 'BEGIN { printf "%-40s %7.2fx %7.2fx\n", "tfrig / zcat|grep", t / g, tc / gc }'
