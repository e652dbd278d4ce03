#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/top.sh - `gpuscope top` figures, measured from outside the process, on the simulator's
# 8 GPU x 64 process scenario (bench-8x64, live PIDs passed in):
#   CPU per refresh at 1 s and 100 ms intervals (/proc/PID/stat utime+stime over a window,
#   plus the threads' schedstat for ns resolution; the simulator runs in-process, so it is included),
#   peak RSS (/usr/bin/time -v), key press to redrawn screen (bytes on the pty, no tmux in between).
# Targets (issue 3): <= 1.5 ms CPU per refresh, <= 8 MiB peak RSS, <= 20 ms key to screen.
# usage: bench/top.sh [BUILD_DIR]   (env: GS_BENCH_WINDOW_S=20 for the 1 s run)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
exec python3 - "$ROOT" "$BUILD" <<'PY'
import fcntl, os, pty, select, signal, struct, subprocess, sys, termios, time, tempfile, statistics

ROOT, BUILD = sys.argv[1], sys.argv[2]
WINDOW_1S = float(os.environ.get("GS_BENCH_WINDOW_S", "20"))
HZ = os.sysconf("SC_CLK_TCK")

sleepers = [subprocess.Popen(["sleep", "3600"]) for _ in range(64)]
tmp = tempfile.mkdtemp(prefix="gs-bench-top-")
env = dict(os.environ, GPUSCOPE_NVML_LIB=f"{BUILD}/sim/current/libnvidia-ml.so.1",
           GPUSCOPE_SIM_SCENARIO="bench-8x64", GPUSCOPE_SIM_SCENARIO_DIR=f"{ROOT}/sim/scenarios",
           GPUSCOPE_SIM_PIDS=",".join(str(p.pid) for p in sleepers), XDG_CONFIG_HOME=tmp,
           TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8")
env.pop("NO_COLOR", None)


class Top:
    def __init__(self, interval):
        self.timef = os.path.join(tmp, "time.txt")
        argv = ["/usr/bin/time", "-v", "-o", self.timef, f"{BUILD}/gpuscope", "top", "--no-save",
                "-d", str(interval)]
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 60, 200, 0, 0))
            os.execve(argv[0], argv, env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 60, 200, 0, 0))
        self.buf = b""
        self.read_until(b"PID", 15)
        self.gs = self.find_child()

    def find_child(self):
        for _ in range(100):
            try:
                with open(f"/proc/{self.pid}/task/{self.pid}/children") as f:
                    kids = f.read().split()
                if kids:
                    return int(kids[0])
            except OSError:
                pass
            time.sleep(0.01)
        raise SystemExit("cannot find gpuscope's PID")

    def drain(self, timeout=0.0):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if r:
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                return b""
            self.buf = (self.buf + data)[-65536:]
            return data
        return b""

    def read_until(self, needle, timeout):
        end = time.monotonic() + timeout
        seen = b""
        while time.monotonic() < end:
            seen += self.drain(0.01)
            if needle in seen:
                return True
        raise SystemExit(f"timed out waiting for {needle!r}")

    def cpu(self):
        with open(f"/proc/{self.gs}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])
        ns = 0
        for t in os.listdir(f"/proc/{self.gs}/task"):
            try:
                with open(f"/proc/{self.gs}/task/{t}/schedstat") as f:
                    ns += int(f.read().split()[0])
            except OSError:
                pass
        return ticks, ns

    def quit(self):
        os.write(self.fd, b"q")
        end = time.monotonic() + 10
        while time.monotonic() < end:
            self.drain(0.05)
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                break
        with open(self.timef) as f:
            for line in f:
                if "Maximum resident set size" in line:
                    return int(line.split(":")[1]) / 1024.0
        return float("nan")


def cpu_per_refresh(interval, window):
    top = Top(interval)
    end = time.monotonic() + 2
    while time.monotonic() < end:  # warm up: caches, first ticks
        top.drain(0.05)
    t0, n0 = top.cpu()
    start = time.monotonic()
    while time.monotonic() - start < window:
        top.drain(0.05)
    t1, n1 = top.cpu()
    elapsed = time.monotonic() - start
    refreshes = elapsed / interval
    rss = top.quit()
    stat_ms = (t1 - t0) * 1000.0 / HZ / refreshes
    sched_ms = (n1 - n0) / 1e6 / refreshes
    return stat_ms, sched_ms, rss, refreshes


def key_latency(n=30):
    top = Top(1.0)
    lat = []
    for i in range(n):
        time.sleep(0.15)
        top.drain(0.0)
        t0 = time.monotonic()
        os.write(top.fd, b"?")
        top.read_until(b"this help", 5)
        lat.append((time.monotonic() - t0) * 1000)
        time.sleep(0.1)
        t0 = time.monotonic()
        os.write(top.fd, b"x")
        top.read_until(b"F1 Help", 5)
        lat.append((time.monotonic() - t0) * 1000)
    top.quit()
    return lat


try:
    s1, n1, rss1, r1 = cpu_per_refresh(1.0, WINDOW_1S)
    print(f"top 8x64 @1s:    CPU per refresh {n1:.3f} ms (schedstat), {s1:.2f} ms (/proc stat ticks), "
          f"{r1:.0f} refreshes; peak RSS {rss1:.1f} MiB   [target <= 1.5 ms, <= 8 MiB]")
    s2, n2, rss2, r2 = cpu_per_refresh(0.1, WINDOW_1S / 2)
    print(f"top 8x64 @100ms: CPU per refresh {n2:.3f} ms (schedstat), {s2:.2f} ms (/proc stat ticks), "
          f"{r2:.0f} refreshes; peak RSS {rss2:.1f} MiB   [target <= 1.5 ms, <= 8 MiB]")
    lat = key_latency()
    lat.sort()
    print(f"top key to screen: median {statistics.median(lat):.1f} ms, p95 {lat[int(len(lat) * 0.95) - 1]:.1f} ms, "
          f"max {lat[-1]:.1f} ms over {len(lat)} keys   [target <= 20 ms]")
finally:
    for p in sleepers:
        p.kill()
        p.wait()
PY
