#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/real-nvml.sh - gpuscope against NVIDIA's real libnvidia-ml.so.1 on a machine without
# the NVIDIA kernel driver: `gpuscope query` must exit 3 (GS_EXIT_NO_NVML) and explain that the
# driver is not loaded.
#
# The library comes from Debian's non-free archive (package libnvidia-ml1), fetched with
# `apt-get download` through a private, temporary apt configuration (its own sources file,
# package lists and cache under a temp dir): the system's apt sources and state are never
# touched. The extracted library is kept in $BUILD/real-nvml/ so later runs need no network.
# Exit 77 with one "skipped: ..." line when the library cannot be had (not Debian, no archive
# access, a driver is loaded here) - tests/run-tests counts that as skipped.
# GS_DEBIAN_MIRROR overrides the mirror (default: the Debian mirror configured in /etc/apt).
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${GS_BUILD_DIR:-build}
GPUSCOPE=$BUILD/gpuscope
CACHE=$BUILD/real-nvml
PKG=libnvidia-ml1

skip() { echo "skipped: $*"; exit 77; }

[ -x "$GPUSCOPE" ] || skip "$GPUSCOPE is not built"
[ -e /proc/driver/nvidia/version ] &&
    skip "an NVIDIA driver is loaded on this machine, so the driver-not-loaded case does not apply"

# shellcheck source=tests/debian-archive.lib
. tests/debian-archive.lib

# Download and extract libnvidia-ml1 into $CACHE.
fetch_library() {
    local tmp deb lib
    tmp=$(mktemp -d /tmp/gs-real-nvml.XXXXXX)
    debian_download non-free "$tmp/dl" "$PKG"
    deb=$(ls "$tmp"/dl/*.deb 2>/dev/null | head -n1)
    dpkg -x "$deb" "$tmp/x" || { rm -rf "$tmp"; skip "cannot extract $deb"; }
    lib=$(find "$tmp/x" -name 'libnvidia-ml.so.1' | head -n1)
    [ -n "$lib" ] || { rm -rf "$tmp"; skip "$PKG holds no libnvidia-ml.so.1"; }
    mkdir -p "$CACHE"
    cp -L "$lib" "$CACHE/libnvidia-ml.so.1"
    basename "$deb" >"$CACHE/PACKAGE"
    rm -rf "$tmp"
}

[ -e "$CACHE/libnvidia-ml.so.1" ] || fetch_library
LIB=$(cd "$CACHE" && pwd)/libnvidia-ml.so.1
echo "library: $LIB ($(cat "$CACHE/PACKAGE" 2>/dev/null || echo "$PKG"))"

fail=0
check() { # ARGS... : expect exit 3 and the driver-not-loaded explanation
    local out err rc
    out=$(mktemp) err=$(mktemp)
    env -u GPUSCOPE_SIM_SCENARIO -u GPUSCOPE_SIM_FAULTS GPUSCOPE_NVML_LIB="$LIB" \
        timeout 30 "$GPUSCOPE" "$@" >"$out" 2>"$err"
    rc=$?
    if [ "$rc" -eq 3 ] && grep -qiE 'driver.*not loaded|not loaded.*driver' "$err"; then
        echo "ok: gpuscope $* -> exit 3: $(head -n1 "$err")"
    else
        echo "FAIL: gpuscope $* -> exit $rc (expected 3 and a driver-not-loaded message)"
        sed 's/^/  stderr: /' "$err" | head -n 10
        sed 's/^/  stdout: /' "$out" | head -n 5
        fail=1
    fi
    rm -f "$out" "$err"
}

check query
check query --format json
exit "$fail"
