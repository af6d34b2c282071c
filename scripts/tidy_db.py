#!/usr/bin/env python3
"""Writes OUT/compile_commands.json, a copy of the build's compile database that
clang-tidy can read: GCC's precompiled header (the .gch next to the header that
-include names) is unreadable to clang, so each -include names a text copy of
the header in OUT instead. With --unity-only SRC, keeps the library's unity
batches and the sources under SRC built outside a batch (not main.cpp, unless
--with-main), and lists their files in OUT/files.

Usage: tidy_db.py BUILD/compile_commands.json OUT [--unity-only SRC/ [--with-main]]
"""
import json
import pathlib
import shlex
import shutil
import sys


def readable_by_clang(entry, out):
    args = shlex.split(entry["command"])
    if "-include" in args:
        i = args.index("-include")
        pch = pathlib.Path(args[i + 1])
        text = out / ("pch_" + pch.parent.name + ".hxx")
        if not text.exists():
            shutil.copy(pch, text)
        args[i + 1] = str(text)
    entry["command"] = shlex.join([a for a in args if a != "-Winvalid-pch"])
    return entry


def main():
    db, out = json.load(open(sys.argv[1])), pathlib.Path(sys.argv[2])
    src = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--unity-only" else None
    with_main = "--with-main" in sys.argv[5:]
    keep = []
    for e in db:
        f = e["file"]
        # main.cpp is a main file: its findings show whatever the filter says,
        # so it is kept only when asked (every folder checked).
        if src is not None and not ("/tfrig_lib.dir/Unity/unity_" in f or
                                    (f.startswith(src) and f.endswith(".cpp") and
                                     (with_main or not f.endswith("/main.cpp")))):
            continue
        keep.append(readable_by_clang(e, out))
    json.dump(keep, open(out / "compile_commands.json", "w"))
    if src is not None:
        (out / "files").write_text("".join(e["file"] + "\n" for e in keep))


if __name__ == "__main__":
    main()
