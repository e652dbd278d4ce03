/* SPDX-License-Identifier: MIT */
/* fuzz_drm_cost.c - libFuzzer harness for the DRM cost model's figure parser
 * (sim/drm/cost/drmcost_env.c, gs_drmcost_parse): any text as a variable's value must
 * parse without crashing, and a figure taken must be a number of microseconds in
 * 0-10000000, a refused one leave the default in place (and print its line: run with
 * -close_fd_mask=2 to keep the fuzzer's output short). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drm/cost/drmcost.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    double us = -1;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    int r = gs_drmcost_parse("GPUSCOPE_SIM_DRM_COST_US", text, 2.5, &us);
    if (r == 0 && !(us >= 0 && us <= 10e6))
        abort();
    if (r != 0 && (r != -1 || us != 2.5))
        abort();
    free(text);
    return 0;
}
