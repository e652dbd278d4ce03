#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# style.sh - the source rules a machine can enforce (scripts/checksrc), in make test.
cd "$(dirname "$0")/.." && exec scripts/checksrc
