#!/usr/bin/env bash
# Builds every libFuzzer target (fuzz/fuzz_<name>.cpp) with clang and runs each
# for a fixed time, seeded from tests/data/fuzz-corpus/<name>/. New corpus
# entries go to a scratch directory, never into the repository.
# Usage: scripts/fuzz.sh [seconds per target, default 15] [target names...]
# The seed is fixed (FUZZ_SEED, default 1) so CI repeats the start of a run
# that was made longer here; FUZZ_SEED=0 lets libFuzzer pick one (for
# exploring: `FUZZ_SEED=0 scripts/fuzz.sh 300`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds="${1:-15}"
shift || true
# The sanitizer build (scripts/sanitize.sh) has the fuzz targets too; without
# it, build them alone.
build="build-asan"
if [ ! -d "$build/fuzz" ]; then
  build="build-fuzz"
  bash scripts/install-deps.sh
  source scripts/cmake-launcher.sh
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${cmake_launcher[@]}" "${clang_linker[@]}" \
    -DTFRIG_WERROR=ON -DTFRIG_FUZZ=ON -DTFRIG_TESTS=OFF
fi
source scripts/phase.sh
phase "fuzz build" cmake --build "$build" -j "$(nproc)"
scratch="$(mktemp -d -t tfrig-fuzz.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT INT TERM
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  for src in fuzz/fuzz_*.cpp; do targets+=("$(basename "$src" .cpp | sed 's/^fuzz_//')"); done
fi
# One target per core at a time (libFuzzer runs one thread): 36 targets at
# 15 s take 4.5 minutes on CI's two cores instead of 9.
run_target() {
  local name="$1" seeds="tests/data/fuzz-corpus/$1" rc
  mkdir -p "$scratch/$name"
  local args=("$scratch/$name")
  [ -d "$seeds" ] && args+=("$seeds")
  ./"$build"/fuzz/fuzz_"$name" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -seed="${FUZZ_SEED:-1}" -artifact_prefix="$scratch/$name-" -print_final_stats=0 "${args[@]}" > "$scratch/$name.log" 2>&1 && rc=0 || rc=$?
  echo "$rc" > "$scratch/$name.rc"
}
jobs="$(nproc)"
fuzz_start=$SECONDS
for name in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  echo "fuzz: $name for ${seconds}s"
  run_target "$name" &
done
wait
echo "[ci] fuzz run: $((SECONDS - fuzz_start)) s wall, ${#targets[@]} targets, ${seconds} s each, $jobs at a time" >&2
failed=0
for name in "${targets[@]}"; do
  rc="$(cat "$scratch/$name.rc" 2>/dev/null || echo 1)"
  if [ "$rc" -ne 0 ]; then
    # The whole report and the input that failed, in hex, so a CI log alone
    # is enough to reproduce it (the scratch directory is removed on exit).
    grep -v '^#' "$scratch/$name.log" | tail -n 40
    for artifact in "$scratch/$name"-*; do
      [ -f "$artifact" ] || continue
      echo "fuzz: input $(basename "$artifact") ($(stat -c %s "$artifact") bytes):"
      od -A d -t x1 -v "$artifact" | head -n 200
    done
    echo "fuzz: $name FAILED (exit $rc)"
    failed=1
  else
    echo "fuzz: $name: $(tail -n 1 "$scratch/$name.log")"
  fi
done
[ "$failed" -eq 0 ] || exit 1
echo "fuzz: ${#targets[@]} targets ran ${seconds}s each without a crash"
