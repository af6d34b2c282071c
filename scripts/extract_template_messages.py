#!/usr/bin/env python3
"""Extracts the messages marked "@{English}@" in tfrig setup's templates
(src/setup/templates/*.in; src/setup/templates.h) as a .pot file that
scripts/i18n.sh concatenates with xgettext's template, so translators see
them in po/tfrig.pot. A "#@# TRANSLATORS: ..." note right above a marked line
goes to translators, as with xgettext's --add-comments.

Usage: scripts/extract_template_messages.py OUT.pot TEMPLATE...  (paths as given)"""
import re
import sys

MARK = re.compile(r'@\{(.*?)\}@', re.S)
NOTE = '#@# TRANSLATORS:'
# Every template message is pasted into a file of another language (bash, YAML, ...).
GENERAL = ('TRANSLATORS: text in a file tfrig setup writes; keep @KEY@ (filled by tfrig), '
           '$NAME/${...} (shell variables), %s, `commands` and a leading "#" after a line break '
           'as they are; add no quote, backslash or $ of your own.')


def po_quote(text):
    body = text.replace('\\', '\\\\').replace('"', '\\"').replace('\t', '\\t')
    lines = body.split('\n')
    if len(lines) == 1:
        return '"' + body + '"'
    parts = [line + '\\n' for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    return '""\n' + '\n'.join('"' + p + '"' for p in parts)


def messages(path):
    text = open(path, encoding='utf-8').read()
    line_starts = [0] + [i + 1 for i, c in enumerate(text) if c == '\n']
    lines = text.split('\n')
    for m in MARK.finditer(text):
        line = max(i for i, s in enumerate(line_starts) if s <= m.start())
        notes = []
        j = line - 1
        while j >= 0 and lines[j].startswith(NOTE):
            notes.insert(0, lines[j][len('#@# '):].strip())
            j -= 1
        yield m.group(1), notes


def main(out, paths):
    entries = {}
    for path in paths:
        for msgid, notes in messages(path):
            e = entries.setdefault(msgid, {'notes': [], 'files': []})
            for n in notes:
                if n not in e['notes']:
                    e['notes'].append(n)
            if path not in e['files']:
                e['files'].append(path)
    with open(out, 'w', encoding='utf-8') as f:
        f.write('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Content-Transfer-Encoding: 8bit\\n"\n')
        for msgid in sorted(entries):
            e = entries[msgid]
            f.write('\n')
            for n in [GENERAL] + e['notes']:
                f.write('#. ' + n + '\n')
            f.write('#: ' + ' '.join(e['files']) + '\n')
            f.write('msgid ' + po_quote(msgid) + '\nmsgstr ""\n')


if __name__ == '__main__':
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
