#!/usr/bin/env bash
# tfrig explain on a 100 MB log against cat and grep -c (the floor a line
# scanner can reach), from the page cache. Two logs built from tests/data/logs:
#   repeated:  the same real lines again and again (the usual huge log)
#   distinct:  the same lines with a counter in every message (no two alike)
# Usage: bench/explain.sh [TFRIG] (default build/tfrig)
set -euo pipefail
cd "$(dirname "$0")/.."
tfrig=${1:-build/tfrig}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
block=$(cat tests/data/logs/deeplab2-66-cudnn-8.0.4-vs-8.1.0.log tests/data/logs/relernn-63-noise.log tests/data/logs/tf-40646-cudnn-handle.log)
python3 - "$dir" <<PY
import sys
block = open('tests/data/logs/deeplab2-66-cudnn-8.0.4-vs-8.1.0.log').read() + open('tests/data/logs/relernn-63-noise.log').read() + open('tests/data/logs/tf-40646-cudnn-handle.log').read()
d = sys.argv[1]
with open(d + '/repeated.log', 'w') as f:
    n = 0
    while n < 100_000_000:
        f.write(block); n += len(block)
with open(d + '/distinct.log', 'w') as f:
    n = i = 0
    lines = block.splitlines(keepends=True)
    while n < 100_000_000:
        for l in lines:
            s = l.rstrip('\n') + ' #%d\n' % i; i += 1
            f.write(s); n += len(s)
PY
t() { local s e; s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); echo "$s $e" | awk '{printf "%.2f", $2-$1}'; }
for log in repeated distinct; do
  f=$dir/$log.log
  size=$(stat -c %s "$f")
  cat "$f" >/dev/null  # into the page cache
  c=$(t cat "$f"); g=$(t grep -c -e 'cudnn' "$f"); x=$(t "$tfrig" explain --fail-on never --format json "$f")
  rss=$( { /usr/bin/time -f %M "$tfrig" explain --fail-on never "$f" >/dev/null; } 2>&1 | tail -1)
  awk -v n="$log" -v s="$size" -v c="$c" -v g="$g" -v x="$x" -v r="$rss" 'BEGIN {
    printf "%-9s %5.0f MB   cat %5.2f s   grep -c %5.2f s   tfrig explain %5.2f s (%4.0f MB/s, max RSS %d KiB)\n", n, s/1e6, c, g, x, s/1e6/x, r }'
done
