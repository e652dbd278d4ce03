#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fleet-views.sh - `top --prometheus` and `report --prometheus` against a real
# Prometheus (Debian's package) scraping three `gpuscope serve` on simulator
# scenarios with distinct values (node-a demo: 8 H100, node-b thermal: 2 L40S,
# node-c xid79: 4 A100, one fallen off the bus) and a dcgm-exporter-only
# node (its text exposition, no Hostname label, from a static file server),
# all on loopback: the node rows, Enter on a node and on a GPU, sort and
# filter keys (driven in tmux), a node lost after its exporter stops, the
# start-up errors, and the report's per-node table against PromQL.
# Exit 77 only when prometheus, tmux or python3 is not installed.
set -u
. "$(dirname "$0")/serve-test.lib"
serve_test_init prometheus tmux curl python3
fail() { echo "FAIL: $*"; [ -f "$TMP/pane.txt" ] && { echo "--- pane"; cat "$TMP/pane.txt"; };
         echo "--- prometheus log (tail)"; tail -n 10 "$TMP/prom.log" 2>/dev/null; exit 1; }
SESSION=gsfleet$$
PIDS=()
fleet_cleanup() {
    tmux kill-session -t "$SESSION" 2>/dev/null
    [ "${#PIDS[@]}" -gt 0 ] && kill "${PIDS[@]}" 2>/dev/null && wait "${PIDS[@]}" 2>/dev/null
    serve_test_cleanup
}
trap fleet_cleanup EXIT

# 1. three exporters, each on its own scenario and node name
declare -A PORT SPID
for spec in a:demo b:thermal c:xid79; do
    h=${spec%%:*}
    env GPUSCOPE_NVML_LIB="$ROOT/build/sim/current/libnvidia-ml.so.1" GPUSCOPE_SIM_SCENARIO_DIR="$ROOT/sim/scenarios" \
        GPUSCOPE_SIM_SCENARIO="${spec#*:}" NODE_NAME="node-$h" "$GS" serve --listen 127.0.0.1:0 2>"$TMP/serve-$h.err" &
    SPID[$h]=$!
    PIDS+=($!)
done
for h in a b c; do
    for _ in $(seq 1 100); do
        PORT[$h]=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$TMP/serve-$h.err")
        [ -n "${PORT[$h]}" ] && break
        sleep 0.1
    done
    [ -n "${PORT[$h]}" ] || fail "serve for node-$h did not start: $(cat "$TMP/serve-$h.err")"
done
# the dcgm-exporter-only node: dcgm-exporter's names and labels, no Hostname
mkdir -p "$TMP/www"
for g in 0 1; do
    l="gpu=\"$g\",UUID=\"GPU-dcgm-$g\",device=\"nvidia$g\",modelName=\"Tesla T4\""
    echo "DCGM_FI_DEV_GPU_UTIL{$l} $((40 + g * 20))"
    echo "DCGM_FI_DEV_FB_USED{$l} 1000"
    echo "DCGM_FI_DEV_FB_FREE{$l} 14000"
    echo "DCGM_FI_DEV_GPU_TEMP{$l} 50"
    echo "DCGM_FI_DEV_POWER_USAGE{$l} 35.5"
    echo "DCGM_FI_DEV_XID_ERRORS{$l} 0"
done >"$TMP/www/metrics"
WPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$TMP/www" "$WPORT" >/dev/null 2>&1 &
PIDS+=($!)

# 2. Prometheus scraping all four every second
cat >"$TMP/prometheus.yml" <<YML
global: { scrape_interval: 1s, evaluation_interval: 1s }
scrape_configs:
  - job_name: gpu
    static_configs:
      - targets: ['127.0.0.1:${PORT[a]}', '127.0.0.1:${PORT[b]}', '127.0.0.1:${PORT[c]}', '127.0.0.1:$WPORT']
YML
prom_start "$TMP/prometheus.yml"
for _ in $(seq 1 120); do
    [ "$(query 'count(count by (instance) (DCGM_FI_DEV_FB_USED))')" = 4 ] &&
        [ -n "$(query 'gpuscope_health_finding{code="xid.79"}')" ] && break
    sleep 0.5
done
[ "$(query 'count(count by (instance) (DCGM_FI_DEV_FB_USED))')" = 4 ] || fail "Prometheus did not scrape all four"
sleep 3 # a few samples for the charts and the report

# 3. --batch: one row per node, the figures of each scenario
"$GS" top --prometheus "$API" --batch 1 >"$TMP/batch.txt" 2>&1 || fail "top --batch: $(cat "$TMP/batch.txt")"
row() { grep -E "^$1 " "$TMP/batch.txt"; }
gpus() { row "$1" | awk '{print $2}'; }
[ "$(gpus node-a)" = 8 ] || fail "node-a: 8 GPUs expected: $(row node-a)"
[ "$(gpus node-b)" = 2 ] || fail "node-b: 2 GPUs expected: $(row node-b)"
[ "$(gpus node-c)" = 4 ] || fail "node-c: 4 GPUs expected (one off the bus still counts): $(row node-c)"
[ "$(gpus "127.0.0.1:$WPORT")" = 2 ] || fail "the dcgm-only node by its instance: $(cat "$TMP/batch.txt")"
row node-c | grep -q 'C1 xid.79' || fail "node-c: the critical Xid 79 finding: $(row node-c)"
[ "$(row node-c | awk '{print $10}')" -ge 1 ] || fail "node-c: an Xid in the last hour: $(row node-c)"
row "127.0.0.1:$WPORT" | grep -q ' 50% .* 60% ' || fail "dcgm node: mean 50 %, max 60 %: $(row "127.0.0.1:$WPORT")"
grep -q '^4 nodes (0 lost), 16 GPUs; 12 requests' "$TMP/batch.txt" || fail "status line: $(head -1 "$TMP/batch.txt")"
"$GS" top --prometheus "$API" --batch 1 --node node-b >"$TMP/node.txt" 2>&1 || fail "top --node"
[ "$(grep -c 'NVIDIA L40S' "$TMP/node.txt")" = 2 ] || fail "node-b's two L40S: $(cat "$TMP/node.txt")"

# 4. start-up errors: unreachable, no GPU series; non-zero exits with a message
dead=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$GS" top --prometheus "http://127.0.0.1:$dead" --batch 1 >"$TMP/e1.txt" 2>&1 && fail "unreachable URL exited 0"
grep -qi '127.0.0.1:'"$dead" "$TMP/e1.txt" || fail "unreachable: the message names the URL: $(cat "$TMP/e1.txt")"
"$GS" top --prometheus "$API" --match '{cluster="none"}' --batch 1 >"$TMP/e2.txt" 2>&1 && fail "no series exited 0"
grep -q 'no GPU series' "$TMP/e2.txt" || fail "no series: $(cat "$TMP/e2.txt")"
"$GS" top --match '{a="b"}' >"$TMP/e3.txt" 2>&1; [ $? = 2 ] || fail "--match without --prometheus: usage error"

# 5. the live view in tmux
pane() { tmux capture-pane -p -t "$SESSION" >"$TMP/pane.txt"; }
wait_pane() { # PATTERN [SECONDS]
    for _ in $(seq 1 $((${2:-20} * 5))); do pane; grep -qE "$1" "$TMP/pane.txt" && return 0; sleep 0.2; done
    fail "pane never showed /$1/"
}
tmux new-session -d -s "$SESSION" -x 200 -y 40 \
    "TERM=xterm-256color '$GS' top --prometheus '$API'; echo EXIT=\$? >'$TMP/exit'; sleep 600"
wait_pane '^node-c '
wait_pane 'every 1s'
[ "$(grep -cE '^(node-[abc]|127\.0\.0\.1:)' "$TMP/pane.txt")" = 4 ] || fail "four node rows"
tmux send-keys -t "$SESSION" j j Enter # rows: 127.0.0.1:PORT, node-a, node-b, node-c
wait_pane 'node node-b \(Esc: back\)'
wait_pane '^ +1 NVIDIA L40S'
tmux send-keys -t "$SESSION" Enter
wait_pane 'node node-b GPU 0: processes'
wait_pane '^ +[0-9]+ +[a-z]'
tmux send-keys -t "$SESSION" BSpace
wait_pane '^ +0 NVIDIA L40S'
tmux send-keys -t "$SESSION" BSpace
wait_pane '^NODE'
tmux send-keys -t "$SESSION" s
wait_pane 'GPUSv'
pane
first=$(grep -E '^(node-|127\.)' "$TMP/pane.txt" | head -1 | awk '{print $1}')
[ "$first" = node-a ] || fail "sorted by GPUs: node-a (8) first, not $first"
tmux send-keys -t "$SESSION" / n o d e - c Enter
wait_pane 'filter: node-c|/ filter: node-c'
pane
[ "$(grep -cE '^(node-|127\.)' "$TMP/pane.txt")" = 1 ] || fail "the filter shows node-c only"
tmux send-keys -t "$SESSION" BSpace
wait_pane '^node-b '

# 6. node-c's exporter stops: its row stays, marked lost
kill "${SPID[c]}"
wait "${SPID[c]}" 2>/dev/null
wait_pane '^node-c .*LOST since [0-9:]+' 60
wait_pane '\(1 lost\)' 10
grep -qE '^node-a ' "$TMP/pane.txt" || fail "the rest of the fleet is still shown"
tmux send-keys -t "$SESSION" q
for _ in $(seq 1 50); do [ -s "$TMP/exit" ] && break; sleep 0.2; done
grep -q 'EXIT=0' "$TMP/exit" 2>/dev/null || fail "top did not quit with 0: $(cat "$TMP/exit" 2>/dev/null)"

# 7. the report over the last minutes: the per-node table, figures against PromQL
"$GS" report --prometheus "$API" --since 2m -f term >"$TMP/rep.txt" 2>"$TMP/rep.err" || fail "report: $(cat "$TMP/rep.err")"
"$GS" report --prometheus "$API" --since 2m -o "$TMP/fleet.html" 2>>"$TMP/rep.err" || fail "report html"
for h in node-a node-b node-c "127.0.0.1:$WPORT"; do
    grep -q "<tr><td>$h</td>" "$TMP/fleet.html" || fail "the HTML table lacks $h"
done
grep -q 'id="hu"' "$TMP/fleet.html" || fail "no utilization heatmap"
rrow() { grep -E "^$1 " "$TMP/rep.txt"; }
[ "$(rrow node-a | awk '{print $2}')" = 8 ] || fail "report: node-a 8 GPUs: $(cat "$TMP/rep.txt")"
[ "$(rrow node-b | awk '{print $2}')" = 2 ] || fail "report: node-b 2 GPUs: $(rrow node-b)"
# the dcgm node's values are constant: mean 50 %, power 71 W, so energy = 71 W x its hours
d=$(rrow "127.0.0.1:$WPORT")
echo "$d" | awk '{exit !($4 == 50.0)}' || fail "report: dcgm node mean utilization 50: $d"
echo "$d" | awk '{exit !($9 == 71)}' || fail "report: dcgm node mean power 71 W: $d"
echo "$d" | awk '{h = $3 / $2; e = 71 * h / 1000; exit !($8 > e * 0.9 && $8 < e * 1.1)}' ||
    fail "report: dcgm node energy = mean power x hours: $d"
a_pw=$(query 'sum(avg_over_time(DCGM_FI_DEV_POWER_USAGE{Hostname="node-a"}[90s]))')
rrow node-a | awk -v p="$a_pw" '{exit !($9 > p * 0.8 && $9 < p * 1.2)}' ||
    fail "report: node-a mean power near PromQL's $a_pw W: $(rrow node-a)"
echo "PASS: fleet views (top rows, drill-down, sort, filter, lost node, errors, report)"
