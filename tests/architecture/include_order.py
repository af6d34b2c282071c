#!/usr/bin/env python3
"""Fails when a source file includes a header from a folder above its own.

The folder order, lowest first, is the numbered list under the marker
`<!-- include-order -->` in docs/architecture.md (one declaration: the test reads
the document, so the two cannot drift). A file in src/F may include headers of F
and of the folders listed before F; an include of a later folder is a violation,
printed as file:line. Quoted includes without a folder ("knowledge_data.h", the
build's generated headers) and angle-bracket includes (system and libraries) are
not folder edges. Every folder under src/ must be in the list.

ALLOWED below holds today's known violations, each with its reason. An entry
that no longer matches an include fails the test too, so the list only shrinks.

Usage: include_order.py SOURCE_ROOT
"""
import pathlib
import re
import sys

# (including file, included header): why it is still there.
ALLOWED: dict[tuple[str, str], str] = {}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_order(doc: pathlib.Path) -> list[str]:
    lines = doc.read_text(encoding="utf-8").splitlines()
    try:
        start = lines.index("<!-- include-order -->")
    except ValueError:
        sys.exit(f"{doc}: the marker <!-- include-order --> is missing")
    order = []
    for line in lines[start + 1:]:
        m = re.match(r"^\d+\. `([^`]+)`", line)
        if m:
            order.append(m.group(1).rstrip("/"))
        elif order and not line.strip():
            break
    if not order:
        sys.exit(f"{doc}: no numbered folder list after <!-- include-order -->")
    return order


def folder_of(rel: str, known: set[str]) -> str:
    """The deepest listed folder of a path relative to src/ ("probe/parse/x.h" -> "probe/parse")."""
    parts = rel.split("/")[:-1]
    for n in range(len(parts), 0, -1):
        name = "/".join(parts[:n])
        if name in known:
            return name
    return "/".join(parts) if parts else "main.cpp"


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    order = folder_order(root / "docs" / "architecture.md")
    rank = {name: i for i, name in enumerate(order)}
    src = root / "src"
    problems = []
    for d in sorted(p for p in src.rglob("*") if p.is_dir() and any(f.suffix in (".h", ".cpp") for f in p.iterdir())):
        name = d.relative_to(src).as_posix()
        if name not in rank:
            problems.append(f"src/{name}: not in docs/architecture.md's folder order: place it there")
    seen_allowed = set()
    violations = []
    files = sorted(p for p in src.rglob("*") if p.suffix in (".h", ".cpp"))
    for path in files:
        rel = path.relative_to(src).as_posix()
        own = folder_of(rel, set(rank)) if "/" in rel else "main.cpp"
        if own not in rank:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m or "/" not in m.group(1):
                continue
            target = folder_of(m.group(1), set(rank))
            if target not in rank or rank[target] <= rank[own]:
                continue
            key = (f"src/{rel}", m.group(1))
            if key in ALLOWED:
                seen_allowed.add(key)
                continue
            violations.append(f"src/{rel}:{number}: {own}/ includes {m.group(1)}, "
                              f"but {target}/ comes after {own}/ in the folder order")
    for key in sorted(set(ALLOWED) - seen_allowed):
        problems.append(f"{key[0]}: no longer includes {key[1]} upward: remove it from ALLOWED in {sys.argv[0]}")
    for v in violations + problems:
        print(v)
    if violations or problems:
        print(f"include order: {len(violations)} upward include(s), {len(problems)} other problem(s) "
              f"(order: docs/architecture.md, 'Folder order')")
        return 1
    print(f"include order: {len(files)} files follow {' < '.join(order)} "
          f"({len(ALLOWED)} known exceptions, each with its reason)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
