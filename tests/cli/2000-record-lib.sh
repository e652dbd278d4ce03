# SPDX-License-Identifier: MIT
# 2000-record-lib.sh - sourced by tests/cli/2*-record-*.test: record a simulated
# stretch of time in a moment (virtual clock: --ticks/--step/--clock-file drive
# GPUSCOPE_SIM_CLOCK=file:$TMP/clk), and query the database with the sqlite3 CLI.
export GPUSCOPE_SIM_CLOCK="file:$TMP/clk"
echo 0 > "$TMP/clk"
START=2024-05-01T00:00:00Z
START_MS=1714521600000

rec() { # rec DB TICKS [more record options]
    local db=$1 ticks=$2
    shift 2
    "$GPUSCOPE" record -q --db "$db" --ticks "$ticks" --step 1s --clock-file "$TMP/clk" --start "$START" "$@"
}

q() { sqlite3 -batch -noheader "$@"; }
