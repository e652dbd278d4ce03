#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/drm.sh - the AMD/Intel sampling cost per tick against NVIDIA's (issue 16), run by bench/run.
#
# One run, three machines of the same shape, 4 GPUs x 32 processes (128 GPU processes):
#   nvidia  the NVML simulator (bench-4x32, written here): 128 live `sleep` children as the PIDs;
#   amd     4 amdgpu cards (gpu_metrics 1.3, hwmon, RAS) laid out by drmsim;
#   xe      4 Intel xe cards laid out by drmsim;
# the DRM trees' /proc also holds 256 processes that hold no DRM node (a desktop's daemons),
# so a /proc listing and the holder search do real work; one client in four has a second fd
# to the same client (counted once). The trees are written once (drmsim --at 30) under
# /dev/shm when it is writable: values do not move, and every sysfs file is read every tick;
# but the tree's clock (drmsim's marker) does not move either, so the fdinfo scan of the
# clients runs once. A third run without the marker (the real clock, as on a real machine)
# reads every client's fdinfo each tick: that one is checked against the target too. There
# /proc is listed only when the kernel's last PID (the tree's loadavg) moved, as on a machine
# where nothing forks between ticks; a fourth run removes the tree's loadavg, so /proc is
# listed every tick, as on a machine where some process or thread starts between every two
# ticks (the worst case).
# Figures: CPU time per complete snapshot (build/bench/bench_snapshot: median and p95 of
# BENCH_SNAPSHOTS after one untimed warm-up; first snapshot cold), with and without host facts,
# and the ratio of each DRM machine's median to NVIDIA's from the same run.
# Target (issue 16): the DRM backend's cost under the NVIDIA backend's for the same counts,
# checked without /proc facts (see the note at the end).
# Both cost models (issue 24): the same runs without /proc facts, on the frozen and on the real
# clock, again with the NVML simulator's cost model on (GPUSCOPE_SIM_CALL_COST_US=GS_BENCH_COST_US,
# default 20, other classes' defaults) and the DRM tree's (build/sim/libgsdrmcost.so preloaded,
# each class set to what build/bench/bench_filecost measures in this same run: a real sysfs or
# procfs file's cost over the tmpfs file the tree holds). The DRM figures are this kernel's file
# cost only, without a driver's own time behind its files (amdgpu's SMU messages, the walk of a
# client's buffers for fdinfo), for which no figure is published: docs/SIMULATOR.md, "Cost model".
# Target (issue 24): the AMD/Intel tick <= the NVIDIA tick with both cost models on.
# Exit status: 0 when everything ran (a missed target is reported, not fatal), 2 when something
# could not run. Environment: O (build dir, default build), BENCH_SNAPSHOTS (1000),
# GS_BENCH_COST_US (the NVML getter's figure, 20).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)
O=${O:-build}
SNAPSHOTS=${BENCH_SNAPSHOTS:-1000}
LIB=$ROOT/$O/sim/current/libnvidia-ml.so.1
SNAP_BIN=$ROOT/$O/bench/bench_snapshot
DRMSIM=$ROOT/$O/sim/drmsim
COST_LIB=$ROOT/$O/sim/libgsdrmcost.so
FILECOST_BIN=$ROOT/$O/bench/bench_filecost
COST_US=${GS_BENCH_COST_US:-20}
BASE=/dev/shm
[ -d "$BASE" ] && [ -w "$BASE" ] || BASE=/tmp
TMP=$(mktemp -d "$BASE/gpuscope-bench-drm.XXXXXX")
CHILDREN=()
GPUS=4
PER_GPU=32
IDLE=256

cleanup() {
    if [ "${#CHILDREN[@]}" -gt 0 ]; then
        kill "${CHILDREN[@]}" 2>/dev/null
        wait "${CHILDREN[@]}" 2>/dev/null
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
die() { echo "bench: $*" >&2; exit 2; }
for v in $(env | sed -n 's/^\(GPUSCOPE_SIM_\(CALL\|DRM\)_COST[A-Z_]*\)=.*/\1/p'); do unset "$v"; done

for f in "$LIB" "$SNAP_BIN" "$DRMSIM" "$COST_LIB" "$FILECOST_BIN"; do
    [ -e "$f" ] || die "missing $f (run 'make all bench-bin' first)"
done

# --- the scenarios ------------------------------------------------------------------------
cat >"$TMP/bench-4x32.scn" <<EOF
# bench-4x32 (written by bench/drm.sh): 4 H100s with 32 compute processes each; PIDs from
# GPUSCOPE_SIM_PIDS (live sleep children).
name bench-4x32
system driver=550.127.05 cuda=12.4 seed=4
gpu count=$GPUS name="NVIDIA H100 80GB HBM3" arch=hopper cc=9.0 brand=nvidia \\
    pci_device_id=0x233010DE pci_subsys_id=0x16C110DE \\
    memory_total=81559MiB memory_reserved=579MiB bar1_total=128GiB \\
    temp_slowdown=87 temp_shutdown=92 temp_gpu_max=85 \\
    power_default=700W power_min=200W power_max=700W \\
    clock_max_graphics=1980 clock_max_mem=2619 clock_max_video=1545 \\
    pcie_max_gen=5 nvlinks=18 fans=0 unsupported=fan,retired_pages \\
    util=clamp(noise(92,6),0,100) mem_util=clamp(noise(50,10),0,100) \\
    power=add(95W,mul(util,6W)) temp=add(33,mul(power,0.00005)) \\
    clock_graphics=1935 clock_mem=2619 pcie_tx=400000 pcie_rx=3000000
proc all count=$PER_GPU type=compute pid=env name="python worker.py" \\
    mem=add(2GiB,noise(0,256MiB)) sm=clamp(noise(3,1),0,100) mem_util=1
EOF

# drm_scenario VENDOR FILE: 4 cards of VENDOR (amd|xe), 32 clients each, 256 idle processes.
drm_scenario() {
    local v=$1 f=$2 c p pid
    {
        echo "# bench-$v-4x32 (written by bench/drm.sh); card lines as sim/scenarios/amd-dgpu.drm and intel-xe.drm"
        echo "name bench-$v-4x32"
        echo "system kernel=6.8.0-45-generic"
        [ "$v" = amd ] && echo 'ids 744C C8 "AMD Radeon RX 7900 XTX"'
        for ((c = 0; c < GPUS; c++)); do
            if [ "$v" = amd ]; then
                echo "card $c driver=amdgpu pci=0000:0$((c + 3)):00.0 vendor=0x1002 device=0x744c revision=0xc8 subsystem=0x1da2:0x471e \\"
                echo "    unique_id=4a8c2bd1e0f32e3$c vbios=113-D7020100-102 vram_total=25753026560 vis_vram_total=25753026560 gtt_total=16GiB \\"
                echo "    sclk_levels=500,2526 mclk_levels=96,456,772,1249 metrics=1.3 ras=umc,gfx,sdma \\"
                echo "    edge_crit=100 edge_emerg=105 junction_crit=110 junction_emerg=115 mem_crit=100 mem_emerg=105 \\"
                echo "    power_cap=303W power_cap_min=0W power_cap_max=339W power_cap_default=303W fan_min=0 fan_max=3300 \\"
                echo "    pcie_max_gen=4 pcie_max_width=16 pcie_width=16"
                echo "card $c busy=clamp(noise(85,8),0,100) mem_busy=clamp(noise(40,5),0,100) vram_used=18GiB vis_vram_used=17GiB \\"
                echo "    gtt_used=310MiB sclk=2405 mclk=1249 temp_edge=68 temp_junction=92 temp_mem=78 power=280W \\"
                echo "    fan_rpm=1850 pwm=140 vddgfx=1040 pcie_gen=4 throttle=0 ras_ue=0 ras_ce=0 bad_pages=0"
            else
                echo "card $c driver=xe pci=0000:0$((c + 3)):00.0 vendor=0x8086 device=0xe20b revision=0x00 subsystem=0x8086:0x1100 \\"
                echo "    rp0=2850 rpn=400 min_freq=400 max_freq=2850 lmem_total=12GiB \\"
                echo "    power_cap=190W power_cap_default=190W pcie_max_gen=4 pcie_max_width=8 pcie_width=8"
                echo "card $c act_freq=2650 cur_freq=2700 rc6=12 temp_edge=71 temp_mem=64 energy_power=169W fan_rpm=1800 \\"
                echo "    vddgfx=950 pcie_gen=4 throttle=0"
            fi
        done
        for ((c = 0; c < GPUS; c++)); do
            for ((p = 0; p < PER_GPU; p++)); do
                pid=$((4210000 + c * 1000 + p))
                echo "proc $pid comm=python3 uid=0 cmdline=\"python3 worker.py --rank $((c * PER_GPU + p))\" cpu=clamp(noise(50,10),0,100) rss=2GiB"
                if [ "$v" = amd ]; then
                    echo "client $pid card=$c fd=9 id=$((c * 1000 + p + 1)) gfx=clamp(noise(20,5),0,100) compute=clamp(noise(40,5),0,100) dev_mem=512MiB sys_mem=64MiB"
                else
                    echo "client $pid card=$c fd=9 id=$((c * 1000 + p + 1)) compute=clamp(noise(40,5),0,100) copy=5 dev_mem=256MiB sys_mem=64MiB"
                fi
                [ $((p % 4)) = 0 ] && echo "client $pid card=$c fd=10 id=$((c * 1000 + p + 1)) dup"
            done
        done
        for ((p = 0; p < IDLE; p++)); do
            echo "proc $((4300000 + p)) comm=daemon$p uid=0 cmdline=\"/usr/libexec/daemon$p\" cpu=0 rss=20MiB"
        done
    } >"$f"
}

# --- the runs -----------------------------------------------------------------------------
declare -A R
collect() { # MACHINE FILE [SUFFIX]
    local key val
    while read -r key val; do
        [ -n "$key" ] && R["$1:$key${3:-}"]=$val
    done <"$2"
}

run_nvidia() {
    local i pids
    for ((i = 0; i < GPUS * PER_GPU; i++)); do
        sleep 100000 &
        CHILDREN+=("$!")
    done
    pids=$(IFS=,; echo "${CHILDREN[*]}")
    (
        export GPUSCOPE_NVML_LIB=$LIB GPUSCOPE_SIM_SCENARIO=bench-4x32 GPUSCOPE_SIM_SCENARIO_DIR=$TMP
        export GPUSCOPE_SIM_PIDS=$pids GPUSCOPE_BACKENDS=nvml
        unset GPUSCOPE_SIM_FAULTS GPUSCOPE_SIM_CLOCK GPUSCOPE_PROC_ROOT GPUSCOPE_SYS_ROOT
        "$SNAP_BIN" -n "$SNAPSHOTS" >"$TMP/nvidia.snap" 2>>"$TMP/err" &&
            "$SNAP_BIN" -n "$SNAPSHOTS" -H >"$TMP/nvidia.nohost" 2>>"$TMP/err" &&
            GPUSCOPE_SIM_CALL_COST_US=$COST_US "$SNAP_BIN" -n "$SNAPSHOTS" -H >"$TMP/nvidia.cost" 2>>"$TMP/err"
    ) || echo "nvidia: bench_snapshot failed" >>"$TMP/err"
    kill "${CHILDREN[@]}" 2>/dev/null
    wait "${CHILDREN[@]}" 2>/dev/null
    CHILDREN=()
    collect nvidia "$TMP/nvidia.snap"
    collect nvidia "$TMP/nvidia.nohost" _nohost
    collect nvidia "$TMP/nvidia.cost" _cost
    R["nvidia:cpu_median_us_live_cost"]=${R["nvidia:cpu_median_us_cost"]:-}
}

# The DRM cost model's figures: this kernel's file cost over tmpfs, measured now.
declare -A FC
measure_filecost() {
    local key val
    "$FILECOST_BIN" -d "$BASE" >"$TMP/filecost" 2>>"$TMP/err" || { echo "bench_filecost failed" >>"$TMP/err"; return; }
    while read -r key val; do FC[$key]=$val; done <"$TMP/filecost"
}
# drm_cost CMD...: CMD with the DRM tree's cost model on (the GPUSCOPE_*_ROOT of the caller);
# the operations it charged, per class, land in $TMP/ops.
drm_cost() {
    # the model is on only above 0: a figure measured as 0 runs as 0.001
    local attr
    attr=$(awk -v x="${FC[sysfs_read_us]:-0}" 'BEGIN { printf "%.3f", (x > 0.001 ? x : 0.001) }')
    LD_PRELOAD=$COST_LIB GPUSCOPE_SIM_DRM_COST_STATS=$TMP/ops.raw GPUSCOPE_SIM_DRM_COST_US=$attr \
        GPUSCOPE_SIM_DRM_COST_HWMON_US=$attr GPUSCOPE_SIM_DRM_COST_METRICS_US=$attr \
        GPUSCOPE_SIM_DRM_COST_FDINFO_US=${FC[fdinfo_read_us]:-} GPUSCOPE_SIM_DRM_COST_PROC_US=${FC[proc_read_us]:-} \
        GPUSCOPE_SIM_DRM_COST_OPEN_US=${FC[open_us]:-} GPUSCOPE_SIM_DRM_COST_PROC_OPEN_US=${FC[proc_open_us]:-} \
        GPUSCOPE_SIM_DRM_COST_DIRENT_US=${FC[dirent_us]:-} GPUSCOPE_SIM_DRM_COST_LINK_US=${FC[link_us]:-} "$@" || return
    # per snapshot (the warm-up included): "<class> <operations per snapshot>"
    awk -v n=$((SNAPSHOTS + 1)) '{ k = $1; sub(/^GPUSCOPE_SIM_DRM_COST_/, "", k); sub(/_US$/, "", k); if (k == "US") k = "SYSFS";
        printf "%s %.2f\n", tolower(k), $2 / n }' "$TMP/ops.raw" >"$TMP/ops"
}

run_drm() {
    local v=$1 tree=$TMP/tree-$1
    drm_scenario "$v" "$TMP/bench-$v-4x32.drm"
    "$DRMSIM" --root "$tree" --scenario "$TMP/bench-$v-4x32.drm" --at 30 2>>"$TMP/err" ||
        { echo "$v: drmsim failed" >>"$TMP/err"; return; }
    (
        export GPUSCOPE_SYS_ROOT=$tree GPUSCOPE_PROC_ROOT=$tree/proc GPUSCOPE_BACKENDS=drm
        unset GPUSCOPE_NVML_LIB GPUSCOPE_SIM_SCENARIO GPUSCOPE_SIM_PIDS
        "$SNAP_BIN" -n "$SNAPSHOTS" >"$TMP/$v.snap" 2>>"$TMP/err" &&
            "$SNAP_BIN" -n "$SNAPSHOTS" -H >"$TMP/$v.nohost" 2>>"$TMP/err" &&
            drm_cost "$SNAP_BIN" -n "$SNAPSHOTS" -H >"$TMP/$v.cost" 2>>"$TMP/err" &&
            mv "$TMP/ops" "$TMP/$v.ops" &&
            # without drmsim's marker the backend runs on the real clock, as on a real machine:
            # every tick then reads every client's fdinfo (on the frozen tree's clock, once)
            rm -f "$tree/sys/class/drm/.gpuscope-sim" &&
            "$SNAP_BIN" -n "$SNAPSHOTS" -H >"$TMP/$v.live" 2>>"$TMP/err" &&
            drm_cost "$SNAP_BIN" -n "$SNAPSHOTS" -H >"$TMP/$v.live_cost" 2>>"$TMP/err" &&
            mv "$TMP/ops" "$TMP/$v.live_ops" &&
            # without loadavg's last PID, /proc is listed every tick (a new PID every tick)
            rm -f "$tree/proc/loadavg" &&
            "$SNAP_BIN" -n "$SNAPSHOTS" -H >"$TMP/$v.forks" 2>>"$TMP/err"
    ) || echo "$v: bench_snapshot failed" >>"$TMP/err"
    collect "$v" "$TMP/$v.snap"
    collect "$v" "$TMP/$v.nohost" _nohost
    collect "$v" "$TMP/$v.live" _live
    collect "$v" "$TMP/$v.cost" _cost
    collect "$v" "$TMP/$v.live_cost" _live_cost
    collect "$v" "$TMP/$v.ops" _ops
    collect "$v" "$TMP/$v.live_ops" _live_ops
    collect "$v" "$TMP/$v.forks" _forks
}

echo "gpuscope benchmark: AMD/Intel (DRM) sampling cost per tick against NVIDIA's (issue 16)"
echo "machine: $(uname -srm), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo "shape: $GPUS GPUs x $PER_GPU processes; DRM /proc also holds $IDLE processes without DRM fds;"
echo "snapshots: $SNAPSHOTS per machine after one untimed warm-up, slow fields read inline;"
echo "CPU time = CLOCK_PROCESS_CPUTIME_ID around gs_sampler_snapshot(); trees under $BASE"
echo
measure_filecost
run_nvidia
run_drm amd
run_drm xe
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
[ -s "$TMP/err" ] && sed 's/^/   stderr: /' "$TMP/err" | head -n 20

cell() { local x=${R["$1:$2"]:-}; echo "${x:--}"; }
ratio() { # A B -> A/B or -
    [ "$1" = - ] || [ "$2" = - ] && { echo -; return; }
    awk -v a="$1" -v b="$2" 'BEGIN { printf (b > 0 ? "%.2f" : "-"), a / b }'
}
MACHINES="nvidia amd xe"
printf '\n%-46s' "figure"
for m in $MACHINES; do printf '%12s' "$m"; done
echo
row() { # label key
    local m
    printf '%-46s' "$1"
    for m in $MACHINES; do printf '%12s' "$(cell "$m" "$2")"; done
    echo
}
row "GPUs in the snapshot" gpus
row "processes in the snapshot" procs
row "  of them with CPU %" procs_with_cpu_pct
row "snapshot CPU, median (us)" cpu_median_us
row "snapshot CPU, p95 (us)" cpu_p95_us
row "snapshot CPU without /proc facts, median (us)" cpu_median_us_nohost
row "  DRM on the real clock (fdinfo every tick)" cpu_median_us_live
row "  same, /proc listed every tick (forks)" cpu_median_us_forks
row "  both cost models on (see below)" cpu_median_us_cost
row "  same, DRM on the real clock" cpu_median_us_live_cost
row "snapshot wall, median (us)" wall_median_us
row "first snapshot CPU (us, cold)" first_snapshot_cpu_us
printf '%-46s%12s' "median CPU / NVIDIA's, same run" "1.00"
for m in amd xe; do printf '%12s' "$(ratio "$(cell "$m" cpu_median_us)" "$(cell nvidia cpu_median_us)")"; done
echo
printf '%-46s%12s' "  without /proc facts" "1.00"
for m in amd xe; do printf '%12s' "$(ratio "$(cell "$m" cpu_median_us_nohost)" "$(cell nvidia cpu_median_us_nohost)")"; done
printf '\n%-46s%12s' "  DRM on the real clock" "1.00"
for m in amd xe; do printf '%12s' "$(ratio "$(cell "$m" cpu_median_us_live)" "$(cell nvidia cpu_median_us_nohost)")"; done
printf '\n%-46s%12s' "  same, /proc listed every tick" "1.00"
for m in amd xe; do printf '%12s' "$(ratio "$(cell "$m" cpu_median_us_forks)" "$(cell nvidia cpu_median_us_nohost)")"; done
printf '\n%-46s%12s' "  both cost models on, without /proc facts" "1.00"
for m in amd xe; do printf '%12s' "$(ratio "$(cell "$m" cpu_median_us_cost)" "$(cell nvidia cpu_median_us_cost)")"; done
printf '\n%-46s%12s' "  same, DRM on the real clock" "1.00"
for m in amd xe; do printf '%12s' "$(ratio "$(cell "$m" cpu_median_us_live_cost)" "$(cell nvidia cpu_median_us_cost)")"; done
printf '\n\n'

echo "cost models: NVML GPUSCOPE_SIM_CALL_COST_US=$COST_US (other classes' defaults); DRM tree: this kernel's"
echo "file cost over tmpfs, measured now by bench_filecost (us, CPU; real file / tmpfs twin):"
for k in sysfs_read open proc_read proc_open fdinfo_read dirent link; do
    printf '   %-12s %7s  (%s / %s)\n' "$k" "${FC[${k}_us]:--}" "${FC[${k}_real_us]:--}" "${FC[${k}_tmpfs_us]:--}"
done
echo "   (sysfs_read stands for every sysfs, hwmon and gpu_metrics read; no driver's own time is in any)"
echo "DRM tree operations charged per snapshot, frozen clock / real clock:"
for m in amd xe; do
    printf '   %-4s' "$m"
    for k in sysfs hwmon metrics fdinfo proc open proc_open dirent link; do
        printf ' %s %s/%s' "$k" "$(cell "$m" "${k}_ops")" "$(cell "$m" "${k}_live_ops")"
    done
    echo
done
echo

# The target is checked on the backends' own cost (no /proc facts): with them, the DRM trees'
# processes are fixtures (PIDs no live process has), which host facts cannot pin with a pidfd,
# so they reopen /proc/PID/stat every tick; NVIDIA's are live `sleep`s. On a real machine both
# backends' processes are live and their host facts cost the same.
missing=0
for m in amd xe; do
    r=$(ratio "$(cell "$m" cpu_median_us_nohost)" "$(cell nvidia cpu_median_us_nohost)")
    if [ "$r" = - ]; then
        echo "- $m: no figure"
        missing=1
    elif awk -v r="$r" 'BEGIN { exit !(r < 1) }'; then
        echo "PASS $m snapshot CPU median without /proc facts $(cell "$m" cpu_median_us_nohost) us < NVIDIA's $(cell nvidia cpu_median_us_nohost) us (x$r)"
    else
        echo "FAIL $m snapshot CPU median without /proc facts $(cell "$m" cpu_median_us_nohost) us >= NVIDIA's $(cell nvidia cpu_median_us_nohost) us (x$r)"
    fi
    echo "note $m with /proc facts of fixture PIDs: x$(ratio "$(cell "$m" cpu_median_us)" "$(cell nvidia cpu_median_us)") NVIDIA's (live PIDs)"
    r=$(ratio "$(cell "$m" cpu_median_us_live)" "$(cell nvidia cpu_median_us_nohost)")
    if awk -v r="$r" 'BEGIN { exit !(r != "-" && r < 1) }'; then w=PASS; else w=FAIL; fi
    echo "$w $m on the real clock (every client's fdinfo each tick, as on a real machine), without /proc facts: $(cell "$m" cpu_median_us_live) us vs NVIDIA's $(cell nvidia cpu_median_us_nohost) us (x$r)"
    echo "note $m on the real clock with /proc listed every tick (a new PID every tick): $(cell "$m" cpu_median_us_forks) us (x$(ratio "$(cell "$m" cpu_median_us_forks)" "$(cell nvidia cpu_median_us_nohost)") NVIDIA's, whose process list costs no syscall: the simulator answers in process)"
    for run in cost live_cost; do
        r=$(ratio "$(cell "$m" cpu_median_us_$run)" "$(cell nvidia cpu_median_us_cost)")
        if awk -v r="$r" 'BEGIN { exit !(r != "-" && r <= 1) }'; then w=PASS; else w=FAIL; fi
        [ "$run" = cost ] && what="frozen clock" || what="real clock"
        echo "$w $m with both cost models on ($what, without /proc facts): $(cell "$m" cpu_median_us_$run) us vs NVIDIA's $(cell nvidia cpu_median_us_cost) us (x$r; target <= 1, issue 24)"
    done
    # what a driver's own time per sysfs/hwmon/gpu_metrics read (none modelled) would have to be
    # for this machine's tick to reach NVIDIA's, on the real clock: the honest reading of the ratio
    awk -v m="$m" -v d="$(cell "$m" cpu_median_us_live_cost)" -v nv="$(cell nvidia cpu_median_us_cost)" \
        -v a="$(cell "$m" sysfs_live_ops)" -v b="$(cell "$m" hwmon_live_ops)" -v c="$(cell "$m" metrics_live_ops)" \
        'BEGIN { n = a + b + c; if (d != "-" && nv != "-" && n > 0)
            printf "note %s: with both models on the DRM tick reaches NVIDIA'"'"'s only if each of its %.1f sysfs/hwmon/gpu_metrics reads a tick also waited %.1f us of CPU in the driver (no such figure is published; NVML'"'"'s %s us a getter is an estimate too)\n", m, n, (nv - d) / n, "'"$COST_US"'" }'
    n=$(cell "$m" procs)
    [ "$n" = $((GPUS * PER_GPU)) ] || echo "FAIL $m: $n processes in the snapshot, $((GPUS * PER_GPU)) expected (a dup fd counted twice?)"
done
[ "$missing" = 0 ] || exit 2
exit 0
