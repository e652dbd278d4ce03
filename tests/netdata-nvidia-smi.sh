#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netdata-nvidia-smi.sh - a real consumer of `nvidia-smi -x -q`, unchanged: Debian 12's netdata
# python.d collector nvidia_smi.chart.py (package netdata-plugins-python 1.37) runs its own parser
# (xml.etree) on what gpuscope prints when invoked as nvidia-smi, through its Service class.
# The collector is taken from the installed package, or extracted from the package fetched from
# Debian's archive (tests/debian-archive.lib: apt-get download through a private apt configuration)
# into build/consumers/ (nothing is installed); without either the test exits 77 (skipped).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
skip() { echo "skipped: $*"; exit 77; }
command -v python3 >/dev/null || skip "python3 not installed"
# shellcheck source=tests/debian-archive.lib
. "$ROOT/tests/debian-archive.lib"

PD=/usr/lib/netdata/python.d
if [ ! -f "$PD/nvidia_smi.chart.py" ]; then
    CACHE="$ROOT/build/consumers/netdata-plugins-python"
    if [ ! -f "$CACHE/usr/lib/netdata/python.d/nvidia_smi.chart.py" ]; then
        debian_download main "$TMP/dl" netdata-plugins-python
        mkdir -p "$CACHE"
        dpkg-deb -x "$TMP"/dl/netdata-plugins-python_*.deb "$CACHE" || skip "cannot unpack netdata-plugins-python"
    fi
    PD="$CACHE/usr/lib/netdata/python.d"
fi
mkdir -p "$TMP/bin"
ln -s "$ROOT/build/gpuscope" "$TMP/bin/nvidia-smi"

cat >"$TMP/drive.py" <<'PY'
import importlib.util, io, sys, contextlib
pd = sys.argv[1]
sys.path[:0] = [pd + "/python_modules", pd]
spec = importlib.util.spec_from_file_location("nvidia_smi", pd + "/nvidia_smi.chart.py")
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
conf = {"loop_mode": False, "update_every": 1, "penalty": False, "job_name": "gpuscope",
        "override_name": None, "priority": 60000, "chart_cleanup": 10}
s = m.Service(configuration=conf, name="nvidia_smi")
with contextlib.redirect_stdout(io.StringIO()):  # the plugin protocol's CHART lines
    ok = s.check() and s.create()
    data = s.get_data()
print("check:", bool(ok))
for k in sys.argv[2:]:
    print(k, data.get(k))
PY

run() { # scenario profile keys...
    local scn=$1 prof=$2
    shift 2
    PATH="$TMP/bin:$PATH" GPUSCOPE_NVML_LIB="$ROOT/build/sim/$prof/libnvidia-ml.so.1" GPUSCOPE_SIM_SCENARIO="$scn" \
        GPUSCOPE_SIM_CLOCK=fixed:10 python3 "$TMP/drive.py" "$PD" "$@"
}

cat >"$TMP/r525.scn" <<'SCN'
system driver=525.147.05 cuda=12.0
gpu 0 name="NVIDIA GeForce RTX 3090" brand=geforce_rtx fans=1 fan=41 temp=52 power=231.5W power_limit=350W \
      util=87 mem_util=40 memory_total=24576MiB memory_used=20140MiB pstate=2 clock_graphics=1875 clock_mem=9501
proc 0 type=compute pid=4242 name="python train.py" mem=20000MiB
SCN

out=$( { run "$ROOT/tests/fixtures/nvidia-smi/h100-80gb-hbm3__590.48.01/load.scn" current \
            gpu0_gpu_util gpu0_memory_util gpu0_fb_memory_used gpu0_fb_memory_free gpu0_gpu_temp \
            gpu0_graphics_clock gpu0_mem_clock gpu0_process_mem_11345 gpu0_power_state_p0
         run "$TMP/r525.scn" r525 gpu0_fan_speed gpu0_gpu_util gpu0_fb_memory_used gpu0_power_draw \
            gpu0_power_state_p2 gpu0_process_mem_4242; } 2>&1)
want='check: True
gpu0_gpu_util 100
gpu0_memory_util 11
gpu0_fb_memory_used 19818
gpu0_fb_memory_free 61263
gpu0_gpu_temp 59
gpu0_graphics_clock 1980
gpu0_mem_clock 2619
gpu0_process_mem_11345 15690
gpu0_power_state_p0 0
check: True
gpu0_fan_speed 41
gpu0_gpu_util 87
gpu0_fb_memory_used 20140
gpu0_power_draw 23150.0
gpu0_power_state_p2 1
gpu0_process_mem_4242 20000'
if [ "$out" != "$want" ]; then
    echo "FAIL: netdata's nvidia_smi collector read:"
    echo "$out"
    echo "--- expected"
    echo "$want"
    exit 1
fi
echo "netdata-plugins-python's nvidia_smi collector parsed gpuscope's -x -q (R590 and R525 layouts)"
