/* SPDX-License-Identifier: MIT */
/*
 * fuzz_prom_result.c - libFuzzer harness for the parser of Prometheus'
 * /api/v1 answers (gs_prom_parse, fleet module) and of the scrape interval
 * in /api/v1/status/config. Any input must give a result whose labels are
 * bounded valid strings, or an error with a message, never a crash.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/prom/prom_priv.h"
#include "core/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_prom_result r;
    struct gs_err err = {0};
    long http = size ? 200 + (data[0] & 3) * 100 : 200;

    int rc = gs_prom_parse((const char *)data, size, http, "the query", &r, &err);
    if (rc < 0) {
        if (r.n || !err.msg[0])
            abort();
        return 0;
    }
    for (size_t i = 0; i < r.n; i++) {
        const struct gs_prom_series *s = &r.s[i];
        if (s->nlabels > GS_PROM_MAX_LABELS)
            abort();
        for (size_t j = 0; j < s->nlabels; j++)
            if (strlen(s->values[j]) > GS_PROM_LABEL_MAX || !gs_utf8_valid(s->values[j]) ||
                strlen(s->names[j]) > GS_PROM_LABEL_MAX)
                abort();
    }
    gs_prom_result_free(&r);
    (void)gs_prom_parse_scrape_interval((const char *)data, size);
    return 0;
}
