/* SPDX-License-Identifier: MIT */
/*
 * fdinfo.h - one DRM client's /proc/PID/fdinfo/FD text, parsed after the
 * kernel's Documentation/gpu/drm-usage-stats.rst: drm-driver, drm-pdev,
 * drm-client-id, drm-client-name; drm-engine-<e> (busy ns),
 * drm-engine-capacity-<e>, drm-cycles-<e> / drm-total-cycles-<e>;
 * drm-resident-<r> (or its older alias drm-memory-<r>) and drm-total-<r>.
 *
 * One parser for every driver, driven by a table of keys per driver (which
 * engine names exist and in what order they are shown, which memory regions
 * are device memory): adding a driver is adding a table. The parser never
 * allocates; fuzz/fuzz_fdinfo.c feeds it.
 */
#ifndef GS_DRM_FDINFO_H
#define GS_DRM_FDINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

/* Where a memory region's buffers live. */
enum gs_fdinfo_mem {
    GS_FDINFO_MEM_IGNORE = 0, /* stolen, doorbell, gds, ...: not counted */
    GS_FDINFO_MEM_DEVICE,     /* VRAM / local memory */
    GS_FDINFO_MEM_SYSTEM,     /* system memory mapped for the GPU (GTT, system) */
};

/* An engine key (the <e> of drm-engine-<e>) and the slot it is shown in. */
struct gs_fdinfo_engine {
    const char *key;
    uint8_t slot;
};

/* A memory region name (exact, or a prefix when it ends in '*': "vram*"). */
struct gs_fdinfo_region {
    const char *name;
    uint8_t mem; /* enum gs_fdinfo_mem */
};

/* What one driver prints. Arrays end with a NULL key/name. */
struct gs_fdinfo_keys {
    const char *driver;                               /* the drm-driver value: "amdgpu" */
    uint32_t nslots;                                  /* engine classes shown */
    const char *slot_name[GS_MAX_ENGINES];            /* "gfx", "compute", ... */
    const struct gs_fdinfo_engine *engines;
    const struct gs_fdinfo_region *regions;
};

/* The tables of the drivers the DRM backend knows (amdgpu, i915, xe). */
extern const struct gs_fdinfo_keys gs_fdinfo_amdgpu, gs_fdinfo_i915, gs_fdinfo_xe;
/* NULL-terminated list of them, for the parser. */
extern const struct gs_fdinfo_keys *const gs_fdinfo_drivers[];

struct gs_fdinfo {
    const struct gs_fdinfo_keys *keys; /* the driver's table (NULL: not a DRM client we know) */
    char pdev[16];                     /* drm-pdev "0000:03:00.0", "" when absent */
    bool has_client_id;
    uint64_t client_id;
    char client_name[32];              /* drm-client-name, "" when absent */
    uint32_t have_ns;                  /* bit per slot: engine_ns valid */
    uint32_t have_cycles;              /* bit per slot: cycles and total_cycles valid */
    uint64_t engine_ns[GS_MAX_ENGINES];
    uint64_t cycles[GS_MAX_ENGINES];
    uint64_t total_cycles[GS_MAX_ENGINES];
    uint32_t capacity[GS_MAX_ENGINES]; /* >= 1 (absent: 1) */
    bool has_mem;                      /* some counted region was printed */
    uint64_t mem_bytes[3];             /* by enum gs_fdinfo_mem: resident, else total */
};

/* Parse fdinfo text (len bytes, need not be NUL-terminated). Returns 0 for a
 * DRM client of a known driver (out filled), -1 otherwise: not a DRM file,
 * an unknown driver, or text that is not key:value lines. Unknown keys,
 * unknown engines and unknown regions are skipped. */
int gs_fdinfo_parse(const char *text, size_t len, struct gs_fdinfo *out);

/* The driver table for a drm-driver value, or NULL. */
const struct gs_fdinfo_keys *gs_fdinfo_keys_for(const char *driver);

#endif /* GS_DRM_FDINFO_H */
