#!/usr/bin/env bash
# capture_root.sh - copy the /proc, /sys and /etc files a system inventory
# (tfrig) reads into a fixture root that `tfrig --root DIR` can be pointed at.
#
# Usage:
#   capture_root.sh [options] DEST
#
# Options:
#   --src DIR                capture from DIR instead of the live system "/"
#                            (DIR must look like a root: DIR/proc, DIR/sys, DIR/etc)
#   --max-bytes N            skip files larger than N bytes (default 262144, hard cap 1 MiB)
#   --drop-mounts REGEX      drop lines matching REGEX (grep -E) from the captured
#                            mounts/mountinfo files (e.g. host-specific tooling mounts)
#   --raw-cmdline            keep /proc/cmdline verbatim; by default everything after
#                            " -- " (arguments for init, not kernel parameters) is cut
#   --force                  replace DEST if it holds a previous capture (CAPTURE.txt)
#   -v                       verbose: list every file copied or skipped
#
# Rules:
#   * only readable regular files are copied, always with `timeout 1 cat`
#     (procfs/sysfs files report st_size 0, and some block on read);
#   * symlinks met on the way (e.g. /sys/block/vda, /sys/bus/pci/devices/X,
#     /etc/os-release, /proc/mounts, /proc/self) are recreated as RELATIVE
#     symlinks with the same structure, and their targets are captured too;
#   * /proc/self is recreated as "self -> <pid of this script>" and the files
#     below it come from that pid;
#   * nothing secret on purpose: no environ, no serial numbers, no hostnames.
#
# Writes DEST/CAPTURE.txt (date, host kernel, command line, skipped files).

set -u -o pipefail
export LC_ALL=C

SRC=/
DEST=
MAX_BYTES=262144
HARD_MAX=1048576
DROP_MOUNTS=
RAW_CMDLINE=0
FORCE=0
VERBOSE=0
ORIG_ARGS=("$@")

usage() { sed -n '2,/^$/{s/^# \{0,1\}//;p}' "$0" | sed '/^set /,$d'; exit "${1:-2}"; }

while [ $# -gt 0 ]; do
    case "$1" in
        --src) SRC=${2:?}; shift 2 ;;
        --max-bytes) MAX_BYTES=${2:?}; shift 2 ;;
        --drop-mounts) DROP_MOUNTS=${2:?}; shift 2 ;;
        --raw-cmdline) RAW_CMDLINE=1; shift ;;
        --force) FORCE=1; shift ;;
        -v) VERBOSE=1; shift ;;
        -h|--help) usage 0 ;;
        -*) echo "capture_root.sh: unknown option $1" >&2; usage 2 ;;
        *) [ -z "$DEST" ] || usage 2; DEST=$1; shift ;;
    esac
done
[ -n "$DEST" ] || usage 2
[ "$MAX_BYTES" -le "$HARD_MAX" ] 2>/dev/null || MAX_BYTES=$HARD_MAX

SRC=$(cd "$SRC" && pwd -P) || { echo "capture_root.sh: bad --src" >&2; exit 2; }
[ "$SRC" = / ] && SRCP= || SRCP=$SRC      # prefix to prepend to absolute paths
LIVE=0; [ "$SRC" = / ] && LIVE=1
SELF_PID=$BASHPID

if [ -e "$DEST" ] && [ -n "$(ls -A "$DEST" 2>/dev/null)" ]; then
    if [ "$FORCE" = 1 ] && [ -f "$DEST/CAPTURE.txt" ]; then
        rm -rf -- "$DEST"
    else
        echo "capture_root.sh: $DEST exists and is not empty (use --force on a previous capture)" >&2
        exit 2
    fi
fi
mkdir -p "$DEST" && DEST=$(cd "$DEST" && pwd -P) || exit 2
umask 022

NCOPIED=0
SKIPPED=()
log() { [ "$VERBOSE" = 1 ] && echo "$*" >&2; return 0; }
skip() { SKIPPED+=("$1 ($2)"); log "skip $1: $2"; }

# normalize an absolute path lexically (no symlink resolution, may not exist)
norm() { realpath -m -s -- "$1"; }

# relative path from directory $1 to path $2 (both absolute, lexical)
relto() { realpath -m -s --relative-to="$1" -- "$2"; }

# Make sure every symlink along absolute path $1 exists in DEST as a relative
# symlink; print the physical path (no symlinks left) on stdout.
# Returns 1 on a loop or when a component is missing in SRC.
declare -A LINKED=()
resolve() {
    local path; path=$(norm "$1")
    local hops=0
    while :; do
        local cur="" comp rest="${path#/}" restarted=0
        while [ -n "$rest" ]; do
            comp=${rest%%/*}
            if [ "$comp" = "$rest" ]; then rest=""; else rest=${rest#*/}; fi
            local next="$cur/$comp"
            if [ -L "$SRCP$next" ]; then
                hops=$((hops + 1)); [ $hops -le 40 ] || return 1
                local target
                if [ "$LIVE" = 1 ] && { [ "$next" = /proc/self ] || [ "$next" = /proc/thread-self ]; }; then
                    target=$SELF_PID
                else
                    target=$(readlink -- "$SRCP$next") || return 1
                fi
                local dir=${cur:-/}
                local abs_target
                case "$target" in
                    /*) abs_target=$(norm "$target") ;;
                    *)  abs_target=$(norm "$dir/$target") ;;
                esac
                if [ -z "${LINKED[$next]:-}" ]; then
                    local rel; rel=$(relto "$dir" "$abs_target")
                    mkdir -p "$DEST$dir"
                    if [ ! -L "$DEST$next" ] && [ ! -e "$DEST$next" ]; then
                        ln -s -- "$rel" "$DEST$next"
                        log "link $next -> $rel"
                    fi
                    LINKED[$next]=1
                fi
                if [ -n "$rest" ]; then path="$abs_target/$rest"; else path=$abs_target; fi
                path=$(norm "$path")
                restarted=1
                break
            fi
            [ -e "$SRCP$next" ] || return 1
            cur=$next
        done
        [ $restarted = 1 ] || { printf '%s\n' "$path"; return 0; }
    done
}

# copy_file ABS_PATH [filter]  - capture one file if it is a readable regular file
copy_file() {
    local want=$1 filter=${2:-}
    [ -e "$SRCP$want" ] || [ -L "$SRCP$want" ] || return 0      # silently absent
    local phys
    phys=$(resolve "$want") || { skip "$want" "symlink loop or dangling"; return 0; }
    local src="$SRCP$phys" dst="$DEST$phys"
    [ -f "$src" ] || { skip "$want" "not a regular file"; return 0; }
    [ -r "$src" ] || { skip "$want" "not readable"; return 0; }
    [ -e "$dst" ] && return 0
    mkdir -p "$(dirname "$dst")"
    local tmp="$dst.capture-tmp"
    if ! timeout 1 cat -- "$src" 2>/dev/null | head -c $((MAX_BYTES + 1)) > "$tmp"; then
        rm -f "$tmp"; skip "$want" "read failed or timed out"; return 0
    fi
    local size; size=$(stat -c %s "$tmp")
    if [ "$size" -gt "$MAX_BYTES" ]; then
        rm -f "$tmp"; skip "$want" "larger than $MAX_BYTES bytes"; return 0
    fi
    if [ -n "$filter" ]; then
        "$filter" < "$tmp" > "$tmp.f" && mv "$tmp.f" "$tmp"
    fi
    mv "$tmp" "$dst"
    chmod 644 "$dst"
    NCOPIED=$((NCOPIED + 1))
    log "copy $want"
}

# recreate only the symlink at ABS_PATH (not what it points to)
copy_link() {
    local want=$1
    [ -L "$SRCP$want" ] || return 0
    local parent; parent=$(resolve "$(dirname "$want")") || return 0
    local target; target=$(readlink -- "$SRCP$parent/$(basename "$want")") || return 0
    local abs_target
    case "$target" in /*) abs_target=$(norm "$target") ;; *) abs_target=$(norm "$parent/$target") ;; esac
    mkdir -p "$DEST$parent"
    # only the link itself: its target (e.g. sys/bus/pci/drivers/NAME) is not
    # captured and would be an empty directory, which git cannot store anyway,
    # so the link dangles in DEST; readlink + basename still gives the name.
    [ -L "$DEST$parent/$(basename "$want")" ] || ln -s -- "$(relto "$parent" "$abs_target")" "$DEST$parent/$(basename "$want")"
    log "link $want -> $target"
    return 0
}

# glob helper: expand a pattern inside SRC, print absolute paths (SRC-relative)
expand() {
    local pat=$1 m
    shopt -s nullglob
    for m in $SRCP$pat; do printf '%s\n' "${m#$SRCP}"; done
    shopt -u nullglob
}

filter_mounts() { if [ -n "$DROP_MOUNTS" ]; then grep -Ev -- "$DROP_MOUNTS" || true; else cat; fi; }
filter_cmdline() {
    if [ "$RAW_CMDLINE" = 1 ]; then cat; return; fi
    local line; IFS= read -r line || true
    case "$line" in *" -- "*) line=${line%% -- *} ;; esac
    printf '%s\n' "$line"
}

# ---------------------------------------------------------------- /etc
for f in /etc/os-release /usr/lib/os-release /etc/debian_version /etc/lsb-release \
         /etc/redhat-release /etc/system-release /etc/security/limits.conf; do
    copy_file "$f"
done
for f in $(expand '/etc/security/limits.d/*'); do copy_file "$f"; done

# ---------------------------------------------------------------- /proc
for f in /proc/cpuinfo /proc/meminfo /proc/swaps /proc/version /proc/modules \
         /proc/sys/kernel/osrelease /proc/sys/kernel/ostype /proc/sys/vm/swappiness \
         /proc/sys/vm/overcommit_memory /proc/sys/vm/nr_hugepages /proc/sys/vm/max_map_count \
         /proc/sys/fs/file-max /proc/sys/kernel/numa_balancing /proc/1/cgroup \
         /proc/self/limits /proc/self/cgroup /proc/driver/nvidia/version; do
    copy_file "$f"
done
copy_file /proc/cmdline filter_cmdline
copy_file /proc/mounts filter_mounts
copy_file /proc/self/mountinfo filter_mounts
for f in $(expand '/proc/driver/nvidia/gpus/*/information'); do copy_file "$f"; done

# ---------------------------------------------------------------- /sys/kernel, hypervisor, dmi
for f in /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag \
         /sys/kernel/mm/transparent_hugepage/shmem_enabled /sys/hypervisor/type \
         /sys/module/nvidia/version; do
    copy_file "$f"
done
for f in $(expand '/sys/kernel/mm/hugepages/*/nr_hugepages') \
         $(expand '/sys/kernel/mm/hugepages/*/free_hugepages'); do
    copy_file "$f"
done
for a in sys_vendor product_name product_version board_vendor board_name \
         bios_vendor bios_version chassis_type; do
    copy_file "/sys/class/dmi/id/$a"
done

# ---------------------------------------------------------------- cpus and NUMA nodes
C=/sys/devices/system/cpu
for a in online possible present offline kernel_max isolated smt/control smt/active; do
    copy_file "$C/$a"
done
for cpu in $(expand "$C/cpu[0-9]*"); do
    copy_file "$cpu/online"
    for f in $(expand "$cpu/topology/*"); do copy_file "$f"; done
    for f in $(expand "$cpu/cpufreq/*"); do copy_file "$f"; done
    for idx in $(expand "$cpu/cache/index[0-9]*"); do
        for a in level type size ways_of_associativity coherency_line_size shared_cpu_list shared_cpu_map id; do
            copy_file "$idx/$a"
        done
    done
done
for f in $(expand "$C/vulnerabilities/*"); do copy_file "$f"; done

N=/sys/devices/system/node
for a in online possible has_cpu has_memory has_normal_memory; do copy_file "$N/$a"; done
for node in $(expand "$N/node[0-9]*"); do
    for a in cpulist cpumap meminfo distance numastat; do copy_file "$node/$a"; done
    for f in $(expand "$node/hugepages/*/nr_hugepages"); do copy_file "$f"; done
done

# ---------------------------------------------------------------- block devices
for blk in $(expand '/sys/block/*'); do
    for a in size ro removable hidden dev capability ext_range \
             queue/rotational queue/logical_block_size queue/physical_block_size \
             queue/hw_sector_size queue/scheduler queue/nr_requests queue/discard_granularity \
             queue/write_cache queue/zoned \
             device/model device/vendor device/rev device/state device/type; do
        copy_file "$blk/$a"
    done
    for part in $(expand "$blk/$(basename "$blk")*"); do
        for a in partition start size ro; do copy_file "$part/$a"; done
    done
done

# ---------------------------------------------------------------- PCI devices
for dev in $(expand '/sys/bus/pci/devices/*'); do
    for a in vendor device class revision subsystem_vendor subsystem_device numa_node \
             current_link_speed current_link_width max_link_speed max_link_width \
             local_cpulist; do
        copy_file "$dev/$a"
    done
    copy_link "$dev/driver"
done

# ---------------------------------------------------------------- record
{
    echo "Captured by tests/data/tools/capture_root.sh"
    echo "date (UTC): $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    printf 'command: tests/data/tools/capture_root.sh'
    printf ' %q' "${ORIG_ARGS[@]}"
    echo
    echo "source root: $SRC"
    [ "$LIVE" = 1 ] && echo "kernel: $(uname -srm)"
    [ "$LIVE" = 1 ] && echo "proc/self -> $SELF_PID (pid of the capturing shell; files below it are that shell's)"
    echo "files copied: $NCOPIED (max $MAX_BYTES bytes each)"
    [ "$RAW_CMDLINE" = 1 ] || [ ! -f "$DEST/proc/cmdline" ] || echo "proc/cmdline: init arguments after ' -- ' (if any) removed"
    [ -z "$DROP_MOUNTS" ] || echo "mounts/mountinfo: lines matching the regex '$DROP_MOUNTS' removed"
    echo "skipped (present but not captured): ${#SKIPPED[@]}"
    for s in "${SKIPPED[@]}"; do echo "  $s"; done
} > "$DEST/CAPTURE.txt"

echo "capture_root.sh: $NCOPIED files into $DEST (${#SKIPPED[@]} skipped, see CAPTURE.txt)" >&2
