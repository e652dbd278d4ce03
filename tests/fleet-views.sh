#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fleet-views.sh - `top --prometheus` and `report --prometheus` against a real
# Prometheus (Debian's package) scraping three `gpuscope serve` on simulator
# scenarios with distinct values (node-a demo: 8 H100, node-b thermal: 2 L40S,
# node-c xid79: 4 A100, one fallen off the bus) and a dcgm-exporter-only
# node (its text exposition, no Hostname label, from a static file server),
# all on loopback: the node rows, Enter on a node and on a GPU, sort and
# filter keys (driven in tmux), a node lost after its exporter stops, the
# start-up errors, and the report's per-node table against PromQL; the
# report of one node (by Hostname, and the dcgm node by instance) and of one
# Slurm job (node-a's GPUs 1 and 3 run job 4242, GPU 3 job 4243 too: serve's
# hpc_job label from a dcgm-exporter mapping directory; a GPU with two jobs
# counts once), a selection that matches nothing.
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

# 1. three exporters, each on its own scenario and node name; node-a's GPUs 1 and 3 run Slurm job 4242
mkdir -p "$TMP/jobs-a" "$TMP/jobs-none"
echo 4242 >"$TMP/jobs-a/1"
printf '4242\n4243\n' >"$TMP/jobs-a/3" # two jobs on GPU 3: two series of it, one GPU
declare -A PORT SPID
for spec in a:demo b:thermal c:xid79; do
    h=${spec%%:*}
    jobs="$TMP/jobs-none"
    [ "$h" = a ] && jobs="$TMP/jobs-a"
    env GPUSCOPE_NVML_LIB="$ROOT/build/sim/current/libnvidia-ml.so.1" GPUSCOPE_SIM_SCENARIO_DIR="$ROOT/sim/scenarios" \
        GPUSCOPE_SIM_SCENARIO="${spec#*:}" NODE_NAME="node-$h" "$GS" serve --listen 127.0.0.1:0 \
        --hpc-job-mapping-dir "$jobs" 2>"$TMP/serve-$h.err" &
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
# node-a's GPUs 1 and 3 carry HPC jobs (3 twice): their series repeat per job, and a
# node's power counts each GPU once (against PromQL over distinct GPUs, same refresh window)
pw_gs=$(row node-a | awk '{print $8}' | tr -d W)
pw_pq=$(query 'sum(max by (gpu) (DCGM_FI_DEV_POWER_USAGE{Hostname="node-a"}))')
pw_dup=$(query 'sum(DCGM_FI_DEV_POWER_USAGE{Hostname="node-a"})')
python3 -c 'import sys; g,p,d=map(float,sys.argv[1:]); sys.exit(0 if d > p * 1.05 and abs(g - p) <= 0.04 * p else 1)' \
    "$pw_gs" "$pw_pq" "$pw_dup" ||
    fail "node-a's power counts a GPU with two jobs once: top $pw_gs W, distinct GPUs $pw_pq W, all series $pw_dup W"
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

# 8. one node: its GPUs exactly, per-GPU figures against PromQL
"$GS" report --prometheus "$API" --since 2m --node node-b -f term >"$TMP/nb.txt" 2>"$TMP/nb.err" ||
    fail "report --node: $(cat "$TMP/nb.err")"
grep -q '^GPU report of node "node-b"' "$TMP/nb.txt" || fail "report --node: the title: $(head -1 "$TMP/nb.txt")"
rows=$(awk '/^node:GPU /{t=1; next} t && /^$/{exit} t{print $1}' "$TMP/nb.txt" | tr '\n' ' ')
[ "$rows" = "node-b:0 node-b:1 " ] || fail "report --node node-b: rows node-b:0 node-b:1, not '$rows': $(cat "$TMP/nb.txt")"
grep -q '^1 nodes, 2 GPUs' "$TMP/nb.txt" || fail "report --node: totals: $(cat "$TMP/nb.txt")"
for g in 0 1; do
    pw=$(query "avg_over_time(DCGM_FI_DEV_POWER_USAGE{Hostname=\"node-b\",gpu=\"$g\"}[90s])")
    grep -E "^node-b:$g " "$TMP/nb.txt" | awk -v p="$pw" '{exit !($2 == 1 && $9 > p * 0.8 && $9 < p * 1.2)}' ||
        fail "report --node: node-b:$g one GPU, mean power near PromQL's $pw W: $(grep "^node-b:$g " "$TMP/nb.txt")"
    mx=$(query "max_over_time(DCGM_FI_DEV_GPU_TEMP{Hostname=\"node-b\",gpu=\"$g\"}[3m])")
    grep -E "^node-b:$g " "$TMP/nb.txt" | awk -v m="$mx" '{exit !($11 > 0 && $11 <= m + 0.5)}' ||
        fail "report --node: node-b:$g peak temperature within PromQL's max $mx: $(grep "^node-b:$g " "$TMP/nb.txt")"
done
grep -q 'requests' "$TMP/nb.err" && [ "$(sed -n 's/.*, \([0-9]*\) requests.*/\1/p' "$TMP/nb.err")" = 5 ] ||
    fail "report --node: the fleet report's 5 requests: $(cat "$TMP/nb.err")"
# the dcgm node has no Hostname: selected by its instance; its constant values exactly
"$GS" report --prometheus "$API" --since 2m --node "127.0.0.1:$WPORT" -f term >"$TMP/nd.txt" 2>&1 ||
    fail "report --node by instance: $(cat "$TMP/nd.txt")"
grep -E "^127\.0\.0\.1:$WPORT:0 " "$TMP/nd.txt" | awk '{exit !($4 == 40.0 && $9 == 36)}' ||
    fail "dcgm node GPU 0: 40 %, 35.5 W: $(cat "$TMP/nd.txt")"
grep -E "^127\.0\.0\.1:$WPORT:1 " "$TMP/nd.txt" | awk '{exit !($4 == 60.0)}' || fail "dcgm node GPU 1: 60 %"
"$GS" report --prometheus "$API" --since 2m --node node-b -o "$TMP/nb.html" 2>/dev/null || fail "report --node html"
grep -q '<tr><td>node-b:1</td>' "$TMP/nb.html" && grep -q 'GPU &times; time' "$TMP/nb.html" &&
    ! grep -q '<tr><td>node-a' "$TMP/nb.html" || fail "report --node html: node-b's GPU rows, GPU x time heatmaps"

# 9. one Slurm job (hpc_job): the node:GPU rows it ran on, and its own group row
"$GS" report --prometheus "$API" --since 2m --job 4242 -f term >"$TMP/job.txt" 2>&1 || fail "report --job: $(cat "$TMP/job.txt")"
rows=$(awk '/^node:GPU /{t=1; next} t && /^$/{exit} t{print $1}' "$TMP/job.txt" | tr '\n' ' ')
[ "$rows" = "node-a:1 node-a:3 " ] || fail "report --job 4242: rows node-a:1 node-a:3, not '$rows': $(cat "$TMP/job.txt")"
grep -q '^job/4242 ' "$TMP/job.txt" || fail "report --job: the job's row: $(cat "$TMP/job.txt")"
"$GS" report --prometheus "$API" --since 2m --job 4243 -f term >"$TMP/job2.txt" 2>&1 || fail "report --job 4243"
rows=$(awk '/^node:GPU /{t=1; next} t && /^$/{exit} t{print $1}' "$TMP/job2.txt" | tr '\n' ' ')
[ "$rows" = "node-a:3 " ] || fail "report --job 4243: row node-a:3 alone, not '$rows'"
# node-a's GPU 3 has a series per job: still one GPU, as many GPU-hours as GPU 0
"$GS" report --prometheus "$API" --since 2m --node node-a -f term >"$TMP/na.txt" 2>&1 || fail "report --node node-a"
[ "$(grep -cE '^node-a:[0-7] ' "$TMP/na.txt")" = 8 ] || fail "report --node node-a: 8 GPU rows: $(cat "$TMP/na.txt")"
h0=$(grep -E '^node-a:0 ' "$TMP/na.txt" | awk '{print $3}')
grep -E '^node-a:3 ' "$TMP/na.txt" | awk -v h="$h0" '{exit !($2 == 1 && $3 == h)}' ||
    fail "report --node: node-a:3 (two jobs) one GPU with GPU 0's $h0 GPU-hours: $(grep '^node-a:3 ' "$TMP/na.txt")"
grep -qE '^job/4243 ' "$TMP/na.txt" || fail "report --node node-a: the jobs on it: $(cat "$TMP/na.txt")"

# 10. selections that match nothing, or cannot be a label value: clear errors, non-zero
"$GS" report --prometheus "$API" --since 2m --node nosuch -f term >"$TMP/s1.txt" 2>&1 && fail "no-match node exited 0"
grep -q 'no GPU series of node "nosuch"' "$TMP/s1.txt" || fail "no-match: names the selection: $(cat "$TMP/s1.txt")"
"$GS" report --prometheus "$API" --since 2m --job '4242"} or vector(1) or {a="' -f term >"$TMP/s2.txt" 2>&1 &&
    fail "a job name with quotes exited 0"
grep -q 'no GPU series of job' "$TMP/s2.txt" || fail "quotes in --job stay in the label value: $(cat "$TMP/s2.txt")"
"$GS" report --prometheus "$API" --pod "$(printf 'a\nb')" >"$TMP/s3.txt" 2>&1; [ $? = 2 ] ||
    fail "--pod with a newline: usage error: $(cat "$TMP/s3.txt")"
"$GS" report --node node-a >"$TMP/s4.txt" 2>&1; [ $? = 2 ] || fail "--node without --prometheus: usage error"
echo "PASS: fleet views (top rows, drill-down, sort, filter, lost node, errors, report, node/job report)"
