#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# slurm.sh - gpuscope on a real single-node Slurm (Debian's slurm-wlm and munge): munged with
# a generated key, slurmctld and slurmd on 127.0.0.1 (free ports, a generated slurm.conf with
# two GPUs in gres.conf as character devices 195:0/195:1 the test makes (links to /dev/null and
# /dev/zero where mknod is refused), proctrack/cgroup and
# task/cgroup on cgroup v1 where they work, else proctrack/linuxproc), Prolog/Epilog =
# `gpuscope slurm prolog/epilog`; `gpuscope serve` (one with --hpc-job-mapping-dir, one with
# the jobs from the processes' cgroups) and `gpuscope record` on the NVML simulator, whose
# GPU 0 process is the running job's (GPUSCOPE_SIM_PIDS_FILE). Checks, with sbatch jobs:
# the mapping files while a job runs, hpc_job on /metrics, the per-job summary in the job's
# output and in `report --job` (a job that used its GPU, a job that never did: idle), a job
# killed by scancel still summarized, the mapping files empty after, `report --user`.
# Exit 77 with the reason only where Slurm cannot start here (not root, no slurm-wlm).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
GS=${GPUSCOPE:-$ROOT/build/gpuscope}
SIMLIB=$ROOT/build/sim/current/libnvidia-ml.so.1
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "slurmd must run as root (SlurmdUser=root) and this is uid $(id -u)"
for t in slurmctld slurmd munged munge sbatch scontrol scancel squeue curl python3 sqlite3; do
    command -v "$t" >/dev/null || skip "$t not installed (scripts/deps.sh installs slurm-wlm and munge)"
done
[ -x "$GS" ] && [ -f "$SIMLIB" ] || skip "build first (make)"

TMP=$(mktemp -d /tmp/gs-slurm-XXXXXX)
chmod 755 "$TMP"
PIDS=()
export SLURM_CONF=$TMP/slurm.conf
cleanup() {
    scancel --quiet --full "--name=gs-test" 2>/dev/null
    [ -f "$TMP/slurmd.pid" ] && kill "$(cat "$TMP/slurmd.pid")" 2>/dev/null
    [ -f "$TMP/slurmctld.pid" ] && kill "$(cat "$TMP/slurmctld.pid")" 2>/dev/null
    [ -S "$TMP/munge/sock" ] && munged -s -S "$TMP/munge/sock" >/dev/null 2>&1
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    sleep 0.5
    rm -rf "$TMP"
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*"
    for f in slurmctld.log slurmd.log serve-map.err serve-cg.err record.err hooks.log; do
        echo "--- $f (tail)"; tail -n 15 "$TMP/log/$f" 2>/dev/null
    done
    exit 1
}
# wait_for SECONDS DESCRIPTION COMMAND...: poll until COMMAND succeeds
wait_for() {
    local s=$1 what=$2
    shift 2
    for _ in $(seq 1 $((s * 5))); do "$@" && return 0; sleep 0.2; done
    fail "$what (after ${s}s)"
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# ---- 1. munge with a key of our own -------------------------------------------------------
mkdir -p "$TMP"/{munge,state,spool,log,dev,map,out}
chmod 700 "$TMP/munge"
dd if=/dev/urandom of="$TMP/munge/key" bs=1024 count=1 2>/dev/null
chmod 400 "$TMP/munge/key"
munged -f -S "$TMP/munge/sock" --key-file="$TMP/munge/key" --log-file="$TMP/log/munged.log" \
    --pid-file="$TMP/munge/pid" --seed-file="$TMP/munge/seed" ||
    skip "munged does not start here: $(tail -n 3 "$TMP/log/munged.log" 2>/dev/null)"
munge -S "$TMP/munge/sock" -n >/dev/null || fail "munge cannot encode with its own daemon"

# ---- 2. slurm.conf, gres.conf, the hooks ---------------------------------------------------
NODE=$(hostname -s)
# gres.conf wants character devices: NVIDIA's 195:N made here, or (mknod refused, e.g. in a container;
# GS_SLURM_NO_MKNOD=1 forces it) links to /dev/null and /dev/zero, then without device constraints
CONSTRAIN=yes
if [ -n "${GS_SLURM_NO_MKNOD:-}" ] || ! mknod "$TMP/dev/nvidia0" c 195 0 2>/dev/null ||
   ! mknod "$TMP/dev/nvidia1" c 195 1 2>/dev/null; then
    rm -f "$TMP/dev/nvidia0" "$TMP/dev/nvidia1"
    ln -s /dev/null "$TMP/dev/nvidia0" && ln -s /dev/zero "$TMP/dev/nvidia1" || skip "no character devices for gres.conf"
    CONSTRAIN=no
    echo "note: mknod refused; gres.conf's GPUs are /dev/null and /dev/zero, devices not constrained"
fi
PROCTRACK=proctrack/linuxproc TASK=task/none
if [ -w /sys/fs/cgroup/freezer ] && [ -w /sys/fs/cgroup/devices ]; then
    PROCTRACK=proctrack/cgroup TASK=task/cgroup
    printf 'CgroupPlugin=cgroup/v1\nCgroupMountpoint=/sys/fs/cgroup\nConstrainDevices=%s\n' "$CONSTRAIN" >"$TMP/cgroup.conf"
fi
cat >"$SLURM_CONF" <<EOF
ClusterName=gstest
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$TMP/munge/sock
CredType=cred/munge
StateSaveLocation=$TMP/state
SlurmdSpoolDir=$TMP/spool
SlurmctldPidFile=$TMP/slurmctld.pid
SlurmdPidFile=$TMP/slurmd.pid
SlurmctldLogFile=$TMP/log/slurmctld.log
SlurmdLogFile=$TMP/log/slurmd.log
ProctrackType=$PROCTRACK
TaskPlugin=$TASK
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
KillWait=2
Prolog=$TMP/prolog.sh
Epilog=$TMP/epilog.sh
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=500 Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
echo "NodeName=$NODE Name=gpu File=$TMP/dev/nvidia[0-1]" >"$TMP/gres.conf"
DB=$TMP/history.db
for hook in prolog epilog; do
    extra=
    [ "$hook" = epilog ] && extra=--to-job-output
    cat >"$TMP/$hook.sh" <<EOF
#!/bin/sh
exec "$GS" slurm $hook --db "$DB" --mapping-dir "$TMP/map" $extra >>"$TMP/log/hooks.log" 2>&1
EOF
    chmod 755 "$TMP/$hook.sh"
done

# ---- 3. gpuscope on the simulator: two exporters and the recorder ----------------------------
cat >"$TMP/jobs.scn" <<'SCN'
name slurm-jobs
system driver=550.127.05 cuda=12.4
gpu count=2 name="NVIDIA H100 80GB HBM3" memory_total=81920MiB util=0 power=80W
gpu 0 util=75 power=450W
proc 0 type=compute pid=env name=python mem=8GiB sm=75
SCN
: >"$TMP/pids"
simenv=(GPUSCOPE_NVML_LIB="$SIMLIB" GPUSCOPE_SIM_SCENARIO="$TMP/jobs.scn" GPUSCOPE_SIM_PIDS_FILE="$TMP/pids")
start_serve() { # start_serve NAME ARGS...: sets PORT_<NAME>
    local name=$1
    shift
    env "${simenv[@]}" "$GS" serve --listen 127.0.0.1:0 --interval 200ms "$@" 2>"$TMP/log/serve-$name.err" &
    PIDS+=($!)
    wait_for 20 "serve $name listening" grep -q 'port [0-9]' "$TMP/log/serve-$name.err"
    eval "PORT_$name=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$TMP/log/serve-$name.err")"
}
start_serve map --hpc-job-mapping-dir "$TMP/map"
start_serve cg
env "${simenv[@]}" "$GS" record -q --db "$DB" --interval 0.2 --proc-interval 0.2 2>"$TMP/log/record.err" &
PIDS+=($!)
wait_for 20 "record writing" test -s "$DB"

# ---- 4. Slurm ------------------------------------------------------------------------------
slurmctld -i || skip "slurmctld does not start here: $(tail -n 5 "$TMP/log/slurmctld.log" 2>/dev/null)"
slurmd || skip "slurmd does not start here: $(tail -n 5 "$TMP/log/slurmd.log" 2>/dev/null)"
node_idle() { sinfo -h -n "$NODE" -o %t 2>/dev/null | grep -qx idle; }
for _ in $(seq 1 100); do node_idle && break; sleep 0.2; done
node_idle || skip "Slurm's node did not come up here: $(tail -n 5 "$TMP/log/slurmd.log")"
echo "slurm $(slurmd -V | cut -d' ' -f2) up on $NODE ($PROCTRACK)"

state() { squeue -h -j "$1" -o %T 2>/dev/null; }
running() { [ "$(state "$1")" = RUNNING ]; }
summarized() { sqlite3 "$DB" "SELECT summary IS NOT NULL FROM job WHERE id = '$1'" 2>/dev/null | grep -qx 1; }
metric_has() { curl -sf "http://127.0.0.1:$1/metrics" | grep -q "$2"; }

# job A: uses GPU 0 (its shell's PID is GPU 0's process in the simulator)
A=$(sbatch --parsable --job-name=gs-test --gres=gpu:1 -o "$TMP/out/a-%j.out" \
    --wrap "echo \$\$ > $TMP/pids; sleep 6") || fail "sbatch A"
wait_for 30 "job $A running" running "$A"
wait_for 10 "mapping file 0 lists job $A" grep -qx "$A" "$TMP/map/0"
[ ! -e "$TMP/map/1" ] || fail "GPU 1 has a mapping file while only GPU 0 is allocated: $(cat "$TMP/map/1")"
echo "ok: mapping file 0 = $(cat "$TMP/map/0")"
wait_for 10 "hpc_job=\"$A\" on GPU 0 (mapping dir)" metric_has "$PORT_map" "^DCGM_FI_DEV_GPU_UTIL{gpu=\"0\".*hpc_job=\"$A\""
echo "ok: /metrics with --hpc-job-mapping-dir labels GPU 0 with hpc_job=\"$A\""
if [ "$PROCTRACK" = proctrack/cgroup ]; then
    wait_for 10 "hpc_job=\"$A\" from the job's cgroup" metric_has "$PORT_cg" "^DCGM_FI_DEV_GPU_UTIL{gpu=\"0\".*hpc_job=\"$A\""
    echo "ok: /metrics without a mapping dir labels GPU 0 from the process's cgroup"
else
    echo "note: proctrack/cgroup not usable here; hpc_job from cgroups not checked"
fi
# job B, beside A: GPU 1, never used
B=$(sbatch --parsable --job-name=gs-test --gres=gpu:1 -o "$TMP/out/b-%j.out" --wrap "sleep 2") || fail "sbatch B"
wait_for 30 "job $B summarized" summarized "$B"
wait_for 30 "job $A summarized" summarized "$A"
: >"$TMP/pids"
# job C: killed by scancel
C=$(sbatch --parsable --job-name=gs-test --gres=gpu:1 -o "$TMP/out/c-%j.out" --wrap "sleep 300") || fail "sbatch C"
wait_for 30 "job $C running" running "$C"
wait_for 10 "mapping file of job $C" grep -qrx "$C" "$TMP/map"
scancel "$C"
wait_for 30 "job $C (scancel) summarized" summarized "$C"

# ---- 5. what the epilogs wrote --------------------------------------------------------------
left=$(cat "$TMP"/map/[0-9]* 2>/dev/null)
[ -z "$left" ] || fail "mapping files still list jobs after they ended: $left"
echo "ok: mapping files empty after the jobs"
grep -q "^---- gpuscope: GPU summary of job $A" "$TMP/out/a-$A.out" || fail "no summary in job $A's output: $(cat "$TMP/out/a-$A.out")"
echo "ok: job $A's output ends with its summary:"
sed -n '/^---- gpuscope/,$p' "$TMP/out/a-$A.out"
ja=$("$GS" report --db "$DB" --job "$A" -f json) || fail "report --job $A"
python3 - "$ja" <<'PY' || fail "job A's summary: $ja"
import json, sys
d = json.loads(sys.argv[1])
g = d["gpus"]
assert len(g) == 1 and g[0]["index"] == 0, g
assert g[0]["util_mean_pct"] and g[0]["util_mean_pct"] > 50, g
assert g[0]["energy_j"] and g[0]["energy_j"] > 0, g
assert not d["idle"] and not g[0]["idle"], d
assert d["gpu_hours"] > 0, d
PY
echo "ok: report --job $A: used GPU 0, energy and utilization from the history"
"$GS" report --db "$DB" --job "$B" | grep -q "IDLE JOB" || fail "job $B (never used its GPU) not idle: $("$GS" report --db "$DB" --job "$B")"
echo "ok: report --job $B: idle"
"$GS" report --db "$DB" --job "$C" -f json | grep -q '"running":false' || fail "job $C (scancel) has no end"
echo "ok: report --job $C: the cancelled job has its summary"
SLURM_JOB_ID=$A "$GS" slurm epilog --db "$DB" --mapping-dir "$TMP/map" --to-job-output >/dev/null 2>&1 ||
    fail "epilog run again failed"
[ "$(grep -c '^---- gpuscope: GPU summary' "$TMP/out/a-$A.out")" = 1 ] || fail "epilog run twice appended twice"
echo "ok: an epilog run again changes nothing"
"$GS" report --db "$DB" --user root --since 1h -f term | tee "$TMP/user.txt"
grep -q "^user root .* 3 jobs" "$TMP/user.txt" || fail "report --user root does not count 3 jobs"
if grep -l -e 'Sanitizer' -e 'runtime error:' "$TMP"/log/*.log "$TMP"/log/*.err 2>/dev/null; then
    fail "a sanitizer report in the logs above"
fi
echo "PASS"
