#!/usr/bin/env bash
# shellcheck on the install.sh template itself (src/setup/templates/install.sh.in):
# as it stands it is a whole script with every step, the @KEY@ placeholders
# left as words. The generated scripts are checked too (setup_shell_test.cpp).
# Exit 77 (skipped) where shellcheck is not installed (scripts/deps-setup.txt).
set -euo pipefail
template="$1/src/setup/templates/install.sh.in"
bash -n "$template"
if ! command -v shellcheck >/dev/null 2>&1; then
  echo "shellcheck is not installed: skipped" >&2
  exit 77
fi
shellcheck -s bash "$template"
echo "ok: $template"
