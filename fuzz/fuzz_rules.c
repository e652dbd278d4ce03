/* SPDX-License-Identifier: MIT */
/* fuzz_rules.c - libFuzzer harness for watch's rules parser (src/health/rules.c):
 * any bytes as a rules file either parse or fail with "file:line: reason". */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "health/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_rules *rs = calloc(1, sizeof(*rs));
    struct gs_err err = { 0 };
    if (!rs)
        return 0;
    int rc = gs_rules_parse(rs, (const char *)data, size, "fuzz.rules", &err);
    if (rc < 0 && strncmp(err.msg, "fuzz.rules:", 11) != 0)
        abort();
    if (rc == 0 && (rs->nrules > GS_RULES_MAX || rs->ntargets > GS_TARGETS_MAX))
        abort();
    gs_rules_free(rs);
    free(rs);
    return 0;
}
