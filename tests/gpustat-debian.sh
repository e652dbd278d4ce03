#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/gpustat-debian.sh - Debian's own gpustat (package gpustat 1.0.0, contrib) with Debian's
# nvidia-ml-py (python3-pynvml 11.525.112, contrib), run on gpuscope's simulator next to
# `gpuscope gpustat`, on the same readings (tests/fixtures/gpustat/mock.scn and its fixture /proc,
# which psutil reads through its PROCFS_PATH; users through nss_wrapper): the same lines byte for byte,
# colours included (header: the same but for the time of each run), the same --json byte for byte
# but for query_time.
#
# The two packages are fetched with `apt-get download` through a private apt configuration
# (tests/debian-archive.lib; the system's apt state is never touched) and unpacked into
# $BUILD/debian-gpustat/, so later runs need no network. Their Python dependencies
# (python3-psutil, python3-blessed, python3-six, python3-pkg-resources) come from scripts/deps.sh.
# Exit 77 with one "skipped: ..." line when any of that cannot be had.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
BUILD=${GS_BUILD_DIR:-build}
GPUSCOPE=$ROOT/$BUILD/gpuscope
CACHE=$ROOT/$BUILD/debian-gpustat
FIX=$ROOT/tests/fixtures/gpustat
PY=/usr/bin/python3

skip() { echo "skipped: $*"; exit 77; }
[ -x "$GPUSCOPE" ] || skip "$GPUSCOPE is not built"
[ -x "$PY" ] || skip "Debian's python3 is not installed"
"$PY" -c 'import psutil, blessed, six, pkg_resources' 2>/dev/null ||
    skip "python3-psutil, python3-blessed, python3-six, python3-pkg-resources are needed (scripts/deps.sh)"
MULTIARCH=$(cc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
NSSW=/usr/lib/$MULTIARCH/libnss_wrapper.so
[ -e "$NSSW" ] || skip "libnss-wrapper is not installed (scripts/deps.sh)"

# shellcheck source=tests/debian-archive.lib
. tests/debian-archive.lib

fetch_packages() {
    local tmp
    tmp=$(mktemp -d /tmp/gs-deb-gpustat.XXXXXX)
    debian_download contrib "$tmp/dl" gpustat python3-pynvml
    for deb in "$tmp"/dl/*.deb; do dpkg -x "$deb" "$tmp/x" || { rm -rf "$tmp"; skip "cannot extract $deb"; }; done
    [ -f "$tmp/x/usr/lib/python3/dist-packages/gpustat/core.py" ] || { rm -rf "$tmp"; skip "no gpustat in the package"; }
    rm -rf "$CACHE"
    mkdir -p "$CACHE"
    cp -r "$tmp/x/usr/lib/python3/dist-packages" "$CACHE/"
    (cd "$tmp/dl" && ls ./*.deb | sed 's|^\./||') >"$CACHE/PACKAGES"
    rm -rf "$tmp"
}

[ -f "$CACHE/dist-packages/gpustat/core.py" ] || fetch_packages
echo "Debian packages: $(tr '\n' ' ' <"$CACHE/PACKAGES")"

export GPUSCOPE_NVML_LIB=$ROOT/$BUILD/sim/current/libnvidia-ml.so.1 LD_LIBRARY_PATH=$ROOT/$BUILD/sim/current
export GPUSCOPE_SIM_SCENARIO=$FIX/mock.scn GPUSCOPE_SIM_CLOCK=fixed:100 GPUSCOPE_PROC_ROOT=$FIX/proc
export NSS_WRAPPER_PASSWD=$FIX/passwd NSS_WRAPPER_GROUP=$FIX/group TZ=UTC TERM=xterm-256color
SAN=
case "$BUILD" in *asan*) SAN="$(cc -print-file-name=libasan.so) $(cc -print-file-name=libubsan.so) " ;; esac
tmp=$(mktemp -d /tmp/gs-deb-gpustat-run.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

theirs() { # the Debian gpustat, its psutil reading the fixture /proc
    (cd "$tmp" && LD_PRELOAD=$NSSW PYTHONPATH=$CACHE/dist-packages "$PY" -c '
import sys, psutil
psutil.PROCFS_PATH = sys.argv[1]
import gpustat
sys.argv = ["gpustat"] + sys.argv[2:]
gpustat.main()' "$FIX/proc" "$@")
}
ours() { LD_PRELOAD="$SAN$NSSW" "$GPUSCOPE" gpustat "$@"; }
header() { sed -n 1p | sed -E 's/  [A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} [0-9]{4}  /  TIME  /'; }

fail=0
for args in "" "-a" "-a -f" "-cp" "-u -c" "--gpuname-width 10" "--gpuname-width 0 -F" "-e enc -P draw" \
    "--force-color" "--force-color -a -f" "--force-color -cup -e dec -P draw" "--force-color -P limit -F"; do
    # shellcheck disable=SC2086
    theirs $args >"$tmp/t" 2>"$tmp/te" && ours $args >"$tmp/o" 2>"$tmp/oe"
    if cmp -s <(sed 1d "$tmp/t") <(sed 1d "$tmp/o") && [ "$(header <"$tmp/t")" = "$(header <"$tmp/o")" ] &&
        [ ! -s "$tmp/oe" ]; then
        echo "ok: gpustat $args: the same lines"
    else
        echo "FAIL: gpustat $args differs"
        diff "$tmp/t" "$tmp/o" | head -n 20
        head -n 5 "$tmp/te" "$tmp/oe"
        fail=1
    fi
done
theirs --json >"$tmp/t.json" && ours --json >"$tmp/o.json"
notime() { sed -E 's/^(    "query_time": ).*/\1"T",/' "$1"; }
if cmp -s <(notime "$tmp/t.json") <(notime "$tmp/o.json"); then
    echo "ok: gpustat --json: the same bytes (but query_time)"
else
    echo "FAIL: gpustat --json differs"
    diff "$tmp/t.json" "$tmp/o.json" | head -n 20
    fail=1
fi
exit "$fail"
