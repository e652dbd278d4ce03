/* SPDX-License-Identifier: MIT */
/*
 * fuzz_http_config.c - libFuzzer harness for the parser of Prometheus'
 * http_config YAML (gs_http_config_parse, fleet module). Any input must give
 * a config that keeps its own rules (one kind of credentials, a username with
 * basic auth, cert and key together) or an error naming the file and a line.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/prom/http_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_http_config *c = NULL;
    struct gs_err err = {0};
    char d[256];

    int rc = gs_http_config_parse(&c, (const char *)data, size, "/etc/fuzz.yml", &err);
    if (rc < 0) {
        if (c || strncmp(err.msg, "/etc/fuzz.yml:", 14))
            abort();
        return 0;
    }
    if (!c || (c->auth == GS_HTTP_AUTH_BASIC && !c->username) || (!c->cert_file != !c->key_file) ||
        (c->auth == GS_HTTP_AUTH_HEADER && !c->credentials == !c->credentials_file))
        abort();
    gs_http_config_describe(c, d, sizeof(d));
    gs_http_config_free(c);
    return 0;
}
