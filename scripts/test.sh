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
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTFRIG_WERROR=ON -DTFRIG_TESTS=ON "${cmake_launcher[@]}"
phase "release build" cmake --build build -j "$jobs"
phase "release ctest" ctest --test-dir build --output-on-failure -j "$jobs"
