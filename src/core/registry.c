/* SPDX-License-Identifier: MIT */
/* registry.c - the explicit backend table (see registry.h). */
#include "core/registry.h"

#include <string.h>

static const struct gs_backend *const backends[] = {
    &gs_backend_nvml,
    &gs_backend_drm, /* AMD (amdgpu) and Intel (i915, xe): after NVML, whose numbering CUDA uses */
    NULL,
};

const struct gs_backend *gs_registry_get(unsigned i)
{
    if (i >= sizeof(backends) / sizeof(backends[0]))
        return NULL;
    return backends[i];
}

bool gs_registry_enabled(const struct gs_backend *b, const char *filter)
{
    size_t n = strlen(b->name);

    if (!filter || !*filter)
        return true;
    for (const char *p = filter; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && !strncmp(p, b->name, n))
            return true;
        p += len;
        if (*p == ',')
            p++;
    }
    return false;
}
