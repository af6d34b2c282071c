#!/usr/bin/env bash
# Regenerates what is derived from data/knowledge/plan_measurements.json and
# the fit (plan/throughput.h):
# - data/knowledge/plan_fit.json, the calibration fitted on the shipped data
#   that plans use instead of refitting at every run (plan/shipped_fit.h); the
#   test PlanFit.ShippedFitIsTheFitOfTheShippedData fails when it is stale;
# - docs/plan-validation.md: tfrig's throughput and memory estimates against
#   the published measurements. The page records the held-out errors; the test
#   PlanValidation.AgainstPublishedMeasurements fails when a later change makes
#   them worse.
# Usage: scripts/gen_plan_validation.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
cmake --build "$build" --target tfrig_tests
TFRIG_PLAN_FIT_OUT="$PWD/data/knowledge/plan_fit.json" \
  "$build/tests/tfrig_tests" --gtest_filter='PlanFit.ShippedFitIsTheFitOfTheShippedData'
# The new file is embedded in the binary: rebuild, then check it is the one in use.
cmake --build "$build" --target tfrig tfrig_tests
"$build/tests/tfrig_tests" --gtest_filter='PlanFit.*'
echo "wrote data/knowledge/plan_fit.json"
TFRIG_PLAN_VALIDATION_OUT="$PWD/docs/plan-validation.md" \
  "$build/tests/tfrig_tests" --gtest_filter='PlanValidation.AgainstPublishedMeasurements' || true  # compares with the page it replaces; a rise shows in the diff
echo "wrote docs/plan-validation.md"
