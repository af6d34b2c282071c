#!/usr/bin/env python3
"""Structural check of the Kubernetes objects in deploy/kubernetes/ (no
cluster needed): the fields each kind must have, the DaemonSet's security
settings and host mounts, the Indexed Job's shard options, and the
PrometheusRule generated from deploy/prometheus/tfrig-rules.yml.

  python3 tests/deploy/check_manifests.py REPO_ROOT          check
  python3 tests/deploy/check_manifests.py REPO_ROOT --write  regenerate the PrometheusRule

Exit 0 when every check holds; otherwise each failure on stderr and exit 1.
What needs a real cluster (the NVIDIA runtime class, the GPU Feature
Discovery label, admission policies) is listed in deploy/kubernetes/README.md.
"""
import re
import sys
from pathlib import Path

import yaml

# What the DaemonSet mounts from the host under /host, read-only
# (tests/probe/host_mount_test.cpp lays out its fixture root the same way).
HOST_MOUNTS = {"proc", "sys", "dev", "etc", "lib", "usr", "opt"}
TEXTFILE_DIR = "/var/lib/node_exporter/textfile"
RULE_HEADER = """\
# Generated from deploy/prometheus/tfrig-rules.yml by
# `python3 tests/deploy/check_manifests.py . --write`; a test checks they agree.
# The labels must match your Prometheus' ruleSelector (kube-prometheus:
# `kubectl -n monitoring get prometheus k8s -o jsonpath='{.spec.ruleSelector}'`).
"""

# apiVersion each kind is written with (the stable APIs of Kubernetes 1.27+).
API_VERSIONS = {
    "ServiceAccount": "v1",
    "DaemonSet": "apps/v1",
    "Job": "batch/v1",
    "PrometheusRule": "monitoring.coreos.com/v1",
}
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")

errors = []


def fail(where, message):
    errors.append(f"{where}: {message}")


def check_metadata(where, obj):
    meta = obj.get("metadata") or {}
    name = meta.get("name", "")
    if not DNS_LABEL.match(name) or len(name) > 63:
        fail(where, f"metadata.name {name!r} is not a DNS label")
    for key, value in (meta.get("labels") or {}).items():
        if not isinstance(value, str):
            fail(where, f"label {key} must be a string, is {value!r}")


def check_pod_spec(where, spec, kind):
    containers = spec.get("containers") or []
    if not containers:
        fail(where, "no containers")
    volumes = {v["name"]: v for v in spec.get("volumes") or []}
    for c in (spec.get("initContainers") or []) + containers:
        cw = f"{where} container {c.get('name')}"
        if not c.get("image"):
            fail(cw, "no image")
        res = c.get("resources") or {}
        for part in ("requests", "limits"):
            for r in ("cpu", "memory"):
                if r not in (res.get(part) or {}):
                    fail(cw, f"resources.{part}.{r} missing")
        sc = c.get("securityContext") or {}
        if sc.get("readOnlyRootFilesystem") is not True:
            fail(cw, "readOnlyRootFilesystem must be true")
        if sc.get("allowPrivilegeEscalation") is not False:
            fail(cw, "allowPrivilegeEscalation must be false")
        if "ALL" not in ((sc.get("capabilities") or {}).get("drop") or []):
            fail(cw, "capabilities.drop must contain ALL")
        if sc.get("privileged"):
            fail(cw, "must not be privileged")
        for m in c.get("volumeMounts") or []:
            if m["name"] not in volumes:
                fail(cw, f"volumeMount {m['name']} has no volume")
    return volumes


def check_daemonset(where, ds):
    spec = ds["spec"]
    selector = spec["selector"]["matchLabels"]
    labels = spec["template"]["metadata"]["labels"]
    for k, v in selector.items():
        if labels.get(k) != v:
            fail(where, f"selector {k}={v} does not match the pod template")
    pod = spec["template"]["spec"]
    volumes = check_pod_spec(where, pod, "DaemonSet")
    if not pod.get("nodeSelector"):
        fail(where, "no nodeSelector for GPU nodes")
    if not any(t.get("key") == "nvidia.com/gpu" for t in pod.get("tolerations") or []):
        fail(where, "no toleration for the nvidia.com/gpu taint")
    tfrig = next((c for c in pod["containers"] if c["name"] == "tfrig"), None)
    if tfrig is None:
        fail(where, "no container named tfrig")
        return
    env = {e["name"]: e.get("value") for e in tfrig.get("env") or []}
    if pod.get("runtimeClassName") != "nvidia" and env.get("NVIDIA_VISIBLE_DEVICES") != "all":
        fail(where, "neither runtimeClassName nvidia nor NVIDIA_VISIBLE_DEVICES=all: NVML would not answer")
    sc = tfrig.get("securityContext") or {}
    if sc.get("runAsNonRoot") is not True or not sc.get("runAsUser"):
        fail(where, "tfrig must run as a non-root user")
    command = " ".join(tfrig.get("command", []) + tfrig.get("args", []))
    for want in ("--root /host", "doctor", "--format prometheus", "-o /textfile/tfrig.prom", "sleep"):
        if want not in command:
            fail(where, f"the tfrig command lacks {want!r}: {command!r}")
    host_mounts = set()
    textfile_ok = False
    for m in tfrig.get("volumeMounts") or []:
        vol = volumes.get(m["name"], {})
        path = (vol.get("hostPath") or {}).get("path")
        if m["mountPath"].startswith("/host/"):
            sub = m["mountPath"][len("/host/"):]
            host_mounts.add(sub)
            if path != "/" + sub:
                fail(where, f"{m['mountPath']} mounts host {path}, expected /{sub}")
            if m.get("readOnly") is not True:
                fail(where, f"{m['mountPath']} must be mounted readOnly")
        elif m["mountPath"] == "/textfile":
            textfile_ok = path == TEXTFILE_DIR and not m.get("readOnly")
        elif path is not None:
            fail(where, f"unexpected host mount {path} at {m['mountPath']}")
    if host_mounts != HOST_MOUNTS:
        fail(where, f"host mounts {sorted(host_mounts)} differ from {sorted(HOST_MOUNTS)}")
    if not textfile_ok:
        fail(where, f"/textfile must be the writable host directory {TEXTFILE_DIR}")


def check_job(where, job):
    spec = job["spec"]
    if spec.get("completionMode") != "Indexed":
        fail(where, "completionMode must be Indexed")
    pod = spec["template"]["spec"]
    if pod.get("restartPolicy") not in ("Never", "OnFailure"):
        fail(where, "restartPolicy must be Never or OnFailure")
    check_pod_spec(where, pod, "Job")
    args = pod["containers"][0].get("args") or []
    if not args or args[0] != "pack":
        fail(where, "the container must run tfrig pack")
        return

    def value_of(flag):
        return args[args.index(flag) + 1] if flag in args and args.index(flag) + 1 < len(args) else None

    if value_of("--shard-index") != "$(JOB_COMPLETION_INDEX)":
        fail(where, "--shard-index must be $(JOB_COMPLETION_INDEX)")
    if value_of("--num-shards") != str(spec.get("completions")):
        fail(where, f"--num-shards {value_of('--num-shards')} differs from completions {spec.get('completions')}")
    if spec.get("parallelism", 1) > spec.get("completions", 1):
        fail(where, "parallelism above completions")


def prometheus_rule(rules_file):
    groups = yaml.safe_load(rules_file.read_text())["groups"]
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {
            "name": "tfrig",
            "namespace": "monitoring",
            "labels": {"app.kubernetes.io/name": "tfrig", "prometheus": "k8s", "role": "alert-rules"},
        },
        "spec": {"groups": groups},
    }


def main():
    root = Path(sys.argv[1])
    kube = root / "deploy" / "kubernetes"
    rules_file = root / "deploy" / "prometheus" / "tfrig-rules.yml"
    rule_path = kube / "tfrig-prometheusrule.yaml"
    if "--write" in sys.argv[2:]:
        text = RULE_HEADER + yaml.safe_dump(prometheus_rule(rules_file), sort_keys=False, width=120)
        rule_path.write_text(text)
        return 0
    kinds = {}
    for path in sorted(kube.glob("*.yaml")):
        docs = list(yaml.safe_load_all(path.read_text()))
        if path.name == "node-exporter-textfile-patch.yaml":
            # A JSON patch: a list of operations on kube-prometheus' node-exporter.
            ops = docs[0]
            paths = [op.get("path") for op in ops if op.get("op") == "add"]
            if "/spec/template/spec/containers/0/args/-" not in paths:
                fail(path.name, "does not add the textfile collector argument")
            if not any(TEXTFILE_DIR in str(op.get("value")) for op in ops):
                fail(path.name, f"does not mount {TEXTFILE_DIR}")
            continue
        for i, obj in enumerate(docs):
            where = f"{path.name}[{i}] {obj.get('kind')}"
            kind = obj.get("kind")
            if API_VERSIONS.get(kind) != obj.get("apiVersion"):
                fail(where, f"apiVersion {obj.get('apiVersion')} for kind {kind} (expected {API_VERSIONS.get(kind)})")
                continue
            check_metadata(where, obj)
            kinds.setdefault(kind, []).append(obj)
            if kind == "DaemonSet":
                check_daemonset(where, obj)
            elif kind == "Job":
                check_job(where, obj)
    for kind in ("DaemonSet", "Job", "PrometheusRule", "ServiceAccount"):
        if kind not in kinds:
            fail("deploy/kubernetes", f"no {kind}")
    for ds in kinds.get("DaemonSet", []):
        sa = ds["spec"]["template"]["spec"].get("serviceAccountName")
        if sa and not any(s["metadata"]["name"] == sa for s in kinds.get("ServiceAccount", [])):
            fail("DaemonSet", f"serviceAccountName {sa} is not defined")
    want = prometheus_rule(rules_file)
    for rule in kinds.get("PrometheusRule", []):
        if rule != want:
            fail(rule_path.name, "differs from deploy/prometheus/tfrig-rules.yml: rerun with --write")
    for e in errors:
        print(e, file=sys.stderr)
    print(f"{len(kinds)} kinds checked, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
