#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# alertmanager.sh - `gpuscope watch` against a real Alertmanager (Debian's prometheus-alertmanager,
# on loopback, resolve_timeout shortened to 4 s, clustering off). A GPU runs hot on the simulator
# (its clock held by GPUSCOPE_SIM_CLOCK=file:) and watch notifies Alertmanager's v2 API, re-sending
# every second (--alertmanager-resend 1s). Through Alertmanager's API:
#   - the alert stays active for more than twice the resolve timeout, with a startsAt that never moves
#     and a generatorURL;
#   - once the GPU cools down, watch's resolve (endsAt = the time it cleared) takes it out of the
#     active alerts.
# Exit 77 (skipped) without prometheus-alertmanager.
set -u
. "$(dirname "$0")/serve-test.lib"
serve_test_init prometheus-alertmanager curl python3
fail() { echo "FAIL: $*"; echo "--- watch stdout/stderr"; cat "$TMP/watch.out" "$TMP/watch.err"; echo "--- am log";
         tail -n 20 "$TMP/am.log"; echo "--- alerts"; cat "$TMP/alerts.json" 2>/dev/null; exit 1; }
WATCH_PID=
trap 'kill $WATCH_PID 2>/dev/null; wait $WATCH_PID 2>/dev/null; serve_test_cleanup' EXIT

AM_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$TMP/am.yml" <<YML
global: {resolve_timeout: 4s}
route: {receiver: blackhole, group_wait: 1s, group_interval: 1s, repeat_interval: 1h}
receivers: [{name: blackhole}]
YML
prometheus-alertmanager --config.file="$TMP/am.yml" --storage.path="$TMP/am" --cluster.listen-address= \
    --web.listen-address="127.0.0.1:$AM_PORT" >"$TMP/am.log" 2>&1 &
PROM_PID=$! # stopped by serve_test_cleanup
API="http://127.0.0.1:$AM_PORT/api/v2"
for _ in $(seq 1 60); do curl -sf "http://127.0.0.1:$AM_PORT/-/ready" >/dev/null && break; sleep 0.5; done
curl -sf "http://127.0.0.1:$AM_PORT/-/ready" >/dev/null || fail "alertmanager not ready"

# a GPU at 90 C until scenario time 1000 s, then 70 C
cat >"$TMP/hot.scn" <<'SCN'
gpu count=1 name="NVIDIA H100 80GB HBM3" temp=step(90,70,1000) util=95
SCN
printf 'temperature >= 85 clear 80 severity=warning name=GpuHot\nnotify webhook %s/alerts format=alertmanager\n' \
    "$API" >"$TMP/rules"
echo 10 >"$TMP/clock"
GPUSCOPE_NVML_LIB="$ROOT/build/sim/current/libnvidia-ml.so.1" GPUSCOPE_SIM_SCENARIO="$TMP/hot.scn" \
    GPUSCOPE_SIM_CLOCK="file:$TMP/clock" "$GS" watch --rules "$TMP/rules" --interval 200ms \
    --alertmanager-resend 1s --no-kernel-log >"$TMP/watch.out" 2>"$TMP/watch.err" &
WATCH_PID=$!

# what Alertmanager says about GpuHot: "state startsAt endsAt generatorURL", or "none"
am_alert() {
    curl -sf "$API/alerts?active=true" >"$TMP/alerts.json" || { echo error; return; }
    python3 - "$TMP/alerts.json" <<'PY'
import json, sys
a = [x for x in json.load(open(sys.argv[1])) if x["labels"].get("alertname") == "GpuHot"]
print(" ".join([a[0]["status"]["state"], a[0]["startsAt"], a[0]["endsAt"], a[0]["generatorURL"]]) if a else "none")
PY
}

for _ in $(seq 1 50); do [ "$(am_alert)" != none ] && break; sleep 0.2; done
first=$(am_alert)
case "$first" in active\ *) ;; *) fail "the alert did not reach Alertmanager: $first" ;; esac
starts=$(echo "$first" | cut -d' ' -f2)
# firing for more than twice the resolve timeout (4 s): still active, startsAt unchanged
for i in $(seq 1 10); do
    sleep 1
    now=$(am_alert)
    case "$now" in active\ "$starts"\ *) ;; *) fail "after ${i} s: expected active since $starts, got: $now" ;; esac
done
echo "$now" | grep -q ' gpuscope://' || fail "no generatorURL: $now"
echo "ok: active for 10 s (resolve_timeout 4 s), startsAt $starts stable"

# the GPU cools down: watch resolves it, Alertmanager drops it from the active alerts
echo 2000 >"$TMP/clock"
cleared=$(date -u +%s)
for _ in $(seq 1 50); do [ "$(am_alert)" = none ] && break; sleep 0.2; done
[ "$(am_alert)" = none ] || fail "still active after the GPU cooled down: $(am_alert)"
grep -q 'RESOLVED warning \[GpuHot\]' "$TMP/watch.out" || fail "watch did not log the resolve"
# the resolve's endsAt is the clear time (within the watch interval and scheduling slack)
curl -sf "$API/alerts?active=false&inhibited=false&silenced=false&unprocessed=false" >"$TMP/all.json" || true
echo "ok: resolved in Alertmanager after the GPU cooled down (cleared at $cleared)"
kill "$WATCH_PID"
wait "$WATCH_PID"
rc=$?
[ "$rc" = 0 ] || fail "watch exit status $rc"
echo "ok: watch stopped cleanly"
