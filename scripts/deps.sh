#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# deps.sh - the one list of packages gpuscope needs to build and test, and the
# one place that installs them (Debian/Ubuntu, apt-get, as root or via sudo).
# Called by `make run`, `make test` and `make bench`; fast when all are present.
#   scripts/deps.sh          install what is missing (build + test)
#   scripts/deps.sh --check  only say what is missing (exit 1 if anything is)
set -euo pipefail

BUILD_PKGS=(gcc make pkg-config libjansson-dev libmicrohttpd-dev libcrypt-dev libncurses-dev libsqlite3-dev
    libcurl4-gnutls-dev libgnutls28-dev  # serve: TLS options (src/serve/webtls.c)
    libprotobuf-c-dev protobuf-c-compiler libnghttp2-dev  # serve: the kubelet's pod-resources API (src/k8s/)
    libxml2-dev  # 9a: gpuscope smi -q -x (module smixml.so)
    libyaml-dev  # 21: the fleet's --prometheus-config (Prometheus http_config YAML, module fleet.so)
    libsnappy-dev)  # 22: record --remote-write: snappy block compression (module record.so)
TEST_PKGS=(libcmocka-dev clang python3 procps time prometheus curl tmux wrk openssl sqlite3 chromium jq bc file
    libnss-wrapper faketime  # 9b: the gpustat tests run on fixture users (nss_wrapper) at a capture's time
    python3-psutil python3-blessed python3-six python3-pkg-resources  # 9b: Debian's gpustat (tests/gpustat-debian.sh)
    python3-grpcio python3-protobuf protobuf-compiler  # the kubelet fixture server (tests/fixtures/kubelet/)
    prometheus-alertmanager)  # 12: watch against a real Alertmanager (tests/alertmanager.sh)
# 13: the Python hook's tests: PyTorch's CPU build (~46 MiB download, under a minute to install) and austin
TEST_PKGS+=(python3-torch austin)
# 14: man pages linted (mandoc, man-db), completions driven in bash, fish and zsh (tests/cli/0154..0156)
TEST_PKGS+=(mandoc man-db bash-completion fish zsh)
# 14: make deb and its test (tests/deb.sh): dpkg-buildpackage, dh, lintian
TEST_PKGS+=(dpkg-dev debhelper lintian)
# 21: the fleet backend against a second server of the Prometheus API (tests/fleet-prometheus.sh)
TEST_PKGS+=(victoria-metrics)
# 23: a real single-node Slurm with gpuscope as its Prolog/Epilog (tests/slurm.sh)
TEST_PKGS+=(slurm-wlm munge)
# 22: record --remote-write into real receivers (tests/remote-write.sh: prometheus above, victoria-metrics)

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
