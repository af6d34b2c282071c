#!/usr/bin/env bash
# A one-node Slurm cluster on loopback (munged + slurmctld + slurmd, config
# and state in a temporary directory, ports picked here), then:
#   1. deploy/slurm/tfrig-healthcheck.sh drains the node, with the failing
#      rule ids as the reason, on a machine with a lost GPU (a real bug
#      report), and leaves it up on one without errors;
#   2. `sbatch --array=0-3` packs with --shard-index $SLURM_ARRAY_TASK_ID (and
#      auto), and the shards match a one-machine pack file for file;
#   3. the docs/fleet.md collection recipe: srun runs tfrig snapshot on
#      every node into DIR/NODE.json, and tfrig fleet reads DIR.
# Every daemon is stopped on exit, also on failure. Exit 77 (skipped) when
# Slurm or munge is not installed (scripts/deps-fleet.txt installs them).
# Usage: one_node_cluster_test.sh TFRIG_BINARY REPO_ROOT
set -euo pipefail
tfrig="$(realpath "$1")"
repo="$(realpath "$2")"
for tool in munged mungekey slurmctld slurmd sbatch srun scontrol sinfo jq cjpeg python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (scripts/deps-fleet.txt)"; exit 77; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/tfrig-slurm.XXXXXX")"
chmod 0755 "$work"
pids=()
cleanup() {
  local rc=$?
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [ "$rc" -ne 0 ]; then
    for f in "$work"/*.log; do echo "== $f"; tail -n 30 "$f"; done
  fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP
# Each daemon also dies on its own after this long, should this script be
# killed outright (ctest's timeout is 180 s).
life=(timeout --kill-after=5 150)
fail() { echo "FAIL: $*" >&2; exit 1; }
# Waits (up to 30 s) until the command succeeds.
wait_for() {
  for _ in $(seq 300); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  fail "timed out waiting for: $*"
}
# Debian's python3 first (a pyenv shim on PATH costs ~1.5 s a start).
python=/usr/bin/python3
[ -x "$python" ] || python=python3
free_port() { "$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# munge: its own key, socket and files.
mkdir -m 0700 "$work/munge"
mungekey --create --keyfile="$work/munge/munge.key" --force
"${life[@]}" munged --foreground --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
  --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/munged.seed" --log-file="$work/munged.log" 2>>"$work/munged.log" &
pids+=($!)
wait_for test -S "$work/munge/munge.socket"

node=tfrignode
ctld_port="$(free_port)"
slurmd_port="$(free_port)"
while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port="$(free_port)"; done
mkdir -p "$work/state" "$work/spool"
export SLURM_CONF="$work/slurm.conf"
# No cgroup plugin: process tracking by /proc (proctrack/linuxproc) and no
# task binding (task/none) run in a container without a delegated cgroup tree.
cat >"$SLURM_CONF" <<CONF
ClusterName=tfrigtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool/%n
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$node NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=10 State=UP
CONF
"${life[@]}" slurmctld -D -i -f "$SLURM_CONF" 2>>"$work/slurmctld.log" &
pids+=($!)
wait_for scontrol ping
"${life[@]}" slurmd -D -N "$node" -f "$SLURM_CONF" 2>>"$work/slurmd.log" &
pids+=($!)
node_state() { sinfo -h -N -n "$node" -o '%T'; }
wait_for bash -c "sinfo -h -N -n $node -o '%T' | grep -qx idle"
echo "cluster up: slurmctld :$ctld_port, slurmd :$slurmd_port, node $(node_state)"

# 1. Health check.
check=(env TFRIG="$tfrig" TFRIG_NODENAME="$node" "$repo/deploy/slurm/tfrig-healthcheck.sh")
TFRIG_DOCTOR_ARGS="--from $repo/tests/data/nvidia-bug-report/blacksoil__BashCommands.log.gz" "${check[@]}"
reason="$(scontrol show node "$node" | sed -n 's/^ *Reason=\(.*\) \[.*$/\1/p')"
state="$(node_state)"
echo "lost GPU: state $state, reason '$reason'"
case "$state" in drain*|drng*) ;; *) fail "node not drained after a lost GPU: $state" ;; esac
case "$reason" in "tfrig: "*gpu.lost*) ;; *) fail "drain reason should name gpu.lost: '$reason'" ;; esac
# Another run does not resume it (only people do).
TFRIG_DOCTOR_ARGS="--from $repo/tests/data/nvidia-bug-report/pavana27__Lambda-Bug-report.log.gz" "${check[@]}"
case "$(node_state)" in drain*) ;; *) fail "the health check resumed a drained node" ;; esac
scontrol update nodename="$node" state=resume
wait_for bash -c "sinfo -h -N -n $node -o '%T' | grep -qx idle"
# A machine with warnings but no error stays up.
TFRIG_DOCTOR_ARGS="--from $repo/tests/data/nvidia-bug-report/pavana27__Lambda-Bug-report.log.gz" "${check[@]}"
[ "$(node_state)" = idle ] || fail "clean machine drained: $(node_state)"
echo "clean machine: node $(node_state)"

# 2. Pack as a job array: 48 JPEGs in 3 classes, small shards.
"$python" - "$work/data" <<'PY'
import os, random, sys
rng = random.Random(5)
for c in ("cat", "dog", "emu"):
    os.makedirs(os.path.join(sys.argv[1], c), exist_ok=True)
    for i in range(16):
        w, h = rng.randint(16, 64), rng.randint(16, 64)
        with open(os.path.join(sys.argv[1], c, "%02d.ppm" % i), "wb") as f:
            f.write(b"P6 %d %d 255\n" % (w, h) + bytes(rng.randrange(256) for _ in range(w * h * 3)))
PY
for ppm in "$work"/data/*/*.ppm; do cjpeg -quality 80 "$ppm" >"${ppm%.ppm}.jpg" && rm "$ppm"; done
pack=("$tfrig" pack "$work/data" --prefix train --seed 7 --shard-size 20KB --no-progress)
"${pack[@]}" -o "$work/one" >/dev/null
timeout 60 sbatch --wait --array=0-3 -o "$work/array-%a.log" \
  --wrap "${pack[*]} -o $work/array --num-shards 4 --shard-index \$SLURM_ARRAY_TASK_ID" >/dev/null
timeout 60 sbatch --wait --array=0-3 -o "$work/auto-%a.log" --wrap "${pack[*]} -o $work/auto --shard-index auto" >/dev/null
for out in array auto; do
  diff -r "$work/one" "$work/$out" || fail "the $out pack differs from the one-machine pack"
  "$tfrig" verify --examples "$work/$out" >/dev/null || fail "verify found bad records in the $out pack"
done
shards=("$work"/array/*.tfrecord)
echo "array pack: ${#shards[@]} shards, identical to one machine's, verified"
grep -q "slice 3 of 4" "$work/auto-3.log" || fail "task 3 did not pack slice 3 of 4: $(cat "$work/auto-3.log")"

# 3. Collection recipe (docs/fleet.md): one snapshot per node, then fleet.
mkdir -p "$work/snapshots"
timeout 60 srun --nodes=1 --ntasks-per-node=1 sh -c "'$tfrig' --root '$repo/tests/data/roots/stack-cuda12' snapshot -o '$work/snapshots/'\$SLURMD_NODENAME.json" 2>/dev/null
[ -s "$work/snapshots/$node.json" ] || fail "srun did not write $node.json"
set +e
"$tfrig" fleet --format json "$work/snapshots" >"$work/fleet.json"
set -e
[ "$(jq -r '.nodes[0].node' "$work/fleet.json")" = "$node" ] || fail "fleet did not read the node: $(cat "$work/fleet.json")"
echo "collection: srun wrote $node.json, fleet read it"
echo PASS
