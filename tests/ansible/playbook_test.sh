#!/usr/bin/env bash
# deploy/ansible/tfrig-fleet.yml with Debian's Ansible against a local
# inventory of three hosts (ansible_connection=local), each a different
# fixture root standing in for a machine: the playbook copies tfrig, snapshots
# every host, fetches the snapshots and runs tfrig fleet, which must name the
# host on the other root as the odd node out. The playbook is yamllint-clean
# and ansible-lint-clean (production profile) where ansible-lint is installed.
# Exit 77 (skipped) without ansible-playbook or yamllint (scripts/deps-fleet.txt).
# Usage: playbook_test.sh TFRIG_BINARY REPO_ROOT
set -euo pipefail
tfrig="$(realpath "$1")"
repo="$(realpath "$2")"
for tool in ansible-playbook yamllint jq; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (scripts/deps-fleet.txt)"; exit 77; }
done
work="$(mktemp -d "${TMPDIR:-/tmp}/tfrig-ansible.XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

yamllint -s -c "$repo/deploy/ansible/.yamllint" "$repo/deploy/ansible/" || fail "yamllint"
# ansible-lint (Debian 12's 6.13) offline, its caches under the work directory.
if command -v ansible-lint >/dev/null; then
  (cd "$repo/deploy/ansible" && HOME="$work/lint-home" XDG_CACHE_HOME="$work/lint-cache" \
    ansible-lint --offline --nocolor tfrig-fleet.yml) >"$work/lint.log" 2>&1 || { cat "$work/lint.log"; fail "ansible-lint"; }
fi

roots="$repo/tests/data/roots"
# Debian's python3 (Ansible's own, with its modules); a pyenv shim first on
# PATH costs ~1.5 s a start, paid by every task.
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)
cat >"$work/inventory.ini" <<INI
[gpu]
node-a tfrig_root=$roots/stack-cuda12
node-b tfrig_root=$roots/stack-cuda12
node-c tfrig_root=$roots/stack-nodriver

[gpu:vars]
ansible_connection=local
ansible_python_interpreter=$python
INI
# Ansible keeps its temporary files and settings out of HOME.
export ANSIBLE_LOCAL_TEMP="$work/ansible-local" ANSIBLE_REMOTE_TEMP="$work/ansible-remote" ANSIBLE_HOME="$work/ansible-home"
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_HOST_KEY_CHECKING=0
ansible-playbook -i "$work/inventory.ini" "$repo/deploy/ansible/tfrig-fleet.yml" \
  -e tfrig_binary="$tfrig" -e fleet_dir="$work/fleet" -e fleet_fail_on=never \
  -e tfrig_work_dir="$work/hosts/{{ inventory_hostname }}" >"$work/play.log" 2>&1 || { cat "$work/play.log"; fail "playbook"; }

for host in node-a node-b node-c; do
  [ -s "$work/fleet/snapshots/$host.json" ] || fail "no snapshot fetched from $host"
done
report="$work/fleet/fleet-report.json"
[ "$(jq '.node_count' "$report")" = 3 ] || fail "fleet did not read three nodes"
[ "$(jq -r '.odd_nodes[0].node' "$report")" = node-c ] || fail "node-c is not the odd node: $(jq -c '.odd_nodes' "$report")"
[ "$(jq '[.odd_nodes[].node] | index("node-a")' "$report")" = null ] || fail "node-a listed as odd"
[ "$(jq '[.drift[] | select(.differing | map(.node) != ["node-c"])] | length' "$report")" = 0 ] ||
  fail "a drift names a node other than node-c: $(jq -c '.drift' "$report")"
grep -q "node-c" "$work/play.log" || fail "the play did not show the odd node"
echo "PASS: $(jq '.drift | length' "$report") facts drift, all on node-c"
