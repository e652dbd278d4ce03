#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fleet-prometheus.sh - `gpuscope query --prometheus` (and doctor) against a real Prometheus
# (Debian's package) scraping, on loopback, every 1 s:
#   - three `gpuscope serve` on the simulator (node-a: ecc, node-b: thermal at 60 s, node-c: demo), each
#     with a frozen clock, so their own /metrics say what the fleet view must show;
#   - a node that runs only dcgm-exporter (tests/fixtures/fleet/dcgm-exporter.prom, derived from
#     the README capture of NVIDIA/dcgm-exporter) from a static file server (python3 http.server);
#   - hostile series from the same server: a NaN sample, a series without a gpu label, one
#     without any host label, 100 KiB label values, readings 60 s old (explicit timestamps).
# Then bad inputs: an unreachable URL, 401/403 (a basic-auth front, tests/fixtures/fleet/authproxy.py)
# and the same with --prometheus-config (basic_auth password_file, bearer credentials_file),
# bad PromQL in --match, a config file with a typo, a Prometheus without GPU series, TLS with a
# client certificate (a Prometheus behind --web.config.file), doctor's findings, and a node
# that stops while a query loop runs (shown lost, the others still shown).
# Exit 77 only when prometheus, curl, python3 or openssl are not installed or the tree is not built.
set -u
. "$(dirname "$0")/fleet.lib"
fail() {
    echo "FAIL: $*"
    for f in "$TMP"/out.* "$TMP"/err.*; do [ -f "$f" ] && { echo "--- $f"; head -c 3000 "$f"; echo; }; done
    echo "--- prometheus log (tail)"; tail -n 15 "$TMP/prom.log" 2>/dev/null
    exit 1
}
fleet_init prometheus curl python3 openssl

# GS_OUT/GS_ERR/GS_RC: one run of gpuscope
run() {
    "$GS" "$@" >"$TMP/out.last" 2>"$TMP/err.last"
    GS_RC=$?
    GS_OUT=$(cat "$TMP/out.last")
    GS_ERR=$(cat "$TMP/err.last")
}
expect_fail() { # RC WORDS CMD...: exits with RC, stderr holds WORDS
    local rc=$1 words=$2
    shift 2
    run "$@"
    [ "$GS_RC" = "$rc" ] || fail "$* exited $GS_RC, not $rc: $GS_ERR"
    grep -qF -- "$words" <<<"$GS_ERR" || fail "$*: no '$words' in: $GS_ERR"
}

# 1. the exporters and the static files
fleet_serve node-a ecc
fleet_serve node-b thermal 60 # GPU 0 in hardware thermal slowdown
fleet_serve node-c demo
mkdir -p "$TMP/www"
cp "$ROOT/tests/fixtures/fleet/dcgm-exporter.prom" "$TMP/www/dcgm.prom"
python3 - "$TMP/www" <<'PY'
import sys, time
www = sys.argv[1]
big_model, big_pod = "M" * 100000, "p" * 200000
with open(www + "/hostile.prom", "w") as f:
    f.write('DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-nan",Hostname="node-nan",modelName="NaN board"} NaN\n')
    f.write('DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-nan",Hostname="node-nan",modelName="NaN board"} 100\n')
    f.write('DCGM_FI_DEV_FB_FREE{gpu="0",UUID="GPU-nan",Hostname="node-nan",modelName="NaN board"} 900\n')
    f.write('DCGM_FI_DEV_GPU_UTIL{UUID="GPU-nogpu",Hostname="node-nan"} 50\n')
    f.write('DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-nohost"} 33\n')
    f.write('DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-huge",Hostname="node-huge",modelName="%s",pod="%s"} 12\n'
            % (big_model, big_pod))
with open(www + "/stuck.prom", "w") as f:  # a frozen value: the same at every scrape
    f.write('DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-stuck",Hostname="node-stuck"} 100\n')
old_ms = int((time.time() - 60) * 1000)
with open(www + "/stale.prom", "w") as f:
    f.write('DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-stale",Hostname="node-stale"} 55 %d\n' % old_ms)
    f.write('DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-stale",Hostname="node-stale"} 7 %d\n' % old_ms)
PY
fleet_www "$TMP/www"

# 2. Prometheus, scraping all of them every second
PPORT=$(free_port)
API="http://127.0.0.1:$PPORT"
cat >"$TMP/prometheus.yml" <<YML
global: {scrape_interval: 1s, scrape_timeout: 800ms, evaluation_interval: 1s}
scrape_configs:
  - job_name: gpuscope
    static_configs: [{targets: ['127.0.0.1:${SERVE_PORT[node-a]}', '127.0.0.1:${SERVE_PORT[node-b]}', '127.0.0.1:${SERVE_PORT[node-c]}']}]
  - {job_name: dcgm, metrics_path: /dcgm.prom, static_configs: [{targets: ['127.0.0.1:$WPORT']}]}
  - {job_name: hostile, metrics_path: /hostile.prom, static_configs: [{targets: ['127.0.0.1:$WPORT']}]}
  - {job_name: stuck, metrics_path: /stuck.prom, static_configs: [{targets: ['127.0.0.1:$WPORT']}]}
  - {job_name: stale, metrics_path: /stale.prom, honor_timestamps: true, static_configs: [{targets: ['127.0.0.1:$WPORT']}]}
YML
fleet_bg prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/data" \
    --web.listen-address="127.0.0.1:$PPORT" >"$TMP/prom.log" 2>&1
PROM_PID=$BG_PID
for _ in $(seq 1 120); do curl -sf "$API/-/ready" >/dev/null && break; sleep 0.5; done
curl -sf "$API/-/ready" >/dev/null || { kill -0 "$PROM_PID" 2>/dev/null || { echo "SKIP: prometheus cannot start: $(tail -n 3 "$TMP/prom.log")"; exit 77; }; fail "prometheus not ready"; }

# 3. wait until every target has been scraped: 14 simulated GPUs, 2 of dcgm-exporter
Q=(query --prometheus "$API" --format=csv,noheader --query-gpu=host,index,utilization.gpu,memory.used)
for _ in $(seq 1 120); do
    run "${Q[@]}" --match '{job=~"gpuscope|dcgm"}'
    [ "$(grep -c . <<<"$GS_OUT")" = 16 ] && break
    sleep 0.5
done
[ "$(grep -c . <<<"$GS_OUT")" = 16 ] || fail "the fleet did not show 16 GPUs: $GS_OUT $GS_ERR"
[ "$GS_RC" = 0 ] || fail "query exited $GS_RC: $GS_ERR"

# 4. CSV: every GPU with its node, its index there, and what its exporter said
want=$( (echo "dcgm-node, 0, 0 %, 0 MiB"; echo "dcgm-node, 1, 77 %, 12192 MiB"; # GPUs by node, then index
         expected_rows node-a 4; expected_rows node-b 2; expected_rows node-c 8) )
[ "$GS_OUT" = "$want" ] || fail "CSV differs from the exporters'
--- got
$GS_OUT
--- want
$want"
echo "ok: CSV of 16 GPUs on 4 nodes matches the exporters (host, index, utilization.gpu, memory.used)"

# 5. JSON: host on every GPU; the dcgm-exporter node's readings, blank and derived values
run query --prometheus "$API" --match '{job=~"gpuscope|dcgm"}' --format=json
[ "$GS_RC" = 0 ] || fail "JSON query exited $GS_RC: $GS_ERR"
python3 - "$TMP/out.last" <<'PY' || fail "JSON of the fleet"
import json, sys, collections
d = json.load(open(sys.argv[1]))
assert d["system"]["backend"] == "prometheus", d["system"]
per = collections.Counter(g["host"] for g in d["gpus"])
assert per == {"node-a": 4, "node-b": 2, "node-c": 8, "dcgm-node": 2}, per
g = [g for g in d["gpus"] if g["host"] == "dcgm-node" and g["index"] == 1][0]
assert g["name"] == "Tesla T4" and g["uuid"] == "GPU-8f1e0ab2-5c1d-4e7e-9a55-0c7d2b9e41a3", g
assert g["utilization"]["gpu_pct"] == 77 and g["utilization"]["memory_pct"] == 41, g["utilization"]
m = g["memory"]
assert m["used_bytes"] == 12192 << 20 and m["free_bytes"] == 2718 << 20, m
assert m["total_bytes"] == (12192 + 2718 + 450) << 20, m  # dcgm-exporter has no FB_TOTAL: derived
assert g["clocks"]["sm_mhz"] == 1590 and g["clocks"]["memory_mhz"] == 5000, g["clocks"]
assert g["temperature"]["gpu_c"] == 67, g["temperature"]
# DCGM's blank 9223372036854775794 is no reading, never a temperature
assert g["temperature"]["memory_c"] is None and g["unavailable"]["temperature.memory_c"] == "not_available"
assert abs(g["power"]["draw_w"] - 68.5) < 0.01 and g["power"]["energy_mj"] == 9876543210, g["power"]
assert g["remapped_rows"] == {"correctable": 5, "uncorrectable": 2, "pending": None, "failure": True}, g["remapped_rows"]
g0 = [g for g in d["gpus"] if g["host"] == "dcgm-node" and g["index"] == 0][0]
assert g0["clocks"]["sm_mhz"] == 139 and g0["clocks"]["memory_mhz"] == 405, g0["clocks"]  # the README's capture
assert all(g["state"] == "ok" for g in d["gpus"])
PY
echo "ok: JSON: host on every GPU; dcgm-exporter-only node read from its default counters (blank = no reading)"

# 6. hostile series: NaN, missing labels, huge labels; stale readings
run query --prometheus "$API" --match '{job="hostile"}' --format=json
[ "$GS_RC" = 0 ] || fail "hostile query exited $GS_RC: $GS_ERR"
python3 - "$TMP/out.last" "127.0.0.1:$WPORT" <<'PY' || fail "JSON of hostile series"
import json, sys
d = json.load(open(sys.argv[1]))
hosts = sorted(g["host"] for g in d["gpus"])
assert hosts == sorted(["node-nan", "node-huge", sys.argv[2]]), hosts  # no host label: the scrape target
nan = [g for g in d["gpus"] if g["host"] == "node-nan"][0]
assert nan["utilization"]["gpu_pct"] is None and nan["unavailable"]["utilization.gpu_pct"] == "not_available", nan
assert nan["memory"]["used_bytes"] == 100 << 20 and nan["memory"]["total_bytes"] == 1000 << 20, nan["memory"]
huge = [g for g in d["gpus"] if g["host"] == "node-huge"][0]
assert huge["name"].startswith("MMMM") and len(huge["name"].encode()) < 100, len(huge["name"])
assert huge["utilization"]["gpu_pct"] == 12
assert "without a gpu label" in d["system"]["warning"], d["system"]
PY
[ "${#GS_OUT}" -lt 200000 ] || fail "100 KiB labels flooded the output (${#GS_OUT} bytes)"
run query --prometheus "$API" --match '{job=~"stale|dcgm"}' --format=json
[ "$GS_RC" = 5 ] || fail "60 s old readings: exit $GS_RC, not 5 (partial): $GS_ERR"
python3 - "$TMP/out.last" <<'PY' || fail "JSON of stale readings"
import json, sys
gpus = json.load(open(sys.argv[1]))["gpus"]
assert [g["state"] for g in gpus if g["host"] == "dcgm-node"] == ["ok", "ok"], gpus
g = [g for g in gpus if g["host"] == "node-stale"][0]
assert g["state"] == "lost", g
assert g["utilization"]["gpu_pct"] is None and g["memory"]["used_bytes"] is None, g
assert "no reading from node-stale for" in g["error"], g["error"]
PY
echo "ok: NaN is no reading, unlabelled series left out with a warning, 100 KiB labels cut, 60 s old readings lost"

# 7. bad inputs: each a clear message and a non-zero exit
expect_fail 1 "is unreachable" query --prometheus "http://127.0.0.1:$(free_port)" --format=json
expect_fail 2 "parse error" query --prometheus "$API" --match '{job=~"("}' --format=json
expect_fail 2 "goes with --prometheus" query --match '{job="x"}' --format=json
echo "alice-s3cret" >"$TMP/pass"
echo "tok3n" >"$TMP/token"
chmod 600 "$TMP/pass" "$TMP/token"
fleet_bg python3 -u "$ROOT/tests/fixtures/fleet/authproxy.py" "$API" alice alice-s3cret tok3n >"$TMP/proxy.port"
for _ in $(seq 1 100); do APORT=$(head -n1 "$TMP/proxy.port"); [ -n "$APORT" ] && break; sleep 0.1; done
AUTH="http://127.0.0.1:$APORT"
expect_fail 1 "HTTP 401 Unauthorized" query --prometheus "$AUTH" --format=json
grep -qF -- "--prometheus-config" <<<"$GS_ERR" || fail "401 without a hint at --prometheus-config: $GS_ERR"
printf 'basic_auth:\n  username: alice\n  password: n0t-1t-9x\n' >"$TMP/wrong.yml"
expect_fail 1 "HTTP 403 Forbidden (sent basic auth as \"alice\"" query --prometheus "$AUTH" --prometheus-config "$TMP/wrong.yml" --format=json
grep -q "n0t-1t-9x" <<<"$GS_ERR" && fail "the password leaked into a message: $GS_ERR"
printf '# credentials\nbasic_auth:\n  username: alice\n  password_file: pass\n' >"$TMP/basic.yml"
run "${Q[@]}" --match '{job="gpuscope"}' --prometheus "$AUTH" --prometheus-config "$TMP/basic.yml"
[ "$GS_RC" = 0 ] && [ "$(grep -c . <<<"$GS_OUT")" = 14 ] || fail "basic_auth password_file: rc $GS_RC: $GS_OUT $GS_ERR"
printf 'authorization:\n  credentials_file: %s\n' "$TMP/token" >"$TMP/bearer.yml"
run "${Q[@]}" --match '{job="gpuscope"}' --prometheus "$AUTH" --prometheus-config "$TMP/bearer.yml"
[ "$GS_RC" = 0 ] && [ "$(grep -c . <<<"$GS_OUT")" = 14 ] || fail "bearer credentials_file: rc $GS_RC: $GS_ERR"
printf 'basic_auth:\n  username: alice\n  pasword_file: pass\n' >"$TMP/typo.yml"
expect_fail 2 "typo.yml:3: pasword_file: unknown key in basic_auth" query --prometheus "$AUTH" --prometheus-config "$TMP/typo.yml" --format=json
expect_fail 1 "cannot read the HTTP config" query --prometheus "$AUTH" --prometheus-config "$TMP/none.yml" --format=json
echo "ok: unreachable, bad PromQL, 401, 403, credentials from password_file and credentials_file, config typos"

# 8. a Prometheus without any GPU series (it scrapes only itself)
P2=$(free_port)
printf 'global: {scrape_interval: 1s}\nscrape_configs:\n  - {job_name: self, static_configs: [{targets: [\x27127.0.0.1:%s\x27]}]}\n' "$P2" >"$TMP/empty.yml"
fleet_bg prometheus --config.file="$TMP/empty.yml" --storage.tsdb.path="$TMP/data2" \
    --web.listen-address="127.0.0.1:$P2" >"$TMP/prom2.log" 2>&1
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$P2/-/ready" >/dev/null && break; sleep 0.5; done
expect_fail 4 "no GPU series at http://127.0.0.1:$P2" query --prometheus "http://127.0.0.1:$P2" --format=json
echo "ok: a Prometheus without GPU series: exit 4, says so"

# 8b. TLS: a Prometheus that wants a client certificate, its certificate for prom.test, reached
# at 127.0.0.1 (tls_config ca_file, cert_file/key_file, server_name, insecure_skip_verify)
(cd "$TMP" &&
 openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=fleet-test-ca &&
 openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr -subj /CN=prom.test &&
 printf 'subjectAltName=DNS:prom.test\n' >srv.ext &&
 openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem -days 2 -extfile srv.ext &&
 openssl req -newkey rsa:2048 -nodes -keyout cli.key -out cli.csr -subj /CN=gpuscope &&
 printf 'extendedKeyUsage=clientAuth\n' >cli.ext &&
 openssl x509 -req -in cli.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out cli.pem -days 2 -extfile cli.ext
) >"$TMP/openssl.log" 2>&1 || fail "openssl: $(tail -n 3 "$TMP/openssl.log")"
printf 'tls_server_config:\n  cert_file: %s/srv.pem\n  key_file: %s/srv.key\n  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: %s/ca.pem\n' \
    "$TMP" "$TMP" "$TMP" >"$TMP/web.yml"
P3=$(free_port)
printf 'global: {scrape_interval: 1s}\nscrape_configs:\n  - {job_name: gpuscope, static_configs: [{targets: [\x27127.0.0.1:%s\x27]}]}\n' \
    "${SERVE_PORT[node-a]}" >"$TMP/tls.yml"
fleet_bg prometheus --config.file="$TMP/tls.yml" --storage.tsdb.path="$TMP/data3" --web.config.file="$TMP/web.yml" \
    --web.listen-address="127.0.0.1:$P3" >"$TMP/prom3.log" 2>&1
C=(--cacert "$TMP/ca.pem" --cert "$TMP/cli.pem" --key "$TMP/cli.key" --resolve "prom.test:$P3:127.0.0.1")
for _ in $(seq 1 120); do
    curl -sf "${C[@]}" "https://prom.test:$P3/api/v1/query?query=up" | grep -q '"value"' && break
    sleep 0.5
done
printf 'tls_config:\n  ca_file: ca.pem\n  cert_file: cli.pem\n  key_file: cli.key\n  server_name: prom.test\n' >"$TMP/tls-client.yml"
for _ in $(seq 1 60); do
    run "${Q[@]}" --prometheus "https://127.0.0.1:$P3" --prometheus-config "$TMP/tls-client.yml"
    [ "$(grep -c . <<<"$GS_OUT")" = 4 ] && break
    sleep 0.5
done
[ "$GS_RC" = 0 ] && [ "$(grep -c '^node-a, ' <<<"$GS_OUT")" = 4 ] || fail "TLS with ca_file, client certificate and server_name: rc $GS_RC: $GS_OUT $GS_ERR"
expect_fail 1 "TLS with https://127.0.0.1:$P3 failed" query --prometheus "https://127.0.0.1:$P3" --format=json
printf 'tls_config:\n  ca_file: ca.pem\n  server_name: prom.test\n' >"$TMP/tls-nocert.yml"
run query --prometheus "https://127.0.0.1:$P3" --prometheus-config "$TMP/tls-nocert.yml" --format=json
[ "$GS_RC" = 1 ] || fail "TLS without the client certificate the server requires: rc $GS_RC: $GS_ERR"
printf 'tls_config:\n  cert_file: cli.pem\n  key_file: cli.key\n  insecure_skip_verify: true\n' >"$TMP/tls-insecure.yml"
run "${Q[@]}" --prometheus "https://127.0.0.1:$P3" --prometheus-config "$TMP/tls-insecure.yml"
[ "$GS_RC" = 0 ] && [ "$(grep -c '^node-a, ' <<<"$GS_OUT")" = 4 ] || fail "TLS insecure_skip_verify: rc $GS_RC: $GS_ERR"
echo "ok: TLS: ca_file + client certificate + server_name, refused without the CA or the certificate, insecure_skip_verify"

# 9. doctor: the fleet's health, each finding naming node and GPU
DOC=(doctor --prometheus "$API" --match '{job=~"gpuscope|dcgm|stuck"}' --window 5s)
run "${DOC[@]}" --format json
[ "$GS_RC" = 7 ] || fail "doctor --prometheus exited $GS_RC, not 7 (critical): $GS_ERR"
python3 - "$TMP/out.last" <<'PY' || fail "doctor --prometheus findings"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["nodes"] == 5 and d["gpus"] == 17, (d["nodes"], d["gpus"])
got = {(f["host"], f["gpu"], f["code"]): f for f in d["findings"]}
want = {("dcgm-node", 1, "xid.79"): "critical", ("dcgm-node", 1, "ecc.remap_failed"): "critical",
        ("node-a", 2, "ecc.uncorrectable"): "critical", ("node-a", 2, "ecc.remap_pending"): "warning",
        ("node-b", 0, "thermal.hw_slowdown"): "warning", ("node-stuck", 0, "util.pinned"): "warning"}
for k, sev in want.items():
    assert k in got, ("missing", k, sorted(got))
    assert got[k]["severity"] == sev and got[k]["action"], got[k]
assert "fell off the bus" in got[("dcgm-node", 1, "xid.79")]["title"], got[("dcgm-node", 1, "xid.79")]
assert not [k for k in got if k[0] == "node-c"], sorted(got)  # the demo node is healthy
assert not [k for k in got if k[0] == "dcgm-node" and k[1] == 0], sorted(got)
PY
run "${DOC[@]}"
grep -q "^  node-a GPU 2: uncorrectable ECC errors \[ecc.uncorrectable\]" <<<"$GS_OUT" || fail "doctor text: $GS_OUT"
grep -q "^      do: " <<<"$GS_OUT" || fail "doctor text says what to do: $GS_OUT"
expect_fail 4 "no GPU series" doctor --prometheus "http://127.0.0.1:$P2"
expect_fail 1 "is unreachable" doctor --prometheus "http://127.0.0.1:$(free_port)"
expect_fail 1 "HTTP 401" doctor --prometheus "$AUTH"
echo "ok: doctor --prometheus: Xid 79, ECC and remapping, HW slowdown, pinned utilization, each on its node and GPU"

# 10. a node that stops while a query loop runs: its GPUs shown lost, the others still read
fleet_bg "$GS" "${Q[@]}" --match '{job="gpuscope"}' -l 1 -c 90 >"$TMP/loop.csv" 2>"$TMP/loop.err"
LOOP=$BG_PID
for _ in $(seq 1 60); do [ "$(grep -c . "$TMP/loop.csv")" -ge 14 ] && break; sleep 0.5; done
kill "${SERVE_PID[node-b]}"
for _ in $(seq 1 120); do grep -q "node-b, 1, \[GPU is lost\]" "$TMP/loop.csv" && break; sleep 0.5; done
sleep 1.5 # one more snapshot after the first that shows it lost
kill -TERM "$LOOP"
wait "$LOOP" 2>/dev/null
grep -q "node-b, 0, \[GPU is lost\], \[GPU is lost\]" "$TMP/loop.csv" || fail "node-b never shown lost: $(tail -n 14 "$TMP/loop.csv")"
last=$(tail -n 14 "$TMP/loop.csv")
[ "$(grep -c '^node-b, .*GPU is lost' <<<"$last")" = 2 ] || fail "the last snapshot does not show node-b's 2 GPUs lost: $last"
[ "$(grep -c '^node-[ac], [0-9]*, [0-9]* %, [0-9]* MiB$' <<<"$last")" = 12 ] || fail "the rest of the fleet is not shown: $last"
grep -q "node-b GPU 0: no series from node-b" "$TMP/loop.err" || fail "no message on the lost node: $(cat "$TMP/loop.err")"
echo "ok: a node that stops is shown lost (not dropped); the other 12 GPUs still read"
run "${DOC[@]}" --format json
python3 - "$TMP/out.last" <<'PY' || fail "doctor after a node stopped"
import json, sys
f = [f for f in json.load(open(sys.argv[1]))["findings"] if f["code"] == "fleet.node_missing"]
assert [(x["host"], x["gpu"], x["evidence"]) for x in f] == [("node-b", None, "0 of its 2 GPUs (seen in the last day) have series now")], f
PY
echo "ok: doctor --prometheus: the stopped node's 2 GPUs are missing against the day's count"
