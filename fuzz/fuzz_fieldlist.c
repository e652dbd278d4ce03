/* SPDX-License-Identifier: MIT */
/*
 * fuzz_fieldlist.c - libFuzzer harness for gs_fieldlist_parse (the
 * --query-gpu / --query-compute-apps list parser) and the unknown-field
 * suggestions. The first byte picks the query kind; the rest is the list.
 * Invariants: success means at least one known field whose headers
 * print; failure means a usage error with a message naming the option.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/fields.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct gs_fieldlist fl;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_err err = { 0 };
    char header[192];
    char *spec;
    enum gs_query_kind kind;

    if (size < 1 || size > 8192)
        return 0;
    kind = data[0] & 1 ? GS_QUERY_COMPUTE_APPS : GS_QUERY_GPU;
    spec = malloc(size);
    if (!spec)
        return 0;
    memcpy(spec, data + 1, size - 1);
    spec[size - 1] = '\0';
    if (gs_fieldlist_parse(&fl, kind, spec, &err) == 0) {
        if (fl.n < 1 || fl.n > fl.cap || fl.kind != kind)
            abort();
        for (unsigned i = 0; i < fl.n; i++) {
            gs_field_header(fl.defs[i], 0, header, sizeof(header));
            if (strncmp(header, gs_field_name(fl.defs[i]), strlen(gs_field_name(fl.defs[i]))))
                abort();
        }
        (void)gs_fieldlist_want(&fl);
    } else if (err.code != GS_E_USAGE || !strstr(err.msg, "--query-")) {
        abort();
    }
    free(spec);
    return 0;
}
