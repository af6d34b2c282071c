#!/usr/bin/env bash
# Checks the C++ sources of the given folders (default: those that follow the
# style already) against .clang-format (clang-format-14 --dry-run) and
# .clang-tidy (clang-tidy-14 on build/'s compile_commands.json: no function
# over 80 lines, and the few other checks listed there).
#
# Usage: scripts/lint.sh [--format-only | --tidy-only] [FOLDER...]
#        scripts/lint.sh --report FOLDER...   counts per folder, never fails:
#                                             functions over 80 lines, lines over 120 columns
# Needs build/ configured (compile_commands.json) for clang-tidy.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Folders that pass both checks; a folder joins once it is formatted and its
# long functions are split.
default_folders=(src/codec)

mode=all
case "${1:-}" in
  --format-only) mode=format; shift ;;
  --tidy-only) mode=tidy; shift ;;
  --report) mode=report; shift ;;
esac
folders=("$@")
[ ${#folders[@]} -gt 0 ] || folders=("${default_folders[@]}")

format=${CLANG_FORMAT:-clang-format-14}
tidy=${CLANG_TIDY:-clang-tidy-14}
build=${BUILD_DIR:-build}
# The build's compile lines are GCC's: clang-tidy ignores the warning options
# clang lacks (-Wno-stringop-overread, ...).
tidy_args=(--extra-arg=-Wno-unknown-warning-option)

files_of() { find "$@" -maxdepth 1 -type f \( -name '*.cpp' -o -name '*.h' \) | sort; }
sources_of() { find "$@" -maxdepth 1 -type f -name '*.cpp' | sort; }

# clang-tidy's readability-function-size warnings of one file (its own lines only).
long_functions() {
  "$tidy" --quiet -p "$build" "${tidy_args[@]}" "$1" 2>/dev/null | grep -c 'readability-function-size' || true
}

if [ "$mode" = report ]; then
  printf '%-20s %8s %10s %12s\n' folder files 'fn>80' 'lines>120'
  for d in "${folders[@]}"; do
    long=0
    for f in $(sources_of "$d"); do long=$((long + $(long_functions "$f"))); done
    wide=$(files_of "$d" | xargs awk 'length($0) > 120' | wc -l)
    printf '%-20s %8s %10s %12s\n' "$d" "$(files_of "$d" | wc -l)" "$long" "$wide"
  done
  exit 0
fi

status=0
if [ "$mode" != tidy ]; then
  # shellcheck disable=SC2046
  if ! "$format" --dry-run --Werror $(files_of "${folders[@]}"); then
    echo "lint: not in .clang-format's style; fix with: $format -i FILE" >&2
    status=1
  fi
fi
if [ "$mode" != format ]; then
  if [ ! -f "$build/compile_commands.json" ]; then
    echo "lint: $build/compile_commands.json missing: configure the build first" >&2
    exit 2
  fi
  for f in $(sources_of "${folders[@]}"); do
    # Only each source file's own lines are checked (headers hold declarations and one-liners).
    if ! "$tidy" --quiet -p "$build" "${tidy_args[@]}" --warnings-as-errors="*" "$f"; then status=1; fi
  done
fi
[ $status -eq 0 ] && echo "lint: ${folders[*]}: clean"
exit $status
