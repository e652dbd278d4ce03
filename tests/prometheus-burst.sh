#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prometheus-burst.sh - a real Prometheus (Debian's, loopback, 1 s scrapes) keeps scraping
# `gpuscope serve` while bursts of 1,000 connections at once hit it (issue 26): three bursts from
# 1,000 addresses (127.0.1.1 onwards, the default per-address limit), three from 127.0.0.1 with
# --max-connections-per-ip=0 on a second server. Every burst connection gets a status (200, or 503
# with Retry-After), none is closed silently, and Prometheus's `up` stays 1 through every scrape
# of the bursts' span (no failed scrape: up would read 0 for it).
# Exit 77 (skipped) without prometheus, curl or python3, or without 4096 descriptors.
set -u
. "$(dirname "$0")/serve-test.lib"
serve_test_init prometheus curl python3
ulimit -n 4096 2>/dev/null || { echo "skipped: cannot open 4096 descriptors here"; exit 77; }
fail() { echo "FAIL: $*"; echo "--- gpuscope stderr"; cat "$TMP/gs.err"; echo "--- prometheus log (tail)";
         tail -n 20 "$TMP/prom.log" 2>/dev/null; exit 1; }
trap serve_test_cleanup EXIT
B=$ROOT/tests/cli/3114-serve-burst.py

run() { # run LABEL ADDRS [serve args]: a server, Prometheus on it, three bursts
    local label=$1 addrs=$2 out
    shift 2
    serve_start "GPUSCOPE_SIM_SCENARIO=demo" -- "$@"
    cat >"$TMP/prometheus.yml" <<YML
global: {scrape_interval: 1s, scrape_timeout: 900ms}
scrape_configs:
  - job_name: gpuscope
    static_configs: [{targets: ['127.0.0.1:$GS_PORT']}]
YML
    prom_start "$TMP/prometheus.yml"
    for _ in $(seq 1 60); do [ "$(query 'up{job="gpuscope"}')" = 1 ] && break; sleep 0.5; done
    [ "$(query 'up{job="gpuscope"}')" = 1 ] || fail "$label: Prometheus never scraped serve"
    t0=$(date +%s.%N)
    for r in 1 2 3; do
        if [ "$addrs" = 0 ]; then out=$(python3 "$B" 127.0.0.1 "$GS_PORT" 1000); else out=$(python3 "$B" 127.0.0.1 "$GS_PORT" 1000 "$addrs"); fi
        python3 -c 'import sys
r = dict(kv.split("=") for kv in sys.argv[1].split())
bad = {k: v for k, v in r.items() if k not in ("200", "503") and v != "0"}
n = int(r.get("200", 0)) + int(r.get("503", 0))
sys.exit(0 if n == 1000 and not bad else 1)' "$out" || fail "$label: burst $r: $out"
        echo "$label: burst $r: $out"
        sleep 1
    done
    sleep 2 # the scrape after the last burst
    span=$(python3 -c 'import sys, time; print(int(time.time() - float(sys.argv[1])) + 1)' "$t0")
    n=$(query "count_over_time(up{job=\"gpuscope\"}[${span}s])")
    low=$(query "min_over_time(up{job=\"gpuscope\"}[${span}s])")
    [ "$low" = 1 ] || fail "$label: up fell to '$low' during the bursts"
    [ "${n:-0}" -ge 3 ] || fail "$label: only '${n}' scrapes in ${span} s"
    echo "$label: Prometheus scraped $n times in ${span} s, every one up"
    serve_test_cleanup_one
}
serve_test_cleanup_one() {
    kill "$GS_PID" "$PROM_PID" 2>/dev/null
    wait "$GS_PID" "$PROM_PID" 2>/dev/null
    GS_PID= PROM_PID=
    rm -rf "$TMP/data" # the next Prometheus starts empty
}
run "1,000 addresses" 1000
run "127.0.0.1, --max-connections-per-ip=0" 0 --max-connections-per-ip=0
echo "ok: every burst connection answered, Prometheus up through every burst"
