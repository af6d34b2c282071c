#!/usr/bin/env python3
"""Checks a compose.yaml written by `tfrig setup` against the Compose spec's keys
(https://github.com/compose-spec/compose-spec/blob/main/spec.md): a `services`
mapping; each service has `image` or `build`; GPUs reserved under
deploy.resources.reservations.devices with capabilities [gpu]; shm_size,
ulimits and an env_file that exists. Usage: check_compose.py FILE SERVICES"""
import os
import sys

import yaml


def fail(msg):
    print("compose: " + msg)
    sys.exit(1)


path, want = sys.argv[1], int(sys.argv[2])
with open(path, encoding="utf-8") as f:
    doc = yaml.safe_load(f)
if not isinstance(doc, dict):
    fail("top level is not a mapping")
unknown = set(doc) - {"name", "services", "networks", "volumes", "configs", "secrets", "include"}
if unknown:
    fail("unknown top-level keys %s" % sorted(unknown))
services = doc.get("services")
if not isinstance(services, dict) or len(services) != want:
    fail("expected %d services, got %r" % (want, services and list(services)))
for name, svc in services.items():
    if not isinstance(svc, dict) or not ("image" in svc or "build" in svc):
        fail("%s: a service needs image or build" % name)
    build = svc.get("build", {})
    if not os.path.exists(os.path.join(os.path.dirname(path), build.get("dockerfile", "Dockerfile"))):
        fail("%s: the Dockerfile is missing" % name)
    devices = svc["deploy"]["resources"]["reservations"]["devices"]
    if not any("gpu" in d.get("capabilities", []) and d.get("driver") == "nvidia" for d in devices):
        fail("%s: no nvidia GPU reservation" % name)
    if not isinstance(svc.get("shm_size"), str):
        fail("%s: shm_size" % name)
    ul = svc.get("ulimits", {})
    if ul.get("memlock") != -1 or not isinstance(ul.get("stack"), int) or "soft" not in ul.get("nofile", {}):
        fail("%s: ulimits %r" % (name, ul))
    for env in svc.get("env_file", []):
        if not os.path.exists(os.path.join(os.path.dirname(path), env)):
            fail("%s: env_file %s is missing" % (name, env))
print("compose: ok, %d services" % len(services))
