# SPDX-License-Identifier: MIT
"""gpustat's Python API over gpuscope: GPUStatCollection, GPUStat and their
methods, filled from one `gpuscope gpustat --json` run per query, and
print_formatted() writing gpustat's lines as the `gpuscope gpustat` command
does (docs/PYTHON.md). A script written for gpustat keeps working with
`import gpuscope as gpustat`."""
import json
import os
import platform
import sys
from datetime import datetime

from . import _run

MB = 1024 * 1024
DEFAULT_GPUNAME_WIDTH = 16
NOT_SUPPORTED = "Not Supported"

# gpustat's entry keys, in the order its JSON lists them
GPU_KEYS = ("index", "uuid", "name", "temperature.gpu", "fan.speed", "utilization.gpu", "utilization.enc",
            "utilization.dec", "power.draw", "enforced.power.limit", "memory.used", "memory.total", "processes")


def _int_or_none(v):
    return int(v) if v is not None else None


class GPUStat:
    """One GPU: gpustat's entry dict (gpu['utilization.gpu']) and properties."""

    def __init__(self, entry):
        if not isinstance(entry, dict):
            raise TypeError("entry should be a dict, {} given".format(type(entry)))
        self.entry = entry

    def __repr__(self):
        from io import StringIO
        return self.print_to(StringIO()).getvalue()

    def keys(self):
        return self.entry.keys()

    def __getitem__(self, key):
        return self.entry[key]

    @property
    def available(self):
        return True

    @property
    def index(self):
        return self.entry["index"]

    @property
    def uuid(self):
        return self.entry["uuid"]

    @property
    def name(self):
        return self.entry["name"]

    @property
    def memory_total(self):
        return int(self.entry["memory.total"])

    @property
    def memory_used(self):
        return int(self.entry["memory.used"])

    @property
    def memory_free(self):
        return max(self.memory_total - self.memory_used, 0)

    @property
    def memory_available(self):
        return self.memory_free

    @property
    def temperature(self):
        return _int_or_none(self.entry["temperature.gpu"])

    @property
    def fan_speed(self):
        return _int_or_none(self.entry["fan.speed"])

    @property
    def utilization(self):
        return _int_or_none(self.entry["utilization.gpu"])

    @property
    def utilization_enc(self):
        return _int_or_none(self.entry["utilization.enc"])

    @property
    def utilization_dec(self):
        return _int_or_none(self.entry["utilization.dec"])

    @property
    def power_draw(self):
        return _int_or_none(self.entry["power.draw"])

    @property
    def power_limit(self):
        return _int_or_none(self.entry["enforced.power.limit"])

    @property
    def processes(self):
        return self.entry["processes"]

    def print_to(self, fp, *, with_colors=True, show_cmd=False, show_full_cmd=False, no_processes=False,
                 show_user=False, show_pid=False, show_fan_speed=None, show_codec="", show_power=None,
                 gpuname_width=None, eol_char=os.linesep, term=None):
        """gpustat's line for this GPU (term: the palette of _palette())."""
        del with_colors
        pal = term if isinstance(term, _Palette) else _palette(force=False, no=False, stream=fp)
        fp.write(_gpu_line(self, pal, show_cmd=show_cmd, show_full_cmd=show_full_cmd, no_processes=no_processes,
                           show_user=show_user, show_pid=show_pid, show_fan_speed=show_fan_speed,
                           show_codec=show_codec, show_power=show_power, gpuname_width=gpuname_width,
                           eol_char=eol_char))
        return fp

    def jsonify(self):
        o = self.entry.copy()
        if self.entry["processes"] is not None:
            o["processes"] = [{k: v for (k, v) in p.items() if k != "gpu_uuid"} for p in self.entry["processes"]]
        return o


class InvalidGPU(GPUStat):
    """A GPU that could not be read (lost, unknown error): only its index and a
    message as the name; every other key is None."""

    class FallbackDict(dict):
        def __missing__(self, key):
            return None

    def __init__(self, gpu_index, message, ex=None):
        super().__init__(self.FallbackDict(index=gpu_index, name=message, processes=None))
        self.exception = ex

    @property
    def available(self):
        return False


class GPUStatCollection:
    """All GPUs of one query, with the host, the query time and the driver."""

    global_processes = {}

    def __init__(self, gpu_list, driver_version=None):
        self.gpus = list(gpu_list)
        self.hostname = platform.node()
        self.query_time = datetime.now()
        self.driver_version = driver_version

    @staticmethod
    def clean_processes():
        """gpustat's psutil cache; gpuscope keeps none here."""

    @staticmethod
    def new_query(debug=False, id=None):  # pylint: disable=redefined-builtin
        """Query every GPU (or those of id: "0,2", [0, 2]): one run of
        `gpuscope gpustat --json`, no sleeping."""
        args = ["gpustat", "--json"]
        if debug:
            args.append("--debug")
        if id is not None:
            args += ["--id", id if isinstance(id, str) else ",".join(str(int(i)) for i in id)]
        return GPUStatCollection.from_json(_run.run_json(args))

    @staticmethod
    def from_json(o):
        """A collection from gpustat's JSON (what `gpuscope gpustat --json` prints)."""
        gpus = []
        for g in o.get("gpus", []):
            if "uuid" in g:
                entry = {k: g.get(k) for k in GPU_KEYS}
                gpus.append(GPUStat(entry))
            else:
                gpus.append(InvalidGPU(g.get("index"), g.get("name")))
        c = GPUStatCollection(gpus, driver_version=o.get("driver_version"))
        c.hostname = o.get("hostname", c.hostname)
        if o.get("query_time"):
            c.query_time = datetime.fromisoformat(o["query_time"])
        return c

    def __len__(self):
        return len(self.gpus)

    def __iter__(self):
        return iter(self.gpus)

    def __getitem__(self, index):
        return self.gpus[index]

    def __repr__(self):
        s = "GPUStatCollection(host=%s, [\n" % self.hostname
        s += "\n".join("  " + str(g) for g in self.gpus)
        s += "\n])"
        return s

    def print_formatted(self, fp=sys.stdout, *, force_color=False, no_color=False, show_cmd=False,
                        show_full_cmd=False, show_user=False, show_pid=False, show_fan_speed=None, show_codec="",
                        show_power=None, gpuname_width=None, show_header=True, no_processes=False,
                        eol_char=os.linesep):
        """gpustat 1.1.1's lines, the same bytes `gpuscope gpustat` prints for these options."""
        if force_color and no_color:
            raise ValueError("--color and --no_color can't be used at the same time")
        pal = _palette(force=force_color, no=no_color, stream=fp)
        if gpuname_width is None:
            gpuname_width = max([len(g.entry["name"]) for g in self] + [0])
        if show_header:
            host = self.hostname or ""
            width = (gpuname_width or DEFAULT_GPUNAME_WIDTH) + 3
            when = self.query_time.strftime("%a %b %e %H:%M:%S %Y")
            header = "{p.bold_white}{h:{w}}{p.normal}  {t}  {p.bold_black}{d}{p.normal}".format(
                p=pal, h=host, w=width, t=when, d=self.driver_version)
            fp.write(header.strip())
            fp.write(eol_char)
        for g in self:
            g.print_to(fp, show_cmd=show_cmd, show_full_cmd=show_full_cmd, no_processes=no_processes,
                       show_user=show_user, show_pid=show_pid, show_fan_speed=show_fan_speed,
                       show_codec=show_codec, show_power=show_power, gpuname_width=gpuname_width,
                       eol_char=eol_char, term=pal)
            fp.write(eol_char)
        if not self.gpus:
            fp.write(pal.yellow + "(No GPUs are available)" + (pal.normal if pal.yellow else "") + "\n")
        fp.flush()

    def jsonify(self):
        return {"hostname": self.hostname, "driver_version": self.driver_version, "query_time": self.query_time,
                "gpus": [g.jsonify() for g in self]}

    def print_json(self, fp=sys.stdout):
        """gpustat --json: the same bytes `gpuscope gpustat --json` prints."""
        def dates(obj):
            if hasattr(obj, "isoformat"):
                return obj.isoformat()
            raise TypeError(type(obj))
        json.dump(self.jsonify(), fp, indent=4, separators=(",", ": "), default=dates)
        fp.write(os.linesep)
        fp.flush()


# ---- the lines ----------------------------------------------------------------------------------

class _Palette:
    """The escape sequences blessed gives gpustat: xterm-256color when TERM is
    unset; colour 24 spelt by an 8-colour setaf elsewhere; none for TERM=dumb."""
    NAMES = ("normal", "cyan", "blue", "red", "bold_red", "bold_cyan", "yellow", "bold_yellow", "bold_black",
             "green", "bold_green", "magenta", "bold_magenta", "cmd", "bold", "bold_white")

    def __init__(self, on, auto=False):
        seqs = ("\033[0;10m", "\033[36m", "\033[34m", "\033[31m", "\033[1m\033[31m", "\033[1m\033[36m",
                "\033[33m", "\033[1m\033[33m", "\033[1m\033[30m", "\033[32m", "\033[1m\033[32m", "\033[35m",
                "\033[1m\033[35m", "\033[38;5;24m", "\033[1m", "\033[1m\033[37m")
        for n, s in zip(self.NAMES, seqs):
            setattr(self, n, s if on else "")
        if not on:
            return
        term = os.environ.get("TERM")
        if auto:
            self.normal = "\033(B\033[m"
        if term == "dumb":
            for n in self.NAMES:
                setattr(self, n, "")
            self.normal = "" if auto else "\033[0;10m"
        elif term and "256color" not in term:
            self.cmd = "\033[324m"


def _palette(force, no, stream):
    if force:
        return _Palette(True)
    if no:
        return _Palette(False)
    tty = getattr(stream, "isatty", lambda: False)()
    return _Palette(bool(tty and not os.environ.get("NO_COLOR")), auto=True)


def _rj(v, w):
    return "{:>{}}".format("??" if v is None else v, w)


def _cond(pal, value, test, yes, no):
    """gpustat's _conditional(): bold black when the reading is missing."""
    if value is None:
        return pal.bold_black
    return yes if test(value) else no


def _shorten_left(text, width):
    if len(text) <= width:
        return text
    if width == 0:
        return ""
    if width == 1:
        return "…"
    return "…" + text[-(width - 1):]


def _bytes2human(b):
    suffixes = ("B", "KB", "MB", "GB", "TB", "PB")
    b, s = int(b), 0
    while b > 9999 and s < len(suffixes):
        b >>= 10
        s += 1
    return "%d%s" % (b, suffixes[min(s, len(suffixes) - 1)])


def _pretty_cmdline(argv, cyan, cmd):
    head, base = os.path.split(argv[0])
    return cmd + os.path.join(head, cyan + base + cmd) + ((" " + " ".join(argv[1:])) if len(argv) > 1 else "")


def _power_color(g, pal):
    draw, limit = g.power_draw, g.power_limit
    if limit is None:
        return pal.bold_magenta
    if draw is None or limit == 0:
        return pal.bold_black
    return pal.magenta if draw / limit < 0.4 else pal.bold_magenta


def _process(p, pal, show_cmd, show_user, show_pid):
    r = ""
    if not show_cmd or show_user:
        r += pal.bold_black + str(p.get("username") if p.get("username") is not None else "--") + pal.normal
    if show_cmd:
        if r:
            r += ":"
        r += pal.cyan + str(p.get("command", p.get("pid")) or "--") + pal.normal
    if show_pid:
        r += "/%s" % (p["pid"] if p.get("pid") is not None else "--")
    mem = p.get("gpu_memory_usage")
    return r + "(" + pal.yellow + ("?" if mem is None else str(mem)) + "M" + pal.normal + ")"


def _full_process(p, pal):
    cpu = p.get("cpu_percent")
    cpu = "{:4.0f}".format(cpu) if cpu is not None else "  --"
    mem = _bytes2human(p.get("cpu_memory_usage") or 0)
    cmd = _pretty_cmdline(p.get("full_command") or ["?"], pal.cyan, pal.cmd)
    return ("{n} ├─ {pid:>6} {n}({g}{cpu}%{n}, {y}{mem:>6}{n}){n}: {c}{cmd}{n}".format(
        n=pal.normal, pid=p.get("pid"), g=pal.green, cpu=cpu, y=pal.yellow, mem=mem, c=pal.cmd, cmd=cmd))


def _gpu_line(g, pal, *, show_cmd, show_full_cmd, no_processes, show_user, show_pid, show_fan_speed, show_codec,
              show_power, gpuname_width, eol_char):
    out = [pal.cyan + "[%s]" % g.index + pal.normal, " "]
    if gpuname_width is None or gpuname_width != 0:
        width = gpuname_width or DEFAULT_GPUNAME_WIDTH
        out += [(pal.blue if g.available else pal.red) + "{:{}}".format(_shorten_left(g.name, width), width)
                + pal.normal, " |"]
    safe = (lambda f: None) if not g.available else (lambda f: f())
    temp, fan, util = safe(lambda: g.temperature), safe(lambda: g.fan_speed), safe(lambda: g.utilization)
    out.append(_cond(pal, temp, lambda v: v < 50, pal.red, pal.bold_red) + _rj(temp, 3) + "°C" + pal.normal + ", ")
    if show_fan_speed:
        out.append(_cond(pal, fan, lambda v: v < 30, pal.cyan, pal.bold_cyan) + _rj(fan, 3) + " %" + pal.normal
                   + ", ")
    out.append(_cond(pal, util, lambda v: v < 30, pal.green, pal.bold_green) + _rj(util, 3) + " %" + pal.normal)
    if show_codec:
        enc, dec = safe(lambda: g.utilization_enc), safe(lambda: g.utilization_dec)
        parts = []
        if "enc" in show_codec:
            parts.append(pal.bold + "E: " + pal.normal + _cond(pal, enc, lambda v: v < 50, pal.green, pal.bold_green)
                         + _rj(enc, 3) + " %" + pal.normal)
        if "dec" in show_codec:
            parts.append(pal.bold + "D: " + pal.normal + _cond(pal, dec, lambda v: v < 50, pal.green, pal.bold_green)
                         + _rj(dec, 3) + " %" + pal.normal)
        out.append(" (" + "  ".join(parts) + ")")
    if show_power:
        draw, limit = safe(lambda: g.power_draw), safe(lambda: g.power_limit)
        cu = _power_color(g, pal)
        out.append(",  " + cu + _rj(draw, 3) + pal.normal + " ")
        if show_power is True or "limit" in show_power:
            out.append("/ " + pal.magenta + _rj(limit, 3) + pal.normal + " " + pal.magenta + "W" + pal.normal)
        else:
            out.append(cu + "W" + pal.normal)
    used = safe(lambda: g.memory_used)
    total = safe(lambda: g.memory_total)
    out += [" | " + pal.cyan, (pal.bold_yellow if g.available else pal.bold_black) + _rj(used, 5) + pal.normal,
            " / ", (pal.yellow if g.available else pal.bold_black) + _rj(total, 5) + pal.normal, " MB"]
    if no_processes:
        return "".join(out)
    out.append(" |")
    procs = g.entry["processes"]
    if procs is None:
        out.append(" (" + NOT_SUPPORTED + ")")
        return "".join(out)
    out += [" " + _process(p, pal, show_cmd, show_user, show_pid) for p in procs]
    if show_full_cmd and procs:
        full = [eol_char + _full_process(p, pal) for p in procs]
        full[-1] = full[-1].replace("├", "└", 1)
        out.append("".join(full))
    return "".join(out)


def new_query(debug=False, id=None):  # pylint: disable=redefined-builtin
    """Obtain a new GPUStatCollection: every GPU and its processes, now (id:
    only these GPUs, as GPUStatCollection.new_query takes it)."""
    return GPUStatCollection.new_query(debug=debug, id=id)


def gpu_count():
    """The number of GPUs (0 when there is no driver or no GPU)."""
    try:
        return len(GPUStatCollection.new_query())
    except _run.QueryError:
        return 0


def is_available():
    """True when the NVIDIA library and at least one GPU are there."""
    return gpu_count() > 0


def print_gpustat(*, id=None, json=False, debug=False, **kwargs):  # pylint: disable=redefined-builtin,redefined-outer-name
    """gpustat.print_gpustat(): one query, printed as its CLI would."""
    try:
        stats = GPUStatCollection.new_query(debug=debug, id=id)
    except _run.QueryError as e:
        sys.stderr.write("Error on querying NVIDIA devices. Use --debug flag to see more details.\n")
        sys.stderr.write(str(e) + "\n")
        sys.exit(1)
    if json:
        stats.print_json(sys.stdout)
    else:
        stats.print_formatted(sys.stdout, **kwargs)


def main(*argv):
    """gpustat's command line: `gpuscope gpustat ARGS...` (argv[0] is the program name)."""
    import subprocess
    args = list(argv or sys.argv)[1:]
    rc = subprocess.call([_run.binary(), "gpustat"] + args)
    if rc:
        sys.exit(rc)
