#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""0155-man-help.py GPUSCOPE MANDIR - every command of `gpuscope --help` has a page in MANDIR,
every page a command, and each page lists exactly the options its command's --help lists
(both directions). The commands on an option table (src/cmd/opts.h) get both from it; this also
checks the others, and that `make gen` was run (as tests/cli/0157 does file by file).

In --help, an option is a token starting with '-' in the option column (an indented line
that starts with '-', up to the first run of two spaces), in the usage lines, or on
a 'test options:' line. In a page, it is an `.It Fl ...` list item. -h/--help are left out on
both sides: every command takes them, gpuscope(1) documents them once.
"""
import os
import re
import subprocess
import sys

OPT = re.compile(r"(?<![\w-])(--?[A-Za-z][\w.-]*)")
IGNORE = {"-h", "--help"}


def help_text(gpuscope, *args):
    p = subprocess.run([gpuscope, *args, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.stdout


def help_options(text, usage=True):
    opts, in_usage = set(), usage
    for line in text.splitlines():
        if not line.strip():
            in_usage = False
            continue
        if in_usage or line.startswith("test options:"):
            opts.update(OPT.findall(line))
            continue
        m = re.match(r"^\s+(-\S.*?)(?:\s{2,}|$)", line)
        if m:
            opts.update(t.rstrip(",") for t in OPT.findall(m.group(1)))
    return {o.split("=")[0] for o in opts} - IGNORE


def man_options(path):
    opts = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith(".It Fl "):
                for m in re.finditer(r"\bFl (\S+)", line):
                    opts.add("-" + m.group(1))
    return opts - IGNORE


def commands(text):
    out, on = [], False
    for line in text.splitlines():
        if line.startswith("commands:"):
            on = True
        elif on and not line.strip():
            break
        elif on:
            out.append(line.split()[0])
    return out


def main():
    gpuscope, mandir = sys.argv[1], sys.argv[2]
    problems = []
    top = help_text(gpuscope)
    cmds = commands(top)
    if not cmds:
        problems.append("no commands found in `gpuscope --help`")
    pages = {f[len("gpuscope-"):-2] for f in os.listdir(mandir) if f.startswith("gpuscope-") and f.endswith(".1")}
    for c in sorted(set(cmds) - pages):
        problems.append(f"command {c!r} has no man page: write {mandir}/gpuscope-{c}.1")
    for c in sorted(pages - set(cmds)):
        problems.append(f"man/gpuscope-{c}.1 documents {c!r}, which `gpuscope --help` does not list")
    overview = open(os.path.join(mandir, "gpuscope.1"), encoding="utf-8").read()
    for c in cmds:
        if f".Xr gpuscope-{c} 1" not in overview:
            problems.append(f"gpuscope.1 does not refer to gpuscope-{c}(1)")
    checks = [("gpuscope", "gpuscope.1", help_options(top[top.find("global options:"):], usage=False))]
    checks += [(c, f"gpuscope-{c}.1", help_options(help_text(gpuscope, c))) for c in cmds if c in pages]
    total = 0
    for c, page, hopts in checks:
        mopts = man_options(os.path.join(mandir, page))
        total += len(hopts)
        for o in sorted(hopts - mopts):
            problems.append(f"{c}: {o} is in --help but not in man/{page}")
        for o in sorted(mopts - hopts):
            problems.append(f"{c}: {o} is in man/{page} but not in --help")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{len(checks)} pages, {total} options compared, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
