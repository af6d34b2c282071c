#!/usr/bin/env python3
"""Generate tests/data/roots/broken/: a fixture root full of deliberate defects
for tfrig's error-handling tests.  Deterministic (random.seed(1)); stdlib only.

Usage: make_broken_root.py [DEST]   (default: ../roots/broken next to this script)

Every defect is listed in DEFECTS below and in tests/data/README.md.  The only
defect that git cannot store (an unreadable file) is intentionally absent.
"""

import os
import random
import shutil
import sys

# Real /proc/cpuinfo text (Debian 12 VM, see roots/debian12-vm); processor 1 is cut
# in the middle of its "flags" line, with no trailing newline.
CPUINFO_FULL_P0 = (
    "processor\t: 0\n"
    "vendor_id\t: AuthenticAMD\n"
    "cpu family\t: 26\n"
    "model\t\t: 2\n"
    "model name\t: AMD EPYC\n"
    "stepping\t: 1\n"
    "cpu MHz\t\t: 2096.018\n"
    "cache size\t: 1024 KB\n"
    "physical id\t: 0\n"
    "siblings\t: 2\n"
    "core id\t\t: 0\n"
    "cpu cores\t: 2\n"
    "apicid\t\t: 0\n"
    "initial apicid\t: 0\n"
    "fpu\t\t: yes\n"
    "fpu_exception\t: yes\n"
    "cpuid level\t: 13\n"
    "wp\t\t: yes\n"
    "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep pge mca cmov pat pse36 "
    "clflush mmx fxsr sse sse2 ht syscall nx mmxext lm constant_tsc rep_good nopl "
    "xtopology tsc_reliable nonstop_tsc cpuid extd_apicid tsc_known_freq pni pclmulqdq "
    "ssse3 fma cx16 sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand "
    "hypervisor lahf_lm avx2 avx512f avx512dq\n"
    "bugs\t\t: cpu_meltdown spectre_v1 spectre_v2 spec_store_bypass srso spectre_v2_user\n"
    "bogomips\t: 4192.03\n"
    "TLB size\t: 192 4K pages\n"
    "clflush size\t: 64\n"
    "cache_alignment\t: 64\n"
    "address sizes\t: 48 bits physical, 48 bits virtual\n"
    "power management:\n"
    "\n"
)
CPUINFO_CUT_P1 = (
    "processor\t: 1\n"
    "vendor_id\t: AuthenticAMD\n"
    "cpu family\t: 26\n"
    "model\t\t: 2\n"
    "model name\t: AMD EPYC\n"
    "stepping\t: 1\n"
    "cpu MHz\t\t: 2096.018\n"
    "flags\t\t: fpu vme de pse ts"          # <- cut here, no newline
)

LIMITS_CONF = (
    "# /etc/security/limits.conf with CRLF line endings and bad entries\r\n"
    "*               soft    nofile          1024\r\n"
    "*               hard    nofile          lots\r\n"      # non-numeric value
    "@gpu            hard\r\n"                             # missing fields
    "root            soft    memlock         unlimited\r\n"
    "#" + "x" * 8192 + "\r\n"                              # 8 KiB comment line
    "*               hard    stack           -1"            # no final newline
)

DEFECTS = [
    ("proc/meminfo", "empty file (0 bytes)"),
    ("proc/cpuinfo", "truncated: processor 0 complete, processor 1 cut mid-line in 'flags', no final newline"),
    ("etc/os-release", "512 bytes of binary garbage (python random.seed(1); random.randbytes(512))"),
    ("sys/block/loop0, sys/block/loop1", "symlink loop: loop0 -> loop1, loop1 -> loop0"),
    ("sys/block/selfloop", "symlink to itself"),
    ("sys/bus/", "missing entirely (no sys/bus/pci)"),
    ("proc/self", "dangling symlink -> 4242 (no proc/4242/): proc/self/mountinfo and proc/self/limits unreachable"),
    ("proc/mounts", "dangling symlink -> self/mounts (through the dangling proc/self)"),
    ("proc/version", "a directory (containing NOT_A_FILE) where a file is expected"),
    ("proc/cmdline", "one 131072-byte line, no newline"),
    ("proc/swaps", "header plus one line with too few fields"),
    ("proc/sys/vm/swappiness", "non-numeric: 'sixty'"),
    ("proc/sys/kernel/osrelease", "embedded NUL byte: '6.1.0-18-amd64\\0garbage'"),
    ("sys/devices/system/cpu/online", "malformed cpulist '0-3,7-,x'"),
    ("sys/devices/system/cpu/possible", "empty file"),
    ("sys/devices/system/node/node0/cpulist", "reversed range '3-0'"),
    ("sys/devices/system/node/node0/meminfo", "non-numeric MemTotal value and a line without a colon"),
    ("sys/kernel/mm/transparent_hugepage/enabled", "no [selected] marker: 'always madvise never'"),
    ("sys/class/dmi/id/product_name", "invalid UTF-8 bytes"),
    ("sys/class/dmi/id/sys_vendor", "dangling symlink -> ../../../devices/virtual/dmi/id/sys_vendor"),
    ("etc/security/limits.conf", "CRLF line endings, non-numeric value, missing fields, 8 KiB line, no final newline"),
]


def write(root, rel, data):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(p, "wb") as f:
        f.write(data)


def link(root, rel, target):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    os.symlink(target, p)


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    dest = argv[1] if len(argv) > 1 else os.path.join(here, "..", "roots", "broken")
    dest = os.path.normpath(dest)
    if os.path.lexists(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)

    random.seed(1)
    garbage = random.randbytes(512)

    write(dest, "proc/meminfo", b"")
    write(dest, "proc/cpuinfo", CPUINFO_FULL_P0 + CPUINFO_CUT_P1)
    write(dest, "etc/os-release", garbage)
    link(dest, "sys/block/loop0", "loop1")
    link(dest, "sys/block/loop1", "loop0")
    link(dest, "sys/block/selfloop", "selfloop")
    link(dest, "proc/self", "4242")
    link(dest, "proc/mounts", "self/mounts")
    write(dest, "proc/version/NOT_A_FILE",
          "proc/version is deliberately a directory in this fixture root.\n")
    write(dest, "proc/cmdline", "x" * 131072)
    write(dest, "proc/swaps",
          "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
          "/dev/sda2 partition\n")
    write(dest, "proc/sys/vm/swappiness", "sixty\n")
    write(dest, "proc/sys/kernel/osrelease", b"6.1.0-18-amd64\x00garbage\n")
    write(dest, "sys/devices/system/cpu/online", "0-3,7-,x\n")
    write(dest, "sys/devices/system/cpu/possible", b"")
    write(dest, "sys/devices/system/node/node0/cpulist", "3-0\n")
    write(dest, "sys/devices/system/node/node0/meminfo",
          "Node 0 MemTotal:       lots kB\n"
          "Node 0 MemFree:         4178244 kB\n"
          "Node 0 this line has no colon\n")
    write(dest, "sys/kernel/mm/transparent_hugepage/enabled", "always madvise never\n")
    write(dest, "sys/class/dmi/id/product_name", b"\xff\xfeGPU-Server \xc3\x28 9000\n")
    link(dest, "sys/class/dmi/id/sys_vendor", "../../../devices/virtual/dmi/id/sys_vendor")
    write(dest, "etc/security/limits.conf", LIMITS_CONF)

    for rel, what in DEFECTS:
        print(f"{rel}: {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
