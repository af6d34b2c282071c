#!/usr/bin/env bash
# Installs the Debian 12 packages listed in scripts/deps*.txt that are missing.
# Runs apt-get only when something is missing, so a second run costs nothing.
# Usage: install-deps.sh         every list (build, tests, CI)
#        install-deps.sh build   scripts/deps-build.txt only: build and run tfrig
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

case "${1:-all}" in
  build) lists=("$here/deps-build.txt") ;;
  all) lists=("$here"/deps*.txt) ;;
  *) echo "usage: $0 [build]" >&2; exit 64 ;;
esac
mapfile -t wanted < <(cat "${lists[@]}" | sed 's/#.*//' | tr -s ' \t' '\n' | sed '/^$/d' | sort -u)
missing=()
for pkg in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#wanted[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
