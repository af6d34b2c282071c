#!/usr/bin/env python3
"""Sanity checks for the fixture roots under tests/data/roots/ (stdlib only).

For every root (or the roots given on the command line) report:
  * absolute symlinks                      -> error (git would store them, but they
                                              point outside the fixture root)
  * relative symlinks resolving outside the root -> error
  * regular files bigger than 1 MiB        -> error
  * special files (fifo, socket, device)   -> error
  * dangling symlinks / symlink loops      -> listed as info (some are real-world
                                              captures that were partial; the
                                              "broken" root has them on purpose)
Exit status 1 if any error was found.

Usage: check_roots.py [--quiet] [ROOT ...]
"""

import os
import stat
import sys

MAX_FILE = 1 << 20


def resolve_inside(root, link_path, max_hops=40):
    """Follow a symlink chain lexically inside root.
    Returns (state, final_path): state in ok|dangling|loop|escapes|absolute."""
    root = os.path.abspath(root)
    path = os.path.abspath(link_path)
    seen = set()
    hops = 0
    while True:
        # resolve every component, following symlinks one at a time
        rel = os.path.relpath(path, root)
        if rel.startswith(".."):
            return "escapes", path
        parts = [] if rel == "." else rel.split(os.sep)
        cur = root
        changed = False
        for i, comp in enumerate(parts):
            nxt = os.path.join(cur, comp)
            if os.path.islink(nxt):
                if nxt in seen or hops >= max_hops:
                    return "loop", nxt
                seen.add(nxt)
                hops += 1
                target = os.readlink(nxt)
                if os.path.isabs(target):
                    return "absolute", nxt
                newp = os.path.normpath(os.path.join(cur, target, *parts[i + 1:]))
                if os.path.relpath(newp, root).startswith(".."):
                    return "escapes", newp
                path = newp
                changed = True
                break
            if not os.path.lexists(nxt):
                return "dangling", nxt
            cur = nxt
        if not changed:
            return "ok", path


def check(root, quiet):
    errors, infos = [], []
    counts = {"files": 0, "dirs": 0, "symlinks": 0, "bytes": 0}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            rel = os.path.relpath(p, root)
            if stat.S_ISLNK(st.st_mode):
                counts["symlinks"] += 1
                target = os.readlink(p)
                if os.path.isabs(target):
                    errors.append(f"absolute symlink: {rel} -> {target}")
                    continue
                state, where = resolve_inside(root, p)
                if state == "escapes":
                    errors.append(f"symlink escapes root: {rel} -> {target}")
                elif state in ("dangling", "loop"):
                    infos.append(f"{state} symlink: {rel} -> {target}")
            elif stat.S_ISDIR(st.st_mode):
                counts["dirs"] += 1
            elif stat.S_ISREG(st.st_mode):
                counts["files"] += 1
                counts["bytes"] += st.st_size
                if st.st_size > MAX_FILE:
                    errors.append(f"file larger than 1 MiB: {rel} ({st.st_size} bytes)")
            else:
                errors.append(f"special file: {rel}")
    print(f"{root}: {counts['files']} files, {counts['dirs']} dirs, "
          f"{counts['symlinks']} symlinks, {counts['bytes']} bytes of file content, "
          f"{len(errors)} errors, {len(infos)} dangling/loop symlinks")
    for e in errors:
        print(f"  ERROR {e}")
    if not quiet:
        for i in infos[:20]:
            print(f"  info  {i}")
        if len(infos) > 20:
            print(f"  info  ... {len(infos) - 20} more")
    return not errors


def main(argv):
    quiet = "--quiet" in argv
    roots = [a for a in argv if a != "--quiet"]
    if not roots:
        base = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "roots")
        base = os.path.normpath(base)
        roots = sorted(os.path.join(base, d) for d in os.listdir(base)
                       if os.path.isdir(os.path.join(base, d)))
    ok = True
    for r in roots:
        ok &= check(r, quiet)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
