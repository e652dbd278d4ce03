#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/serve-burst.sh - the exporter under a connection burst (issue 26): N connections at once
# (BURST_N, 1000), each a GET /metrics, on bench-8x64; per round the time until every one has its
# answer, how they ended (200 / 503 with Retry-After / no-status: closed without a status), and the
# exporter's peak RSS; from 127.0.0.1 with the default per-address limit, from 127.0.0.1 with
# --max-connections-per-ip=0, and from N addresses (127.0.1.1 onwards) with the default limit.
# GS_BEFORE=DIR measures another build's tree the same way, side by side (see serve-attack.sh).
# Loopback only. Environment: O (build dir, default build), BURST_N, BURST_ROUNDS (3).
set -uo pipefail
. "$(dirname "$0")/bench.lib"
N=${BURST_N:-1000}
ROUNDS=${BURST_ROUNDS:-3}
C=$ROOT/tests/cli/3114-serve-burst.py
SERVE_PID=
bench_init burst SERVE_PID
command -v python3 >/dev/null || { echo "burst bench: needs python3"; exit 2; }
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)"

start() { # start TREE [serve options]: sets SERVE_PID, PORT
    local tree=$1
    shift
    GPUSCOPE_NVML_LIB=$tree/$O/sim/current/libnvidia-ml.so.1 GPUSCOPE_SIM_SCENARIO=bench-8x64 \
    GPUSCOPE_SIM_SCENARIO_DIR=$tree/sim/scenarios \
        "$tree/$O/gpuscope" serve --listen 127.0.0.1:0 --interval 1s "$@" 2>"$TMP/err" &
    SERVE_PID=$!
    PORT=
    for _ in $(seq 1 100); do
        PORT=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$TMP/err" 2>/dev/null)
        [ -n "$PORT" ] && break
        sleep 0.1
    done
    [ -n "$PORT" ] || { echo "burst bench: serve did not start: $(head -n 2 "$TMP/err")"; return 1; }
    sleep 2
}
stop() { kill "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; SERVE_PID=; }

run() { # run LABEL TREE ADDRS [serve options]: ADDRS source addresses (0: 127.0.0.1)
    local label=$1 tree=$2 addrs=$3 t0 t1 out
    shift 3
    start "$tree" "$@" || return 1
    for r in $(seq 1 "$ROUNDS"); do
        t0=$(date +%s.%N)
        if [ "$addrs" = 0 ]; then out=$(python3 "$C" 127.0.0.1 "$PORT" "$N"); else out=$(python3 "$C" 127.0.0.1 "$PORT" "$N" "$addrs"); fi
        t1=$(date +%s.%N)
        printf '%-34s round %d: %5.2f s  %s  peak RSS %s KiB\n' "$label" "$r" "$(echo "$t1 - $t0" | bc)" "$out" \
            "$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$SERVE_PID/status")"
    done
    stop
}

echo "== $N connections at once, $ROUNDS rounds ($(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
for tree in ${GS_BEFORE:+$GS_BEFORE} "$ROOT"; do
    tag=$([ "$tree" = "$ROOT" ] && echo this || echo before)
    run "$tag (one addr, per-ip 8)" "$tree" 0
    run "$tag (one addr, per-ip 0)" "$tree" 0 --max-connections-per-ip=0
    run "$tag ($N addrs, per-ip 8)" "$tree" "$N"
done
