/* SPDX-License-Identifier: MIT */
/*
 * fuzz_rw_config.c - libFuzzer harness for record's remote_write config
 * (gs_rw_cfg_parse, record module: its own keys, then the client keys handed
 * to the http_config parser on the same lines). Any input gives a config
 * that keeps its rules (samples per request in range, backoff ordered,
 * "Name: value" headers, every relabel rule with a source label) or an error
 * naming the file and a line.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/rw.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_rw_cfg c;
    struct gs_err err = { 0 };
    gs_rw_cfg_init(&c);
    int rc = gs_rw_cfg_parse(&c, "/etc/fuzz.yml", (const char *)data, size, &err);
    if (rc < 0) {
        if (err.code != GS_E_NOMEM && strncmp(err.msg, "/etc/fuzz.yml:", 14))
            abort();
        gs_rw_cfg_free(&c);
        return 0;
    }
    if (c.max_samples < 1 || c.min_backoff_ms < 1 || c.max_backoff_ms < c.min_backoff_ms ||
        c.nheaders > GS_RW_MAX_HEADERS || c.nrelabel > GS_RW_MAX_RELABEL)
        abort();
    for (size_t i = 0; i < c.nheaders; i++)
        if (!strstr(c.headers[i], ": ") || strpbrk(c.headers[i], "\r\n"))
            abort();
    for (size_t i = 0; i < c.nrelabel; i++)
        if (!c.relabel[i].nsrc)
            abort();
    gs_rw_cfg_free(&c);
    return 0;
}
