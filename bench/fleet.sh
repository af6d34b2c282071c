#!/usr/bin/env bash
# tfrig fleet at 100, 1,000 and 10,000 nodes, next to `jq -s` reading the same
# files in the same run. The nodes are real fixture machines (two snapshots
# from tests/data/snapshots, the stack-cuda12 and node-exporter fixture roots
# snapshotted now, and the pavana27__Lambda-Bug-report bug report imported
# now), each copied with its own hostname and time; one node in 50 gets a
# planted difference (driver, PCIe width, open-files limit or a lost GPU), as
# a real fleet drifts.
#
# Usage: bench/fleet.sh [sizes="100 1000 10000"] [tfrig binary] [work dir]
# Prints wall time (s) and peak RSS (MiB) per tool and size, from
# /usr/bin/time (Debian package `time`); jq is Debian's `jq`.
set -euo pipefail
sizes="${1:-100 1000 10000}"
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

# "seconds MiB" of a command (stdout discarded).
measure() {
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || true
  tail -n 1 "$work/time" | awk '{printf "%.2f %.0f", $1, $2 / 1024}'
}

echo "machine: $(nproc) cores, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %10s %-44s %10s %10s\n' nodes "JSON MB" tool "seconds" "peak MiB"
for n in $sizes; do
  dir="$work/fleet-$n"
  generate "$n" "$dir"
  mb=$(du -sm "$dir" | cut -f1)
  # Warm the page cache so both tools read from memory.
  cat "$dir"/*.json >/dev/null 2>&1 || find "$dir" -name '*.json' -exec cat {} + >/dev/null
  read -r s m <<<"$(measure "$tfrig" fleet --format json "$dir")"
  printf '%-8s %10s %-44s %10s %10s\n' "$n" "$mb" "tfrig fleet --format json DIR" "$s" "$m"
  read -r s m <<<"$(measure "$tfrig" fleet -j 1 --format json "$dir")"
  printf '%-8s %10s %-44s %10s %10s\n' "$n" "$mb" "tfrig fleet -j 1 --format json DIR" "$s" "$m"
  # jq reads every document into one array, then counts one fact's values.
  read -r s m <<<"$(cd "$dir" && measure jq -s '[.[].inventory.driver.version] | group_by(.) | map([.[0], length])' ./*.json)"
  printf '%-8s %10s %-44s %10s %10s\n' "$n" "$mb" "jq -s (driver versions grouped)" "$s" "$m"
  rm -rf "$dir"
done
