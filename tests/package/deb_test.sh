#!/usr/bin/env bash
# The .deb people install (cmake/TfrigPackage.cmake): cpack makes
# tfrig_<version>_amd64.deb with Depends computed from the linked libraries;
# unpacked (not installed: the test does not change the system), its binary
# runs, its manual pages render and its completions parse.
# Usage: deb_test.sh BUILD_DIR. Exit 77 (skipped) without dpkg-dev.
set -euo pipefail
build="$1"
command -v dpkg-shlibdeps >/dev/null 2>&1 || { echo "dpkg-dev not installed (scripts/deps-package.txt)"; exit 77; }
scratch="$(mktemp -d -t tfrig-deb.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT INT TERM
(cd "$build" && cpack -G DEB -B "$scratch/out" >"$scratch/cpack.log" 2>&1) || { cat "$scratch/cpack.log"; exit 1; }
deb="$(ls "$scratch"/out/tfrig_*_amd64.deb)"
[[ "$(basename "$deb")" =~ ^tfrig_[0-9]+\.[0-9]+\.[0-9]+_amd64\.deb$ ]] || { echo "unexpected name $deb"; exit 1; }
depends="$(dpkg-deb -f "$deb" Depends)"
echo "Depends: $depends"
# Every library `ldd tfrig` lists (the dpkg-shlibdeps result must name each one).
for lib in libc6 libstdc++6 libfmt9 libre2-9 libpugixml1v5 libyaml-cpp0.7 zlib1g libsimdjson14 libsqlite3-0 liburing2 libturbojpeg0 libisal2; do
  grep -q "\b$lib\b" <<<"$depends" || { echo "Depends lacks $lib"; exit 1; }
done
if grep -q nvidia <<<"$depends"; then echo "an NVIDIA library is a link-time dependency"; exit 1; fi
dpkg-deb -x "$deb" "$scratch/root"
"$scratch/root/usr/bin/tfrig" --version | grep -q '^tfrig [0-9]'
"$scratch/root/usr/bin/tfrig" --version | grep -q '^commit '
for page in tfrig tfrig-doctor tfrig-plan tfrig-explain tfrig-completion; do
  f="$scratch/root/usr/share/man/man1/$page.1.gz"
  [ -f "$f" ] || { echo "missing $f"; exit 1; }
  if command -v man >/dev/null 2>&1; then
    MANWIDTH=100 man --warnings -l "$f" >"$scratch/page" 2>"$scratch/warn"
    [ ! -s "$scratch/warn" ] || { cat "$scratch/warn"; exit 1; }
    grep -q "SYNOPSIS" "$scratch/page"
  fi
done
bash -n "$scratch/root/usr/share/bash-completion/completions/tfrig"
[ -f "$scratch/root/usr/share/zsh/vendor-completions/_tfrig" ]
[ -f "$scratch/root/usr/share/fish/vendor_completions.d/tfrig.fish" ]
echo "deb: $(basename "$deb") ok"
