#!/usr/bin/env bash
# tfrig explain against `grep -E -c -f PATTERNS` over the same patterns: every
# text of data/knowledge/log_signatures.json that explain's one RE2::Set pass
# looks for (the rows' match texts and regexes, the facts' needles, the
# contexts and the error markers), on a 100 MB log of all-distinct lines (the
# real lines of tests/data/logs with a counter in every message, so no line is
# seen twice and explain's cache of repeated messages never helps).
# Usage: bench/explain-vs-grep.sh [TFRIG] (default build/tfrig)
set -euo pipefail
cd "$(dirname "$0")/.."
tfrig=${1:-build/tfrig}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import glob, json, re, sys
d = sys.argv[1]
t = json.load(open('data/knowledge/log_signatures.json'))
def ere_literal(s):  # POSIX ERE: escape only what ERE treats specially
    return re.sub(r'([.\[\]{}()*+?^$|\\])', r'\\\1', s)
pats = []
for s in t['signatures']:
    pats += [ere_literal(m) for m in s.get('match', [])] + s.get('regex', [])
pats += [ere_literal(f['needle']) for f in t.get('facts', [])]
for c in t.get('contexts', []):
    pats += [ere_literal(m) for m in c['match']]
pats += [ere_literal(m) for m in t.get('error_markers', [])]
open(d + '/patterns.ere', 'w').write('\n'.join(pats) + '\n')
lines = []
for f in sorted(glob.glob('tests/data/logs/*.log')):
    lines += open(f, encoding='utf-8', errors='replace').read().splitlines()
with open(d + '/distinct.log', 'w') as out:
    n = i = 0
    while n < 100_000_000:
        for l in lines:
            s = l + ' #%d\n' % i
            i += 1
            out.write(s)
            n += len(s.encode())
print(len(pats), 'patterns;', i, 'lines')
PY
# Wall seconds and CPU seconds (user + sys): on a shared machine the CPU time
# is the figure that does not depend on what else runs.
t() { /usr/bin/time -f "%e %U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.2f %.2f\n", $1, $2 + $3}'; }
f=$dir/distinct.log
size=$(stat -c %s "$f")
cat "$f" >/dev/null  # into the page cache
read -r gw gc < <(t grep -E -c -f "$dir/patterns.ere" "$f")
read -r xw xc < <(t "$tfrig" explain --fail-on never --format json "$f")
rss=$( { /usr/bin/time -f %M "$tfrig" explain --fail-on never "$f" >/dev/null; } 2>&1 | tail -1)
awk -v s="$size" -v gw="$gw" -v gc="$gc" -v xw="$xw" -v xc="$xc" -v r="$rss" 'BEGIN {
  printf "distinct  %5.0f MB   grep -E -c -f %5.2f s wall %5.2f s CPU (%4.0f MB/s)   tfrig explain %5.2f s wall %5.2f s CPU (%4.0f MB/s of CPU, max RSS %d KiB)\n", s/1e6, gw, gc, s/1e6/gc, xw, xc, s/1e6/xc, r }'
