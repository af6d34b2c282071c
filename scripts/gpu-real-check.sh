#!/usr/bin/env bash
# The GPU path on a real NVIDIA machine (not possible in CI: no GPU there).
# Builds tfrig, runs doctor and snapshot through the real libnvidia-ml.so.1,
# imports `nvidia-smi -q -x` from the same machine, and compares what NVML
# and nvidia-smi say GPU by GPU. Writes everything under ${OUT:-./gpu-check}.
# Usage: scripts/gpu-real-check.sh [build dir, default build-gpu-check]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${OUT:-./gpu-check}"
build="${1:-build-gpu-check}"
mkdir -p "$out"
if [ ! -x "$build/tfrig" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTFRIG_TESTS=OFF >"$out/cmake.log" 2>&1
  cmake --build "$build" -j "$(nproc)" >>"$out/cmake.log" 2>&1
fi
unset TFRIG_NVML_LIBRARY
"$build/tfrig" -v doctor --color never >"$out/doctor.txt" 2>"$out/doctor.log" || true
"$build/tfrig" snapshot -o "$out/snapshot.json" 2>>"$out/doctor.log"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi -q -x >"$out/nvidia-smi.xml" 2>"$out/nvidia-smi.err" || true
  nvidia-smi topo -m >"$out/topo.txt" 2>&1 || true
  "$build/tfrig" import nvidia-smi-xml "$out/nvidia-smi.xml" -o "$out/import.json"
fi
python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
snap = json.load(open(os.path.join(out, "snapshot.json")))["inventory"]
print("nvml:", snap["driver"]["nvml"]["state"], "-", snap["driver"]["nvml"]["detail"])
print("nvmlInit took", snap["driver"]["nvml"]["init_seconds"], "s; driver", snap["driver"]["version"],
      "CUDA", snap["driver"]["cuda_version"])
path = os.path.join(out, "import.json")
if not os.path.exists(path):
    print("no nvidia-smi: nothing to compare"); sys.exit(0)
smi = json.load(open(path))["inventory"]
keys = ["name", "uuid", "serial", "pci_bus_id", "pci_device_id", "architecture", "memory_total_bytes",
        "pcie_link_gen_max", "pcie_link_width_max", "persistence_mode", "ecc_mode_current", "mig_mode_current",
        "compute_mode", "power_limit_watts"]
bad = 0
for k in ("version", "cuda_version"):
    if snap["driver"][k] != smi["driver"][k]:
        bad += 1; print("driver", k, "NVML", snap["driver"][k], "nvidia-smi", smi["driver"][k])
by_bus = {g["pci_bus_id"]: g for g in snap["gpus"]}
for g in smi["gpus"]:
    n = by_bus.get(g["pci_bus_id"])
    if n is None:
        bad += 1; print("gpu", g["pci_bus_id"], "missing from the NVML snapshot"); continue
    for k in keys:
        if n.get(k) != g.get(k):
            bad += 1; print(f"gpu {g['pci_bus_id']} {k}: NVML {n.get(k)!r} nvidia-smi {g.get(k)!r}")
print(len(smi["gpus"]), "GPUs compared,", bad, "differences")
for g in snap["gpus"]:
    print(f"gpu{g['index']} cc={g['compute_capability']} numa={g['numa_node']} cpus={len(g['cpu_affinity'])} "
          f"nvlinks={sum(1 for l in g['nvlinks'] if l['active'])} procs={g['process_count']}")
for p in snap.get("gpu_topology", []):
    print(f"gpu{p['gpu_a']}-gpu{p['gpu_b']}: {p['level']} p2p={p['p2p_read']} nvlink={p['nvlink']}")
PY
