#!/usr/bin/env bash
# bench/storage-seq.sh: `tfrig bench storage`'s sequential O_DIRECT read
# (seq_read_direct: 1 MiB reads, queue depth 8, io_uring) next to fio's
# `--rw=read --bs=1M --iodepth=8 --direct=1 --ioengine=io_uring` in the same
# directory, in one run, A-B-B-A per round: tfrig, fio, fio, tfrig. fio reads
# a file it wrote at the start ("old") and, between its two reads, one it
# wrote just before reading ("fresh"), as tfrig reads the file it has just
# written and fsynced: if the host's write-back weighed on a freshly written
# file, the fresh column would be the slower one.
#
# Usage: bench/storage-seq.sh [tfrig binary] [dir=/tmp] [rounds=3]
# tfrig: median of 5 one-second samples after one warm-up (min and max shown);
# fio: 5 s after a 1 s ramp. Needs fio and python3 (Debian packages).
set -u
here="$(cd "$(dirname "$0")/.." && pwd)"
T=${1:-$here/build/tfrig}; DIR=${2:-/tmp}; ROUNDS=${3:-3}
w=$(mktemp -d "$DIR/stor-XXXXXX"); trap 'rm -rf "$w"' EXIT
fio --rw=write --bs=1M --direct=1 --size=1G --filename="$w/old.bin" --name=fill --output=/dev/null
fseq() { fio --filename="$1" --size=1G --direct=1 --ioengine=io_uring --time_based --runtime=5 --ramp_time=1 \
  --output-format=json --name=cmp --rw=read --bs=1M --iodepth=8 | python3 -c "import json,sys; print('%.0f' % (json.load(sys.stdin)['jobs'][0]['read']['bw_bytes']/1e6))"; }
tseq() { "$T" -q bench storage --dir "$w" --size 1GiB --sample-seconds 1 --files 100 --format json --no-history --repetitions 5 --warmup 1 |
  python3 -c "
import json,sys
d=json.load(sys.stdin)
for r in d['results']:
  if r['metric']=='seq_read_direct': print('%.0f min %.0f max %.0f' % (r['median'], r['min'], r['max']))"; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%H:%M) UTC"
for i in $(seq "$ROUNDS"); do
  a=$(tseq); b=$(fseq "$w/old.bin")
  fio --rw=write --bs=1M --direct=1 --size=1G --filename="$w/fresh.bin" --name=fill --output=/dev/null
  c=$(fseq "$w/fresh.bin"); rm -f "$w/fresh.bin"; d=$(fseq "$w/old.bin"); e=$(tseq)
  echo "round $i: tfrig $a | fio old-file $b | fio fresh-file $c | fio old-file $d | tfrig $e | load $(cut -d' ' -f1 /proc/loadavg)"
done
