# Sourced by the build and test scripts: `phase NAME COMMAND...` runs COMMAND
# and prints how long it took, so a CI log shows where its time went:
#   [ci] asan build: 412 s wall, 790 s user + 41 s sys (load 2.1)
# (user + sys count every process the command started, on all cores; the load
# is the one-minute load average at the end: above the core count the machine
# was shared and the wall time says less.)
phase() {
  local name="$1"
  shift
  local TIMEFORMAT="[ci] $name: %0R s wall, %0U s user + %0S s sys"
  local rc=0
  time "$@" || rc=$?
  echo "[ci] $name: load $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores" >&2
  return $rc
}
