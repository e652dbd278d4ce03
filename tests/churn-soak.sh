#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# churn-soak.sh - many distinct short-lived GPU processes: `gpuscope serve` and `gpuscope record`
# watch them come and go for a while; their RSS, open descriptors, threads and the number of
# series must stay flat after a warm-up.
#
# The processes are real (`sleep` under a distinct argv[0] each, so /proc shows them and the
# exporter's and recorder's per-process work is done for real); the simulator lists their PIDs
# as the GPUs' compute processes (GPUSCOPE_SIM_PIDS_FILE, re-read when the churn changes it).
#
#   tests/churn-soak.sh                       # make test: 45 s, 20 new processes a second
#   GS_SOAK_SECONDS=1800 tests/churn-soak.sh  # the 30-minute soak (bench/churn.sh)
#
#   GS_SOAK_SECONDS   duration (45)            GS_SOAK_RATE   new processes per second (20)
#   GS_SOAK_WARMUP    seconds not judged (15; the long soak: 600, past the health engine's
#                     5-minute per-process window)
#   GS_SOAK_RSS_KIB   RSS growth allowed after the warm-up, per process (1024)
# Series must not change at all; threads and the descriptors other than /proc/PID ones must not
# rise above the warm-up's. The /proc/PID descriptors (one statm, or the directory on first sight,
# per tracked PID) follow the churn: how many are open at the instant of a sample depends on where
# the sampler's tick is (new PIDs are opened before the tick's end closes the gone ones), so they
# are counted apart and held to a bound instead: at most 2 x SLOTS (a full list and the one before
# it); a leak passes that within seconds at 20 new processes a second.
# Prints one line per sample (every GS_SOAK_EVERY seconds: 5) and a verdict; exit 1 if not flat.
set -u
. "$(dirname "$0")/serve-test.lib"
serve_test_init curl python3 sqlite3
SECONDS_TOTAL=${GS_SOAK_SECONDS:-45}
RATE=${GS_SOAK_RATE:-20}
WARMUP=${GS_SOAK_WARMUP:-15}
EVERY=${GS_SOAK_EVERY:-5}
RSS_KIB=${GS_SOAK_RSS_KIB:-1024}
SLOTS=64
CHURN_PID= REC_PID=

cleanup_all() {
    [ -n "$CHURN_PID" ] && kill "$CHURN_PID" 2>/dev/null && wait "$CHURN_PID" 2>/dev/null
    [ -n "$REC_PID" ] && kill "$REC_PID" 2>/dev/null && wait "$REC_PID" 2>/dev/null
    serve_test_cleanup
}
trap cleanup_all EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat >"$TMP/churn.scn" <<'SCN'
name churn
system driver=550.127.05 cuda=12.4
gpu count=4 name="NVIDIA H100 80GB HBM3" memory_total=81559MiB util=clamp(noise(80,10),0,100) power=500W temp=60
proc all count=16 type=compute pid=env name="python step.py" mem=add(900MiB,noise(0,64MiB)) sm=clamp(noise(20,10),1,100)
SCN

# the churn: SLOTS live processes at all times, RATE of them replaced every second, each a new PID
python3 - "$TMP/pids" "$SLOTS" "$RATE" >"$TMP/churn.log" 2>&1 <<'PY' &
import os, signal, subprocess, sys, time
path, slots, rate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
live, n = [], 0
def start():
    global n
    n += 1
    return subprocess.Popen(["job-%d" % n, "3600"], executable="/bin/sleep",
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
def publish():
    with open(path + ".tmp", "w") as f:
        f.write(",".join(str(p.pid) for p in live))
    os.replace(path + ".tmp", path)
try:
    live = [start() for _ in range(slots)]
    publish()
    while True:
        t0 = time.monotonic()
        for _ in range(rate):
            old = live.pop(0)
            old.kill()
            old.wait()
            live.append(start())
        publish()
        print(n, flush=True)
        time.sleep(max(0.0, 1.0 - (time.monotonic() - t0)))
finally:
    for p in live:
        p.kill()
        p.wait()
PY
CHURN_PID=$!
for _ in $(seq 1 100); do [ -s "$TMP/pids" ] && break; sleep 0.1; done
[ -s "$TMP/pids" ] || fail "the churn did not start"

serve_start GPUSCOPE_SIM_SCENARIO="$TMP/churn.scn" GPUSCOPE_SIM_PIDS_FILE="$TMP/pids" -- --interval 100ms
env GPUSCOPE_NVML_LIB="$ROOT/build/sim/current/libnvidia-ml.so.1" GPUSCOPE_SIM_SCENARIO="$TMP/churn.scn" \
    GPUSCOPE_SIM_PIDS_FILE="$TMP/pids" "$GS" record -q --db "$TMP/h.db" --interval 0.1 --proc-interval 0.5 \
    2>"$TMP/rec.err" &
REC_PID=$!

rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
# fds PID: "OTHER PERPID", its descriptors other than /proc/PID/... ones, and those
fds() {
    local f l o=0 n=0
    for f in /proc/"$1"/fd/*; do
        l=$(readlink "$f") || continue
        case $l in /proc/[0-9]*) n=$((n + 1)) ;; *) o=$((o + 1)) ;; esac
    done
    echo "$o $n"
}
threads() { awk '/^Threads/ {print $2}' "/proc/$1/status"; }
series() { curl -sS "http://127.0.0.1:$GS_PORT/metrics" | grep -vc '^#'; }

echo "churn soak: $SECONDS_TOTAL s, $RATE new processes/s over $SLOTS slots, warm-up $WARMUP s; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%6s %9s %10s %6s %6s %6s %8s %8s %10s %5s %5s %5s\n' t processes serve_kib fds pfds thr series rec_kib \
    rec_kib_pk rfds rpfds rthr
start=$(date +%s)
declare -a S_RSS S_FDS S_PFD S_THR S_SER R_RSS R_FDS R_PFD R_THR
k=0
while :; do
    now=$(( $(date +%s) - start ))
    # scrape a few times between samples, as Prometheus would
    for _ in $(seq 1 "$EVERY"); do curl -sS -o /dev/null "http://127.0.0.1:$GS_PORT/metrics" || fail "scrape failed"; sleep 1; done
    now=$(( $(date +%s) - start ))
    kill -0 "$GS_PID" 2>/dev/null || fail "serve died: $(tail -n 3 "$TMP/gs.err")"
    kill -0 "$REC_PID" 2>/dev/null || fail "record died: $(tail -n 3 "$TMP/rec.err")"
    S_RSS[$k]=$(rss "$GS_PID"); read -r "S_FDS[$k]" "S_PFD[$k]" < <(fds "$GS_PID")
    S_THR[$k]=$(threads "$GS_PID"); S_SER[$k]=$(series)
    R_RSS[$k]=$(rss "$REC_PID"); read -r "R_FDS[$k]" "R_PFD[$k]" < <(fds "$REC_PID"); R_THR[$k]=$(threads "$REC_PID")
    rpk=$(awk '/^VmHWM/ {print $2}' "/proc/$REC_PID/status")
    printf '%6d %9s %10s %6s %6s %6s %8s %8s %10s %5s %5s %5s\n' "$now" "$(tail -n 1 "$TMP/churn.log")" \
        "${S_RSS[$k]}" "${S_FDS[$k]}" "${S_PFD[$k]}" "${S_THR[$k]}" "${S_SER[$k]}" "${R_RSS[$k]}" "$rpk" \
        "${R_FDS[$k]}" "${R_PFD[$k]}" "${R_THR[$k]}"
    T[$k]=$now
    k=$((k + 1))
    [ "$now" -ge "$SECONDS_TOTAL" ] && break
done

# the verdict: after the warm-up, nothing grows
list() { local IFS=,; echo "$*"; }
python3 - "$WARMUP" "$RSS_KIB" "$SLOTS" <<PY
import sys
warm, allow, slots = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
t = [$(list "${T[@]}")]
cols = {"serve RSS KiB": [$(list "${S_RSS[@]}")], "serve fds": [$(list "${S_FDS[@]}")], "serve threads": [$(list "${S_THR[@]}")],
        "series": [$(list "${S_SER[@]}")], "record RSS KiB": [$(list "${R_RSS[@]}")], "record fds": [$(list "${R_FDS[@]}")],
        "record threads": [$(list "${R_THR[@]}")],
        "serve /proc fds": [$(list "${S_PFD[@]}")], "record /proc fds": [$(list "${R_PFD[@]}")]}
bad = []
idx = [i for i, x in enumerate(t) if x >= warm]
if len(idx) < 2:
    sys.exit("too short: no samples after the warm-up")
early = [i for i, x in enumerate(t) if x < warm]
for name, v in cols.items():
    w = [v[i] for i in idx]
    grow = max(w) - w[0]
    print("%-15s after warm-up: first %d, min %d, max %d, last %d" % (name, w[0], min(w), max(w), w[-1]))
    if "RSS" in name and grow > allow:
        bad.append("%s grew by %d KiB (> %d)" % (name, grow, allow))
    elif name == "series" and len(set(w)) > 1:
        bad.append("%s changed: %s" % (name, sorted(set(w))))
    elif "/proc fds" in name:
        if max(w) > 2 * slots:
            bad.append("%s reached %d (more than 2 x %d slots: descriptors of gone PIDs kept)" % (name, max(w), slots))
    elif "fds" in name or "threads" in name:
        # the other descriptors (listening socket, database, logs) and threads do not follow the
        # churn: never above what the warm-up saw
        ceiling = max([v[i] for i in early] or [w[0]])
        if max(w) > ceiling + 2:
            bad.append("%s rose to %d (warm-up max %d)" % (name, max(w), ceiling))
print("verdict:", "flat" if not bad else "NOT flat: " + "; ".join(bad))
sys.exit(1 if bad else 0)
PY
rc=$?
echo "distinct processes: $(tail -n 1 "$TMP/churn.log") in $(( $(date +%s) - start )) s; recorded lifetimes: $(sqlite3 "$TMP/h.db" 'SELECT count(*) FROM proc' 2>/dev/null)"
[ "$rc" -eq 0 ] && echo "ok: churn soak flat (serve and record)"
exit "$rc"
