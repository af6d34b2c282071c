#!/usr/bin/env python3
"""Checks that every translation in a .po file uses the same fmt fields as its
English message: the same argument indices ({} counts 0, 1, 2 ... in order;
{N} is argument N), never automatic and numbered fields mixed. A translation
that misses or adds a field would print the wrong value or fall back to English.

Usage: scripts/check_po_fields.py po/zh_CN.po   (exit 1 on a mismatch)"""
import re
import sys

FIELD = re.compile(r'\{\{|\}\}|\{([0-9]*)(?::[^{}]*)?\}')


def fields(text):
    """Set of argument indices, or None when automatic and numbered are mixed."""
    auto, numbered, used = 0, False, set()
    for m in FIELD.finditer(text):
        if m.group(0) in ('{{', '}}'):
            continue
        if m.group(1) == '':
            used.add(auto)
            auto += 1
        else:
            numbered = True
            used.add(int(m.group(1)))
    if auto and numbered:
        return None
    return used


def unquote(s):
    """A .po string body ("\\n", "\\\"", UTF-8 text) as text."""
    return s.encode('utf-8').decode('unicode_escape').encode('latin-1').decode('utf-8')


def entries(path):
    cur, key, entry = None, None, {}
    for line in open(path, encoding='utf-8'):
        line = line.rstrip('\n')
        m = re.match(r'^(msgid|msgid_plural|msgstr(?:\[\d+\])?) "(.*)"$', line)
        if m:
            if m.group(1) == 'msgid' and entry:
                yield entry
                entry = {}
            key = m.group(1)
            entry[key] = unquote(m.group(2))
            continue
        m = re.match(r'^"(.*)"$', line)
        if m and key:
            entry[key] += unquote(m.group(1))
            continue
        key = None
    if entry:
        yield entry


def main(path):
    bad = 0
    for e in entries(path):
        english = e.get('msgid', '')
        if not english:
            continue
        want = fields(english)
        if 'msgid_plural' in e:
            want = (want or set()) | (fields(e['msgid_plural']) or set())
        for k, text in e.items():
            if not k.startswith('msgstr') or not text:
                continue
            got = fields(text)
            if got is None or got != want:
                print(f'{path}: fields differ: {english!r} has {sorted(want)}, translation {text!r} has '
                      f'{"mixed {} and {N}" if got is None else sorted(got)}', file=sys.stderr)
                bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
