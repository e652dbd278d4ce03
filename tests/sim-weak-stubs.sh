#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/sim-weak-stubs.sh - the simulator's stubs (sim/sim_stubs.c) are weak: a strong definition
# of the same NVML function in any other file of sim/ wins at link time, with no edit to the stub
# list. Builds a copy of the simulator (current profile) with one extra file that implements
# nvmlDeviceGetMultiGpuBoard (a stub of the simulator) for real, and checks that the library
# exports that one definition (strong, not weak) and answers with it.
set -u
cd "$(dirname "$0")/.." || exit 1
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "skipped: no C compiler"; exit 77; }
tmp=$(mktemp -d /tmp/gs-weak.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/strong.c" <<'C'
#include "sim.h"
nvmlReturn_t nvmlDeviceGetMultiGpuBoard(nvmlDevice_t device, unsigned int *multiGpuBool);
nvmlReturn_t nvmlDeviceGetMultiGpuBoard(nvmlDevice_t device, unsigned int *multiGpuBool)
{
    (void)device;
    *multiGpuBool = 7;
    return NVML_SUCCESS;
}
C
cat >"$tmp/client.c" <<'C'
#include <stdio.h>
typedef struct nvmlDevice_st *nvmlDevice_t;
int nvmlInit_v2(void);
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d);
int nvmlDeviceGetMultiGpuBoard(nvmlDevice_t d, unsigned int *v);
int main(void)
{
    nvmlDevice_t d;
    unsigned v = 0;
    int r = nvmlInit_v2() || nvmlDeviceGetHandleByIndex_v2(0, &d) || nvmlDeviceGetMultiGpuBoard(d, &v);
    printf("%d %u\n", r, v);
    return r;
}
C
mkdir -p "$tmp/lib"
# shellcheck disable=SC2046
if ! "$CC" -std=c11 -D_GNU_SOURCE -Isrc -Isim -fPIC -shared -Wl,-soname,libnvidia-ml.so.1 \
    -Wl,--version-script=sim/profiles/current.map -o "$tmp/lib/libnvidia-ml.so.1" $(ls sim/*.c) "$tmp/strong.c" \
    -ldl -lpthread -lm 2>"$tmp/build.log"; then
    echo "FAIL: the simulator does not link with a strong definition beside its weak stub"
    cat "$tmp/build.log"
    exit 1
fi
"$CC" -o "$tmp/client" "$tmp/client.c" -L"$tmp/lib" -l:libnvidia-ml.so.1 || exit 1
kinds=$(nm -D --defined-only "$tmp/lib/libnvidia-ml.so.1" | awk '$3 == "nvmlDeviceGetMultiGpuBoard" {print $2}')
out=$(GPUSCOPE_SIM_SCENARIO=demo GPUSCOPE_SIM_SCENARIO_DIR=sim/scenarios LD_LIBRARY_PATH="$tmp/lib" "$tmp/client")
if [ "$kinds" = T ] && [ "$out" = "0 7" ]; then
    echo "ok: the strong nvmlDeviceGetMultiGpuBoard won ($kinds), answering '$out'"
    exit 0
fi
echo "FAIL: exported as '$kinds' (want T), answered '$out' (want '0 7')"
exit 1
