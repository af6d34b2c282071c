#!/usr/bin/env bash
# tfrig fleet at 1,000, 3,000 and 10,000 nodes, next to `jq -s` reading the same
# files in the same run. The nodes are real fixture machines (two snapshots
# from tests/data/snapshots, the stack-cuda12 and node-exporter fixture roots
# snapshotted now, and the pavana27__Lambda-Bug-report bug report imported
# now), each copied with its own hostname and time; one node in 50 gets a
# planted difference (driver, PCIe width, open-files limit or a lost GPU), as
# a real fleet drifts.
#
# Usage: bench/fleet.sh [sizes="1000 3000 10000"] [tfrig binary] [work dir]
# Prints wall time (s), CPU time (user+sys, s) and peak RSS (MiB) per tool and
# size, from /usr/bin/time (Debian package `time`), and how many times faster
# than jq tfrig was (jq's wall time / tfrig's); jq is Debian's `jq`.
# BEFORE=/path/to/an/older/tfrig adds its rows, measured in the same run.
set -euo pipefail
sizes="${1:-1000 3000 10000}"
here="$(cd "$(dirname "$0")/.." && pwd)"
tfrig="${2:-$here/build/tfrig}"
work="${3:-$(mktemp -d "${TMPDIR:-/tmp}/tfrig-fleet-bench.XXXXXX")}"
for tool in jq /usr/bin/time python3; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install jq time python3)" >&2; exit 1; }
done
trap 'rm -rf "$work"' EXIT

bases="$work/bases"
mkdir -p "$bases"
cp "$here"/tests/data/snapshots/*.json "$bases/"
"$tfrig" --root "$here/tests/data/roots/stack-cuda12" snapshot -o "$bases/stack-cuda12.json" 2>/dev/null
"$tfrig" --root "$here/tests/data/roots/node-exporter" snapshot -o "$bases/node-exporter.json" 2>/dev/null
"$tfrig" import "$here/tests/data/nvidia-bug-report/pavana27__Lambda-Bug-report.log.gz" -o "$bases/lambda.json" 2>/dev/null

# Writes N nodes into DIR: mostly the A100 box, some of each other machine.
generate() {
  python3 - "$bases" "$1" "$2" <<'PY'
import json, os, sys, random
bases_dir, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
os.makedirs(out, exist_ok=True)
load = lambda f: json.load(open(os.path.join(bases_dir, f)))
# (machine, share of the fleet)
kinds = [(load("gpu_box_two_a100_old_driver.json"), 70), (load("stack-cuda12.json"), 15),
         (load("lambda.json"), 10), (load("cpu_box_cuda13.json"), 3), (load("node-exporter.json"), 2)]
pool = [doc for doc, share in kinds for _ in range(share)]
rng = random.Random(1)
for i in range(n):
    doc = json.loads(json.dumps(pool[i % len(pool)]))
    inv = doc["inventory"]
    inv["host"]["hostname"] = "node%05d" % i
    doc["generated_at"] = "2026-12-01T%02d:%02d:00Z" % (i // 60 % 24, i % 60)
    if rng.random() < 0.02:
        what = rng.choice(["driver", "width", "nofile", "lost"])
        if what == "driver" and inv["driver"].get("version"):
            inv["driver"]["version"] = "550.54.14"
        elif what == "width" and inv["gpus"] and inv["gpus"][0].get("pcie_link_width_current"):
            inv["gpus"][0]["pcie_link_width_current"] = 8
        elif what == "nofile" and inv["limits"]["nofile"].get("soft") is not None:
            inv["limits"]["nofile"]["soft"] = 1024
        elif what == "lost" and len(inv["gpus"]) > 1:
            inv["gpus"][-1]["lost"] = True
    with open(os.path.join(out, "node%05d.json" % i), "w") as f:
        json.dump(doc, f, indent=1)
PY
}

# "wall-seconds cpu-seconds MiB" of a command (stdout discarded).
measure() {
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || true
  tail -n 1 "$work/time" | awk '{printf "%.2f %.2f %.0f", $1, $2 + $3, $4 / 1024}'
}

row() {  # nodes MB tool wall cpu MiB [jq's wall]
  local ratio=""
  if [ -n "${7:-}" ]; then ratio=$(awk -v j="$7" -v t="$4" 'BEGIN { if (t > 0) printf "%.1fx", j / t }'); fi
  printf '%-8s %8s %-40s %8s %8s %9s %10s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$ratio"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %8s %-40s %8s %8s %9s %10s\n' nodes "JSON MB" tool "wall s" "CPU s" "peak MiB" "jq / tool"
for n in $sizes; do
  dir="$work/fleet-$n"
  generate "$n" "$dir"
  mb=$(du -sm "$dir" | cut -f1)
  # Warm the page cache so every tool reads from memory.
  find "$dir" -name '*.json' -exec cat {} + >/dev/null
  # jq reads every document into one array, then counts one fact's values.
  read -r js jc jm <<<"$(cd "$dir" && measure jq -s '[.[].inventory.driver.version] | group_by(.) | map([.[0], length])' ./*.json)"
  read -r s c m <<<"$(measure "$tfrig" fleet --format json "$dir")"
  row "$n" "$mb" "tfrig fleet --format json DIR" "$s" "$c" "$m" "$js"
  read -r s c m <<<"$(measure "$tfrig" fleet -j 1 --format json "$dir")"
  row "$n" "$mb" "tfrig fleet -j 1 --format json DIR" "$s" "$c" "$m" "$js"
  if [ -n "${BEFORE:-}" ]; then
    read -r s c m <<<"$(measure "$BEFORE" fleet --format json "$dir")"
    row "$n" "$mb" "BEFORE fleet --format json DIR" "$s" "$c" "$m" "$js"
  fi
  # jq again after tfrig, so that a change in load weighs on both sides.
  read -r js2 jc2 jm2 <<<"$(cd "$dir" && measure jq -s '[.[].inventory.driver.version] | group_by(.) | map([.[0], length])' ./*.json)"
  row "$n" "$mb" "jq -s (driver versions grouped), 1st" "$js" "$jc" "$jm"
  row "$n" "$mb" "jq -s (driver versions grouped), 2nd" "$js2" "$jc2" "$jm2"
  rm -rf "$dir"
done
