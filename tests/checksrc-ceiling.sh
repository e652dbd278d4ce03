#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# checksrc-ceiling.sh - scripts/checksrc's file-size ceiling: in a scratch git tree
# holding checksrc, a .c file of 801 lines under src/ is named with its length
# and the ceiling, 800 lines pass, and an exempted file under the ceiling is told
# to leave the list.
set -u
cd "$(dirname "$0")/.."
command -v git >/dev/null || { echo "skip: git not installed"; exit 77; }
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/scripts" "$TMP/src/core" "$TMP/sim"
cp scripts/checksrc scripts/top-length "$TMP/scripts/"
src_file() { # src_file PATH LINES: an SPDX line, a comment saying what it is for, then filler
    { echo '/* SPDX-License-Identifier: MIT */'; echo '/* a file for the ceiling test */'
      for _ in $(seq 3 "$2"); do echo 'int x;'; done; } >"$TMP/$1"
}
src_file src/core/big.c 801
src_file src/core/fits.c 800
src_file sim/sim_stubs.c 10
git -C "$TMP" init -q && git -C "$TMP" add -A || exit 1
out=$("$TMP/scripts/checksrc" 2>&1); rc=$?
fail=0
[ "$rc" -ne 0 ] || { echo "FAIL: checksrc passed a tree with an 801-line file"; fail=1; }
grep -q '^src/core/big.c: 801 lines, over the ceiling of 800 lines' <<<"$out" ||
    { echo "FAIL: no message naming src/core/big.c, 801 lines and the ceiling"; fail=1; }
grep -q 'fits.c' <<<"$out" && { echo "FAIL: an 800-line file was reported"; fail=1; }
grep -q '^sim/sim_stubs.c: 10 lines, under the ceiling of 800: remove it' <<<"$out" ||
    { echo "FAIL: an exempted file under the ceiling was not reported"; fail=1; }
[ "$fail" -eq 0 ] || { printf '%s\n' "$out"; exit 1; }
echo "ok: checksrc names a file over 800 lines, passes 800, flags a stale exemption"
