#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# burn-ptxas.sh - assemble burn's PTX kernels (gpuscope burn --print-ptx) with
# NVIDIA's ptxas for the GPU generations they target, when a CUDA toolkit is
# installed here. A local check of the hand-written PTX only: gpuscope never
# needs a toolkit to build, and without ptxas this is skipped (exit 77).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
GPUSCOPE=${GPUSCOPE:-$ROOT/build/gpuscope}
PTXAS=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null || true)
if [ -z "$PTXAS" ]; then
    echo "skipped: no ptxas (a CUDA toolkit) on this machine"
    exit 77
fi
[ -x "$GPUSCOPE" ] || { echo "build gpuscope first ($GPUSCOPE)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GPUSCOPE" burn --print-ptx base > "$tmp/base.ptx" && "$GPUSCOPE" burn --print-ptx mma > "$tmp/mma.ptx" || exit 1
rc=0
for arch in sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120; do
    for m in base mma; do
        [ "$m" = mma ] && [ "$arch" = sm_75 ] && continue # the tensor kernel needs sm_80
        # architectures this ptxas does not know are skipped, not failed
        out=$("$PTXAS" -arch="$arch" "$tmp/$m.ptx" -o "$tmp/$m.$arch.cubin" 2>&1)
        if [ $? -ne 0 ]; then
            case "$out" in *"not defined for option"*) echo "  $m $arch: not known to this ptxas"; continue ;; esac
            echo "FAIL $m $arch: $out"
            rc=1
        else
            echo "  $m $arch: assembled"
        fi
    done
done
# the tensor kernel must be refused below sm_80, as the driver's JIT refuses it
if "$PTXAS" -arch=sm_75 "$tmp/mma.ptx" -o /dev/null > /dev/null 2>&1; then
    echo "FAIL mma sm_75: assembled, but the kernel says .target sm_80"
    rc=1
fi
exit $rc
