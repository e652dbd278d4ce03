/* SPDX-License-Identifier: MIT */
/*
 * fuzz_pyhook.c - libFuzzer harness for the Python hook's channel reader
 * (src/core/pyhook_parse.c): a reply comes from another process and is not
 * trusted. Every input is parsed as a "stats" and as a "stacks" reply; what
 * parses must be well-formed (terminated strings, bounded device count,
 * allocated within reserved), be matched to a GPU without crashing and copy
 * into a gs_proc; the stacks text stays within its buffer and terminated.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/pyhook.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void terminated(const char *s, size_t cap)
{
    if (!memchr(s, '\0', cap))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_pyhook_stats st;
    char why[128], text[2048];
    unsigned n;
    if (gs_pyhook_parse_stats((const char *)data, size, &st, why, sizeof(why)) == 0) {
        if (st.ndevs > GS_PYHOOK_MAX_DEVS || !st.pid)
            abort();
        terminated(st.torch, sizeof(st.torch));
        terminated(st.alloc_conf, sizeof(st.alloc_conf));
        terminated(st.cvd, sizeof(st.cvd));
        for (unsigned i = 0; i < st.ndevs; i++) {
            terminated(st.devs[i].uuid, sizeof(st.devs[i].uuid));
            if (st.devs[i].reserved && st.devs[i].allocated > st.devs[i].reserved)
                abort();
        }
        struct gs_static gpu = { .index = 1 };
        snprintf(gpu.uuid, sizeof(gpu.uuid), "%s", "GPU-12345678-1234-1234-1234-123456789abc");
        snprintf(gpu.pci_bus_id, sizeof(gpu.pci_bus_id), "%s", "00000000:3B:00.0");
        struct gs_proc p = { 0 };
        gs_pyhook_apply(&st, &gpu, 5, &p);
        terminated(p.torch_alloc_conf, sizeof(p.torch_alloc_conf));
        if (gs_proc_has(&p, GS_P_TORCH) != (p.pyhook_state == GS_PYHOOK_ST_OK))
            abort();
    } else {
        terminated(why, sizeof(why));
    }
    gs_pyhook_format_stacks((const char *)data, size, text, sizeof(text), &n, why, sizeof(why));
    terminated(text, sizeof(text));
    return 0;
}
