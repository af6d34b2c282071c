#!/usr/bin/env bash
# bench/compare.sh: each tfrig benchmark next to the standard tool that
# measures the same thing, same machine, same settings, back to back; prints
# a Markdown table of the ratios (tfrig / reference) for bench/RESULTS.md.
#
#   bench/compare.sh [--tfrig BUILD/tfrig] [--dir DIR] [--threads N] [--size 1GiB]
#                    [--files 2000] [--seconds 5] [--only storage,memory,decode,small,crc32c]
#
# Reference tools (Debian 12 packages; installed with apt-get when missing and
# running as root): fio, libjpeg-turbo-progs (tjbench, cjpeg), libisal-dev and
# gcc (a bare ISA-L loop), mbw, tar, findutils (xargs).
# STREAM is not packaged: set STREAM_SRC=/path/to/stream.c (McCalpin's
# source, https://www.cs.virginia.edu/stream/FTP/Code/stream.c) and it is
# built in a temporary directory, never committed; without it the memory row
# compares single-thread copy with mbw's memcpy test, and says so.
set -euo pipefail

TFRIG=${TFRIG:-}
DIR=.
THREADS=$(nproc)
SIZE=1GiB
FILES=2000
SECONDS_PER_TEST=5
ONLY=storage,memory,decode,small,crc32c
while [[ $# -gt 0 ]]; do
  case $1 in
    --tfrig) TFRIG=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --files) FILES=$2; shift 2 ;;
    --seconds) SECONDS_PER_TEST=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "compare.sh: unknown option $1" >&2; exit 64 ;;
  esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
[[ -n $TFRIG ]] || TFRIG=$here/build/tfrig
[[ -x $TFRIG ]] || { echo "compare.sh: $TFRIG not built (cmake --build build)" >&2; exit 66; }
wants() { [[ ",$ONLY," == *",$1,"* ]]; }

need() {  # need COMMAND PACKAGE
  command -v "$1" >/dev/null 2>&1 && return 0
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
  fi
  command -v "$1" >/dev/null 2>&1 || { echo "compare.sh: needs $1 (Debian package $2)" >&2; exit 69; }
}
need python3 python3
need fio fio
need tjbench libjpeg-turbo-progs
need cjpeg libjpeg-turbo-progs
need gcc gcc
need mbw mbw

# Everything the reference tools write lives here and goes on any exit.
work=$(mktemp -d "$(realpath "$DIR")/tfrig-compare-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

rows=()
row() {  # row TEST TFRIG_VALUE REFERENCE_VALUE UNIT REFERENCE_NAME TARGET
  local ratio
  local ratio a b tool
  ratio=$(python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print(f'{a/b:.2f}' if b>0 else 'n/a')" "$2" "$3")
  fmt='import sys; v=float(sys.argv[1]); print(f"{v:.0f}" if abs(v) >= 1000 else f"{v:.4g}")'
  a=$(python3 -c "$fmt" "$2")
  b=$(python3 -c "$fmt" "$3")
  tool=${5//|/\\|}  # a pipe inside a Markdown table cell must be escaped
  rows+=("| $1 | $a | $b | $4 | \`$tool\` | ${ratio}x | $6 |")
  echo "  $1: tfrig $a vs $b $4 -> ${ratio}x" >&2
}
jget() {  # jget FILE ID METRIC FIELD
  python3 - "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for r in doc["results"]:
    if r["id"] == sys.argv[2] and r["metric"] == sys.argv[3]:
        v = r.get(sys.argv[4])
        print(f"{v:.6g}" if isinstance(v, (int, float)) else (v if v is not None else "nan"))
        break
else:
    print("nan")
PY
}
tfrig_bench() {  # tfrig_bench OUT ARGS...: median of 5 samples after 1 warm-up
  local out=$1; shift
  "$TFRIG" -q bench "$@" --format json --no-history --repetitions 5 --warmup 1 > "$out" || true
}

bytes_of() { python3 -c "
import re,sys
m=re.fullmatch(r'(\d+)\s*([KMGT]?)(i?B?)', sys.argv[1]); n=int(m.group(1)); u=m.group(2)
print(n*{'':1,'K':1024,'M':1024**2,'G':1024**3,'T':1024**4}[u])" "$1"; }

# ---------------------------------------------------------------- storage
if wants storage; then
  echo "storage: tfrig then fio (O_DIRECT, io_uring) on $DIR, $SIZE" >&2
  # --norandommap --randrepeat=0: plain random offsets, as tfrig draws them
  # (fio's default map, which visits every block once, costs CPU per I/O).
  fio_common=(--filename="$work/fio.bin" --size="$(bytes_of "$SIZE")" --direct=1 --ioengine=io_uring
              --time_based --runtime="$SECONDS_PER_TEST" --ramp_time=1 --output-format=json --name=cmp
              --norandommap --randrepeat=0)
  fio --rw=write --bs=1M --direct=1 --size="$(bytes_of "$SIZE")" --filename="$work/fio.bin" --name=fill \
      --output=/dev/null
  fio_round() {  # fio_round N
    fio "${fio_common[@]}" --rw=read --bs=1M --iodepth=8 > "$work/fio-seq-$1.json"
    fio "${fio_common[@]}" --rw=randread --bs=4k --iodepth=1 > "$work/fio-qd1-$1.json"
    fio "${fio_common[@]}" --rw=randread --bs=4k --iodepth=32 > "$work/fio-qd32-$1.json"
  }
  # A-B-B-A: tfrig, fio, fio, tfrig, so that a drift in the machine's load
  # over the run weighs on both sides alike; each side is the mean of its two.
  tfrig_bench "$work/storage-1.json" storage --dir "$DIR" --size "$SIZE" --sample-seconds 1 --files 100
  fio_round 1
  fio_round 2
  tfrig_bench "$work/storage-2.json" storage --dir "$DIR" --size "$SIZE" --sample-seconds 1 --files 100
  fio_read() { python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['jobs'][0]['read']; print(r['bw_bytes']/1e6 if sys.argv[2]=='bw' else r['iops'])" "$1" "$2"; }
  mean() { python3 -c "import sys; v=[float(x) for x in sys.argv[1:]]; print(sum(v)/len(v))" "$@"; }
  t_metric() { mean "$(jget "$work/storage-1.json" storage "$1" median)" "$(jget "$work/storage-2.json" storage "$1" median)"; }
  f_metric() { mean "$(fio_read "$work/fio-$1-1.json" "$2")" "$(fio_read "$work/fio-$1-2.json" "$2")"; }
  row "storage seq_read_direct (1 MiB, QD8, O_DIRECT)" "$(t_metric seq_read_direct)" "$(f_metric seq bw)" "MB/s" \
      "fio --rw=read --bs=1M --iodepth=8 --direct=1 --ioengine=io_uring" ">= 0.95x"
  row "storage rand4k_qd1" "$(t_metric rand4k_qd1)" "$(f_metric qd1 iops)" "IOPS" \
      "fio --rw=randread --bs=4k --iodepth=1 --direct=1 --ioengine=io_uring" ">= 0.95x"
  row "storage rand4k_qd32" "$(t_metric rand4k_qd32)" "$(f_metric qd32 iops)" "IOPS" \
      "fio --rw=randread --bs=4k --iodepth=32 --direct=1 --ioengine=io_uring" ">= 0.95x"
  rm -f "$work/fio.bin"
fi

# ---------------------------------------------------------------- small files
if wants small; then
  echo "small files: $FILES files of 110 KiB, tfrig vs xargs -P $THREADS cat and tar" >&2
  data=$work/dataset
  mkdir -p "$data"
  python3 - "$data" "$FILES" <<'PY'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
blob = os.urandom(110 * 1024)
for i in range(n):
    with open(f"{d}/img_{i:07d}.jpg", "wb") as f:
        f.write(blob[i % 997:] + blob[:i % 997])  # 110 KiB each, no two alike
PY
  sync
  # The same hint tfrig uses (and dd iflag=nocache): posix_fadvise(DONTNEED)
  # on every file, from one process.
  drop() { python3 -c "
import os, sys
for f in os.listdir(sys.argv[1]):
    fd = os.open(os.path.join(sys.argv[1], f), os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)" "$data"; }
  timed_files() {  # timed_files COMMAND...: prints files/s
    local t0 t1
    t0=$(date +%s.%N); "$@"; t1=$(date +%s.%N)
    python3 -c "import sys; print(int(sys.argv[1])/(float(sys.argv[3])-float(sys.argv[2])))" "$FILES" "$t0" "$t1"
  }
  xargs_cat() { find "$data" -type f -print0 | xargs -0 -P "$THREADS" -n 32 cat > /dev/null; }
  tar_cat() { tar cf - -C "$data" . | cat > /dev/null; }
  tfrig_bench "$work/small.json" storage --data "$data" --dir "$DIR" --size 16MiB --threads "$THREADS" --sample-seconds 0.2
  cold_xargs=(); warm_xargs=(); cold_tar=(); warm_tar=()
  for _ in 1 2 3 4 5; do drop; cold_xargs+=("$(timed_files xargs_cat)"); done
  for _ in 1 2 3 4 5; do warm_xargs+=("$(timed_files xargs_cat)"); done
  for _ in 1 2 3; do drop; cold_tar+=("$(timed_files tar_cat)"); done
  for _ in 1 2 3; do warm_tar+=("$(timed_files tar_cat)"); done
  median() { python3 -c "import statistics,sys; print(statistics.median(map(float,sys.argv[1:])))" "$@"; }
  cold_cold=$(jget "$work/small.json" storage small_files median)
  warm_warm=$(jget "$work/small.json" storage small_files_warm median)
  row "small_files cold, P=$THREADS" "$cold_cold" "$(median "${cold_xargs[@]}")" "files/s" "find | xargs -0 -P $THREADS -n 32 cat, pages dropped with posix_fadvise first" ">= 1.0x"
  row "small_files warm, P=$THREADS" "$warm_warm" "$(median "${warm_xargs[@]}")" "files/s" "find | xargs -0 -P $THREADS -n 32 cat" ">= 1.0x"
  row "small_files cold vs tar" "$cold_cold" "$(median "${cold_tar[@]}")" "files/s" "tar cf - DIR | cat > /dev/null (1 thread)" "info"
  row "small_files warm vs tar" "$warm_warm" "$(median "${warm_tar[@]}")" "files/s" "tar cf - DIR | cat > /dev/null (1 thread)" "info"
  rm -rf "$data"
fi

# ---------------------------------------------------------------- memory
if wants memory; then
  tfrig_bench "$work/memory.json" memory --threads "$THREADS"
  elements=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(next(r for r in d['results'] if r['metric']=='triad_1_thread')['params']['array_elements'])" "$work/memory.json")
  if [[ -n ${STREAM_SRC:-} && -f $STREAM_SRC ]]; then
    echo "memory: tfrig vs STREAM ($STREAM_SRC), $elements elements per array" >&2
    cp "$STREAM_SRC" "$work/stream.c"
    # The same optimisation level as tfrig's Release build, OpenMP for threads.
    gcc -O3 -fopenmp -mcmodel=medium -DSTREAM_ARRAY_SIZE="$elements" -DNTIMES=10 "$work/stream.c" -o "$work/stream"
    stream_triad() { OMP_NUM_THREADS=$1 OMP_PROC_BIND=spread "$work/stream" | awk '/^Triad:/ {print $2/1000}'; }
    # STREAM reports the best of 9 passes; tfrig's max is its best sample, its median the headline.
    s1=$(stream_triad 1); sn=$(stream_triad "$THREADS")
    row "memory triad_1_thread (median)" "$(jget "$work/memory.json" memory triad_1_thread median)" "$s1" "GB/s" "STREAM Triad best rate, OMP_NUM_THREADS=1" ">= 0.95x"
    row "memory triad_1_thread (best)" "$(jget "$work/memory.json" memory triad_1_thread max)" "$s1" "GB/s" "STREAM Triad best rate, OMP_NUM_THREADS=1" "info"
    row "memory triad_all_threads (median)" "$(jget "$work/memory.json" memory triad_all_threads median)" "$sn" "GB/s" "STREAM Triad best rate, OMP_NUM_THREADS=$THREADS" ">= 0.95x"
    row "memory triad_all_threads (best)" "$(jget "$work/memory.json" memory triad_all_threads max)" "$sn" "GB/s" "STREAM Triad best rate, OMP_NUM_THREADS=$THREADS" "info"
  else
    echo "memory: STREAM_SRC not set; comparing copy_1_thread with mbw memcpy (NOT STREAM)" >&2
    mib=$(( elements * 8 / 1048576 ))
    # mbw counts each copied byte once; STREAM (and tfrig) count read + write, so x2.
    m=$(mbw -q -n 10 -t 0 "$mib" | awk '/^AVG/ {print $(NF-1)*1.048576*2/1000}')
    row "memory copy_1_thread" "$(jget "$work/memory.json" memory copy_1_thread median)" "$m" "GB/s" "mbw -t0 (memcpy) x2 for read+write; not STREAM" "info"
  fi
fi

# ---------------------------------------------------------------- decode
if wants decode; then
  echo "decode: one 500x375 q90 JPEG, tfrig vs tjbench -rgb" >&2
  mkdir -p "$work/jpeg"
  python3 - "$work/img.ppm" <<'PY'
import math, random, sys
# A photograph stand-in of ImageNet's most common size, like tfrig's own.
w, h = 500, 375
random.seed(1)
px = bytearray()
for y in range(h):
    for x in range(w):
        for c in range(3):
            v = 128 + 60 * math.sin(x * 0.011 + c) * math.cos(y * 0.017 + 2 * c) + 25 * math.sin((x + y) * 0.09 + c) + random.randint(-40, 40)
            px.append(max(0, min(255, int(v))))
open(sys.argv[1], "wb").write(b"P6 %d %d 255\n" % (w, h) + bytes(px))
PY
  cjpeg -quality 90 -outfile "$work/jpeg/img.jpg" "$work/img.ppm"
  # tjbench: decode only, RGB out (the format tfrig decodes to), no output files.
  tj_rate() { tjbench "$work/jpeg/img.jpg" -rgb -benchtime "$SECONDS_PER_TEST" -warmup 1 -quiet -nowrite |
              awk '$1=="RGB" {print $NF*1e6/(500*375)}'; }
  # A-B-B-A as for storage.
  tfrig_bench "$work/decode.json" decode --data "$work/jpeg" --threads "$THREADS" --sample-seconds 1
  tj1=$(tj_rate); tj2=$(tj_rate)
  tfrig_bench "$work/decode-2.json" decode --data "$work/jpeg" --threads "$THREADS" --sample-seconds 1
  tj=$(python3 -c "print(($tj1+$tj2)/2)")
  t1=$(python3 -c "print(($(jget "$work/decode.json" decode decode_1_core median)+$(jget "$work/decode-2.json" decode decode_1_core median))/2)")
  row "decode_1_core (decode only, RGB)" "$t1" "$tj" "images/s" "tjbench img.jpg -rgb (1 thread)" ">= 0.95x"
  one=$(jget "$work/decode.json" decode decode_1_core median)
  all=$(jget "$work/decode.json" decode decode_all_cores median)
  row "decode scaling all_cores/1_core ($THREADS threads)" "$all" "$one" "images/s" "tfrig decode_1_core" ">= 1.8x on 2 cores"
  aone=$(jget "$work/decode.json" decode decode_augment_1_core median)
  aall=$(jget "$work/decode.json" decode decode_augment_all_cores median)
  row "decode_augment scaling ($THREADS threads)" "$aall" "$aone" "images/s" "tfrig decode_augment_1_core" "info"
fi

# ---------------------------------------------------------------- crc32c
if wants crc32c; then
  echo "crc32c: tfrig vs a bare ISA-L crc32_iscsi loop on the same 128 KiB buffer" >&2
  cat > "$work/isal_crc.c" <<'C'
#include <isa-l/crc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
/* ISA-L's crc32_iscsi over one 128 KiB buffer for argv[1] seconds: GB/s. */
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char** argv) {
  double secs = argc > 1 ? atof(argv[1]) : 2;
  enum { kBytes = 128 * 1024 };
  static unsigned char buf[kBytes];
  unsigned x = 2463534242u;
  for (int i = 0; i < kBytes; ++i) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; buf[i] = (unsigned char)x; }
  unsigned crc = 0; double bytes = 0, t0 = now(), t;
  do { for (int i = 0; i < 64; ++i) crc = crc32_iscsi(buf, kBytes, crc); bytes += 64.0 * kBytes; } while ((t = now()) - t0 < secs);
  printf("%f %u\n", bytes / (t - t0) / 1e9, crc);
  return 0;
}
C
  gcc -O3 "$work/isal_crc.c" -o "$work/isal_crc" -lisal
  tfrig_bench "$work/crc.json" crc32c --sample-seconds 1
  ref=()
  for _ in 1 2 3 4 5; do ref+=("$("$work/isal_crc" 1 | awk '{print $1}')"); done
  ref_med=$(python3 -c "import statistics,sys; print(statistics.median(map(float,sys.argv[1:])))" "${ref[@]}")
  row "crc32c (128 KiB buffer, 1 core)" "$(jget "$work/crc.json" crc32c crc32c median)" "$ref_med" "GB/s" "bare loop over ISA-L crc32_iscsi (compare.sh's isal_crc.c)" ">= 0.9x"
fi

# ---------------------------------------------------------------- report
echo
echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs; $(uname -r); $(date -u +%Y-%m-%dT%H:%MZ)"
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| test | tfrig | reference | unit | reference tool | ratio | target |"
echo "| --- | ---: | ---: | --- | --- | ---: | --- |"
printf '%s\n' "${rows[@]}"
