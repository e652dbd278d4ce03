/* SPDX-License-Identifier: MIT */
/* fuzz_sysfs_value.c - libFuzzer harness for the DRM backend's sysfs text parsers
 * (src/backend/drm/sysval.c): numbers, hex ids, first lines, pp_dpm_sclk/mclk levels, PCIe
 * link speeds, RAS counts and bad-page lists. Any bytes (not NUL-terminated) must parse
 * without crashing or reading past len, and what they fill must be consistent. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/drm/sysval.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size ? size : 1), line[32];
    uint64_t u, ue, ce;
    int64_t i;
    uint32_t h, gen, pages;
    struct gs_dpm dpm;

    if (!text)
        return 0;
    memcpy(text, data, size);
    (void)gs_sysval_u64(text, size, &u);
    (void)gs_sysval_i64(text, size, &i);
    (void)gs_sysval_hex(text, size, &h);
    if (gs_sysval_line(text, size, line, sizeof(line)) == 0 && strlen(line) >= sizeof(line))
        abort();
    if (gs_sysval_dpm(text, size, &dpm) == 0 && dpm.nlevels && dpm.min_mhz > dpm.max_mhz)
        abort();
    if (gs_sysval_link_gen(text, size, &gen) == 0 && (gen < 1 || gen > 6))
        abort();
    (void)gs_sysval_ras_count(text, size, &ue, &ce);
    (void)gs_sysval_bad_pages(text, size, &pages);
    free(text);
    return 0;
}
