/* SPDX-License-Identifier: MIT */
/*
 * fuzz_webcfg.c - libFuzzer harness for the web config parser
 * (gs_webcfg_parse, the exporter-toolkit YAML subset). Any input must give
 * either a config or an error naming the file and a line, never a crash.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve/webcfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_webcfg *c = NULL;
    struct gs_err err = { 0 };
    int rc = gs_webcfg_parse(&c, (const char *)data, size, "fuzz.yml", "/base", &err);
    if (rc < 0) {
        if (c || !err.msg[0] || strncmp(err.msg, "fuzz.yml:", 9))
            abort();
        return 0;
    }
    if (!c)
        abort();
    if (gs_webcfg_has_tls(c) && (!gs_webcfg_cert_file(c) || !gs_webcfg_key_file(c)))
        abort();
    gs_webcfg_free(c);
    return 0;
}
