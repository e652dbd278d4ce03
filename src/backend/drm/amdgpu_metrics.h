/* SPDX-License-Identifier: MIT */
/*
 * amdgpu_metrics.h - amdgpu's gpu_metrics table decoded into units, whatever
 * its version (1.0 .. 1.6 discrete, 2.0 .. 2.4 and 3.0 APU). Pure: a buffer
 * in, a struct out; fuzz/fuzz_gpu_metrics.c feeds it.
 */
#ifndef GS_AMDGPU_METRICS_H
#define GS_AMDGPU_METRICS_H

#include <stddef.h>
#include <stdint.h>

/* Fields the table had a value for (bits of gs_amd_metrics.valid). */
enum {
    GS_AMDM_TEMP_EDGE = 1 << 0,
    GS_AMDM_TEMP_HOTSPOT = 1 << 1,
    GS_AMDM_TEMP_MEM = 1 << 2,
    GS_AMDM_GFX_ACTIVITY = 1 << 3,
    GS_AMDM_UMC_ACTIVITY = 1 << 4,
    GS_AMDM_POWER = 1 << 5,
    GS_AMDM_ENERGY = 1 << 6,
    GS_AMDM_GFXCLK = 1 << 7,
    GS_AMDM_UCLK = 1 << 8,
    GS_AMDM_FAN_RPM = 1 << 9,
    GS_AMDM_PCIE = 1 << 10,
    GS_AMDM_VOLTAGE_GFX = 1 << 11,
    GS_AMDM_THROTTLE = 1 << 12,    /* indep_throttle_status */
};

struct gs_amd_metrics {
    uint8_t format, content;       /* 1.3 -> 1, 3 */
    uint32_t valid;                /* GS_AMDM_* */
    int32_t temp_edge_c, temp_hotspot_c, temp_mem_c;
    uint32_t gfx_activity_pct, umc_activity_pct;
    uint32_t socket_power_mw;
    uint64_t energy_uj;            /* since the firmware started counting */
    uint32_t gfxclk_mhz, uclk_mhz;
    uint32_t fan_rpm;
    uint32_t pcie_width, pcie_speed_dgts; /* lanes; 0.1 GT/s */
    uint32_t voltage_gfx_mv;
    uint64_t indep_throttle;       /* SMU_THROTTLER_* bits */
};

/* Decode len bytes of gpu_metrics. 0, or -1 for a table that is too short,
 * claims a size larger than the bytes given, or has a version we do not know. */
int gs_amd_metrics_decode(const void *buf, size_t len, struct gs_amd_metrics *out);

/* SMU_THROTTLER_* bits -> GS_THROTTLE_* reasons (model.h): power limits are
 * the SW power cap, temperatures the SW thermal slowdown, VR hot and PROCHOT
 * the HW slowdown, current limits the SW power cap. */
uint64_t gs_amd_throttle_reasons(uint64_t indep);

#endif /* GS_AMDGPU_METRICS_H */
