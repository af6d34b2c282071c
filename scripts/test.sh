#!/usr/bin/env bash
# Installs what is missing, builds tfrig (Release, warnings as errors) and runs
# the whole test suite. The second command of README.md; .ci/run runs it first.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/phase.sh
phase "deps" bash scripts/install-deps.sh
source scripts/cmake-launcher.sh
jobs="$(nproc)"
# TFRIG_TESTS=ON: README's first command may have configured build/ without them.
# The gtest cases in 16 processes, not one a case: a process pays tfrig's
# start-up and, for plan's cases, the planner's fit (0.6 CPU-s) again; the 43
# PlanGolden cases cost 0.7 CPU-s in one process. A failing shard prints its
# failures; `build/tests/tfrig_tests --gtest_filter=NAME` runs one case.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTFRIG_WERROR=ON -DTFRIG_TESTS=ON -DTFRIG_TEST_SHARDS=16 "${cmake_launcher[@]}"
phase "release build" cmake --build build -j "$jobs"
phase "release ctest" ctest --test-dir build --output-on-failure -j "$jobs"
