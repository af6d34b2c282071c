#!/usr/bin/env bash
# Slurm health check with tfrig: runs `tfrig doctor` on this node and, when an
# error-level finding fires, drains the node with the failing rule ids as the
# reason, so the scheduler stops sending it jobs. It never resumes a node:
# a person (or your own automation) does, after the fix
# (`scontrol update nodename=NODE state=resume`).
#
# Use it as slurm.conf's HealthCheckProgram (slurmd runs it as SlurmdUser,
# every HealthCheckInterval seconds), or call it from a Prolog; it exits 0
# after draining, so a Prolog does not turn the drain into "Prolog error".
#
# Environment (all optional):
#   TFRIG              the tfrig binary (default: tfrig on PATH)
#   TFRIG_DOCTOR_ARGS  extra doctor arguments, split on spaces
#                      (e.g. "--tf 2.17" or "--data /scratch")
#   TFRIG_IGNORE_RULES rule ids that never drain, comma-separated
#                      (e.g. "tf.not_installed,container.no_gpu_given")
#   TFRIG_NODENAME     the Slurm node name (default: SLURMD_NODENAME, else
#                      the short host name)
#   SCONTROL           scontrol binary (default: scontrol on PATH)
# Needs jq (Debian package jq) to read doctor's JSON.
set -uo pipefail

tfrig="${TFRIG:-tfrig}"
scontrol="${SCONTROL:-scontrol}"
node="${TFRIG_NODENAME:-${SLURMD_NODENAME:-$(hostname -s)}}"
ignore="${TFRIG_IGNORE_RULES:-}"
log() { logger -t tfrig-healthcheck -- "$*" 2>/dev/null || true; echo "tfrig-healthcheck: $*" >&2; }

command -v jq >/dev/null || { log "jq not found: cannot read tfrig doctor's JSON"; exit 1; }
# shellcheck disable=SC2086  # TFRIG_DOCTOR_ARGS is a list of arguments
report="$("$tfrig" doctor --format json --fail-on never ${TFRIG_DOCTOR_ARGS:-})"
status=$?
if [ "$status" -ne 0 ] || [ -z "$report" ]; then
  # tfrig itself failed (not installed, bad arguments): say so, drain nothing.
  log "tfrig doctor failed with exit code $status on $node; node left as it is"
  exit 1
fi

# Error-level rule ids, each once, in doctor's order, less the ignored ones.
rules="$(jq -r --arg ignore "$ignore" '
  ($ignore | split(",") | map(select(length > 0))) as $skip
  | [.findings[] | select(.severity == "error") | .rule_id | select(. as $id | $skip | index($id) | not)]
  | reduce .[] as $id ([]; if index($id) then . else . + [$id] end) | join(",")' <<<"$report")" || {
  log "could not read tfrig doctor's JSON on $node"
  exit 1
}

if [ -z "$rules" ]; then
  exit 0  # healthy as far as tfrig can tell; a drained node stays drained
fi
# Slurm keeps the reason as given; "tfrig:" tells people who set it.
reason="tfrig: $rules"
if "$scontrol" update nodename="$node" state=drain reason="$reason"; then
  log "drained $node: $reason"
else
  log "could not drain $node ($reason)"
  exit 1
fi
exit 0
