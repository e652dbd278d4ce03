#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# deps.sh - the one list of packages gpuscope needs to build and test, and the
# one place that installs them (Debian/Ubuntu, apt-get, as root or via sudo).
# Called by `make run`, `make test` and `make bench`; fast when all are present.
#   scripts/deps.sh          install what is missing (build + test)
#   scripts/deps.sh --check  only say what is missing (exit 1 if anything is)
set -euo pipefail

BUILD_PKGS=(gcc make pkg-config libjansson-dev libmicrohttpd-dev libcrypt-dev libncurses-dev libsqlite3-dev
    libcurl4-gnutls-dev)
TEST_PKGS=(libcmocka-dev clang python3 procps time prometheus curl tmux wrk openssl sqlite3 chromium jq bc file)

missing=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }

for p in "${BUILD_PKGS[@]}" "${TEST_PKGS[@]}"; do
    have "$p" || missing+=("$p")
done

# libFuzzer and the sanitizer runtimes ship per clang version.
clang_pkgs() {
    local v
    v=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n1)
    [ -n "$v" ] || return 0
    for p in "libclang-rt-$v-dev" "libfuzzer-$v-dev"; do
        have "$p" || echo "$p"
    done
}

if [ "${1:-}" = "--check" ]; then
    mapfile -t extra < <(clang_pkgs)
    missing+=("${extra[@]}")
    [ "${#missing[@]}" -eq 0 ] && exit 0
    echo "missing packages: ${missing[*]}"
    exit 1
fi

install() {
    [ "$#" -gt 0 ] || return 0
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo="sudo"
        else
            echo "gpuscope: missing packages: $*" >&2
            echo "  hint: run as root: apt-get install -y $*" >&2
            exit 1
        fi
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "gpuscope: missing packages: $* (and no apt-get here: install them with your package manager)" >&2
        exit 1
    fi
    echo "gpuscope: installing missing packages: $*"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

install "${missing[@]}"
mapfile -t extra < <(clang_pkgs)
# Some releases fold libFuzzer into libclang-rt: install what exists.
avail=()
if [ "${#extra[@]}" -gt 0 ] && [ "$(id -u)" -eq 0 ]; then apt-get update -qq || true; fi
for p in "${extra[@]}"; do
    apt-cache show "$p" >/dev/null 2>&1 && avail+=("$p")
done
install "${avail[@]}"
exit 0
