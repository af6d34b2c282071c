#!/usr/bin/env python3
"""Unpack a "ttar" plain-text archive (the format used by Prometheus procfs and
node_exporter for their /proc and /sys fixture trees) into a directory.

Standard library only.  Written for the tfrig test fixtures.

Format, as found in the archives themselves (one record per entry, records
separated by comment lines such as "# ttar - - - - ..."):

    Directory: some/dir          a directory
    Mode: 755                    (optional) octal permission bits

    Path: some/dir/file          a regular file ...
    Lines: N                     ... followed by exactly N content lines
    <N lines of content>
    Mode: 644

    Path: some/dir/link          a symbolic link
    SymlinkTo: target            stored target, created verbatim

Content lines are text with two escapes:
    NULLBYTE    stands for a NUL byte (a literal "NULLBYTE" is written "\\NULLBYTE")
    EOF         at the end of the last content line means that the file does
                not end with a newline (a literal "EOF" is written "\\EOF")

Lines starting with "#" between records are comments.  For robustness this
reader also accepts "File:" as a synonym of "Path:", separator lines made only
of dashes ("----"), blank lines between records, and a content-terminating line
"NoNewline" directly after the N content lines (not used by upstream ttar, but
harmless to accept).

Usage:
    ttar_unpack.py ARCHIVE DEST [--strip-components N] [--exclude GLOB ...]
                   [--absolute-symlinks keep|skip|fail]
                   [--escaping-symlinks keep|skip|fail] [--clean] [--list] [-v]

Symlinks are created exactly as recorded by default.  --absolute-symlinks and
--escaping-symlinks (relative targets that climb above DEST) can skip them or
turn them into errors.  --exclude patterns are fnmatch globs matched against the entry path after
stripping; a pattern also excludes everything below a matching directory.
Exit status: 0 ok, 1 archive error, 2 usage error.
"""

import argparse
import fnmatch
import os
import re
import shutil
import stat
import sys

SEP_RE = re.compile(rb"^-{3,}\s*$")
KEY_RE = re.compile(rb"^(Directory|Path|File|Lines|Mode|SymlinkTo): ?(.*)$")
# Escapes inside content lines.  Order of alternatives matters: the escaped
# forms must be tried before the bare markers.
TOKEN_RE = re.compile(rb"\\NULLBYTE|\\EOF|NULLBYTE|EOF")


class TtarError(Exception):
    pass


def decode_line(raw, lineno):
    """Decode one content line.  Returns (bytes, ends_without_newline)."""
    out = bytearray()
    pos = 0
    no_newline = False
    for m in TOKEN_RE.finditer(raw):
        out += raw[pos:m.start()]
        tok = m.group(0)
        if tok == b"\\NULLBYTE":
            out += b"NULLBYTE"
        elif tok == b"\\EOF":
            out += b"EOF"
        elif tok == b"NULLBYTE":
            out += b"\x00"
        else:  # bare EOF marker
            if m.end() != len(raw):
                raise TtarError(
                    f"line {lineno}: unescaped EOF marker in the middle of a line")
            no_newline = True
        pos = m.end()
    out += raw[pos:]
    return bytes(out), no_newline


def parse(data):
    """Yield entries: dicts with kind ('dir'|'file'|'symlink'), path, and
    content / target / mode."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # archive ends with a newline
    i = 0
    n = len(lines)
    cur = None

    def flush():
        nonlocal cur
        if cur is not None:
            if cur["kind"] is None:
                raise TtarError(f"entry {cur['path']!r} has neither Lines: nor SymlinkTo:")
            e = cur
            cur = None
            return e
        return None

    while i < n:
        raw = lines[i]
        lineno = i + 1
        i += 1
        if raw.startswith(b"#") or SEP_RE.match(raw) or raw.strip() == b"":
            e = flush()
            if e:
                yield e
            continue
        m = KEY_RE.match(raw)
        if not m:
            raise TtarError(f"line {lineno}: unknown keyword: {raw[:80]!r}")
        key = m.group(1).decode()
        val = m.group(2)
        if key in ("Directory", "Path", "File"):
            e = flush()
            if e:
                yield e
            path = os.fsdecode(val)
            if key == "Directory":
                cur = {"kind": "dir", "path": path, "mode": None}
            else:
                cur = {"kind": None, "path": path, "mode": None}
        elif key == "Lines":
            if cur is None or cur["kind"] is not None:
                raise TtarError(f"line {lineno}: Lines: without a preceding Path:")
            try:
                count = int(val)
            except ValueError:
                raise TtarError(f"line {lineno}: bad line count {val!r}")
            if count < 0 or i + count > n:
                raise TtarError(f"line {lineno}: Lines: {count} runs past end of archive")
            buf = bytearray()
            for k in range(count):
                text, no_nl = decode_line(lines[i + k], i + k + 1)
                buf += text
                if no_nl:
                    if k != count - 1:
                        raise TtarError(
                            f"line {i + k + 1}: EOF marker before the last content line")
                else:
                    buf += b"\n"
            i += count
            # Tolerated variant: explicit "NoNewline" terminator line.
            if i < n and lines[i] == b"NoNewline":
                if buf.endswith(b"\n"):
                    del buf[-1]
                i += 1
            cur["kind"] = "file"
            cur["content"] = bytes(buf)
        elif key == "SymlinkTo":
            if cur is None or cur["kind"] is not None:
                raise TtarError(f"line {lineno}: SymlinkTo: without a preceding Path:")
            cur["kind"] = "symlink"
            cur["target"] = os.fsdecode(val)
        elif key == "Mode":
            if cur is None:
                raise TtarError(f"line {lineno}: Mode: outside an entry")
            try:
                cur["mode"] = int(val, 8)
            except ValueError:
                raise TtarError(f"line {lineno}: bad mode {val!r}")
    e = flush()
    if e:
        yield e


def safe_relpath(path, strip):
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if path.startswith("/") or ".." in parts:
        raise TtarError(f"refusing unsafe path {path!r}")
    parts = parts[strip:]
    return "/".join(parts)


def excluded(rel, patterns):
    if not rel:
        return False
    parts = rel.split("/")
    prefixes = ["/".join(parts[:k]) for k in range(1, len(parts) + 1)]
    return any(fnmatch.fnmatchcase(p, pat) for pat in patterns for p in prefixes)


def remove_existing(p):
    if os.path.islink(p) or (os.path.exists(p) and not os.path.isdir(p)):
        os.unlink(p)
    elif os.path.isdir(p):
        def retry(func, path, _exc):
            # a directory restored with a read-only mode: make it writable, retry
            os.chmod(os.path.dirname(path), 0o700)
            func(path)
        shutil.rmtree(p, onerror=retry)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("archive")
    ap.add_argument("dest", nargs="?")
    ap.add_argument("--strip-components", type=int, default=0, metavar="N")
    ap.add_argument("--exclude", action="append", default=[], metavar="GLOB")
    ap.add_argument("--absolute-symlinks", choices=("keep", "skip", "fail"), default="keep",
                    help="what to do with symlinks whose stored target is absolute "
                         "(default keep: created exactly as recorded)")
    ap.add_argument("--escaping-symlinks", choices=("keep", "skip", "fail"), default="keep",
                    help="what to do with relative symlinks whose target climbs above DEST "
                         "(default keep)")
    ap.add_argument("--clean", action="store_true", help="remove DEST first")
    ap.add_argument("--list", action="store_true", help="only list entries")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)

    if not args.list and not args.dest:
        ap.error("DEST is required unless --list is given")

    try:
        with open(args.archive, "rb") as f:
            data = f.read()
        entries = list(parse(data))
    except (OSError, TtarError) as e:
        print(f"ttar_unpack: {args.archive}: {e}", file=sys.stderr)
        return 1

    if args.list:
        for e in entries:
            if e["kind"] == "dir":
                print(e["path"] + "/")
            elif e["kind"] == "symlink":
                print(f"{e['path']} -> {e['target']}")
            else:
                print(f"{e['path']} ({len(e['content'])} bytes)")
        return 0

    dest = os.path.abspath(args.dest)
    if args.clean and os.path.lexists(dest):
        remove_existing(dest)
    os.makedirs(dest, exist_ok=True)

    stats = {"dir": 0, "file": 0, "symlink": 0, "excluded": 0, "skipped_abs": 0,
             "skipped_esc": 0}
    dir_modes = []
    try:
        for e in entries:
            rel = safe_relpath(e["path"], args.strip_components)
            if not rel:
                continue  # the stripped top-level directory itself
            if excluded(rel, args.exclude):
                stats["excluded"] += 1
                continue
            out = os.path.join(dest, rel)
            parent = os.path.dirname(out)
            # never write through a symlinked parent directory
            probe = parent
            while probe != dest and len(probe) > len(dest):
                if os.path.islink(probe):
                    raise TtarError(f"{rel}: parent {probe} is a symlink")
                probe = os.path.dirname(probe)
            os.makedirs(parent, exist_ok=True)
            if e["kind"] == "dir":
                if os.path.lexists(out) and not os.path.isdir(out):
                    os.unlink(out)
                os.makedirs(out, exist_ok=True)
                if e["mode"] is not None:
                    dir_modes.append((out, e["mode"]))
                stats["dir"] += 1
            elif e["kind"] == "file":
                if os.path.lexists(out):
                    remove_existing(out)
                with open(out, "wb") as f:
                    f.write(e["content"])
                if e["mode"] is not None:
                    os.chmod(out, stat.S_IMODE(e["mode"]))
                stats["file"] += 1
            else:
                target = e["target"]
                if target.startswith("/"):
                    if args.absolute_symlinks == "fail":
                        raise TtarError(f"{rel}: absolute symlink target {target!r}")
                    if args.absolute_symlinks == "skip":
                        stats["skipped_abs"] += 1
                        if args.verbose:
                            print(f"skip absolute symlink {rel} -> {target}", file=sys.stderr)
                        continue
                else:
                    # lexical check: does the target climb above DEST?
                    resolved = os.path.normpath(os.path.join(os.path.dirname(rel), target))
                    if resolved == ".." or resolved.startswith("../"):
                        if args.escaping_symlinks == "fail":
                            raise TtarError(f"{rel}: symlink target {target!r} leaves DEST")
                        if args.escaping_symlinks == "skip":
                            stats["skipped_esc"] += 1
                            if args.verbose:
                                print(f"skip escaping symlink {rel} -> {target}",
                                      file=sys.stderr)
                            continue
                if os.path.lexists(out):
                    remove_existing(out)
                os.symlink(target, out)
                stats["symlink"] += 1
            if args.verbose:
                print(rel, file=sys.stderr)
    except (OSError, TtarError) as e:
        print(f"ttar_unpack: {e}", file=sys.stderr)
        return 1

    # Apply directory modes last, deepest first, so that a restrictive mode
    # cannot prevent creating the directory's children.
    for path, mode in sorted(dir_modes, key=lambda t: -t[0].count("/")):
        os.chmod(path, stat.S_IMODE(mode))

    print(f"ttar_unpack: {args.archive}: {stats['dir']} dirs, {stats['file']} files, "
          f"{stats['symlink']} symlinks, {stats['excluded']} excluded, "
          f"{stats['skipped_abs']} absolute and {stats['skipped_esc']} escaping symlinks "
          f"skipped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
