#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/remote-write.sh - record --remote-write (issue 22), into a local VictoriaMetrics:
#   CPU of the sender thread (encoding, snappy, HTTP) sending 8 GPUs at 1 s, % of one
#   core                                                    (target <= 2 %)
#   drain time of a 24-hour backlog of 8 GPUs at 1 s         (target <= 60 s)
# The backlog is a minute recorded on the virtual clock (bench-8x8) copied over the day
# with SQL (691,200 rows), then sent by one `record --ticks 1` that drains it.
# Environment: O (build dir, default build), RW_BENCH_SECONDS (CPU window, 30).
set -uo pipefail
. "$(dirname "$0")/bench.lib"
SECS=${RW_BENCH_SECONDS:-30}
REC= VM_PID=
bench_init remote-write REC VM_PID
[ -x "$GS" ] || { echo "remote-write bench: build $GS first"; exit 2; }
command -v victoria-metrics >/dev/null || { echo "remote-write bench: victoria-metrics not installed"; exit 2; }
export GPUSCOPE_NVML_LIB=$ROOT/$O/sim/current/libnvidia-ml.so.1 GPUSCOPE_SIM_SCENARIO_DIR=$ROOT/sim/scenarios
export GPUSCOPE_SIM_SCENARIO=bench-8x8
echo "remote-write bench: load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"

VPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
VM="http://127.0.0.1:$VPORT"
victoria-metrics -httpListenAddr="127.0.0.1:$VPORT" -storageDataPath="$TMP/vm" >"$TMP/vm.log" 2>&1 &
VM_PID=$!
for _ in $(seq 1 60); do curl -sf "$VM/health" >/dev/null && break; sleep 0.5; done

# 1. the sender thread's CPU while recording 8 GPUs at 1 s
"$GS" record -q --db "$TMP/live.db" --interval 1 --remote-write "$VM/api/v1/write" &
REC=$!
sleep 3
tid=
for t in /proc/$REC/task/*; do [ "$(cat "$t/comm")" = gs-rw ] && tid=${t##*/}; done
[ -n "$tid" ] || { echo "remote-write bench: no sender thread"; exit 1; }
s0=$(awk '{ print $14 + $15 }' "/proc/$REC/task/$tid/stat")
p0=$(awk '{ print $14 + $15 }' "/proc/$REC/stat")
sleep "$SECS"
s1=$(awk '{ print $14 + $15 }' "/proc/$REC/task/$tid/stat")
p1=$(awk '{ print $14 + $15 }' "/proc/$REC/stat")
kill -TERM "$REC"; wait "$REC"; REC=
hz=$(getconf CLK_TCK)
sent=$("$GS" record --status --db "$TMP/live.db" | sed -n 's/^  sent: *\([0-9]*\) samples.*/\1/p')
awk -v a="$s0" -v b="$s1" -v c="$p0" -v d="$p1" -v hz="$hz" -v s="$SECS" -v n="$sent" 'BEGIN {
    printf "remote write 8 GPUs @1s: sender CPU %.3f %% of a core (target <= 2 %%); whole recorder %.3f %%; %d samples sent\n",
        (b - a) / hz / s * 100, (d - c) / hz / s * 100, n }'

# 2. a 24-hour backlog of 8 GPUs
echo 0 > "$TMP/clk"
DAY0=$(( $(date +%s) - 2 * 86400 ))
GPUSCOPE_SIM_CLOCK=file:$TMP/clk "$GS" record -q --db "$TMP/day.db" --ticks 60 --step 1s --clock-file "$TMP/clk" \
    --start "@$DAY0" --proc-interval 1h
# (the sample key k is (t - base) * 64 + gpu: a minute later is k + 60000 * 64). The copies go into
# sample_data, the per-tick half of the sample view: the demo's slow readings (sample_state: power
# limit, memory clock, P-state, bad) do not change, so the first minute's state holds for the day.
COLS="util_pct, mem_util_pct, mem_used_mib, temp_c, mem_temp_c, power_dw, energy_dev_mj, sm_mhz, throttle,
      pcie_tx_mbs, pcie_rx_mbs, fan_pct"
sqlite3 "$TMP/day.db" "WITH RECURSIVE m(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM m WHERE i < 1439)
    INSERT INTO sample_data(k, $COLS) SELECT s.k + m.i * 3840000, $COLS
    FROM sample_data s, m WHERE s.t < ${DAY0}000 + 60000;
    INSERT INTO remote_write(url, sent_t, sent_gpu) VALUES('$VM/api/v1/write', ${DAY0}000 - 1, 2147483647)"
rows=$(sqlite3 "$TMP/day.db" "SELECT count(*) FROM sample")
t0=$(date +%s.%N)
echo 0 > "$TMP/clk"
GPUSCOPE_SIM_CLOCK=file:$TMP/clk "$GS" record -q --db "$TMP/day.db" --ticks 1 --step 1s --clock-file "$TMP/clk" \
    --start "@$((DAY0 + 86400))" --remote-write "$VM/api/v1/write" --remote-write-drain 600s
t1=$(date +%s.%N)
sent=$("$GS" record --status --db "$TMP/day.db" | sed -n 's/^  sent: *\([0-9]*\) samples.*/\1/p')
pending=$("$GS" record --status --db "$TMP/day.db" | sed -n 's/^  pending: *\([0-9]*\) .*/\1/p')
awk -v t="$(echo "$t1 - $t0" | bc)" -v r="$rows" -v n="$sent" -v p="$pending" 'BEGIN {
    printf "remote write backlog 24 h x 8 GPUs (%d GPU-samples, %d samples): drained in %.1f s (target <= 60 s), %.0f samples/s; %d left\n",
        r, n, t, n / t, p }'
echo "remote-write bench: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
