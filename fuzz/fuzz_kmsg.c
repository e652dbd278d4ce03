/* SPDX-License-Identifier: MIT */
/* fuzz_kmsg.c - libFuzzer harness for the kernel-log Xid parser (src/health/kmsg.c):
 * any bytes as a log must parse without crashing, and every Xid found must be sane. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "health/kmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_kmsg_log log = { 0 };
    gs_kmsg_parse_buf(&log, (const char *)data, size);
    for (size_t i = 0; i < log.n; i++) {
        if (strlen(log.v[i].msg) >= sizeof(log.v[i].msg) || strlen(log.v[i].name) >= sizeof(log.v[i].name))
            abort();
        if (log.v[i].xid > 999999)
            abort();
    }
    gs_kmsg_free(&log);
    return 0;
}
