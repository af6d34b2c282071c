#!/usr/bin/env bash
# regenerate_roots.sh - rebuild the fixture roots under tests/data/roots/ from the
# upstream archives, exactly as described in tests/data/README.md.
#
# Usage: regenerate_roots.sh FIXTURES_DIR   (a folder holding the upstream archives named in
#        tests/data/README.md, in the layout read below)
#
# Rebuilds: procfs-fixtures, node-exporter, hwloc-*, broken.
# Does NOT touch debian12-vm (a capture of a live machine: see capture_root.sh
# and roots/debian12-vm/CAPTURE.txt).
set -euo pipefail
export LC_ALL=C

FIX=${1:?usage: regenerate_roots.sh FIXTURES_DIR}
PS=$FIX/procfs-sysfs
HERE=$(cd "$(dirname "$0")" && pwd -P)
mkdir -p "$HERE/../roots"
ROOTS=$(cd "$HERE/../roots" && pwd -P)

# 1. Prometheus procfs fixtures.ttar: strip the top "fixtures/" directory; drop the
#    5 absolute symlinks (proc/<pid>/{cwd,exe,root}) and the 6 relative symlinks
#    under sys/devices/pci0000:a2/0000:a2:00.0 whose upstream targets climb above
#    the root (too many "../").
python3 "$HERE/ttar_unpack.py" "$PS/prometheus-procfs/fixtures.ttar" "$ROOTS/procfs-fixtures" \
    --strip-components 1 --absolute-symlinks skip --escaping-symlinks skip --clean

# 2. node_exporter: sys.ttar (top directory is already sys/) + the proc/ tree.
#    In the shared copy proc/self is a 2-byte regular file "10"; upstream it is the
#    symlink self -> 10 (git mode 120000), which is what we recreate.
python3 "$HERE/ttar_unpack.py" "$PS/node_exporter/sys.ttar" "$ROOTS/node-exporter" \
    --absolute-symlinks fail --escaping-symlinks fail --clean
cp -R "$PS/node_exporter/proc" "$ROOTS/node-exporter/proc"
chmod -R u+w "$ROOTS/node-exporter/proc"
find "$ROOTS/node-exporter/proc" -type d -exec chmod 755 {} +
find "$ROOTS/node-exporter/proc" -type f -exec chmod 644 {} +
rm -f "$ROOTS/node-exporter/proc/self"
ln -s 10 "$ROOTS/node-exporter/proc/self"

# 3. hwloc-gather-topology archives: strip the top directory, drop dev/ (a cpuset
#    mount, only in 40intel64-...); in 40intel64-... also drop the 4096 per-node
#    memory-block symlinks node*/memoryNNN (they all dangle: sys/devices/system/memory
#    was not gathered).
for tb in "$PS"/hwloc/*.tar.bz2; do
    name=$(basename "$tb" .tar.bz2)
    dest="$ROOTS/hwloc-$name"
    rm -rf "$dest"; mkdir -p "$dest"
    tar -xjf "$tb" -C "$dest" --strip-components 1 --no-same-owner --no-same-permissions \
        --exclude='*/dev' --exclude='*/dev/*'
done
find "$ROOTS/hwloc-40intel64-2g2n4c+pcilocality/sys/devices/system/node" -maxdepth 2 \
    -name 'memory[0-9]*' -type l -delete

# 4. the deliberately broken root
python3 "$HERE/make_broken_root.py" "$ROOTS/broken" > /dev/null

# 5. git cannot store empty directories: give each one an empty .gitkeep so the
#    tree seen by tests is the same in this working copy and in any checkout.
(cd "$ROOTS" && for r in procfs-fixtures node-exporter hwloc-*; do
    find "$r" -type d -empty -exec touch {}/.gitkeep \;
done)

python3 "$HERE/check_roots.py" --quiet
