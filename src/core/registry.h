/* SPDX-License-Identifier: MIT */
/*
 * registry.h - the explicit list of GPU backends compiled into gpuscope
 * (curl's available_backends[], not constructor registration). The sampler
 * walks it in order; GPUSCOPE_BACKENDS (comma-separated names) switches
 * backends off.
 */
#ifndef GS_REGISTRY_H
#define GS_REGISTRY_H

#include <stdbool.h>

#include "core/backend.h"

/* The backends (defined in src/backend/<vendor>/). */
extern const struct gs_backend gs_backend_nvml;
extern const struct gs_backend gs_backend_drm;

/* The i-th backend (NULL past the end), in preference order. */
const struct gs_backend *gs_registry_get(unsigned i);
/* Is b allowed by the filter (NULL or "" filter: every backend)? */
bool gs_registry_enabled(const struct gs_backend *b, const char *filter);

#endif /* GS_REGISTRY_H */
