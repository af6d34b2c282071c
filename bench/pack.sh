#!/usr/bin/env bash
# bench/pack.sh: `tfrig pack` and `tfrig verify` against the cost of just
# reading the same bytes.
#
#   pack   vs  tar cf - DIR | cat > /dev/null     (read every file, one stream out)
#   verify vs  cat SHARDS | cat > /dev/null       (read every shard)
#
# Dataset: N JPEGs (default 20,000) of ImageNet's average size, ~110 KB
# (ILSVRC2012 train: about 138 GiB in 1,281,167 images), 500x375, made with
# cjpeg (libjpeg-turbo-progs) from noisy gradients; 64 distinct images copied
# round-robin into 100 class folders. Warm page cache: everything is read
# once before timing. Each command runs REPS times; the median is reported.
#
# usage: bench/pack.sh [TFRIG_BINARY]    env: N=20000 REPS=3 BENCH_DIR=/tmp/tfrig-bench-pack JOBS=0
set -euo pipefail

TFRIG=${1:-build/tfrig}
N=${N:-20000}
REPS=${REPS:-3}
JOBS=${JOBS:-0}
DIR=${BENCH_DIR:-/tmp/tfrig-bench-pack}
SRC=$DIR/src
OUT=$DIR/out

command -v cjpeg > /dev/null || { echo "needs cjpeg (apt-get install libjpeg-turbo-progs)" >&2; exit 2; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

if [ ! -f "$SRC/.complete-$N" ]; then
  rm -rf "$SRC"
  mkdir -p "$SRC" "$DIR/base"
  echo "generating 64 base JPEGs..." >&2
  "$PY" - "$DIR/base" <<'PYEOF'
import random, subprocess, sys
W, H = 500, 375
out = sys.argv[1]
for k in range(64):
    r = random.Random(k)
    px = bytearray()
    for y in range(H):
        for x in range(W):
            base = ((x * 255 // W + k * 7) % 256, y * 255 // H, (x + y) * 255 // (W + H))
            px += bytes(max(0, min(255, b + r.randint(-44, 44))) for b in base)
    ppm = b"P6\n%d %d\n255\n" % (W, H) + bytes(px)
    jpg = subprocess.run(["cjpeg", "-quality", "90"], input=ppm, capture_output=True, check=True).stdout
    open(f"{out}/{k:02d}.jpg", "wb").write(jpg)
PYEOF
  echo "copying into $N files in 100 classes..." >&2
  # One process for all copies: a cp per file costs more than the data here.
  "$PY" - "$DIR/base" "$SRC" "$N" <<'PYEOF'
import os, shutil, sys
base, src, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for c in range(100):
    os.makedirs(f"{src}/class{c:02d}", exist_ok=True)
for i in range(n):
    shutil.copyfile(f"{base}/{i % 64:02d}.jpg", f"{src}/class{i % 100:02d}/img{i}.jpg")
PYEOF
  touch "$SRC/.complete-$N"
fi

BYTES=$(du -sb --exclude=.complete-* "$SRC" | cut -f1)
echo "dataset: $N files, $BYTES bytes ($(( BYTES / N )) bytes/file avg)" >&2

now() { date +%s.%N; }
# median of REPS runs of "$@" (seconds)
timeit() {
  local times=()
  for _ in $(seq "$REPS"); do
    local t0 t1
    t0=$(now)
    "$@" > /dev/null
    t1=$(now)
    times+=("$(echo "$t1 - $t0" | bc -l)")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

# Warm the cache.
tar cf - -C "$SRC" . | cat > /dev/null

tar_pipe() { tar cf - -C "$SRC" . | cat > /dev/null; }
pack_run() { "$TFRIG" pack "$SRC" -o "$OUT" --overwrite --no-progress -j "$JOBS"; }

T_TAR=$(timeit tar_pipe)
T_PACK=$(timeit pack_run)
SHARDS=("$OUT"/*.tfrecord)
SHARD_BYTES=$(cat "${SHARDS[@]}" | wc -c)
cat_shards() { cat "${SHARDS[@]}" | cat > /dev/null; }
verify_run() { "$TFRIG" verify -j "$JOBS" "${SHARDS[@]}"; }
cat_shards
T_CAT=$(timeit cat_shards)
T_VERIFY=$(timeit verify_run)
"$TFRIG" verify -j "$JOBS" "${SHARDS[@]}" | tail -1 >&2

rate() { echo "scale=1; $1 / $2 / 1000000" | bc -l; }
ratio() { echo "scale=2; $2 / $1" | bc -l; }
cat <<REPORT
machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM, $(uname -r)
dataset: $N JPEG files, $BYTES bytes; ${#SHARDS[@]} shards, $SHARD_BYTES bytes
median of $REPS, warm cache:
  tar cf - | cat > /dev/null   ${T_TAR} s   $(rate "$BYTES" "$T_TAR") MB/s
  tfrig pack (-j $JOBS)          ${T_PACK} s   $(rate "$BYTES" "$T_PACK") MB/s   = $(ratio "$T_PACK" "$T_TAR") x tar  (target >= 0.8)
  cat SHARDS | cat > /dev/null ${T_CAT} s   $(rate "$SHARD_BYTES" "$T_CAT") MB/s
  tfrig verify (-j $JOBS)        ${T_VERIFY} s   $(rate "$SHARD_BYTES" "$T_VERIFY") MB/s   = $(ratio "$T_VERIFY" "$T_CAT") x cat  (target >= 0.8)
REPORT
