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
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

skip() { echo "skipped: $*"; exit 77; }

[ -x "$GPUSCOPE" ] || skip "$GPUSCOPE is not built"
[ -e /proc/driver/nvidia/version ] &&
    skip "an NVIDIA driver is loaded on this machine, so the driver-not-loaded case does not apply"

# The Debian mirror and release this machine already uses (deb822 .sources or one-line lists).
debian_mirror() {
    local uri
    uri=$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null |
        awk '{ for (i = 2; i <= NF; i++) print $i }' | grep -E '/debian/?$' | head -n1)
    if [ -z "$uri" ]; then
        uri=$(grep -hE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
            awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/) { print $i; exit } }' |
            grep -E '/debian/?$' | head -n1)
    fi
    echo "$uri"
}

# Download and extract libnvidia-ml1 into $CACHE; prints the library path.
fetch_library() {
    local tmp codename mirror deb lib apt_opts
    command -v apt-get >/dev/null && command -v dpkg >/dev/null || skip "apt-get/dpkg not available"
    # shellcheck disable=SC1091
    . /etc/os-release
    [ "${ID:-}" = debian ] || skip "not a Debian system (ID=${ID:-unknown}): no Debian non-free archive"
    codename=${VERSION_CODENAME:-}
    [ -n "$codename" ] || skip "unknown Debian release"
    [ -r "$KEYRING" ] || skip "no Debian archive keyring at $KEYRING"
    mirror=${GS_DEBIAN_MIRROR:-$(debian_mirror)}
    [ -n "$mirror" ] || skip "no Debian mirror configured in /etc/apt (set GS_DEBIAN_MIRROR)"
    tmp=$(mktemp -d /tmp/gs-real-nvml.XXXXXX)
    mkdir -p "$tmp/etc" "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/dl"
    printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: non-free\nSigned-By: %s\n' \
        "$mirror" "$codename" "$KEYRING" >"$tmp/etc/non-free.sources"
    apt_opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$tmp/etc"
        -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache"
        -o "APT::Sandbox::User=root" -q)
    if ! apt-get "${apt_opts[@]}" update >"$tmp/update.log" 2>&1; then
        rm -rf "$tmp"
        skip "cannot read the non-free index of $mirror $codename"
    fi
    if ! (cd "$tmp/dl" && apt-get "${apt_opts[@]}" download "$PKG" >"$tmp/download.log" 2>&1); then
        rm -rf "$tmp"
        skip "cannot download $PKG from $mirror $codename non-free"
    fi
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
