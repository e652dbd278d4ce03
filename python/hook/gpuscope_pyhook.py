# SPDX-License-Identifier: MIT
"""gpuscope_pyhook - what gpuscope cannot see from outside a Python process.

Loaded at start-up by the sitecustomize.py beside it (opt-in: `gpuscope run
--python`, or `eval "$(gpuscope pyhook env)"`). It listens on a UNIX socket only
its user (and root) can reach, RUNTIME/gpuscope/pyhook/PID.sock, and answers two
requests, one per connection, with one line of JSON (docs/PYHOOK.md):

  stats   PyTorch's CUDA caching allocator per device (allocated, reserved,
          inactive split, peaks, allocation retries, OOMs) and the
          PYTORCH_CUDA_ALLOC_CONF in effect, once torch is imported and CUDA is
          initialized (the hook never imports torch nor initializes CUDA itself);
  stacks  every thread's Python stack.

When nobody asks, it costs nothing: one thread blocked in accept() (holding no
GIL). It never raises into the program, removes its socket at exit, and gives a
forked child a socket of its own.
"""
import _socket
import _thread
import atexit
import os
import sys
import time

# Start-up imports only C modules: json, struct and traceback (json alone pulls in re,
# enum, collections) are imported when gpuscope first asks. threading is never imported
# by the hook (imported first from its thread, it would take that thread for the main one):
# its names are used when the program has it.

PROTO = "gpuscope-pyhook/1"
MAX_FRAMES = 64          # innermost frames kept per thread
MAX_THREADS = 256
MAX_REPLY = 512 * 1024   # bytes; a bigger stack dump is cut (whole threads), never the JSON

_state = {"sock": None, "path": None, "pid": None, "thread": None, "main": None}


def _owned_private_dir(path, uid):
    """path is a real directory of uid that nobody else can write (or create into)."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    import stat
    return stat.S_ISDIR(st.st_mode) and st.st_uid == uid and not st.st_mode & 0o022


def _make_private_dir(path, uid):
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    return _owned_private_dir(path, uid)


def channel_dir(uid=None):
    """Where the sockets of uid's processes are: $GPUSCOPE_PYHOOK_DIR, else
    /run/user/UID/gpuscope/pyhook (the systemd runtime directory), else
    /tmp/gpuscope-UID/pyhook. gpuscope looks in the same places."""
    uid = os.getuid() if uid is None else uid
    override = os.environ.get("GPUSCOPE_PYHOOK_DIR")
    if override:
        return override, [override]
    run = "/run/user/%d" % uid
    if _owned_private_dir(run, uid) and not os.lstat(run).st_mode & 0o077:
        return run + "/gpuscope/pyhook", [run + "/gpuscope", run + "/gpuscope/pyhook"]
    tmp = "/tmp/gpuscope-%d" % uid
    return tmp + "/pyhook", [tmp, tmp + "/pyhook"]


def _start_ticks():
    """The process's start time in clock ticks since boot (/proc/self/stat field 22):
    with the PID, who this is (PIDs are reused)."""
    try:
        with open("/proc/self/stat", "rb") as f:
            data = f.read()
        return int(data[data.rindex(b")") + 2:].split()[19])
    except (OSError, ValueError, IndexError):
        return 0


# ---- the answers ----------------------------------------------------------------------------
def _device_figures(cuda, i):
    s = cuda.memory_stats(i)  # a flat dict of integers (PyTorch's documented keys)
    if not s:
        return None
    d = {
        "index": i,
        "allocated_bytes": int(s.get("allocated_bytes.all.current", 0)),
        "reserved_bytes": int(s.get("reserved_bytes.all.current", 0)),
        "inactive_split_bytes": int(s.get("inactive_split_bytes.all.current", 0)),
        "max_allocated_bytes": int(s.get("allocated_bytes.all.peak", 0)),
        "max_reserved_bytes": int(s.get("reserved_bytes.all.peak", 0)),
        "alloc_retries": int(s.get("num_alloc_retries", 0)),
        "ooms": int(s.get("num_ooms", 0)),
    }
    if not (d["reserved_bytes"] or d["max_reserved_bytes"] or d["alloc_retries"] or d["ooms"]):
        return None  # a device this process never allocated on
    try:
        p = cuda.get_device_properties(i)
        d["name"] = str(getattr(p, "name", ""))
        u = getattr(p, "uuid", None)  # PyTorch >= 2.0
        if u is not None:
            u = str(u)
            d["uuid"] = u if u.startswith(("GPU-", "MIG-")) else "GPU-" + u
        if hasattr(p, "pci_bus_id"):  # PyTorch >= 2.4
            d["pci_bus_id"] = "%08X:%02X:%02X.0" % (getattr(p, "pci_domain_id", 0), p.pci_bus_id,
                                                    getattr(p, "pci_device_id", 0))
    except Exception:
        pass
    return d


def stats():
    """The reply to "stats" (a dict)."""
    out = {"proto": PROTO, "op": "stats", "pid": os.getpid(), "start_ticks": _start_ticks(),
           "time_unix_ms": int(time.time() * 1000), "python": "%d.%d.%d" % sys.version_info[:3],
           "torch": None, "cuda_initialized": False, "alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF"),
           "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"), "devices": []}
    torch = sys.modules.get("torch")  # never imported here: only if the program did
    if torch is None:
        return out
    out["torch"] = str(getattr(torch, "__version__", "?"))
    cuda = getattr(torch, "cuda", None)
    try:
        if cuda is None or not cuda.is_initialized():  # never initialize CUDA ourselves
            return out
        out["cuda_initialized"] = True
        for i in range(cuda.device_count()):
            d = _device_figures(cuda, i)
            if d:
                out["devices"].append(d)
    except Exception as e:
        out["error"] = "%s: %s" % (type(e).__name__, e)
    return out


def stacks():
    """The reply to "stacks": every thread's Python stack, outermost frame first."""
    import json
    import traceback
    me = _thread.get_ident()
    threading = sys.modules.get("threading")
    names = {t.ident: t for t in threading.enumerate()} if threading else {}
    threads, size = [], 0
    for tid, frame in list(sys._current_frames().items())[:MAX_THREADS]:
        t = names.get(tid)
        summary = traceback.extract_stack(frame)
        cut = max(0, len(summary) - MAX_FRAMES)
        frames = [{"file": f.filename, "line": f.lineno or 0, "func": f.name, "code": (f.line or "")[:200]}
                  for f in summary[cut:]]
        name = "gpuscope-pyhook" if tid == me else t.name if t else "MainThread" if tid == _state["main"] else "?"
        entry = {"id": tid, "native_id": getattr(t, "native_id", None) if t else None,
                 "name": name, "daemon": bool(t.daemon) if t else tid == me,
                 "hook": tid == me, "omitted_frames": cut, "frames": frames}
        size += len(json.dumps(entry))
        if size > MAX_REPLY:
            break
        threads.append(entry)
    threads.sort(key=lambda e: (e["hook"], e["name"] != "MainThread", e["name"]))
    return {"proto": PROTO, "op": "stacks", "pid": os.getpid(), "start_ticks": _start_ticks(),
            "time_unix_ms": int(time.time() * 1000), "threads": threads}


# ---- the channel ---------------------------------------------------------------------------
def _peer_allowed(conn):
    import struct
    try:
        _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED,
                                                              struct.calcsize("3i")))
    except OSError:
        return False
    return uid in (0, os.getuid())


def _serve_one(conn):
    conn.settimeout(2.0)
    try:
        if not _peer_allowed(conn):
            return
        req = b""
        while b"\n" not in req and len(req) < 64:
            chunk = conn.recv(64)
            if not chunk:
                break
            req += chunk
        op = req.split(b"\n", 1)[0].strip().decode("ascii", "replace")
        if op == "stats":
            reply = stats()
        elif op == "stacks":
            reply = stacks()
        elif op == "hello":
            reply = {"proto": PROTO, "op": "hello", "pid": os.getpid(), "start_ticks": _start_ticks(),
                     "ops": ["stats", "stacks"]}
        else:
            reply = {"proto": PROTO, "op": op[:32], "error": "unknown request (try stats, stacks, hello)"}
        import json
        conn.sendall(json.dumps(reply, separators=(",", ":")).encode("ascii") + b"\n")
    finally:
        conn.close()


def _loop(sock):
    while True:
        try:
            fd, _ = sock._accept()
            conn = _socket.socket(fileno=fd)
        except OSError:
            if _state["sock"] is not sock:
                return  # closed at exit or in a forked child
            time.sleep(0.1)
            continue
        try:
            _serve_one(conn)
        except Exception:
            pass


def _sweep(path_dir):
    """Remove the sockets of processes that ended without running atexit (SIGKILL,
    SIGTERM's default action): a socket whose PID is gone."""
    try:
        names = os.listdir(path_dir)
    except OSError:
        return
    for name in names:
        if not name.endswith(".sock") or not name[:-5].isdigit():
            continue
        if not os.path.exists("/proc/" + name[:-5]):
            try:
                os.unlink(os.path.join(path_dir, name))
            except OSError:
                pass


def _open(uid):
    path_dir, chain = channel_dir(uid)
    for d in chain:
        if not _make_private_dir(d, uid):
            return None, None  # someone else's, or a symlink: refuse rather than leak
    path = "%s/%d.sock" % (path_dir, os.getpid())
    _sweep(path_dir)
    try:
        os.unlink(path)  # a dead process's with our PID
    except OSError:
        pass
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.bind(path)
        os.chmod(path, 0o600)
        sock.listen(8)
    except OSError:
        sock.close()
        return None, None
    return sock, path


def stop():
    """Close the channel and remove its socket (at exit; safe to call twice)."""
    sock, path = _state["sock"], _state["path"]
    _state["sock"] = _state["path"] = None
    if sock is not None:
        try:
            if _state["pid"] == os.getpid() and path:
                os.unlink(path)
        except OSError:
            pass
        try:
            sock.shutdown(_socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()


def _after_fork_in_child():
    sock = _state["sock"]
    _state["sock"] = _state["path"] = None  # the parent's: close it, never unlink it
    if sock is not None:
        try:
            sock.close()
        except OSError:
            pass
    if os.environ.get("GPUSCOPE_PYHOOK_CHILDREN", "1") != "0":
        start()


def start():
    """Open this process's channel and its listener thread; False if not started
    (turned off with GPUSCOPE_PYHOOK=0, already started, or no private directory)."""
    try:
        if os.environ.get("GPUSCOPE_PYHOOK", "1") == "0" or _state["sock"] is not None:
            return False
        sock, path = _open(os.getuid())
        if sock is None:
            return False
        _state.update(sock=sock, path=path, pid=os.getpid())
        if _state["main"] is None:
            _state["main"] = _thread.get_ident()  # start() runs on the main thread at start-up
        _state["thread"] = _thread.start_new_thread(_loop, (sock,))
        if not _state.get("registered"):
            atexit.register(stop)
            if hasattr(os, "register_at_fork"):
                os.register_at_fork(after_in_child=_after_fork_in_child)
            _state["registered"] = True
        return True
    except Exception:
        return False
