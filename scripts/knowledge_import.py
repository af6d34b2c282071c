#!/usr/bin/env python3
"""Regenerate data/knowledge/*.json from the reference tables in data/reference/.

Usage: scripts/knowledge_import.py [REFERENCE_DIR [OUT_DIR]]
       scripts/knowledge_import.py --check [REFERENCE_DIR [KNOWLEDGE_DIR]]

Defaults: data/reference and data/knowledge of this repository. --check writes
nothing: it regenerates in memory and exits 1 (printing a diff) when a file in
KNOWLEDGE_DIR is not what the reference tables give (a ctest runs it).

A development-time tool (needs python3-yaml); the build never runs it. The
reference files (data/reference/*.yaml) carry the facts with their public
sources; this script keeps only what tfrig's rules, compat and plan read, in a
schema the C++ loader (src/knowledge/knowledge.cpp) understands, and keeps
every row's source id and confidence. thresholds.json and setup.json are
written by hand, not here. See docs/knowledge.md.
"""
import difflib
import json
import os
import re
import sys

import yaml


def load(ref, name):
    with open(os.path.join(ref, name), encoding="utf-8") as f:
        return yaml.safe_load(f)


def sources_of(doc):
    out = []
    for s in doc.get("sources", []):
        entry = {"id": s.get("id")}
        for key in ("url", "repo", "path", "commit", "section", "note"):
            if s.get(key) is not None:
                entry[key] = str(s[key])
        out.append(entry)
    return out


def render(doc):
    return json.dumps(doc, indent=1, ensure_ascii=False, sort_keys=False) + "\n"


def write(out_dir, name, doc):
    # A temporary name, renamed when complete: a reader never sees half a file.
    path = os.path.join(out_dir, name)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(render(doc))
    os.replace(path + ".tmp", path)


def check(out_dir, name, doc):
    path = os.path.join(out_dir, name)
    want = render(doc)
    try:
        with open(path, encoding="utf-8") as f:
            have = f.read()
    except OSError as e:
        print(f"{path}: {e.strerror}", file=sys.stderr)
        return False
    if have == want:
        return True
    sys.stderr.writelines(difflib.unified_diff(have.splitlines(True), want.splitlines(True),
                                               path, f"{name} generated from the reference", n=1))
    return False


def tf_builds(ref):
    doc = load(ref, "tf_build_matrix.yaml")
    rows = []
    for r in doc["rows"]:
        rows.append({
            "tf": str(r["tf_version"]),
            "package": r.get("pip_package_name_in_table"),
            "python": [str(p) for p in r.get("python_versions", [])],
            "cuda": str(r["cuda"]),
            "cudnn": str(r["cudnn"]),
            "compiler": r.get("compiler"),
            "source": doc["sources"][0]["id"],
        })
    src = doc["sources"][0]
    return {
        "schema": "tfrig.knowledge.tf_builds/1",
        "data_version": str(src.get("commit_date")),
        "generated_from": "data/reference/tf_build_matrix.yaml",
        "sources": sources_of(doc),
        "notes": doc.get("notes", []),
        "rows": rows,
    }


def tf_pip_extras(ref):
    doc = load(ref, "tf_pip_cuda_extras.yaml")
    rows = []
    for r in doc["releases"]:
        if r.get("is_release") is False:
            continue
        rows.append({
            "tf": str(r["tf_version"]).replace("-rc", "rc"),
            "confidence": r.get("confidence"),
            "uncertain": r.get("confidence") != "primary",
            "flavor": r.get("cuda_wheel_flavor"),
            "packages": r.get("packages"),
            "source": r.get("source"),
            "notes": r.get("notes", []),
        })
    return {
        "schema": "tfrig.knowledge.tf_pip_extras/1",
        "data_version": "2026-03-11",
        "generated_from": "data/reference/tf_pip_cuda_extras.yaml",
        "first_release_with_extra": "2.14.0",
        "sources": sources_of(doc),
        "notes": doc.get("notes", []),
        "rows": rows,
    }


def cuda_drivers(ref):
    doc = load(ref, "cuda_driver_minimums.yaml")
    compat = []
    for r in doc["minor_version_compatibility"]:
        major = str(r["cuda_major"])
        if "per_minor_min" in r:
            for minor, v in r["per_minor_min"].items():
                compat.append({"cuda": str(minor), "minor_version_compatibility": False,
                               "min_linux": str(v["linux"]), "min_windows": str(v["windows"]),
                               "uncertain": False, "source": "cuda-compat-minor"})
            continue
        exact = r.get("exact_min_linux")
        uncertain = exact is None
        min_linux = str(exact) if exact else None
        if major == "13":
            # NVIDIA prints only '>= 580' for 13.x; the 13.0 GA toolkit driver is the
            # usual exact floor. Marked uncertain (see the reference note).
            min_linux = "580.65.06"
        compat.append({
            "cuda": major, "minor_version_compatibility": True,
            "min_linux": min_linux,
            "min_windows": str(r["exact_min_windows"]) if r.get("exact_min_windows") else None,
            "branch_min": r.get("linux_min_driver_branch"),
            "branch_max_exclusive": r.get("max_driver_branch_exclusive"),
            "uncertain": uncertain,
            "source": "cuda-rn-12x-table2" if major in ("12", "11") else "cuda-compat-minor",
            "note": r.get("note"),
        })
    toolkits = []
    for r in doc["toolkit_driver_versions"]:
        toolkits.append({"cuda": str(r["cuda_version"]), "release": r["cuda_release"],
                         "min_linux": str(r["linux_x86_64_min_driver"]),
                         "min_windows": str(r["windows_x86_64_min_driver"]) if r.get("windows_x86_64_min_driver") else None,
                         "source": "cuda-rn-13.2.2"})
    return {
        "schema": "tfrig.knowledge.cuda_drivers/1",
        "data_version": "13.2.2",
        "generated_from": "data/reference/cuda_driver_minimums.yaml",
        "sources": sources_of(doc),
        "notes": doc.get("notes", []),
        "minor_version_compatibility": compat,
        "toolkits": toolkits,
    }


def tf_libraries(ref):
    doc = load(ref, "tf_dso_names.yaml")
    fams = []
    for f in doc["sonames_by_tf_family"]:
        libs = {}
        for key, val in f.items():
            if key.startswith("lib") and val:
                name = key[3:]
                if key == "libnvJitLink":
                    continue  # how TF loads it was not verified
                libs[name] = str(val).split(" ")[0]
            if key == "nccl_if_dynamic" and val:
                libs["nccl"] = str(val)
        fams.append({
            "tf_versions": [str(v) for v in f["tf_versions"]],
            "cuda": str(f["cuda"]),
            "confidence": f.get("confidence"),
            "uncertain": "observed" not in str(f.get("confidence")),
            "libraries": libs,
            "source": "tsl-dso-loader",
        })
    gate = doc["loader"]["gpu_registration_gate"]
    return {
        "schema": "tfrig.knowledge.tf_libraries/1",
        "data_version": "2025-03",
        "generated_from": "data/reference/tf_dso_names.yaml",
        "sources": sources_of(doc),
        "gate_required": gate["required_all_of_current"],
        "gate_required_before_2_14": gate["required_all_of_before_2023_06_29"],
        "gate_source": "tf-gpu-device-cc",
        "wheel_library_dirs": ["cublas", "cuda_runtime", "cudnn", "cufft", "curand", "cusolver", "cusparse",
                               "cuda_cupti", "cuda_nvrtc", "nccl", "nvjitlink"],
        "families": fams,
    }


def tf_compute(ref):
    doc = load(ref, "tf_compute_capabilities.yaml")
    rows = []
    for r in doc["per_release"]:
        comp = r.get("compiled")
        row = {"tf_versions": [str(v) for v in r["tf_versions"]], "confidence": str(r.get("confidence"))}
        if comp:
            row["sass"] = comp["sass"]
            row["ptx"] = comp["ptx"]
            # compute_XY builds sm_XY SASS too: a PTX target missing from sass is a transcription error.
            missing = [p for p in comp["ptx"] if p not in comp["sass"]]
            if missing:
                raise SystemExit(f"tf_compute_capabilities.yaml {r['tf_versions']}: ptx {missing} not in sass")
            row["uncertain"] = "inferred" in row["confidence"] or "secondary" in row["confidence"]
        elif r.get("candidates"):
            # 2.15: two candidate lists, neither confirmed (see reference). The first is the row,
            # the others are kept as alternatives so every output can name both outcomes.
            def split(value):
                # compute_XY builds SASS for sm_XY as well as PTX (reference notes).
                bz = value.split(",")
                return ([f"{x[3]}.{x[4:]}" for x in bz if x.startswith("sm_")] +
                        [f"{x[8]}.{x[9:]}" for x in bz if x.startswith("compute_")],
                        [f"{x[8]}.{x[9:]}" for x in bz if x.startswith("compute_")])
            row["sass"], row["ptx"] = split(r["candidates"][0]["bazel_value"])
            row["uncertain"] = True
            row["alternatives"] = []
            for c in r["candidates"][1:]:
                sass, ptx = split(c["bazel_value"])
                row["alternatives"].append({"sass": sass, "ptx": ptx, "applies_if": c.get("applies_if")})
        else:
            row["documented_minimum"] = r.get("documented_minimum")
            row["uncertain"] = True
        row["source"] = "tsl-bazelrc-history"
        rows.append(row)
    return {
        "schema": "tfrig.knowledge.tf_compute/1",
        "data_version": "2025-02",
        "generated_from": "data/reference/tf_compute_capabilities.yaml",
        "sources": sources_of(doc),
        "tf_min_capability": "3.5",
        "tf_min_capability_source": "tf-gpu-device-cc",
        "windows_native_last_gpu_tf": "2.10",
        "windows_native_source": "tf-docs-pip-md",
        "rows": rows,
    }


def expand_names(text):
    text = re.sub(r"\s*\(.*?\)", "", text).strip()
    parts = [p.strip() for p in text.split(" / ")]
    if len(parts) == 1:
        return parts
    first = parts[0].split()
    idx = next((i for i, t in enumerate(first) if re.search(r"\d", t)), None)
    prefix = first[:idx] if idx is not None else first[:1]
    last = parts[-1].split()
    suffix = []
    if idx is not None and len(last) > 1 and not any(re.search(r"\d", t) for t in last[1:]) and last[-1] not in ("Ti", "SFF"):
        suffix = last[1:]
    names = [parts[0] + ((" " + " ".join(suffix)) if suffix and parts[0].split()[-1] != suffix[-1] else "")]
    for p in parts[1:]:
        words = p.split()
        if suffix and words[-len(suffix):] == suffix:
            words = words[:-len(suffix)]
        names.append(" ".join(prefix + words + suffix))
    return names


def gpus_short_sources(ref):
    # The short keys gpus.yaml's rows cite (ogkm, dcgm, ...) are defined in its header comment.
    out = []
    with open(os.path.join(ref, "gpus.yaml"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"#\s+(\w+)\s+=\s+(https?://\S+)\s*(?:\((.*)\))?", line)
            if m:
                entry = {"id": m.group(1), "url": m.group(2)}
                if m.group(3):
                    entry["note"] = m.group(3)
                out.append(entry)
    return out


def gpus(ref):
    doc = load(ref, "gpus.yaml")
    keep = ["id", "name", "aliases", "pci_device_ids", "architecture", "chip", "compute_capability", "vram_gib",
            "memory_type", "memory_bandwidth_gbs", "fp32_tflops", "fp16_tensor_tflops_dense",
            "bf16_tensor_tflops_dense", "tf32_tensor_tflops_dense", "int8_tops_dense", "tensor_cores", "pcie_gen",
            "pcie_lanes", "nvlink", "ecc", "tdp_w", "form_factor", "mig", "segment", "launch_year",
            "launch_price_usd", "confidence", "unverified_fields", "null_reasons", "board_tdp_w", "sources"]
    rows = []
    for g in doc["gpus"]:
        row = {k: g.get(k) for k in keep if k not in ("null_reasons", "board_tdp_w") or g.get(k) is not None}
        rows.append(row)
    cc = load(ref, "nvidia_compute_capability.yaml")
    table = []
    for g in cc["gpus"]:
        if g.get("cc") is None:
            continue
        table.append({"names": expand_names(g["name"]), "architecture": g["arch"], "compute_capability": str(g["cc"]),
                      "source": g.get("source"), "uncertain": str(g.get("source", "")).startswith("secondary")})
    return {
        "schema": "tfrig.knowledge.gpus/1",
        "data_version": "2026-03",
        "generated_from": "data/reference/gpus.yaml, data/reference/nvidia_compute_capability.yaml",
        "sources": [{"id": "gpus.yaml", "path": "data/reference/gpus.yaml",
                     "note": "every GPU row lists its own sources (URLs, datasheets) and these short keys"}]
                   + gpus_short_sources(ref) + sources_of(cc),
        "gpus": rows,
        "compute_capabilities": table,
    }


GENERATED = [("tf_builds.json", tf_builds), ("tf_pip_extras.json", tf_pip_extras),
             ("cuda_drivers.json", cuda_drivers), ("tf_libraries.json", tf_libraries),
             ("tf_compute.json", tf_compute), ("gpus.json", gpus)]


def main():
    args = sys.argv[1:]
    checking = bool(args) and args[0] == "--check"
    if checking:
        args = args[1:]
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ref = args[0] if len(args) > 0 else os.path.join(repo, "data", "reference")
    out = args[1] if len(args) > 1 else os.path.join(repo, "data", "knowledge")
    stale = []
    for name, make in GENERATED:
        doc = make(ref)
        if checking:
            if not check(out, name, doc):
                stale.append(name)
        else:
            write(out, name, doc)
    if stale:
        print(f"out of date: {', '.join(stale)}; run scripts/knowledge_import.py and commit data/knowledge",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
