# SPDX-License-Identifier: MIT
# 3114-serve-burst.py HOST PORT N [ADDRS] - open N connections to `gpuscope serve` at once
# (non-blocking, loopback), send each a GET /metrics, and print how they ended: the status codes,
# "no-status" (closed without a response), "503-no-retry-after", "unfinished" after 60 s, "refused".
# ADDRS: the connections come from that many source addresses in turn, 127.0.1.1 onwards (default:
# the kernel's choice, 127.0.0.1).
import socket, sys, time, selectors, collections
host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
addrs = int(sys.argv[4]) if len(sys.argv) > 4 else 0
req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
sel = selectors.DefaultSelector()
socks = []
refused = 0
for i in range(n):
    s = socket.socket()
    s.setblocking(False)
    try:
        if addrs:
            k = i % addrs
            s.bind(("127.0.%d.%d" % (1 + k // 250, 1 + k % 250), 0))
        s.connect((host, port))
    except BlockingIOError:
        pass
    except OSError:
        refused += 1; continue
    socks.append(s)
    sel.register(s, selectors.EVENT_WRITE, [b"", False])
res = collections.Counter()
deadline = time.time() + 60
open_ = len(socks)
while open_ and time.time() < deadline:
    for key, ev in sel.select(1):
        s, st = key.fileobj, key.data
        if ev & selectors.EVENT_WRITE and not st[1]:
            try:
                s.send(req); st[1] = True
                sel.modify(s, selectors.EVENT_READ, st)
            except OSError:
                res["send-error"] += 1; sel.unregister(s); s.close(); open_ -= 1
            continue
        try:
            d = s.recv(65536)
        except OSError:
            d = b""
        if d:
            st[0] += d[:200] if len(st[0]) < 200 else b""
            continue
        line = st[0].split(b"\r\n", 1)[0].decode(errors="replace")
        code = line.split(" ")[1] if line.startswith("HTTP/") else "no-status"
        if code == "503" and b"Retry-After" not in st[0]:
            code = "503-no-retry-after"
        res[code] += 1
        sel.unregister(s); s.close(); open_ -= 1
res["unfinished"] = open_
res["refused"] = refused
print(" ".join(f"{k}={v}" for k, v in sorted(res.items())))
