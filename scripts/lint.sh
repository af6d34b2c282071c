#!/usr/bin/env bash
# Checks the C++ sources of the given folders (default: those that follow the
# style already) against .clang-format (clang-format-14 --dry-run) and
# .clang-tidy (clang-tidy-14 on build/'s compile_commands.json: no function
# over 80 lines, and the few other checks listed there).
#
# Usage: scripts/lint.sh [--format-only | --tidy-only] [FOLDER...]
#        scripts/lint.sh --report FOLDER...   counts per folder, never fails:
#                                             functions over 80 lines, lines over 120 columns
#        scripts/lint.sh --check-format       the ctest Style.SourcesAreFormatted: every
#                                             folder of formatted_folders (a few seconds);
#                                             exit 77 (skipped) without clang-format
# Needs build/ configured (compile_commands.json) for clang-tidy. This script
# runs clang-tidy file by file (each file parsed with its headers: minutes per
# folder); the test suite and CI run it on the unity batches instead
# (scripts/tidy_unity.sh, ctest Style.ClangTidy: every folder of src/).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# Debian's python3 first: a pyenv shim first on PATH costs ~1.5 s a start.
python=/usr/bin/python3
[ -x "$python" ] || python=python3

# Folders that pass both checks; a folder joins once it is formatted and its
# long functions are split.
default_folders=(src/codec src/probe src/rules src/importer src/explain src/fleet)
# Folders in .clang-format's style, checked by the test suite (--check-format).
# A folder joins with a commit that only formats it.
formatted_folders=(src/core src/codec src/knowledge src/gpulib src/probe src/probe/parse src/tfrecord
                   src/bench src/plan src/watch src/setup src/verdict src/rules src/importer src/report
                   src/gather src/explain src/fleet src/cli src/pipeline src/inventory src/capture)
# Files of those folders not formatted yet, each with its reason; formatted and
# removed from here by the next change that touches them.
format_pending=()

mode=all
case "${1:-}" in
  --format-only) mode=format; shift ;;
  --tidy-only) mode=tidy; shift ;;
  --report) mode=report; shift ;;
  --check-format) mode=check-format; shift ;;
esac
folders=("$@")
[ ${#folders[@]} -gt 0 ] || folders=("${default_folders[@]}")

format=${CLANG_FORMAT:-clang-format-14}
tidy=${CLANG_TIDY:-clang-tidy-14}
build=${BUILD_DIR:-build}
# The build's compile lines are GCC's: clang-tidy ignores the warning options
# clang lacks (-Wno-stringop-overread, ...).
tidy_args=(--extra-arg=-Wno-unknown-warning-option)

# GCC's precompiled header (the .gch next to the one -include names) is
# unreadable to clang: clang-tidy reads a copy of the compile database that
# names a text copy of the header instead (scripts/tidy_db.py, shared with scripts/tidy_unity.sh).
tidy_db=""
make_tidy_db() {
  tidy_db=$(mktemp -d)
  trap 'rm -rf "$tidy_db"' EXIT
  "$python" scripts/tidy_db.py "$build/compile_commands.json" "$tidy_db"
}

files_of() { find "$@" -maxdepth 1 -type f \( -name '*.cpp' -o -name '*.h' \) | sort; }
sources_of() { find "$@" -maxdepth 1 -type f -name '*.cpp' | sort; }

# clang-tidy's readability-function-size warnings of one file (its own lines only).
long_functions() {
  "$tidy" --quiet -p "$tidy_db" "${tidy_args[@]}" "$1" 2>/dev/null | grep -c 'readability-function-size' || true
}

if [ "$mode" = check-format ]; then
  if ! command -v "$format" >/dev/null; then
    echo "lint: $format not installed (scripts/deps-lint.txt): format check skipped" >&2
    exit 77
  fi
  mapfile -t files < <(files_of "${formatted_folders[@]}" | grep -vxF -f <(printf '%s\n' "${format_pending[@]}"))
  if ! "$format" --dry-run --Werror "${files[@]}"; then
    echo "lint: not in .clang-format's style; fix with: $format -i FILE (or scripts/lint.sh --format-only FOLDER)" >&2
    exit 1
  fi
  echo "lint: ${#files[@]} files of ${formatted_folders[*]} formatted (${#format_pending[@]} pending: ${format_pending[*]})"
  exit 0
fi

if [ "$mode" = report ]; then
  make_tidy_db
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
  make_tidy_db
  for f in $(sources_of "${folders[@]}"); do
    # Only each source file's own lines are checked (headers hold declarations and one-liners).
    if ! "$tidy" --quiet -p "$tidy_db" "${tidy_args[@]}" --warnings-as-errors="*" "$f"; then status=1; fi
  done
fi
[ $status -eq 0 ] && echo "lint: ${folders[*]}: clean"
exit $status
