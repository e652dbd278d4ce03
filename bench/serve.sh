#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/serve.sh - the exporter's benchmark (issue 4): `gpuscope serve` on the
# bench-8x64 scenario (8 GPUs x 64 processes, PIDs = live `sleep` children),
# 1 s sampling, loopback only. Measures:
#   scrape latency p50/p99, one client back to back      (target p99 <= 2 ms)
#   scrapes/s with 50 concurrent keep-alive clients       (target >= 5,000/s, no errors)
#   RSS at rest and peak under load                       (target <= 10 MiB)
#   CPU at 1 s sampling with one scrape every 15 s        (target <= 0.2 % of a core)
# The 50 clients come from one address: the per-address limit (default 8) is raised to 64.
# Uses wrk (apt-get install wrk) when installed, else a slower Python client
# (the throughput figure then measures the client, and says so).
# Environment: O (build dir, default build), SERVE_BENCH_SECONDS (load duration, 10),
#              SERVE_BENCH_IDLE (CPU measurement window, 30), SERVE_BENCH_ARGS (more serve
#              options, e.g. a kubelet socket: bench/kubelet.sh runs this script with them).
set -uo pipefail
. "$(dirname "$0")/bench.lib"
SECS=${SERVE_BENCH_SECONDS:-10}
IDLE=${SERVE_BENCH_IDLE:-30}
SERVE_PID=
bench_init serve SERVE_PID
[ -x "$GS" ] || { echo "serve bench: build $GS first"; exit 2; }

bench_sleepers 64

GPUSCOPE_NVML_LIB=$ROOT/$O/sim/current/libnvidia-ml.so.1 GPUSCOPE_SIM_SCENARIO=bench-8x64 \
GPUSCOPE_SIM_SCENARIO_DIR=$ROOT/sim/scenarios GPUSCOPE_SIM_PIDS=$pidlist \
    "$GS" serve --listen 127.0.0.1:0 --interval 1s --max-connections-per-ip 64 ${SERVE_BENCH_ARGS:-} 2>"$TMP/err" &
SERVE_PID=$!
for _ in $(seq 1 100); do
    PORT=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$TMP/err" 2>/dev/null)
    [ -n "$PORT" ] && break
    sleep 0.1
done
[ -n "${PORT:-}" ] || { echo "serve bench: gpuscope serve did not start"; cat "$TMP/err"; exit 2; }
URL="http://127.0.0.1:$PORT/metrics"
sleep 2

kib() { awk -v k="$1" '$1 == k":" { print $2 }' "/proc/$SERVE_PID/status"; }
ticks() { awk '{ print $14 + $15 }' "/proc/$SERVE_PID/stat"; }
bytes=$(curl -s "$URL" | wc -c)
series=$(curl -s "$URL" | grep -vc '^#')
rss_rest=$(kib VmRSS)

# CPU at rest: 1 s sampling, one scrape every 15 s
hz=$(getconf CLK_TCK)
t0=$(ticks); s0=$(date +%s.%N)
for ((i = 0; i < IDLE; i += 15)); do curl -s -o /dev/null "$URL"; sleep 15; done
t1=$(ticks); s1=$(date +%s.%N)
cpu=$(awk -v a="$t0" -v b="$t1" -v s="$s0" -v e="$s1" -v hz="$hz" 'BEGIN { printf "%.3f", (b - a) / hz / (e - s) * 100 }')

if command -v wrk >/dev/null; then
    wrk -t1 -c1 -d"${SECS}s" --latency "$URL" >"$TMP/lat.txt" 2>&1
    p50=$(awk '$1 == "50%" { print $2 }' "$TMP/lat.txt")
    p99=$(awk '$1 == "99%" { print $2 }' "$TMP/lat.txt")
    wrk -t2 -c50 -d"${SECS}s" "$URL" >"$TMP/load.txt" 2>&1
    rps=$(awk '/^Requests\/sec/ { printf "%.0f", $2 }' "$TMP/load.txt")
    errs=$(awk '/Socket errors|Non-2xx/ { print }' "$TMP/load.txt" | tr '\n' ' ')
    client=wrk
else
    python3 - "$URL" "$SECS" >"$TMP/py.txt" <<'PY'
import sys, time, threading, http.client, urllib.parse
u = urllib.parse.urlparse(sys.argv[1]); secs = float(sys.argv[2])
def run(n_threads, out):
    stop = time.time() + secs; lat = []; errs = [0]
    def worker():
        c = http.client.HTTPConnection(u.hostname, u.port)
        while time.time() < stop:
            t = time.perf_counter()
            try:
                c.request("GET", u.path); r = c.getresponse(); r.read()
                if r.status != 200: errs[0] += 1
            except Exception:
                errs[0] += 1; c = http.client.HTTPConnection(u.hostname, u.port)
            lat.append(time.perf_counter() - t)
    ts = [threading.Thread(target=worker) for _ in range(n_threads)]
    [t.start() for t in ts]; [t.join() for t in ts]
    lat.sort(); out.update(n=len(lat), errs=errs[0], p50=lat[len(lat)//2]*1e3, p99=lat[int(len(lat)*.99)]*1e3)
a = {}; run(1, a); b = {}; run(50, b)
print(f"{a['p50']:.2f}ms {a['p99']:.2f}ms {b['n']/secs:.0f} {b['errs']}")
PY
    read -r p50 p99 rps nerr <"$TMP/py.txt"
    errs=$([ "$nerr" = 0 ] || echo "$nerr errors")
    client="python (client-bound)"
fi
rss_peak=$(kib VmHWM)
rss_after=$(kib VmRSS)

printf '\n== gpuscope serve: bench-8x64 (8 GPUs x 64 processes), 1 s sampling, client %s\n' "$client"
# latency and throughput share the CPUs with everything else: say how busy the machine was
printf '  %-44s %s (%s CPUs)\n' "load average at the end" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"
printf '  %-44s %s\n' "exposition size" "$bytes bytes, $series series"
printf '  %-44s %s / %s   (target p99 <= 2 ms)\n' "scrape latency p50 / p99 (1 client)" "$p50" "$p99"
printf '  %-44s %s/s %s  (target >= 5000/s, no errors)\n' "scrapes per second, 50 clients, ${SECS}s" "$rps" "${errs:-no errors}"
printf '  %-44s %s KiB at rest, %s KiB peak, %s KiB after   (target <= 10240)\n' "RSS" "$rss_rest" "$rss_peak" "$rss_after"
printf '  %-44s %s %% of a core   (target <= 0.2 %%)\n' "CPU, 1 s sampling, a scrape every 15 s" "$cpu"
