#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/churn.sh - the 30-minute churn soak (issue 10): `gpuscope serve` and `gpuscope record`
# watching 10 new short-lived GPU processes a second (18,000 distinct PIDs) for 30 minutes;
# RSS, descriptors, threads and series must be flat after a 10-minute warm-up (past the health
# engine's 5-minute per-process window). tests/churn-soak.sh does the work (make test runs a
# 45-second version of it). Not in `make bench`'s default list (it takes 31 minutes):
#   BENCH_ONLY=churn make bench      or      bash bench/churn.sh
# Environment: GS_SOAK_SECONDS (1800), GS_SOAK_RATE (10), GS_SOAK_WARMUP (600), GS_SOAK_EVERY (60).
cd "$(dirname "$0")/.." || exit 2
exec env GS_SOAK_SECONDS="${GS_SOAK_SECONDS:-1800}" GS_SOAK_RATE="${GS_SOAK_RATE:-10}" \
    GS_SOAK_WARMUP="${GS_SOAK_WARMUP:-600}" GS_SOAK_EVERY="${GS_SOAK_EVERY:-60}" bash tests/churn-soak.sh
