#!/usr/bin/env python3
"""Print the embedded GPU and measured-throughput tables of src/plan/ from the
shared reference files (../shared/reference/gpus.yaml, training_throughput.yaml).

Usage: scripts/gen_plan_tables.py REFERENCE_DIR > /tmp/tables.inc
The output is pasted into src/plan/catalog_adapter.cpp and src/plan/throughput.cpp;
it is kept as a script so the tables can be regenerated when the reference moves.
"""
import statistics
import sys

import yaml


def num(v):
    return "std::nullopt" if v is None else repr(float(v))


def gpus(ref):
    d = yaml.safe_load(open(f"{ref}/gpus.yaml"))
    print("// id, name, vram_gib, bw_gbs, fp32, tf32, fp16, bf16, nvlink_gbs, ecc, tdp_w, segment, price_usd, arch, pci ids")
    for g in d["gpus"]:
        nv = g["nvlink"]["total_gbs"] if g["nvlink"]["supported"] else None
        # Only tensor-core FP16 counts: TensorFlow's mixed precision guide says GPUs
        # below compute capability 7.0 gain nothing from it, so Pascal plans at FP32.
        fp16 = g.get("fp16_tensor_tflops_dense")
        ids = ",".join("0x" + i.lower() for i in g["pci_device_ids"])
        ecc = "std::nullopt" if g["ecc"] is None else ("true" if g["ecc"] else "false")
        print(f'    {{"{g["id"]}", "{g["name"]}", {num(g["vram_gib"])}, {num(g["memory_bandwidth_gbs"])}, '
              f'{num(g["fp32_tflops"])}, {num(g.get("tf32_tensor_tflops_dense"))}, {num(fp16)}, '
              f'{num(g.get("bf16_tensor_tflops_dense"))}, {num(nv)}, {ecc}, {num(g["tdp_w"])}, '
              f'"{g["segment"]}", {num(g["launch_price_usd"])}, "{g["architecture"]}", "{ids}", "{g["confidence"]}"}},')


def model_key(r):
    m = r["model"]
    if m.startswith("ResNet-50"):
        return "resnet50"
    if m.startswith("BERT-large SQuAD"):
        return "bert_large@384"
    if m.startswith("BERT-large pre-training phase 1"):
        return "bert_large@128"
    return None


def prec(r):
    p = r["precision"].upper()
    return "mixed" if ("AMP" in p or "FP16" in p) else "fp32"


def throughput(ref):
    d = yaml.safe_load(open(f"{ref}/training_throughput.yaml"))
    groups = {}
    for r in d["rows"]:
        k = model_key(r)
        if k is None or r["gpu_id"] is None or r.get("gpu_count", 1) != 1:
            continue
        groups.setdefault((k, r["gpu_id"], prec(r)), []).append(r)
    print("// model@seq, gpu id, precision class, samples/s (median), rows, tensorflow rows, one source")
    for (k, g, p), rows in sorted(groups.items()):
        tf = [r for r in rows if "TensorFlow" in r["framework"]]
        use = tf or rows
        med = statistics.median(float(r["throughput"]) for r in use)
        print(f'    {{"{k}", "{g}", Precision::{"kMixed" if p == "mixed" else "kFp32"}, {med:.1f}, {len(use)}, '
              f'{"true" if tf else "false"}, "{use[0]["source"].split(" ")[0]}"}},')


if __name__ == "__main__":
    ref = sys.argv[1] if len(sys.argv) > 1 else "../shared/reference"
    gpus(ref)
    throughput(ref)
