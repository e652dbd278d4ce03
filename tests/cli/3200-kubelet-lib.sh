# SPDX-License-Identifier: MIT
# 3200-kubelet-lib.sh - sourced by tests/cli/32*-serve-kubelet-*.test: a kubelet
# pod-resources server (tests/fixtures/kubelet/server.py, real gRPC) on a UNIX socket
# in $TMP, answering from a JSON fixture the test can rewrite while it runs.
#   kubelet_start FIXTURE.json   start it on $KSOCK (skips the test, exit 77, without
#                                python3-grpcio or protoc); stopped on exit
#   kubelet_set FIXTURE.json     what it answers from now on (atomic rename)
#   kubelet_stop                 stop it (grpc removes its socket file)
#   kubelet_kill                 kill it (SIGKILL: the socket file stays, as a crashed kubelet's does)
#   kserve_start ARGS...         serve_start (3000-serve-lib.sh) keeping both stopped on exit
#   wait_metrics REGEX [SECONDS] scrape $URL until a line matches (default 10 s); 1 if never
. "$ROOT/tests/cli/3000-serve-lib.sh"

KSOCK=$TMP/kubelet.sock
KFIX=$TMP/kubelet.json
KPID=

kubelet_python() {
    local p
    for p in /usr/bin/python3 python3; do # Debian's first: scripts/deps.sh installs the modules for it
        if command -v "$p" >/dev/null && "$p" -c 'import grpc, google.protobuf' 2>/dev/null; then
            echo "$p"
            return 0
        fi
    done
    return 1
}

kubelet_set() {
    cp "$1" "$KFIX.new" && mv "$KFIX.new" "$KFIX"
}

kubelet_start() {
    local py
    py=$(kubelet_python) || { echo "SKIP: python3-grpcio and python3-protobuf are not installed" >&2; exit 77; }
    command -v protoc >/dev/null || { echo "SKIP: protoc (protobuf-compiler) is not installed" >&2; exit 77; }
    [ -n "${1:-}" ] && kubelet_set "$1"
    "$py" "$ROOT/tests/fixtures/kubelet/server.py" "$KSOCK" "$KFIX" >"$TMP/kubelet.out" 2>&1 &
    KPID=$!
    trap 'serve_stop; kubelet_stop' EXIT
    for _ in $(seq 1 200); do
        grep -q '^ready' "$TMP/kubelet.out" 2>/dev/null && return 0
        kill -0 "$KPID" 2>/dev/null || break
        sleep 0.05
    done
    echo "the kubelet fixture server did not start:" >&2
    cat "$TMP/kubelet.out" >&2
    return 1
}

kubelet_stop() {
    if [ -n "$KPID" ] && kill -0 "$KPID" 2>/dev/null; then
        kill -TERM "$KPID"
        wait "$KPID" 2>/dev/null
    fi
    KPID=
}

kserve_start() {
    serve_start "$@" || return 1
    trap 'serve_stop; kubelet_stop' EXIT
}

kubelet_kill() {
    if [ -n "$KPID" ]; then
        kill -KILL "$KPID" 2>/dev/null
        wait "$KPID" 2>/dev/null
    fi
    KPID=
}

wait_metrics() {
    local re=$1 secs=${2:-10} i
    for ((i = 0; i < secs * 10; i++)); do
        curl -sS -o "$TMP/m" "$URL/metrics" 2>/dev/null && grep -Eq -- "$re" "$TMP/m" && return 0
        sleep 0.1
    done
    echo "no line matching /$re/ within $secs s; last scrape:" >&2
    grep -E 'pod=|kubelet' "$TMP/m" >&2
    return 1
}
