/* SPDX-License-Identifier: MIT */
/* gpusel.c - matching "-i" ids to GPUs (see gpusel.h). */
#include "core/gpusel.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct gs_pci_addr {
    bool has_domain;
    unsigned long domain, bus, device;
};

/* Parse "[domain:]bus:device[.function]" in hex; 0 or -1. */
static int gs_parse_pci(const char *s, struct gs_pci_addr *a)
{
    unsigned long v[3];
    int n = 0;
    char *end;

    while (n < 3) {
        errno = 0;
        v[n++] = strtoul(s, &end, 16);
        if (end == s || errno)
            return -1;
        if (*end != ':')
            break;
        s = end + 1;
    }
    if (n < 2 || (*end && *end != '.'))
        return -1;
    if (*end == '.' && (!isxdigit((unsigned char)end[1]) || end[2]))
        return -1;
    a->has_domain = n == 3;
    a->domain = n == 3 ? v[0] : 0;
    a->bus = v[n - 2];
    a->device = v[n - 1];
    return 0;
}

static bool gs_id_matches(const char *id, const struct gs_gpu *g)
{
    const struct gs_static *st = &g->st;
    struct gs_pci_addr a;
    char *end;

    if (isdigit((unsigned char)id[0])) {
        unsigned long idx = strtoul(id, &end, 10);
        if (!*end)
            return idx == st->index;
    }
    if (gs_static_has(st, GS_S_UUID) && !strcasecmp(id, st->uuid))
        return true;
    if (strchr(id, ':') && gs_static_has(st, GS_S_PCI) && gs_parse_pci(id, &a) == 0)
        return (!a.has_domain || a.domain == st->pci_domain) && a.bus == st->pci_bus &&
               a.device == st->pci_device;
    return false;
}

/* Mark the GPUs matching one id in chosen[]; false if none. */
static bool gs_select_one(const char *id, const struct gs_gpu *gpus, uint32_t n, bool *chosen)
{
    bool any = false;

    for (uint32_t i = 0; i < n; i++) {
        if (gs_id_matches(id, &gpus[i])) {
            chosen[i] = true;
            any = true;
        }
    }
    return any;
}

int gs_gpusel(const char *ids, const struct gs_gpu *gpus, uint32_t n, uint32_t *sel,
              uint32_t *nsel, struct gs_err *err)
{
    bool *chosen = calloc(n ? n : 1, sizeof(*chosen));
    char id[128];
    int rc = 0;

    if (!chosen)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    for (const char *p = ids ? ids : ""; *p && rc == 0;) {
        size_t len = strcspn(p, ",");
        size_t skip = strspn(p, " \t");
        if (len > skip) {
            snprintf(id, sizeof(id), "%.*s", (int)(len - skip), p + skip);
            id[strcspn(id, " \t")] = '\0';
            if (!gs_select_one(id, gpus, n, chosen)) {
                rc = gs_err_set(err, GS_E_NO_DEVICE, "no GPU matches the id '%s'", id);
                gs_err_hint(err, "ids are NVML indexes (0..%u), UUIDs (GPU-...) or PCI bus ids "
                                 "(00000000:3B:00.0); 'gpuscope query' lists them", n ? n - 1 : 0);
            }
        }
        p += len;
        if (*p == ',')
            p++;
    }
    *nsel = 0;
    for (uint32_t i = 0; rc == 0 && i < n; i++)
        if (chosen[i] || !ids || !*ids)
            sel[(*nsel)++] = i;
    free(chosen);
    return rc;
}
