#!/usr/bin/env bash
# The cost of one textfile run next to one node_exporter scrape of the same
# machine, in the same run: `tfrig doctor --format prometheus -o FILE` (what
# the DaemonSet does every minute) against one GET /metrics of a
# node_exporter with its default collectors plus the textfile collector on
# that file. CPU time: tfrig's user+sys (bash `time`); node_exporter's is the
# rise of utime+stime in /proc/PID/stat over all scrapes, divided by their
# number (clock ticks are 10 ms, so single scrapes would round to 0).
# Usage: bench/prometheus.sh [runs=30] [tfrig binary]
set -euo pipefail
runs="${1:-30}"
tfrig="${2:-$(dirname "$0")/../build/tfrig}"
exporter="$(command -v prometheus-node-exporter || command -v node_exporter || true)"
[ -n "$exporter" ] || { echo "needs node_exporter (Debian: prometheus-node-exporter)" >&2; exit 1; }
command -v curl >/dev/null || { echo "needs curl" >&2; exit 1; }

work="$(mktemp -d)"
exporter_pid=""
cleanup() {
  if [ -n "$exporter_pid" ]; then kill "$exporter_pid" 2>/dev/null || true; wait "$exporter_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
mkdir "$work/textfile"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
"$exporter" --web.listen-address="127.0.0.1:$port" --collector.textfile.directory="$work/textfile" >"$work/exporter.log" 2>&1 &
exporter_pid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/metrics" >/dev/null && break; sleep 0.1; done

ticks="$(getconf CLK_TCK)"
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
now_ns() { date +%s%N; }

# tfrig: one warm-up, then $runs runs; wall and user+sys of each.
"$tfrig" doctor --format prometheus --fail-on never -o "$work/textfile/tfrig.prom" >/dev/null 2>&1
TIMEFORMAT='%R %U %S'
: >"$work/tfrig.times"
for _ in $(seq "$runs"); do
  { time "$tfrig" doctor --format prometheus --fail-on never -o "$work/textfile/tfrig.prom" >/dev/null 2>&1; } 2>>"$work/tfrig.times"
done

# node_exporter: one warm-up scrape, then $runs scrapes.
curl -sf "http://127.0.0.1:$port/metrics" >"$work/scrape.txt"
: >"$work/scrape.wall"
c0="$(cpu_ticks "$exporter_pid")"
for _ in $(seq "$runs"); do
  t0="$(now_ns)"
  curl -sf "http://127.0.0.1:$port/metrics" >/dev/null
  t1="$(now_ns)"
  echo $(( (t1 - t0) / 1000 )) >>"$work/scrape.wall"
done
c1="$(cpu_ticks "$exporter_pid")"

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }
tfrig_wall_ms="$(awk '{print $1*1000}' "$work/tfrig.times" | median)"
tfrig_cpu_ms="$(awk '{print ($2+$3)*1000}' "$work/tfrig.times" | median)"
scrape_wall_ms="$(awk '{print $1/1000}' "$work/scrape.wall" | median | xargs printf "%.0f")"
scrape_cpu_ms="$(awk -v a="$c0" -v b="$c1" -v t="$ticks" -v n="$runs" 'BEGIN {printf "%.1f", (b-a)*1000/t/n}')"
tfrig_samples="$(grep -vc '^#' "$work/textfile/tfrig.prom")"
scrape_samples="$(grep -vc '^#' "$work/scrape.txt")"

echo "machine: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); runs: $runs"
printf '%-52s %10s %10s %8s\n' "" "wall ms" "CPU ms" "samples"
printf '%-52s %10s %10s %8s\n' "tfrig doctor --format prometheus -o FILE (median)" "$tfrig_wall_ms" "$tfrig_cpu_ms" "$tfrig_samples"
printf '%-52s %10s %10s %8s\n' "node_exporter GET /metrics (wall median, CPU mean)" "$scrape_wall_ms" "$scrape_cpu_ms" "$scrape_samples"
awk -v c="$tfrig_cpu_ms" 'BEGIN {printf "tfrig every 60 s: %.3f%% of one core\n", c/600}'
