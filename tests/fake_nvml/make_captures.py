#!/usr/bin/env python3
"""Builds the fake NVML captures in tests/data/fake-nvml/ from real
`nvidia-smi -q -x` files: `tfrig import nvidia-smi-xml` turns each into a
snapshot, then the few facts NVML has and nvidia-smi's XML lacks are added
by hand, each with its source (README.md there lists them).

Usage: tests/fake_nvml/make_captures.py BUILD_DIR/tfrig
"""
import json
import subprocess
import sys
from pathlib import Path

tfrig = sys.argv[1]
data = Path(__file__).resolve().parent.parent / "data"


def imported(xml):
    out = subprocess.run([tfrig, "import", "nvidia-smi-xml", str(data / "nvidia-smi-xml" / xml)],
                         check=True, capture_output=True, text=True).stdout
    doc = json.loads(out)
    return {"gpus": doc["inventory"]["gpus"], "gpu_topology": [], "driver": doc["inventory"]["driver"]}


# A100-SXM4-80GB (telegraf/a100-sxm4-v12.xml, driver 535.54.03).
inv = imported("telegraf/a100-sxm4-v12.xml")
g = inv["gpus"][0]
g["compute_capability"] = "8.0"        # NVIDIA CUDA GPUs table (reference/nvidia_compute_capability.yaml)
g["numa_node"] = 0
g["cpu_affinity"] = list(range(0, 32))
# NVLink 3 to NVSwitch, 12 links per A100 (nvidia-smi-topo/docs/8xA100-NV12-10NIC: "NV12").
g["nvlinks"] = [{"link": i, "active": True, "remote_kind": "switch", "remote_pci_bus_id": "0000:c6:00.0",
                 "version": 3} for i in range(12)]
inv["driver"]["nvml_version"] = "12.535.54.03"  # nvidia-smi prints NVML version "12.<driver>"
(data / "fake-nvml" / "a100-sxm4-v12.json").write_text(json.dumps({"inventory": inv}, indent=2, sort_keys=True) + "\n")

# 2x RTX 2070 (telegraf/dual_2070-v13.xml, driver 590.44.01).
inv = imported("telegraf/dual_2070-v13.xml")
for g in inv["gpus"]:
    g["compute_capability"] = "7.5"    # Turing TU106
# Two consumer cards under the CPU's host bridge, no P2P: the PHB pattern of
# nvidia-smi-topo/docs/2x1080Ti-PHB.topo-m.txt (hand-added, not from this machine).
inv["gpu_topology"] = [{"gpu_a": 0, "gpu_b": 1, "level": "host_bridge", "p2p_read": False, "nvlink": None}]
inv["driver"]["nvml_version"] = "13.590.44.01"
(data / "fake-nvml" / "dual-2070-v13.json").write_text(json.dumps({"inventory": inv}, indent=2, sort_keys=True) + "\n")
