#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# remote-write.sh - `gpuscope record --remote-write` into real receivers: Prometheus
# (--web.enable-remote-write-receiver) and VictoriaMetrics, the values checked with PromQL
# against the scenario's known answers (tests/fixtures/remote-write.scn: power = 100 + t W,
# utilization 20 % then 80 % from 30 s), and the faults: 500 then 200, 429 with Retry-After,
# a 400 for one batch (tests/fixtures/rw-proxy.py in front), kill -9 of record during a send,
# the receiver stopped for 30 s and restarted mid-run, a full database while queueing, TLS with a
# wrong CA, an unresolvable host. Every phase records its own stretch of virtual time, in
# order, so that one Prometheus takes them all.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GS=${GPUSCOPE:-$ROOT/build/gpuscope}
GST=$ROOT/build/testing/gpuscope
for t in prometheus victoria-metrics python3 curl sqlite3 openssl; do
    command -v "$t" >/dev/null || { echo "SKIP: $t not installed"; exit 77; }
done
[ -x "$GS" ] && [ -f "$ROOT/build/sim/current/libnvidia-ml.so.1" ] || { echo "SKIP: build first"; exit 77; }
TMP=$(mktemp -d)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
    [ -n "${KEEP_TMP:-}" ] && echo "kept $TMP" || rm -rf "$TMP"
}
trap cleanup EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
ok() { echo "ok: $*"; }
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
export GPUSCOPE_NVML_LIB=$ROOT/build/sim/current/libnvidia-ml.so.1
export GPUSCOPE_SIM_SCENARIO=$ROOT/tests/fixtures/remote-write.scn
export GPUSCOPE_SIM_CLOCK=file:$TMP/clk
BASE=$(( $(date +%s) - 3000 )) # 50 minutes ago: inside a fresh Prometheus head's window

# rec BIN DB START_OFFSET TICKS [options]: record on the virtual clock from BASE + START_OFFSET s
rec() {
    local bin=$1 db=$2 off=$3 ticks=$4
    shift 4
    echo 0 > "$TMP/clk"
    "$bin" record -q --db "$TMP/$db" --ticks "$ticks" --step 1s --clock-file "$TMP/clk" \
        --start "@$((BASE + off))" "$@"
}

rec_bg() { # the same, as the background job itself (so that its PID is record's)
    local bin=$1 db=$2 off=$3 ticks=$4
    shift 4
    echo 0 > "$TMP/clk"
    exec "$bin" record -q --db "$TMP/$db" --ticks "$ticks" --step 1s --clock-file "$TMP/clk" \
        --start "@$((BASE + off))" "$@"
}

PPORT=$(freeport)
PROM="http://127.0.0.1:$PPORT"
printf 'global:\n  scrape_interval: 15s\n' > "$TMP/prom.yml"
prom_start() {
    prometheus --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/prom" --web.enable-remote-write-receiver \
        --web.listen-address="127.0.0.1:$PPORT" >>"$TMP/prom.log" 2>&1 &
    PROM_PID=$!
    PIDS+=("$PROM_PID")
    for _ in $(seq 1 120); do curl -sf "$PROM/-/ready" >/dev/null && return 0; sleep 0.5; done
    echo "FAIL: prometheus not ready"; cat "$TMP/prom.log"; exit 1
}
prom_start
WRITE="$PROM/api/v1/write"

# q API PROMQL AT: the first value of an instant query at time AT ("" when no series)
q() {
    curl -sf --get --data-urlencode "query=$2" --data-urlencode "time=$3" "$1/api/v1/query" |
        python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'
}
# expect API PROMQL AT WANT WHAT: poll (receivers make samples visible within seconds)
expect() {
    local got=""
    for _ in $(seq 1 40); do
        got=$(q "$1" "$2" "$3")
        [ "$got" = "$4" ] && { ok "$5 ($2 = $4)"; return 0; }
        sleep 0.5
    done
    fail "$5: $2 = '$got', want $4"
}
status_field() { "$GS" record --status --db "$TMP/$1" | sed -n "s/^  $2: *//p"; }

# ---- A: straight into Prometheus: every sample, exact values, serve's names and labels
rec "$GS" a.db 0 60 --remote-write "$WRITE" 2>"$TMP/a.err" || fail "A: record exited $?"
T=$((BASE + 59)).5
expect "$PROM" 'count_over_time(DCGM_FI_DEV_POWER_USAGE{gpu="0"}[60s])' "$T" 60 "A: every tick arrived"
expect "$PROM" 'sum_over_time(DCGM_FI_DEV_POWER_USAGE{gpu="0"}[60s])' "$T" 7770 "A: power 100 + t W"
expect "$PROM" 'sum_over_time(DCGM_FI_DEV_GPU_UTIL{gpu="1"}[60s])' "$T" 3000 "A: utilization 20 then 80"
expect "$PROM" 'max_over_time(DCGM_FI_DEV_GPU_TEMP{gpu="1"}[60s])' "$T" 50 "A: temperature"
H=$(hostname)
expect "$PROM" "count(DCGM_FI_DEV_POWER_USAGE{Hostname=\"$H\",instance=\"$H\",modelName=\"NVIDIA H100 80GB HBM3\",device=\"nvidia1\",UUID=~\"GPU-.+\",pci_bus_id!=\"\"})" "$T" 1 "A: DCGM labels"
expect "$PROM" 'count(gpuscope_pcie_tx_bytes_per_second{uuid=~"GPU-.+",gpu="0"})' "$T" 1 "A: gpuscope_* with their labels"
[ "$(status_field a.db pending)" = "0 GPU-samples (14 series each at most)" ] || fail "A: status: $(status_field a.db pending)"
SENT=$(status_field a.db sent | sed 's/ samples.*//')
PER_ROW=$((SENT / 120))
[ "$PER_ROW" -ge 8 ] && [ $((PER_ROW * 120)) -eq "$SENT" ] || fail "A: $SENT samples for 120 rows"
BATCH=$((PER_ROW * 2)) # one tick (both GPUs) per request from here on

# ---- B: 500, 500, then 200; 429 with Retry-After: 2; a 400 for one batch (dropped, said)
printf '500\n500\npass\n429:2\npass\n400\n' > "$TMP/actions"
python3 "$ROOT/tests/fixtures/rw-proxy.py" "$WRITE" "$TMP/actions" "$TMP/proxy.log" >"$TMP/proxy.port" &
PIDS+=($!)
for _ in $(seq 1 50); do XPORT=$(sed -n 's/^port //p' "$TMP/proxy.port"); [ -n "$XPORT" ] && break; sleep 0.1; done
PROXY="http://127.0.0.1:$XPORT/api/v1/write"
rec "$GS" b.db 100 60 --remote-write "$PROXY" --remote-write-max-batch "$BATCH" --remote-write-drain 60s \
    2>"$TMP/b.err" || fail "B: record exited $?"
T=$((BASE + 159)).5
expect "$PROM" 'count_over_time(DCGM_FI_DEV_POWER_USAGE{gpu="0"}[60s])' "$T" 59 "B: all but the refused tick"
expect "$PROM" 'sum_over_time(DCGM_FI_DEV_POWER_USAGE{gpu="0"}[60s])' "$T" 7668 "B: the refused tick is t = 2"
grep -q "HTTP 500: fault injected; samples stay queued" "$TMP/b.err" || fail "B: no 500 message: $(cat "$TMP/b.err")"
grep -q "HTTP 429: slow down; .*as Retry-After asks" "$TMP/b.err" || fail "B: no 429 message"
grep -q "the receiver refused $BATCH samples .*HTTP 400: fault injected; dropped" "$TMP/b.err" || fail "B: no 400 message"
grep -q "sending again" "$TMP/b.err" || fail "B: no recovery message"
[ "$(status_field b.db sent)" = "$((BATCH * 59)) samples, $BATCH dropped (refused by the receiver)" ] ||
    fail "B: status sent: $(status_field b.db sent)"
status_field b.db "last error" | grep -q "HTTP 400" || fail "B: status last error: $(status_field b.db 'last error')"
# the protocol's headers on every request; the request after the 429 waited its 2 s
awk '$4 != "snappy" || $5 != "application/x-protobuf" || $6 != "0.1.0" || $7 !~ /^gpuscope\// { bad++ }
     END { exit bad > 0 }' "$TMP/proxy.log" || fail "B: headers: $(head -3 "$TMP/proxy.log")"
awk '$2 == "429:2" { t = $1; next } t && !done { gap = $1 - t; done = 1 } END { exit !(gap >= 1.9) }' \
    "$TMP/proxy.log" && ok "B: Retry-After honoured" || fail "B: Retry-After: $(cat "$TMP/proxy.log")"
[ "$(grep -c . "$TMP/proxy.log")" -eq 63 ] || fail "B: $(grep -c . "$TMP/proxy.log") requests, want 60 + 3 retries"

# ---- C: kill -9 during a send (the 4th request hangs): no loss, at most that batch again
: > "$TMP/proxy.log"
printf 'pass\npass\npass\nsleep:5\n' > "$TMP/actions"
kill "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null
python3 "$ROOT/tests/fixtures/rw-proxy.py" "$WRITE" "$TMP/actions" "$TMP/proxy.log" >"$TMP/proxy.port" &
PIDS+=($!)
for _ in $(seq 1 50); do XPORT=$(sed -n 's/^port //p' "$TMP/proxy.port"); [ -n "$XPORT" ] && break; sleep 0.1; done
PROXY="http://127.0.0.1:$XPORT/api/v1/write"
rec_bg "$GS" c.db 200 30 --remote-write "$PROXY" --remote-write-max-batch "$BATCH" --remote-write-drain 60s \
    2>"$TMP/c.err" &
CPID=$!
for _ in $(seq 1 100); do [ "$(grep -c pass "$TMP/proxy.log" 2>/dev/null)" -ge 3 ] && break; sleep 0.1; done
sleep 1
kill -9 "$CPID"; wait "$CPID" 2>/dev/null
[ "$(sqlite3 "$TMP/c.db" 'SELECT count(*) FROM sample')" = 60 ] || fail "C: the database lost ticks"
rec "$GS" c.db 230 5 --remote-write "$PROXY" --remote-write-max-batch "$BATCH" 2>>"$TMP/c.err" ||
    fail "C: the second record exited $?: $(cat "$TMP/c.err")"
sleep 5.5 # the hung request ends (and is forwarded) before the count
T=$((BASE + 234)).5
expect "$PROM" 'count_over_time(DCGM_FI_DEV_POWER_USAGE{gpu="0"}[35s])' "$T" 35 "C: no gap after kill -9"
N=$(grep -c . "$TMP/proxy.log")
[ "$N" -le 36 ] && ok "C: $N requests for 35 batches (one sent twice at most)" || fail "C: $N requests, want <= 36"

# ---- H: the config's client settings reach the receiver: X-Scope-OrgID, basic auth from a password file
: > "$TMP/proxy.log"
printf 's3cret\n' > "$TMP/rw.pass"
printf 'url: %s\nheaders:\n  X-Scope-OrgID: team-gpu\nbasic_auth:\n  username: alice\n  password_file: rw.pass\n' \
    "$PROXY" > "$TMP/h.yml"
rec "$GS" h.db 250 3 --remote-write-config "$TMP/h.yml" 2>"$TMP/h.err" || fail "H: record exited $?: $(cat "$TMP/h.err")"
awk '$9 == "team-gpu" && $10 == "Basic:alice" { n++ } END { exit !(n >= 1 && n == NR) }' "$TMP/proxy.log" &&
    ok "H: X-Scope-OrgID and basic auth sent" || fail "H: $(cat "$TMP/proxy.log")"
expect "$PROM" 'count_over_time(DCGM_FI_DEV_POWER_USAGE{gpu="0"}[3s])' "$((BASE + 252)).5" 3 "H: and the samples arrived"

# ---- G: the database full for ticks 10..19 while queueing (test build's hook): said, nothing corrupted
if [ -x "$GST" ]; then
    GPUSCOPE_RECORD_FAULT=full:10-19 rec "$GST" g.db 300 60 --remote-write "$WRITE" 2>"$TMP/g.err" ||
        fail "G: record exited $?"
    grep -q "still sampling" "$TMP/g.err" || fail "G: no message: $(cat "$TMP/g.err")"
    [ "$(sqlite3 "$TMP/g.db" 'PRAGMA integrity_check')" = ok ] || fail "G: integrity"
    T=$((BASE + 359)).5
    expect "$PROM" 'count_over_time(DCGM_FI_DEV_POWER_USAGE{gpu="0"}[60s])' "$T" 50 "G: what was stored was sent"
    [ "$(status_field g.db pending)" = "0 GPU-samples (14 series each at most)" ] || fail "G: pending"
else
    echo "note: build/testing/gpuscope missing (make testing): the full-database phase not run"
fi

# ---- D: Prometheus stopped mid-run for 30 s, then started again: no gap
rec_bg "$GS" d.db 400 50 --interval 1s --remote-write "$WRITE" --remote-write-drain 60s 2>"$TMP/d.err" &
DPID=$!
for _ in $(seq 1 100); do [ "$(sqlite3 "$TMP/d.db" 'SELECT count(*) FROM sample' 2>/dev/null || echo 0)" -ge 16 ] && break; sleep 0.2; done
kill "$PROM_PID"; wait "$PROM_PID" 2>/dev/null
sleep 30
"$GS" record --status --db "$TMP/d.db" > "$TMP/d.status"
grep -q "last error:.*Couldn't connect\|last error:.*Failed to connect\|last error:.*receiver running" "$TMP/d.status" ||
    fail "D: status while down: $(cat "$TMP/d.status")"
prom_start
wait "$DPID" || fail "D: record exited $?"
T=$((BASE + 449)).5
expect "$PROM" 'count_over_time(DCGM_FI_DEV_POWER_USAGE{gpu="0"}[50s])' "$T" 50 "D: no gap after the receiver came back"
expect "$PROM" 'sum_over_time(DCGM_FI_DEV_POWER_USAGE{gpu="0"}[50s])' "$T" 6225 "D: and the values"
grep -q "sending again" "$TMP/d.err" || fail "D: no recovery message: $(cat "$TMP/d.err")"

# ---- V: VictoriaMetrics
VPORT=$(freeport)
VM="http://127.0.0.1:$VPORT"
victoria-metrics -httpListenAddr="127.0.0.1:$VPORT" -storageDataPath="$TMP/vm" >"$TMP/vm.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 60); do curl -sf "$VM/health" >/dev/null && break; sleep 0.5; done
rec "$GS" v.db 500 60 --remote-write "$VM/api/v1/write" 2>"$TMP/v.err" || fail "V: record exited $?"
T=$((BASE + 559)).5
expect "$VM" 'count_over_time(DCGM_FI_DEV_POWER_USAGE{gpu="0"}[60s])' "$T" 60 "V: VictoriaMetrics has every tick"
expect "$VM" 'sum_over_time(DCGM_FI_DEV_POWER_USAGE{gpu="0"}[60s])' "$T" 7770 "V: and the values"

# ---- E: TLS: a CA that did not sign the receiver's certificate is a clear error; the right one sends
cd "$TMP" || exit 1
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    -keyout key.pem -out cert.pem >/dev/null 2>&1 || fail "E: openssl"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other-ca -keyout other.key -out other.pem \
    >/dev/null 2>&1 || fail "E: openssl"
printf 'tls_server_config:\n  cert_file: %s/cert.pem\n  key_file: %s/key.pem\n' "$TMP" "$TMP" > web.yml
SPORT=$(freeport)
prometheus --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/prom-tls" --web.enable-remote-write-receiver \
    --web.config.file="$TMP/web.yml" --web.listen-address="127.0.0.1:$SPORT" >"$TMP/prom-tls.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 120); do curl -sf --cacert cert.pem "https://127.0.0.1:$SPORT/-/ready" >/dev/null && break; sleep 0.5; done
printf 'url: https://127.0.0.1:%s/api/v1/write\ntls_config:\n  ca_file: other.pem\n' "$SPORT" > wrong.yml
printf 'url: https://127.0.0.1:%s/api/v1/write\ntls_config:\n  ca_file: cert.pem\n' "$SPORT" > right.yml
rec "$GS" e.db 600 5 --remote-write-config wrong.yml --remote-write-drain 2s 2>"$TMP/e.err"
grep -q "certificate.*check tls_config ca_file" "$TMP/e.err" && ok "E: wrong CA said" || fail "E: wrong CA: $(cat "$TMP/e.err")"
[ "$(status_field e.db pending)" = "10 GPU-samples (14 series each at most)" ] || fail "E: pending $(status_field e.db pending)"
rec "$GS" e.db 605 1 --remote-write-config right.yml 2>>"$TMP/e.err" || fail "E: record exited $?"
[ "$(status_field e.db pending)" = "0 GPU-samples (14 series each at most)" ] && ok "E: the queue drained over TLS" ||
    fail "E: pending after the right CA: $(status_field e.db pending)"
cd "$ROOT" || exit 1

# ---- F: an unresolvable host (in a network namespace with loopback only: no query leaves)
if unshare -rn true 2>/dev/null; then
    unshare -rn bash -c "ip link set lo up 2>/dev/null; echo 0 > '$TMP/clk'; '$GS' record -q --db '$TMP/f.db' --ticks 3 \
        --step 1s --clock-file '$TMP/clk' --start @$((BASE + 700)) --remote-write http://gpuscope-test.invalid/api/v1/write \
        --remote-write-drain 5s" 2>"$TMP/f.err"
    grep -q "resolve.*check the URL's host name and DNS" "$TMP/f.err" && ok "F: DNS failure said" ||
        fail "F: DNS: $(cat "$TMP/f.err")"
else
    echo "note: unshare -rn not permitted here: the DNS phase not run"
fi

[ "$FAILS" -eq 0 ] || { echo "$FAILS failures"; exit 1; }
echo "remote-write: all phases passed"
