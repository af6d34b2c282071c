#!/usr/bin/env python3
"""Cuts an nvidia-bug-report log down to the sections `tfrig import` reads.

Sections are kept verbatim with their separators (44 '_' and a blank line),
in their original order; every other section is dropped. Used to make the
test copies of the fixture logs (see tests/data/README.md):

    python3 cut.py IN.log[.gz] OUT.log.gz
"""
import gzip
import re
import sys

SEP = "_" * 44
KEEP_PATHS = re.compile(
    r"^\*\*\* /(proc/(cpuinfo|meminfo|modules|version)|etc/(os-release|lsb-release|issue)"
    r"|proc/driver/nvidia/(\./)?(version|gpus/[^/]+/information))( does not exist)?$")
KEEP_COMMANDS = re.compile(
    r"^(Start of NVIDIA bug report|dmesg:|Scanning kernel log files|\S*lspci (-d \S+ )?-(nn|v|nnDvvv)\S*"
    r"|\S*nvidia-smi (--query|-q)( -x)?$|\S*nvidia-smi topo|\S*nvidia-smi nvlink --(status|remotelinkinfo))")


def main():
    src, dst = sys.argv[1], sys.argv[2]
    opener = gzip.open if src.endswith(".gz") else open
    with opener(src, "rt", encoding="utf-8", newline="") as f:
        text = f.read()
    parts = text.split(SEP + "\n")
    out = []
    for part in parts:
        header = part.lstrip("\n").split("\n", 1)[0]
        if KEEP_PATHS.match(header) or KEEP_COMMANDS.match(header):
            out.append(part)
    with gzip.open(dst, "wt", encoding="utf-8", newline="") as f:
        f.write("".join(SEP + "\n" + p for p in out))


if __name__ == "__main__":
    main()
