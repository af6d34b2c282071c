#!/usr/bin/env python3
"""Writes a .pot fragment of the human texts in data/knowledge/*.json.

xgettext reads C++ only; the texts a user reads from the knowledge base (what
a log line means, its cause and its fix) live in JSON. scripts/i18n.sh merges
this fragment into po/tfrig.pot with msgcat; the program translates them with
_() where it shows them, and the JSON files themselves stay English.

  scripts/knowledge_pot.py OUT.pot

Each message carries a reference to its file and an extracted comment naming
the row and field ("signatures[cudart-dlopen-failed].what").
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (file, array of rows, the row's key field, the fields that are shown to users)
FIELDS = [
    ("data/knowledge/log_signatures.json", "signatures", "id", ["what", "cause", "fix", "confirm"]),
]


def po_quote(text):
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("\n", "\\n")
    return '"' + escaped + '"'


def messages():
    """msgid -> (references, comments), in file order."""
    out = {}
    for path, array, key, fields in FIELDS:
        doc = json.loads((ROOT / path).read_text(encoding="utf-8"))
        for i, row in enumerate(doc.get(array, [])):
            name = row.get(key, str(i))
            for field in fields:
                text = row.get(field)
                if not isinstance(text, str) or not text:
                    continue
                refs, comments = out.setdefault(text, (set(), []))
                refs.add(path)
                comments.append(f"{array}[{name}].{field}")
    return out


def main():
    if len(sys.argv) != 2:
        print("usage: scripts/knowledge_pot.py OUT.pot", file=sys.stderr)
        return 64
    lines = [
        'msgid ""',
        'msgstr ""',
        '"Content-Type: text/plain; charset=UTF-8\\n"',
        '"Content-Transfer-Encoding: 8bit\\n"',
        "",
    ]
    for text, (refs, comments) in sorted(messages().items()):
        lines += ["#. " + c for c in comments]
        lines += ["#: " + r for r in sorted(refs)]
        lines += ["msgid " + po_quote(text), 'msgstr ""', ""]
    Path(sys.argv[1]).write_text("\n".join(lines), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
