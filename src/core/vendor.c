/* SPDX-License-Identifier: MIT */
/*
 * vendor.c - names of the drivers' own throttle bits (see vendor.h): amdgpu's
 * ASIC-independent throttler bits (drivers/gpu/drm/amd/pm/swsmu/inc/
 * amdgpu_smu.h, SMU_THROTTLER_*_BIT) and the Intel throttle reasons in the
 * order the DRM backend packs them (intel.c).
 */
#include "core/vendor.h"

#include <stdio.h>
#include <string.h>

static const char *const amd_bits[64] = {
    [0] = "PPT0",          [1] = "PPT1",          [2] = "PPT2",         [3] = "PPT3",
    [4] = "SPL",           [5] = "FPPT",          [6] = "SPPT",         [7] = "SPPT_APU",
    [16] = "TDC_GFX",      [17] = "TDC_SOC",      [18] = "TDC_MEM",     [19] = "TDC_VDD",
    [20] = "TDC_CVIP",     [21] = "EDC_CPU",      [22] = "EDC_GFX",     [23] = "APCC",
    [32] = "TEMP_GPU",     [33] = "TEMP_CORE",    [34] = "TEMP_MEM",    [35] = "TEMP_EDGE",
    [36] = "TEMP_HOTSPOT", [37] = "TEMP_SOC",     [38] = "TEMP_VR_GFX", [39] = "TEMP_VR_SOC",
    [40] = "TEMP_VR_MEM0", [41] = "TEMP_VR_MEM1", [42] = "TEMP_LIQUID0", [43] = "TEMP_LIQUID1",
    [44] = "VRHOT0",       [45] = "VRHOT1",       [56] = "PROCHOT_CPU", [57] = "PROCHOT_GFX",
    [58] = "PPM",          [59] = "FIT",
};

static const char *const intel_bits[64] = {
    "pl1", "pl2", "pl4", "thermal", "prochot", "ratl", "vr_thermalert", "vr_tdc",
};

bool gs_vendor_is_drm(const struct gs_static *st)
{
    return gs_static_has(st, GS_S_VENDOR) &&
           (!strcmp(st->driver, "amdgpu") || !strcmp(st->driver, "i915") || !strcmp(st->driver, "xe"));
}

const char *gs_vendor_throttle_bit(const struct gs_static *st, uint64_t mask, int *pos)
{
    const char *const *names = !strcmp(st->driver, "amdgpu") ? amd_bits : intel_bits;

    for (; *pos < 64; (*pos)++) {
        if (!(mask & (UINT64_C(1) << *pos)))
            continue;
        int bit = (*pos)++;
        return names[bit] ? names[bit] : "other";
    }
    return NULL;
}

const char *gs_vendor_throttle_str(const struct gs_static *st, uint64_t mask, char *buf, unsigned len)
{
    size_t used = 0;
    const char *name;
    int pos = 0;

    if (!len)
        return buf;
    buf[0] = '\0';
    while ((name = gs_vendor_throttle_bit(st, mask, &pos)) != NULL) {
        int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
    return buf;
}
