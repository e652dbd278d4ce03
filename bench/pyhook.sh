#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/pyhook.sh - what gpuscope's Python hook (python/hook/, docs/PYHOOK.md) costs
# the process it is in: start-up, an idle process, a busy one (pure Python; torch on the
# CPU), not asked, asked once a second (as top/serve/record do), and asked 10 times a
# second for stats plus once a second for stacks. Ratios to "no hook" from the same run.
# Needs Debian's python3 (and python3-torch for the torch rows; scripts/deps.sh installs it).
set -u
cd "$(dirname "$0")/.." || exit 2
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
echo "Python hook overhead ($($PY --version 2>&1), $($PY -c 'import torch; print("torch", torch.__version__)' 2>/dev/null || echo 'no torch'))"
exec "$PY" bench/pyhook_bench.py
