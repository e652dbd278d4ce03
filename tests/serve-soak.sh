#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# serve-soak.sh - `gpuscope serve` runs for months: 100,000 scrapes (wrk, 20 keep-alive
# connections on loopback, mixing /metrics as text and as OpenMetrics, /health, / and
# /api/v1/snapshot) against the demo scenario sampled every 50 ms, so scrapes race new
# generations all the time. After a warm-up of 10,000 requests the exporter's RSS, open file
# descriptors and threads are recorded; after the rest they must be where they were
# (RSS within SOAK_RSS_SLACK_KIB, default 512 KiB; fds and threads exactly), every response
# must be a 2xx, and the exporter must still answer and stop cleanly.
# Environment: GPUSCOPE (binary), SOAK_REQUESTS (default 100000). Exit 77 without wrk.
set -u
. "$(dirname "$0")/serve-test.lib"
TOTAL=${SOAK_REQUESTS:-100000}
WARM=$((TOTAL / 10))
SLACK=${SOAK_RSS_SLACK_KIB:-512}
serve_test_init wrk curl
fail() { echo "FAIL: $*"; echo "--- gpuscope stderr (tail)"; tail -n 20 "$TMP/gs.err"; exit 1; }

# 20 clients from one address: above the default per-address limit (8)
serve_start GPUSCOPE_SIM_SCENARIO=demo -- --interval 50ms --max-connections 32 --max-connections-per-ip 32
PORT=$GS_PORT
URL="http://127.0.0.1:$PORT"

# one request in 8 is something other than a text scrape (HTTP/1.1 requests need a Host header:
# built in init, where wrk.headers has it)
cat >"$TMP/mix.lua" <<'LUA'
local n = 0
local reqs = {}
local om = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"
init = function(args)
  local h = { ["Host"] = wrk.host .. ":" .. wrk.port }
  local ho = { ["Host"] = h["Host"], ["Accept"] = om }
  reqs = {
    wrk.format("GET", "/metrics", h), wrk.format("GET", "/metrics", ho),
    wrk.format("GET", "/metrics", h), wrk.format("GET", "/metrics", ho),
    wrk.format("GET", "/metrics", h), wrk.format("GET", "/health", h),
    wrk.format("GET", "/metrics", h), wrk.format("GET", "/", h),
    wrk.format("GET", "/metrics", h), wrk.format("GET", "/api/v1/snapshot", h),
  }
end
request = function()
  n = n + 1
  return reqs[(n % #reqs) + 1]
end
LUA

done_reqs=0
# run wrk for rounds of SECS seconds until at least $1 requests in all; fail on any error
load_until() {
    local want=$1 secs out n
    while [ "$done_reqs" -lt "$want" ]; do
        secs=2
        out=$(wrk -t2 -c20 -d${secs}s -s "$TMP/mix.lua" "$URL" 2>&1) || fail "wrk: $out"
        n=$(awk '/requests in/ { print $1 }' <<<"$out")
        [ -n "$n" ] || fail "wrk output: $out"
        grep -q -e 'Socket errors' -e 'Non-2xx' <<<"$out" && fail "errors under load: $(grep -e 'Socket errors' -e 'Non-2xx' <<<"$out")"
        done_reqs=$((done_reqs + n))
    done
}
facts() { # RSS KiB, open fds, threads
    sleep 0.5 # let the server close the finished connections
    echo "$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$GS_PID/status") $(ls "/proc/$GS_PID/fd" | wc -l) $(awk '$1 == "Threads:" { print $2 }' "/proc/$GS_PID/status")"
}

t0=$(date +%s)
load_until "$WARM"
read -r rss0 fd0 th0 <<<"$(facts)"
load_until "$TOTAL"
read -r rss1 fd1 th1 <<<"$(facts)"
secs=$(($(date +%s) - t0))

curl -sf -o /dev/null "$URL/metrics" || fail "no /metrics after the soak"
[ "$fd1" = "$fd0" ] || fail "open fds grew: $fd0 after warm-up, $fd1 after $done_reqs requests"
[ "$th1" = "$th0" ] || fail "threads grew: $th0 after warm-up, $th1 after $done_reqs requests"
[ $((rss1 - rss0)) -le "$SLACK" ] || fail "RSS grew: $rss0 KiB after warm-up, $rss1 KiB after $done_reqs requests"
kill -TERM "$GS_PID"
wait "$GS_PID"
rc=$?
GS_PID=
[ "$rc" = 0 ] || fail "serve exited $rc after SIGTERM"
if grep -q -e 'Sanitizer' -e 'runtime error:' "$TMP/gs.err"; then fail "sanitizer report"; fi
echo "ok: $done_reqs requests in ${secs} s; RSS ${rss0} -> ${rss1} KiB, fds ${fd0} -> ${fd1}, threads ${th0} -> ${th1}"
