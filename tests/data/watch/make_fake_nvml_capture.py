#!/usr/bin/env python3
"""Builds a capture for the fake NVML (tests/fake_nvml) from one real
`nvidia-smi --query-gpu ... --format=csv` row, for tfrig watch's GPU poller
test. Usage: make_fake_nvml_capture.py CSV OUT.json
The fields the fake answers: name, memory, PCIe link, SM clock, and the
sampled utilisation.gpu / utilization.memory / power.draw. nvidia-smi's
query-gpu CSV has no PCIe throughput column, so pcie_rx/tx_kbps stay null
(NVML_ERROR_NOT_SUPPORTED), as on a GPU that cannot report them."""
import csv, json, sys

def num(v):
    v = v.strip().split(' ')[0]
    return None if v.startswith('[') else float(v)

rows = list(csv.reader(open(sys.argv[1])))
row = dict(zip([h.strip() for h in rows[0]], [v.strip() for v in rows[1]]))
mib = 1024 * 1024
gpu = {
    "index": 0,
    "name": row["name"],
    "pci_bus_id": row["pci.bus_id"],
    # pci.device_id is DEVICE<<16 | VENDOR ("0x233010DE"); the capture keeps the device id.
    "pci_device_id": int(row["pci.device_id"], 16) >> 16,
    "memory_total_bytes": int(num(row["memory.total [MiB]"]) * mib),
    "memory_used_bytes": int(num(row["memory.used [MiB]"]) * mib),
    "pcie_link_gen_current": int(num(row["pcie.link.gen.current"])),
    "pcie_link_gen_max": int(num(row["pcie.link.gen.max"])),
    "pcie_link_width_current": int(num(row["pcie.link.width.current"])),
    "pcie_link_width_max": int(num(row["pcie.link.width.max"])),
    "clock_sm_mhz": num(row["clocks.current.sm [MHz]"]),
    "utilization_gpu_percent": num(row["utilization.gpu [%]"]),
    "utilization_memory_percent": num(row["utilization.memory [%]"]),
    "power_draw_watts": num(row["power.draw [W]"]),
    "pcie_rx_kbps": None,
    "pcie_tx_kbps": None,
}
doc = {"inventory": {"driver": {"version": row["driver_version"], "cuda_version": None, "nvml_version": None},
                     "gpus": [gpu], "gpu_topology": []}}
json.dump(doc, open(sys.argv[2], "w"), indent=1, sort_keys=True)
open(sys.argv[2], "a").write("\n")
