#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# record-unit.sh - checks deploy/systemd/gpuscope-record.service, the unit that runs
# `gpuscope record`: `systemd-analyze verify` (on a copy whose ExecStart exists here)
# prints nothing, and the hardening and state settings the recorder relies on are there.
# Exits 77 (skipped) when systemd-analyze is not installed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
UNIT=deploy/systemd/gpuscope-record.service
command -v systemd-analyze >/dev/null || { echo "SKIP: systemd-analyze not installed"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

[ -f "$UNIT" ] || { echo "FAIL: no $UNIT"; exit 1; }
sed 's#^ExecStart=[^ ]*#ExecStart=/bin/true#' "$UNIT" >"$TMP/gpuscope-record.service"
out=$(systemd-analyze verify "$TMP/gpuscope-record.service" 2>&1) || bad "systemd-analyze verify: $out"
[ -z "$out" ] || bad "systemd-analyze verify: $out"
for k in 'ProtectSystem=strict' 'ProtectHome=yes' 'NoNewPrivileges=yes' 'PrivateTmp=yes' 'CapabilityBoundingSet=$' \
         'DeviceAllow=' 'DevicePolicy=closed' 'MemoryMax=' 'Restart=on-failure' 'DynamicUser=yes' \
         'StateDirectory=gpuscope$' 'SupplementaryGroups=video' 'RestrictAddressFamilies=AF_UNIX$' \
         'SystemCallFilter=@system-service'; do
    grep -q "^$k" "$UNIT" || bad "$UNIT: no $k"
done
# the database lives in the state directory, and the recorder stops cleanly on SIGTERM
grep -q '^ExecStart=.* record .*--db /var/lib/gpuscope/' "$UNIT" || bad "$UNIT: ExecStart does not record into /var/lib/gpuscope"
grep -q '^KillSignal=SIGTERM' "$UNIT" || bad "$UNIT: no KillSignal=SIGTERM"
# the options the unit passes are ones `gpuscope record` accepts
if [ -x build/gpuscope ]; then
    for opt in $(sed -n 's/^ExecStart=[^ ]* record //p' "$UNIT" | tr ' ' '\n' | grep '^-' | grep -v '^--db$'); do
        build/gpuscope record --help | grep -q -- "$opt" || bad "$UNIT: gpuscope record has no option $opt"
    done
fi
[ "$fail" = 0 ] || exit 1
echo "ok: $UNIT (systemd-analyze verify, hardening, state directory)"
