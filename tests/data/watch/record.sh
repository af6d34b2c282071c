#!/bin/sh
# Re-records the host-side sample streams of tests/data/watch/ on this machine.
# Usage: tests/data/watch/record.sh BUILD_DIR SCRATCH_DIR
# The I/O-heavy command reads 4 KiB blocks with O_DIRECT (every read goes to the
# device, so the process waits on storage); the CPU-heavy one hashes zeros.
set -eu
tfrig="$1/tfrig"
scratch="$2"
out="$(dirname "$0")"
head -c 200000000 /dev/zero > "$scratch/big.bin"
sync
python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED)' "$scratch/big.bin"
"$tfrig" watch --no-gpu --interval 500ms --record "$out/io-heavy.jsonl" -- \
  dd if="$scratch/big.bin" of=/dev/null bs=4k count=25000 iflag=direct status=none
"$tfrig" watch --no-gpu --interval 500ms --record "$out/cpu-heavy.jsonl" -- \
  sh -c 'head -c 600000000 /dev/zero | sha256sum'
rm -f "$scratch/big.bin"
