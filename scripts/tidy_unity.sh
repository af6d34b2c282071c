#!/usr/bin/env bash
# clang-tidy (.clang-tidy's checks: no function over 80 lines, and a few
# bug-prone patterns) over src/ as the build compiles it: on the unity batch
# files of tfrig_lib (build/CMakeFiles/tfrig_lib.dir/Unity/unity_*.cxx, 16
# sources each), the sources built outside a batch and main.cpp, so that the
# headers every source includes are parsed once a batch instead of once a file.
# Diagnostics are kept for the files under FOLDERS only (a header filter).
# Not a ctest: the whole pass costs about 140 CPU-s (146 s wall on two busy
# cores, bench/RESULTS.md), past what CI's budget leaves for it.
#
# Usage: scripts/tidy_unity.sh [FOLDER...]   (default: the folders that pass)
# Needs build/ configured and built with unity builds (compile_commands.json and
# the batch files). Exit 77 (skipped) without clang-tidy-14 (scripts/deps-lint.txt)
# or without the batch files (TFRIG_UNITY=OFF).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# Debian's python3 first: a pyenv shim first on PATH costs ~1.5 s a start.
python=/usr/bin/python3
[ -x "$python" ] || python=python3

# The folders whose long functions were split (one finding is left there: a
# std::move in plan/calibrate.cpp, in a file another branch is editing).
passing=(core codec knowledge gpulib probe probe/parse tfrecord bench plan watch setup rules importer explain fleet)
folders=("$@")
[ ${#folders[@]} -gt 0 ] || folders=("${passing[@]}")

tidy=${CLANG_TIDY:-clang-tidy-14}
build=${BUILD_DIR:-build}
if ! command -v "$tidy" >/dev/null; then
  echo "tidy_unity: $tidy not installed (scripts/deps-lint.txt): skipped" >&2
  exit 77
fi
if ! compgen -G "$build/CMakeFiles/tfrig_lib.dir/Unity/unity_*.cxx" >/dev/null || [ ! -f "$build/compile_commands.json" ]; then
  echo "tidy_unity: no unity batch files in $build (configure with unity builds and build first): skipped" >&2
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The compile lines of tfrig_lib's batches, of its sources built outside them
# and of main.cpp, without GCC's precompiled header: clang cannot read the
# .gch, so the header it was made from is included as text instead.
"$python" scripts/tidy_db.py "$build/compile_commands.json" "$tmp" --unity-only "$PWD/src/"
filter="^$PWD/src/($(IFS='|'; echo "${folders[*]}"))/[^/]+\$"
mapfile -t files <"$tmp/files"
echo "tidy_unity: ${#files[@]} translation units, diagnostics for src/{${folders[*]}}" >&2
"$tidy" --quiet -p "$tmp" --extra-arg=-Wno-unknown-warning-option --header-filter="$filter" \
  --warnings-as-errors='*' "${files[@]}"
