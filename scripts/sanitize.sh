#!/usr/bin/env bash
# Builds tfrig, its tests and its fuzz targets with clang under AddressSanitizer
# + UBSan (one build serves both: the library carries libFuzzer's coverage
# hooks, which cost the tests nothing but time) and runs the tests there: the
# gtest cases in 24 shards (tests/CMakeLists.txt, TFRIG_TEST_SHARDS), without
# the tests of other programs (Chromium, Slurm, Ansible, Prometheus, the .deb;
# the Release run of scripts/test.sh runs them).
# CI runs this after scripts/test.sh, then scripts/fuzz.sh on the same build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/phase.sh
phase "deps" bash scripts/install-deps.sh
source scripts/cmake-launcher.sh
jobs="$(nproc)"
CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Sanitize "${cmake_launcher[@]}" "${clang_linker[@]}" \
  -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -gline-tables-only" -DCMAKE_C_FLAGS_SANITIZE="-O1 -gline-tables-only" \
  -DTFRIG_WERROR=ON -DTFRIG_SANITIZE=ON -DTFRIG_FUZZ=ON -DTFRIG_TEST_SHARDS=24
phase "asan build" cmake --build build-asan -j "$jobs"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
phase "asan ctest" ctest --test-dir build-asan --output-on-failure -j "$jobs"
