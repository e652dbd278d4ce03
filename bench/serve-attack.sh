#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/serve-attack.sh - the exporter under attack (issue 10, "safe by default"): scrape latency
# of an authenticated TLS scraper (Prometheus's shape: kept connection, then fresh ones) while
#   - 120 connections from one address trickle a TLS hello byte by byte (slowloris),
#   - 120 connections from 120 addresses do the same,
#   - 40 clients loop over wrong passwords (bcrypt cost 10), from one address and from 40,
# plus the exporter's CPU and RSS meanwhile, and plain-HTTP keep-alive scrapes per second
# (wrk, 50 clients) on bench-8x64. Loopback only; attackers run at nice 15 in their own process.
#
# GS_BEFORE=DIR also measures another build the same way in the same run (a tree whose
# DIR/build/gpuscope and DIR/sim/scenarios exist, e.g. `git archive <rev> | tar -x -C DIR &&
# make -C DIR`), so the figures compare side by side: GS_BEFORE=/tmp/gs-old bash bench/serve-attack.sh
# Environment: O (build dir, default build), ATTACK_SECONDS (per attack, 12).
set -uo pipefail
. "$(dirname "$0")/bench.lib"
SECS=${ATTACK_SECONDS:-12}
A=$ROOT/tests/cli/3100-serve-attack.py
SERVE_PID=
bench_init attack SERVE_PID
for t in openssl python3 curl; do command -v "$t" >/dev/null || { echo "attack bench: needs $t"; exit 2; }; done

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -keyout "$TMP/key.pem" \
    -out "$TMP/cert.pem" >/dev/null 2>&1 || exit 2
# "password" at bcrypt cost 10
cat >"$TMP/web.yml" <<'YML'
tls_server_config:
  cert_file: cert.pem
  key_file: key.pem
basic_auth_users:
  prometheus: $2b$10$kydexIGigCBsBTS2SE8pluIRg9GqN58rwYM1DHjb7gj3CZOoV2o8.
YML
bench_sleepers 64

start() { # start TREE [serve options]: gpuscope serve of that tree on bench-8x64; sets SERVE_PID, PORT
    local tree=$1
    shift
    GPUSCOPE_NVML_LIB=$tree/$O/sim/current/libnvidia-ml.so.1 GPUSCOPE_SIM_SCENARIO=bench-8x64 \
    GPUSCOPE_SIM_SCENARIO_DIR=$tree/sim/scenarios GPUSCOPE_SIM_PIDS=$pidlist \
        "$tree/$O/gpuscope" serve --listen 127.0.0.1:0 --interval 1s "$@" 2>"$TMP/err" &
    SERVE_PID=$!
    PORT=
    for _ in $(seq 1 100); do
        PORT=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$TMP/err" 2>/dev/null)
        [ -n "$PORT" ] && break
        sleep 0.1
    done
    [ -n "$PORT" ] || { echo "attack bench: serve did not start: $(head -n 2 "$TMP/err")"; return 1; }
    sleep 2
}
stop() { kill "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; SERVE_PID=; }
ticks() { awk '{ print $14 + $15 }' "/proc/$SERVE_PID/stat"; }
kib() { awk -v k="$1" '$1 == k":" { print $2 }' "/proc/$SERVE_PID/status"; }

attack() { # attack LABEL ARGS...: one run of the attack helper; prints a table row
    local label=$1 hz t0 t1 s0 s1 out
    shift
    hz=$(getconf CLK_TCK)
    t0=$(ticks); s0=$(date +%s.%N)
    out=$(cd "$TMP" && python3 "$A" "$@" --port "$PORT" --tls cert.pem --user prometheus:password \
        --seconds "$SECS" --scrapes 40 2>&1)
    t1=$(ticks); s1=$(date +%s.%N)
    local cpu lat verdict
    cpu=$(awk -v a="$t0" -v b="$t1" -v s="$s0" -v e="$s1" -v hz="$hz" 'BEGIN { printf "%.0f", (b - a) / hz / (e - s) * 100 }')
    lat=$(echo "$out" | sed -n 's/.*scrape latency \(p50 [0-9.]* ms p99 [0-9.]* ms max [0-9.]* ms\).*/\1/p')
    verdict=$(echo "$out" | grep '^scrapes' | head -n 1)
    printf '  %-34s %-40s %5s %%  %6s KiB  %s\n' "$LABEL_PREFIX$label" "${lat:-?}" "$cpu" "$(kib VmRSS)" "$verdict"
}

run_tree() { # run_tree TREE NAME
    local tree=$1
    LABEL_PREFIX="$2: "
    start "$tree" --web.config.file "$TMP/web.yml" || return
    echo "  (TLS + basic auth, bcrypt cost 10; scraper 127.0.0.1; latency of 40 scrapes, alternating fresh and kept connections)"
    printf '  %-34s %-40s %7s  %10s  %s\n' "attack" "scrape latency" "CPU" "RSS" "every scrape 200 within 1 s?"
    attack none none
    attack slowloris slowloris -n 120
    attack spread spread -n 120
    attack badpass badpass -n 40
    attack badpass-40-addresses badpass --spread -n 40
    curl -sk -u prometheus:password "https://127.0.0.1:$PORT/metrics" | grep '^gpuscope_exporter_http' | sed 's/^/    /'
    stop
    # keep-alive throughput, plain HTTP (what bench/serve.sh measures; same run here); 50
    # clients from one address need more than the default per-address limit (8)
    local more=()
    "$tree/$O/gpuscope" serve --help 2>&1 | grep -q -- --max-connections-per-ip && more=(--max-connections-per-ip 64)
    start "$tree" "${more[@]}" || return
    if command -v wrk >/dev/null; then
        wrk -t2 -c50 -d"${SECS}s" "http://127.0.0.1:$PORT/metrics" >"$TMP/load.txt" 2>&1
        printf '  %-34s %s/s  %s\n' "${2}: keep-alive scrapes/s (wrk -c50)" \
            "$(awk '/^Requests\/sec/ { printf "%.0f", $2 }' "$TMP/load.txt")" \
            "$(grep -E 'Socket errors|Non-2xx' "$TMP/load.txt" | tr '\n' ' ')"
    fi
    stop
}

printf '\n== gpuscope serve under attack: bench-8x64, load average %s (%s CPUs)\n' "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"
run_tree "$ROOT" now
if [ -n "${GS_BEFORE:-}" ]; then
    echo
    run_tree "$GS_BEFORE" before
fi
printf '  load average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
