#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/drm-cost.sh - the DRM simulator's cost model (build/sim/libgsdrmcost.so, preloaded;
# sim/drm/cost/drmcost.c) on a drmsim tree: with it off a read costs next to nothing; with it
# on each operation on the tree spends its class's figure as CPU time of the calling thread
# (a sysfs attribute, an hwmon attribute, gpu_metrics, a client's fdinfo, another /proc file,
# an open, a directory entry, a readlink), a file outside the tree and drmsim's own marker cost
# nothing, an fd duplicated with fcntl keeps its class, GPUSCOPE_SIM_DRM_COST_STATS counts the
# operations, and a bad figure is refused with a message naming it. The parsing itself:
# tests/unit/test_drm_cost.c.
set -u
cd "$(dirname "$0")/.." || exit 1
O=${O:-build}
SHIM=$PWD/$O/sim/libgsdrmcost.so
DRMSIM=$PWD/$O/sim/drmsim
for f in "$SHIM" "$DRMSIM"; do [ -e "$f" ] || { echo "FAIL: $f missing (run make)"; exit 1; }; done
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
tmp=$(mktemp -d /tmp/gs-drmcost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for v in $(env | sed -n 's/^\(GPUSCOPE_SIM_DRM_COST[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
"$DRMSIM" --root "$tmp/tree" --scenario sim/scenarios/amd-dgpu.drm --at 30 || { echo "FAIL: drmsim"; exit 1; }
export GPUSCOPE_SYS_ROOT=$tmp/tree GPUSCOPE_PROC_ROOT=$tmp/tree/proc
dev=$(dirname "$(ls -d "$tmp"/tree/sys/devices/*/*/gpu_metrics | head -n 1)")
hwmon=$(ls -d "$dev"/hwmon/hwmon* | head -n 1)
fdinfo=$(ls "$tmp"/tree/proc/*/fdinfo/* | head -n 1)
pid_dir=${fdinfo%/fdinfo/*}
link_name=${fdinfo##*/}
echo outside >"$tmp/outside"

# probe MODE PATH N: N operations; prints "cpu_us_per_op wall_us_per_op entries"
cat >"$tmp/probe.py" <<'PY'
import fcntl, os, sys, time
mode, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
fd = os.open(path, os.O_RDONLY) if mode in ("pread", "dup") else -1
if mode == "dup":
    fd2 = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 0)
    os.close(fd)
    fd = fd2
entries = 1
if mode == "list":
    entries = max(1, len(os.listdir(path)) + 2)  # readdir also answers . and ..
if mode == "link":
    dfd = os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY)
    name = os.path.basename(path)
c0, w0 = time.thread_time(), time.monotonic()
for _ in range(n):
    if mode in ("pread", "dup"):
        os.pread(fd, 4096, 0)
    elif mode == "open":
        os.close(os.open(path, os.O_RDONLY))
    elif mode == "list":
        os.listdir(path)
    elif mode == "link":
        os.readlink(name, dir_fd=dfd)
c1, w1 = time.thread_time(), time.monotonic()
print(f"{(c1 - c0) * 1e6 / n / (entries if mode == 'list' else 1):.1f} {(w1 - w0) * 1e6 / n:.1f} {entries}")
PY
probe() { LD_PRELOAD=$SHIM python3 "$tmp/probe.py" "$@"; }
fail=0
check() { # check COND WHAT VALUES...
    if python3 -c "import sys; a = [float(x) for x in sys.argv[3:]]; sys.exit(0 if ($1) else 1)" "$@"; then
        echo "ok: $2"
    else
        echo "FAIL: $2"
        fail=1
    fi
}
expect() { # expect 'condition on a[0] (cpu per op)' 'what' MODE PATH N
    local cond=$1 what=$2 out
    shift 2
    out=$(probe "$@") || { echo "FAIL: $what: the probe failed"; fail=1; return; }
    # shellcheck disable=SC2086
    check "$cond" "$what (cpu, wall per op, entries: $out)" $out
}

expect 'a[0] < 50' "model off: a tree read costs under 50 us of CPU" pread "$dev/gpu_busy_percent" 300
expect 'a[0] < 50' "model off: an open costs under 50 us" open "$dev/gpu_busy_percent" 300

# figures far enough apart that each check's bounds (2x or more) tell a class from its neighbours
export GPUSCOPE_SIM_DRM_COST_US=300 GPUSCOPE_SIM_DRM_COST_HWMON_US=900 GPUSCOPE_SIM_DRM_COST_METRICS_US=2700 \
    GPUSCOPE_SIM_DRM_COST_FDINFO_US=400 GPUSCOPE_SIM_DRM_COST_PROC_US=100 GPUSCOPE_SIM_DRM_COST_OPEN_US=500 \
    GPUSCOPE_SIM_DRM_COST_PROC_OPEN_US=200 GPUSCOPE_SIM_DRM_COST_DIRENT_US=100 GPUSCOPE_SIM_DRM_COST_LINK_US=200
expect 'a[0] >= 300 and a[0] < 800' "a sysfs attribute read: 300 us of CPU" pread "$dev/gpu_busy_percent" 40
expect 'a[0] >= 900 and a[0] < 2400' "an hwmon attribute read: 900 us" pread "$hwmon/temp1_input" 20
expect 'a[0] >= 2700 and a[0] < 8000' "a gpu_metrics read: 2700 us" pread "$dev/gpu_metrics" 10
expect 'a[0] >= 400 and a[0] < 1000' "a client's fdinfo read: 400 us" pread "$fdinfo" 30
expect 'a[0] >= 100 and a[0] < 290' "another /proc file (stat): 100 us" pread "$pid_dir/stat" 40
expect 'a[0] >= 300 and a[0] < 800' "an fd duplicated with fcntl keeps its class" dup "$dev/gpu_busy_percent" 40
expect 'a[0] >= 500 and a[0] < 1400' "an open and close of a sysfs file: 500 us" open "$dev/gpu_busy_percent" 20
expect 'a[0] >= 200 and a[0] < 490' "an open and close in /proc: 200 us" open "$pid_dir/stat" 30
expect 'a[0] >= 100 and a[0] < 400' "a /proc listing: 100 us an entry (and its open)" list "$tmp/tree/proc" 3
expect 'a[0] >= 200 and a[0] < 600' "a readlink of /proc/PID/fd/N: 200 us" link "$pid_dir/fd/$link_name" 40
expect 'a[0] < 50' "a file outside the tree costs nothing" pread "$tmp/outside" 300
expect 'a[0] < 50' "drmsim's marker costs nothing" pread "$tmp/tree/sys/class/drm/.gpuscope-sim" 300

# the operations charged, per class
GPUSCOPE_SIM_DRM_COST_STATS=$tmp/stats probe pread "$dev/gpu_busy_percent" 7 >/dev/null
n=$(awk '$1 == "GPUSCOPE_SIM_DRM_COST_US" { print $2 }' "$tmp/stats" 2>/dev/null)
o=$(awk '$1 == "GPUSCOPE_SIM_DRM_COST_OPEN_US" { print $2 }' "$tmp/stats" 2>/dev/null)
check 'a[0] == 7 and a[1] == 1' "GPUSCOPE_SIM_DRM_COST_STATS: 7 attribute reads, 1 open (got ${n:-none}, ${o:-none})" \
    "${n:--1}" "${o:--1}"

# a bad figure: a message naming the variable and its value
err=$(GPUSCOPE_SIM_DRM_COST_LINK_US=lots probe pread "$dev/gpu_busy_percent" 1 2>&1 >/dev/null)
case $err in
*GPUSCOPE_SIM_DRM_COST_LINK_US=lots*microseconds*) echo "ok: a bad figure is named on stderr" ;;
*) echo "FAIL: a bad figure: stderr was: $err"; fail=1 ;;
esac
exit "$fail"
