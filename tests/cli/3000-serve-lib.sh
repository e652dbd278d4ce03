# SPDX-License-Identifier: MIT
# 3000-serve-lib.sh - sourced by the tests/cli/3*-serve-*.test scripts: start
# `gpuscope serve` on a loopback port the kernel picks (--listen 127.0.0.1:0),
# read the port from its "listening" line, and always stop it on exit.

serve_start() { # serve_start [serve options...]; sets SERVE_PID, PORT, URL
    rm -f "$TMP/serve.err" # the background redirect creates it later: never read an old one
    "$GPUSCOPE" serve --listen 127.0.0.1:0 "$@" 2>"$TMP/serve.err" &
    SERVE_PID=$!
    PORT=
    # a test may have started drmsim first (9000-drm.lib): its EXIT trap is replaced here
    trap 'serve_stop; if type drm_stop >/dev/null 2>&1; then drm_stop; fi' EXIT
    for _ in $(seq 1 300); do # 30 s at least: an ASan build on a loaded machine starts slowly
        PORT=$(sed -n 's/.*listening on .*(port \([0-9]*\)).*/\1/p' "$TMP/serve.err" 2>/dev/null)
        [ -n "$PORT" ] && break
        kill -0 "$SERVE_PID" 2>/dev/null || { cat "$TMP/serve.err" >&2; return 1; }
        sleep 0.1
    done
    [ -n "$PORT" ] || { echo "serve did not start" >&2; cat "$TMP/serve.err" >&2; return 1; }
    URL="http://127.0.0.1:$PORT"
}

serve_stop() {
    if [ -n "${SERVE_PID:-}" ] && kill -0 "$SERVE_PID" 2>/dev/null; then
        kill -TERM "$SERVE_PID"
        wait "$SERVE_PID" 2>/dev/null
        echo "serve exit $?" >>"$TMP/serve.err"
        # the runner looks for sanitizer reports on the test's stderr: pass the server's on
        if grep -q -e 'Sanitizer' -e 'runtime error:' "$TMP/serve.err"; then cat "$TMP/serve.err" >&2; fi
    fi
    SERVE_PID=
}
