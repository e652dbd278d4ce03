#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""3100-serve-attack.py - hostile clients for the tests/cli/31xx-serve-* attack tests (not a test itself).

Everything stays on loopback (127.0.0.0/8: attackers bind their own source addresses in it) and is
bounded in count and time. While the attack runs, a well-behaved client scrapes and reports
whether every scrape answered 200 within the limit:

  3100-serve-attack.py --port P [--tls CA] [--user U:PW] ATTACK [options]
    ATTACK: slowloris  N connections from --from-addr trickling a request (or a TLS hello) byte by byte
            spread     N connections, one from each of N addresses 127.0.1.x, trickling the same way
            badpass    N threads looping over requests with wrong passwords (fresh connections), from
                       --from-addr, or each from its own address 127.0.2.x with --spread
            none       no attack (the figures of a quiet server)
    --seconds S     attack duration (default 8); --scrapes K scrapes during it (default 20)
    --limit-ms M    a scrape slower than this fails (default 1000)

stdout: one line "scrapes K ok K" or "scrapes K ok J (FAILED: ...)"; stderr: latency figures
(p50/p99/max), and what the attacker saw.
The attackers run in a child process at nice 15 (on a real network they are other machines; here they
must not take the CPU the exporter and the scraper need), the scraper in this one.
"""
import argparse
import base64
import http.client
import json
import multiprocessing
import os
import socket
import ssl
import statistics
import sys
import threading
import time

stop = threading.Event()
attack_stats = {"connects": 0, "refused": 0, "closed_by_server": 0, "requests": 0, "codes": {}}
stats_lock = threading.Lock()


def bump(key, n=1):
    with stats_lock:
        attack_stats[key] = attack_stats.get(key, 0) + n


def trickle(port, src, tls, gap):
    """One slow client: connect from src and send a request (or TLS hello) one byte per gap; reconnect when closed."""
    # a TLS record header announcing a 512-byte handshake message, then its body, slowly
    payload = b"\x16\x03\x01\x02\x00" + b"\x01" * 512 if tls else \
        b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-Pad-%d: y\r\n" % i for i in range(400))
    while not stop.is_set():
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind((src, 0))
            s.settimeout(2)
            s.connect(("127.0.0.1", port))
            bump("connects")
        except OSError:
            bump("refused")
            s.close()
            stop.wait(0.05)
            continue
        try:
            for b in payload:
                if stop.is_set():
                    break
                s.send(bytes([b]))
                if stop.wait(gap):
                    break
                s.setblocking(False)
                try:
                    if s.recv(1 << 16) == b"":
                        raise ConnectionResetError
                except BlockingIOError:
                    pass
                finally:
                    s.setblocking(True)
        except OSError:
            bump("closed_by_server")
        finally:
            s.close()
        stop.wait(0.05)


def auth_header(user):
    return {"Authorization": "Basic " + base64.b64encode(user.encode()).decode()} if user else {}


def connection(port, ca, timeout, src=None):
    source = (src, 0) if src else None
    if ca:
        ctx = ssl.create_default_context(cafile=ca)
        ctx.check_hostname = False
        return http.client.HTTPSConnection("127.0.0.1", port, timeout=timeout, context=ctx, source_address=source)
    return http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=source)


def badpass(port, ca, user, n, src):
    """Wrong passwords in a loop, each on a fresh connection: every one costs the server a check."""
    name = (user or "alice:x").split(":")[0]
    while not stop.is_set():
        n += 1
        c = connection(port, ca, 5, src)
        try:
            c.request("GET", "/metrics", headers=auth_header("%s:wrong-%d" % (name, n)))
            r = c.getresponse()
            r.read()
            with stats_lock:
                attack_stats["requests"] += 1
                attack_stats["codes"][r.status] = attack_stats["codes"].get(r.status, 0) + 1
        except OSError:
            bump("closed_by_server")
        finally:
            c.close()


def scrape(port, ca, user, keep, timeout):
    """One scrape; keep: a connection to reuse (keep-alive) or None. Returns (ms, status, conn)."""
    c = keep or connection(port, ca, timeout)
    t0 = time.monotonic()
    try:
        c.request("GET", "/metrics", headers=auth_header(user))
        r = c.getresponse()
        r.read()
        status = r.status
    except (OSError, http.client.HTTPException) as e:
        status = type(e).__name__
        c.close()
        c = None
    return (time.monotonic() - t0) * 1000, status, c


def attack(a, ready, out):
    """The child: start the attacking threads, run until the parent says stop, report what they saw."""
    os.nice(15)
    threads = []
    for i in range(a.n):
        if a.attack == "slowloris":
            t = threading.Thread(target=trickle, args=(a.port, a.from_addr, bool(a.tls), a.gap))
        elif a.attack == "spread":
            t = threading.Thread(target=trickle, args=(a.port, "127.0.1.%d" % (1 + i % 250), bool(a.tls), a.gap))
        else:
            src = "127.0.2.%d" % (1 + i % 250) if a.spread else a.from_addr
            t = threading.Thread(target=badpass, args=(a.port, a.tls, a.user, i * 1000000, src))
        t.daemon = True
        t.start()
        threads.append(t)
    ready.set()
    out.recv()  # stop
    stop.set()
    for t in threads:
        t.join(timeout=5)
    with stats_lock:
        out.send(json.dumps(attack_stats))


def first_check(a):
    """A client never seen before checks its password once (retrying on 429 as Prometheus would)."""
    t0 = time.monotonic()
    status = None
    tries = []
    while time.monotonic() - t0 < a.first_limit_ms / 1000:
        c = connection(a.port, a.tls, a.first_limit_ms / 1000, "127.0.3.1")
        t1 = time.monotonic()
        try:
            c.request("GET", "/metrics", headers=auth_header(a.first_user))
            r = c.getresponse()
            r.read()
            status = r.status
        except (OSError, http.client.HTTPException) as e:
            status = type(e).__name__
        c.close()
        tries.append("%s at %.0f ms after %.0f ms" % (status, (t1 - t0) * 1000, (time.monotonic() - t1) * 1000))
        if status != 429:
            break
        time.sleep(1)  # Retry-After: 1
    print("first check's tries: " + "; ".join(tries), file=sys.stderr)
    return status, (time.monotonic() - t0) * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("attack", choices=["slowloris", "spread", "badpass", "none"])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--tls", metavar="CA", help="scrape over TLS, trusting this CA file")
    ap.add_argument("--user", help="USER:PASSWORD for the scrapes")
    ap.add_argument("-n", type=int, default=120, help="attacking connections or threads")
    ap.add_argument("--from-addr", default="127.0.0.2")
    ap.add_argument("--spread", action="store_true", help="badpass: each thread from its own address")
    ap.add_argument("--gap", type=float, default=0.5, help="seconds between trickled bytes")
    ap.add_argument("--seconds", type=float, default=8)
    ap.add_argument("--warmup", type=float, default=2, help="seconds of attack before the first scrape")
    ap.add_argument("--scrapes", type=int, default=20)
    ap.add_argument("--limit-ms", type=float, default=1000)
    ap.add_argument("--first-user", metavar="USER:PW",
                    help="also, during the attack, a client never seen before (its own address) checks this "
                         "user's password: it must get 200 (retrying after 429) within --first-limit-ms")
    ap.add_argument("--first-limit-ms", type=float, default=5000)
    a = ap.parse_args()

    # the scraper was there before the attack (as Prometheus is): its credential is known
    ms, status, _ = scrape(a.port, a.tls, a.user, None, 10)
    if status != 200:
        print("scrape before the attack: %s" % status)
        return 1
    child = None
    if a.attack != "none":
        ready = multiprocessing.Event()
        mine, theirs = multiprocessing.Pipe()
        child = multiprocessing.Process(target=attack, args=(a, ready, theirs))
        child.start()
        ready.wait(10)
        time.sleep(a.warmup)

    first = first_check(a) if a.first_user else None
    lat, bad, keep = [], [], None
    gap = max(0.0, (a.seconds - a.warmup) / max(1, a.scrapes))
    for k in range(a.scrapes):
        # alternate a fresh connection (a new TCP + TLS handshake) and a kept-alive one
        ms, status, conn = scrape(a.port, a.tls, a.user, keep if k % 2 else None, a.limit_ms / 1000 * 2)
        keep = conn
        lat.append(ms)
        if status != 200 or ms > a.limit_ms:
            bad.append("%s in %.0f ms" % (status, ms))
        time.sleep(gap)
    seen = {}
    if child:
        mine.send("stop")
        seen = json.loads(mine.recv()) if mine.poll(20) else {"report": "none"}
        child.join(10)
    if keep:
        keep.close()

    lat.sort()
    p99 = lat[min(len(lat) - 1, int(round(0.99 * (len(lat) - 1))))]
    print("scrapes %d ok %d%s" % (a.scrapes, a.scrapes - len(bad), " (FAILED: %s)" % ", ".join(bad[:5]) if bad else ""))
    if first:
        ok = first[0] == 200 and first[1] <= a.first_limit_ms
        print("first check of a new client: %s" % ("ok" if ok else "FAILED: %s in %.0f ms" % first))
        print("first check of a new client: %s in %.0f ms" % first, file=sys.stderr)
    print("%s: scrape latency p50 %.1f ms p99 %.1f ms max %.1f ms; attacker: %s" %
          (a.attack, statistics.median(lat), p99, lat[-1], seen), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
