/* SPDX-License-Identifier: MIT */
/*
 * vendor.h - names for the model's "other vendors" facts that every output
 * shows the same way: the drivers' own throttle bits (gs_sample.throttle_vendor)
 * and whether a GPU is read through NVML or the kernel's DRM drivers.
 */
#ifndef GS_VENDOR_H
#define GS_VENDOR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/model.h"

/* Is the GPU an AMD or Intel one read through DRM (vendor facts known, not NVIDIA)? */
bool gs_vendor_is_drm(const struct gs_static *st);

/* The throttle bits of st's driver, in that driver's words, one at a time:
 * for (int i = 0; (name = gs_vendor_throttle_bit(st, mask, &i)) != NULL; ) ...
 * *pos starts at 0 and advances past each set bit it names. amdgpu: the
 * SMU_THROTTLER_* names (PPT0, TDC_GFX, TEMP_HOTSPOT, PROCHOT_GFX, ...);
 * i915 and xe: their throttle_reason files (pl1, thermal, prochot, ...). */
const char *gs_vendor_throttle_bit(const struct gs_static *st, uint64_t mask, int *pos);
/* The same names, comma-separated into buf ("" if none). */
const char *gs_vendor_throttle_str(const struct gs_static *st, uint64_t mask, char *buf, unsigned len);

#endif /* GS_VENDOR_H */
