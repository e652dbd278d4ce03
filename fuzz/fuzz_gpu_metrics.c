/* SPDX-License-Identifier: MIT */
/* fuzz_gpu_metrics.c - libFuzzer harness for amdgpu's gpu_metrics decoder
 * (src/backend/drm/amdgpu_metrics.c): any bytes, as the binary table of any version, must
 * decode without reading past len (a header that claims more than was read, a truncated
 * table, an unknown version); a table it accepts has a version it knows. The backend
 * clamps activity to 100 % (amdgpu.c): the decoder passes the firmware's numbers on. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/drm/amdgpu_metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size ? size : 1); /* exactly size bytes: ASan catches a read past them */
    struct gs_amd_metrics m;

    if (!buf)
        return 0;
    memcpy(buf, data, size);
    if (gs_amd_metrics_decode(buf, size, &m) == 0) {
        if (m.valid & ~(uint32_t)((GS_AMDM_THROTTLE << 1) - 1))
            abort();
        if (m.format < 1 || m.format > 3)
            abort();
        if (m.valid & GS_AMDM_THROTTLE)
            (void)gs_amd_throttle_reasons(m.indep_throttle);
    }
    free(buf);
    return 0;
}
