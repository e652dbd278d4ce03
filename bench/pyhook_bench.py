#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pyhook_bench.py - what gpuscope's Python hook costs the process it is in
(bench/pyhook.sh runs it with Debian's python3 and python3-torch).

  start-up   `python3 -c pass` and `python3 -c "import torch"`, with and without the hook
  idle       CPU time of a sleeping process (torch imported) over 10 s, with the hook, not
             asked / asked every second, against no hook
  busy       the CPU time of a fixed amount of work (pure-Python loop; torch matmuls on the
             CPU), no hook / hook not asked / asked every second (what top, serve, record do:
             once a second) / asked 10 times a second for stats and once a second for stacks
             (a stress far beyond what gpuscope does)

Every configuration runs REPS times, interleaved, so load changes hit them alike; the
figure is the median, and the ratio to "no hook" in the same run. The poller is a
separate process (like gpuscope); the job's own CPU time (getrusage: every thread of it,
the hook's included) is what is measured.
"""
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOOK = os.path.join(ROOT, "python", "hook")
PY = sys.executable
REPS = int(os.environ.get("REPS", "5"))

JOB = r'''
import os, resource, sys, time
kind, n = sys.argv[1], int(sys.argv[2])
if kind == "torch":
    import torch
    torch.set_num_threads(1)
    a = torch.rand(256, 256)
open(os.environ["READY"], "w").close()
time.sleep(0.3)   # the poller starts
r0 = resource.getrusage(resource.RUSAGE_SELF); w0 = time.perf_counter()
if kind == "python":
    s = 0
    for i in range(n):
        s += i * i % 7
elif kind == "torch":
    for i in range(n):
        a = (a @ a).clamp_(0, 1)
else:
    time.sleep(n)
r1 = resource.getrusage(resource.RUSAGE_SELF); w1 = time.perf_counter()
print("%f %f" % (r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime, w1 - w0))
'''


def poll(pid, hook_dir, stop, every_s, op):
    path = os.path.join(hook_dir, "%d.sock" % pid)
    n = 0
    while not stop.is_set():
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            s.sendall(op.encode() + b"\n")
            data = b""
            while b"\n" not in data:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            s.close()
            json.loads(data)
            n += 1
        except OSError:
            pass
        stop.wait(every_s)
    return n


def run_once(tmp, kind, n, hook, polls):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["READY"] = os.path.join(tmp, "ready")
    env["GPUSCOPE_PYHOOK_DIR"] = os.path.join(tmp, "hook")
    if hook:
        env["PYTHONPATH"] = HOOK
    try:
        os.unlink(env["READY"])
    except OSError:
        pass
    p = subprocess.Popen([PY, "-c", JOB, kind, str(n)], env=env, stdout=subprocess.PIPE, text=True)
    while not os.path.exists(env["READY"]):
        time.sleep(0.01)
    stop, threads, counts = threading.Event(), [], []
    for every, op in polls:
        t = threading.Thread(target=lambda e=every, o=op: counts.append(poll(p.pid, env["GPUSCOPE_PYHOOK_DIR"], stop, e, o)))
        t.start()
        threads.append(t)
    out, _ = p.communicate()
    stop.set()
    for t in threads:
        t.join()
    cpu, wall = map(float, out.split())
    return cpu, wall, sum(counts)


def startup(tmp, code, hook):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["GPUSCOPE_PYHOOK_DIR"] = os.path.join(tmp, "hook")
    if hook:
        env["PYTHONPATH"] = HOOK
    t0 = time.perf_counter()
    subprocess.run([PY, "-c", code], env=env, check=True)
    return time.perf_counter() - t0


def main():
    have_torch = subprocess.run([PY, "-c", "import torch"], capture_output=True).returncode == 0
    tmp = tempfile.mkdtemp(prefix="gs-pyhook-bench-")
    os.mkdir(os.path.join(tmp, "hook"), 0o700)
    print("load average at the start: %.2f %.2f %.2f" % os.getloadavg())
    # start-up
    for label, code in [("python3 -c pass", "pass")] + ([("python3 -c 'import torch'", "import torch")] if have_torch else []):
        res = {False: [], True: []}
        for _ in range(REPS * 2):
            for hook in (False, True):
                res[hook].append(startup(tmp, code, hook))
        a, b = statistics.median(res[False]), statistics.median(res[True])
        print("start-up  %-26s no hook %7.1f ms   hook %7.1f ms   +%.1f ms" % (label, a * 1e3, b * 1e3, (b - a) * 1e3))
    configs = [("no hook", False, []), ("hook, not asked", True, []), ("hook, stats 1/s", True, [(1.0, "stats")]),
               ("hook, stats 10/s + stacks 1/s", True, [(0.1, "stats"), (1.0, "stacks")])]
    workloads = [("idle (sleep 10 s)", "sleep", 10)]
    workloads += [("busy: pure Python loop", "python", 6_000_000)]
    if have_torch:
        workloads += [("busy: torch matmul (CPU)", "torch", 800)]
    for wl, kind, n in workloads:
        res = {c[0]: [] for c in configs}
        asked = {c[0]: 0 for c in configs}
        for _ in range(REPS if kind != "sleep" else 2):
            for name, hook, polls in configs:
                cpu, wall, k = run_once(tmp, kind, n, hook, polls)
                res[name].append((cpu, wall))
                asked[name] += k
        base = statistics.median(c for c, _ in res["no hook"])
        print("%s:" % wl)
        for name, _, _ in configs:
            cpu = statistics.median(c for c, _ in res[name])
            wall = statistics.median(w for _, w in res[name])
            if kind == "sleep":
                print("  %-32s CPU %7.2f ms in %.1f s  (%+.2f ms vs no hook; %d answers)" % (name, cpu * 1e3, wall,
                      (cpu - base) * 1e3, asked[name]))
            else:
                print("  %-32s CPU %7.3f s, wall %7.3f s  (CPU %.3fx no hook; %d answers)" % (name, cpu, wall,
                      cpu / base, asked[name]))
    print("load average at the end: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
