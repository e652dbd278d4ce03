#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/record.sh - the recorder's benchmark (issue 5), on the bench-8x64
# scenario (8 GPUs x 64 processes, PIDs = live `sleep` children):
#   recorder CPU at 1 s sampling, % of one core          (target <= 0.2 %)
#   recorder RSS                                         (target <= 10 MiB)
#   bytes on disk per GPU-sample at full resolution      (target <= 40 B, issue 22; 58 B at schema 6, 48.5 at 7)
#   time to render a 24-hour HTML report for 8 GPUs      (target <= 1 s)
#   time to export the same 24 hours as CSV
# The 24 hours are recorded on the virtual clock (--ticks 86400 --step 1s)
# with the demo scenario, so the benchmark takes about two minutes, not a day.
# Environment: O (build dir, default build), RECORD_BENCH_SECONDS (CPU window, 30).
# The machine may be shared: the load average is printed with the figures.
set -uo pipefail
. "$(dirname "$0")/bench.lib"
SECS=${RECORD_BENCH_SECONDS:-30}
REC=
bench_init record REC
[ -x "$GS" ] || { echo "record bench: build $GS first"; exit 2; }
export GPUSCOPE_NVML_LIB=$ROOT/$O/sim/current/libnvidia-ml.so.1 GPUSCOPE_SIM_SCENARIO_DIR=$ROOT/sim/scenarios

echo "record bench: load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"

# 1. CPU and RSS of a live recorder, 8x64 at 1 s
bench_sleepers 64
GPUSCOPE_SIM_SCENARIO=bench-8x64 GPUSCOPE_SIM_PIDS=$pidlist "$GS" record -q --db "$TMP/live.db" --interval 1 &
REC=$!
sleep 3
ticks0=$(awk '{ print $14 + $15 }' /proc/$REC/stat)
sleep "$SECS"
ticks1=$(awk '{ print $14 + $15 }' /proc/$REC/stat)
rss_kib=$(awk '/^VmHWM/ { print $2 }' /proc/$REC/status)
hz=$(getconf CLK_TCK)
kill -TERM "$REC"; wait "$REC"; REC=
awk -v a="$ticks0" -v b="$ticks1" -v hz="$hz" -v s="$SECS" \
    'BEGIN { printf "record 8x64 @1s: CPU %.3f %% of a core (target <= 0.2 %%)\n", (b - a) / hz / s * 100 }'
awk -v k="$rss_kib" 'BEGIN { printf "record 8x64 @1s: peak RSS %.1f MiB (target <= 10 MiB)\n", k / 1024 }'

# 2. a day of 8 GPUs at 1 s on the virtual clock
echo 0 > "$TMP/clk"
t0=$(date +%s.%N)
GPUSCOPE_SIM_SCENARIO=demo GPUSCOPE_SIM_CLOCK=file:$TMP/clk "$GS" record -q --db "$TMP/day.db" \
    --ticks 86400 --step 1s --clock-file "$TMP/clk" --start 2024-05-01T00:00:00Z --proc-interval 1h
t1=$(date +%s.%N)
rows=$(sqlite3 "$TMP/day.db" "SELECT count(*) FROM sample")
# the sample view's two tables: the per-tick readings and the state rows (written when a slow reading changes)
bytes=$(sqlite3 "$TMP/day.db" "SELECT sum(pgsize) FROM dbstat WHERE name IN ('sample_data', 'sample_state')")
states=$(sqlite3 "$TMP/day.db" "SELECT count(*) FROM sample_state")
awk -v b="$bytes" -v r="$rows" -v s="$states" -v t="$(echo "$t1 - $t0" | bc)" \
    'BEGIN { printf "record: %d GPU-samples (%d state rows) in %.0f s; %.1f bytes on disk per GPU-sample (target <= 40 B)\n", r, s, t, b / r }'
rrows=$(sqlite3 "$TMP/day.db" "SELECT count(*) FROM rollup")
rbytes=$(sqlite3 "$TMP/day.db" "SELECT sum(pgsize) FROM dbstat WHERE name = 'rollup'")
awk -v b="$rbytes" -v r="$rrows" 'BEGIN { printf "record: %d GPU-minute rollups (written as each minute completes), %.1f bytes each\n", r, b / r }'
for fmt in html csv; do
    t0=$(date +%s.%N)
    "$GS" report --db "$TMP/day.db" --from 2024-05-01T00:00:00Z --to 2024-05-02T00:00:00Z -f $fmt -o "$TMP/day.$fmt"
    t1=$(date +%s.%N)
    printf "report 24 h x 8 GPUs as %s: %.2f s, %s bytes%s\n" "$fmt" "$(echo "$t1 - $t0" | bc)" \
        "$(stat -c %s "$TMP/day.$fmt")" "$([ $fmt = html ] && echo ' (target <= 1 s)')"
done
echo "record bench: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
