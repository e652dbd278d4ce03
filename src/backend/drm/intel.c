/* SPDX-License-Identifier: MIT */
/*
 * intel.c - Intel GPUs through i915 and xe. One reader, two layouts:
 *   i915 (Documentation/ABI/testing/sysfs-driver-i915 and i915_sysfs.c):
 *     cardN/gt_act_freq_mhz (actual), gt_cur_freq_mhz (requested),
 *     gt_min/max_freq_mhz (the limits set), gt_RP0/RPn_freq_mhz (the
 *     hardware's), power/rc6_residency_ms, gt/gt0/throttle_reason_*;
 *   xe (Documentation/ABI/testing/sysfs-driver-xe and xe_gt_freq.c,
 *     xe_gt_idle.c, xe_gt_throttle.c, xe_tile_sysfs.c):
 *     device/tile0/gt0/freq0/{act,cur,min,max,rp0,rpn}_freq,
 *     device/tile0/gt0/gtidle/idle_residency_ms, freq0/throttle/{status,reason_*},
 *     device/tileN/physical_vram_size_bytes.
 * Device memory: the total from xe's tiles or the backport i915's
 * cardN/lmem_total_bytes (lmem_avail_bytes gives "used"); otherwise used
 * is what the DRM clients hold (fdinfo). An integrated GPU (00:02.0) has no
 * memory of its own: those fields are not supported. hwmon (discrete cards:
 * power limit, energy, voltage, fan, xe's temperatures) is in hwmon.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend/drm/drm_priv.h"
#include "backend/drm/sysval.h"

/* Bits of throttle_vendor for Intel: the throttle reasons both drivers file. */
static const char *const intel_reasons[] = { "pl1", "pl2", "pl4", "thermal", "prochot", "ratl",
                                             "vr_thermalert", "vr_tdc" };
#define INTEL_NREASONS (sizeof(intel_reasons) / sizeof(intel_reasons[0]))

/* ---- names ------------------------------------------------------------------------ */

/* Device ids (the kernel's include/drm/intel/pciids.h) -> product or family. */
static const struct {
    uint16_t lo, hi;
    const char *name;
} intel_names[] = {
    { 0x56a0, 0x56a0, "Intel Arc A770" },         { 0x56a1, 0x56a1, "Intel Arc A750" },
    { 0x56a2, 0x56a2, "Intel Arc A580" },         { 0x56a5, 0x56a5, "Intel Arc A380" },
    { 0x56a6, 0x56a6, "Intel Arc A310" },         { 0x5690, 0x5697, "Intel Arc A-series Mobile (DG2)" },
    { 0x56c0, 0x56c0, "Intel Data Center GPU Flex 170" }, { 0x56c1, 0x56c1, "Intel Data Center GPU Flex 140" },
    { 0x4905, 0x4909, "Intel Iris Xe MAX (DG1)" }, { 0x0bd0, 0x0bdb, "Intel Data Center GPU Max (PVC)" },
    { 0xe20b, 0xe20b, "Intel Arc B580" },         { 0xe20c, 0xe20c, "Intel Arc B570" },
    { 0xe202, 0xe212, "Intel Arc B-series (Battlemage)" },
    { 0x1902, 0x193d, "Intel HD Graphics (Skylake)" }, { 0x5902, 0x593b, "Intel HD Graphics (Kaby Lake)" },
    { 0x3e90, 0x3ea9, "Intel UHD Graphics (Coffee Lake)" }, { 0x9b21, 0x9bf6, "Intel UHD Graphics (Comet Lake)" },
    { 0x8a50, 0x8a71, "Intel Iris Plus Graphics (Ice Lake)" }, { 0x9a40, 0x9af8, "Intel Iris Xe Graphics (Tiger Lake)" },
    { 0x4c8a, 0x4c9a, "Intel UHD Graphics (Rocket Lake)" }, { 0x4680, 0x46d4, "Intel Iris Xe Graphics (Alder Lake)" },
    { 0xa780, 0xa7ad, "Intel Iris Xe Graphics (Raptor Lake)" }, { 0x7d40, 0x7dd5, "Intel Arc Graphics (Meteor Lake)" },
    { 0x64a0, 0x64b0, "Intel Arc Graphics (Lunar Lake)" }, { 0xb080, 0xb0b0, "Intel Graphics (Panther Lake)" },
};

static void intel_name(const struct drm_dev *d, char *out, size_t cap)
{
    for (size_t i = 0; i < sizeof(intel_names) / sizeof(intel_names[0]); i++)
        if (d->device_id >= intel_names[i].lo && d->device_id <= intel_names[i].hi) {
            snprintf(out, cap, "%s", intel_names[i].name);
            return;
        }
    snprintf(out, cap, "Intel Graphics [8086:%04x]", d->device_id);
}

/* ---- opening ---------------------------------------------------------------------- */

static bool is_xe(const struct drm_dev *d)
{
    return d->ops == &gs_drm_xe;
}

/* The GT's frequency directory, its idle counter and its throttle files. */
static void intel_open_gt(struct drm_dev *d)
{
    if (is_xe(d)) {
        d->gt_fd = openat(d->dev_fd, "tile0/gt0", O_PATH | O_DIRECTORY | O_CLOEXEC);
        gs_drm_keep(d, DF_ACT_FREQ, d->gt_fd, "freq0/act_freq");
        gs_drm_keep(d, DF_CUR_FREQ, d->gt_fd, "freq0/cur_freq");
        gs_drm_keep(d, DF_MIN_FREQ, d->gt_fd, "freq0/min_freq");
        gs_drm_keep(d, DF_MAX_FREQ, d->gt_fd, "freq0/max_freq");
        gs_drm_keep(d, DF_RC6, d->gt_fd, "gtidle/idle_residency_ms");
        gs_drm_keep(d, DF_THROTTLE, d->gt_fd, "freq0/throttle/status");
        return;
    }
    d->gt_fd = openat(d->card_fd, "gt/gt0", O_PATH | O_DIRECTORY | O_CLOEXEC);
    gs_drm_keep(d, DF_ACT_FREQ, d->card_fd, "gt_act_freq_mhz");
    gs_drm_keep(d, DF_CUR_FREQ, d->card_fd, "gt_cur_freq_mhz");
    gs_drm_keep(d, DF_MIN_FREQ, d->card_fd, "gt_min_freq_mhz");
    gs_drm_keep(d, DF_MAX_FREQ, d->card_fd, "gt_max_freq_mhz");
    gs_drm_keep(d, DF_RC6, d->gt_fd, "rc6_residency_ms");
    gs_drm_keep(d, DF_RC6, d->card_fd, "power/rc6_residency_ms");
    gs_drm_keep(d, DF_THROTTLE, d->gt_fd, "throttle_reason_status");
}

static void intel_open(struct drm_dev *d)
{
    d->discrete = !(d->pci_domain == 0 && d->pci_bus == 0 && d->pci_dev == 2);
    intel_open_gt(d);
    gs_drm_keep(d, DF_LINK_SPEED, d->dev_fd, "current_link_speed");
    gs_drm_keep(d, DF_LINK_WIDTH, d->dev_fd, "current_link_width");
    gs_drm_keep(d, DF_LMEM_AVAIL, d->card_fd, "lmem_avail_bytes");
    gs_drm_hwmon_open(d);
}

/* ---- identity and limits -------------------------------------------------------------- */

/* Device memory total: xe's tiles, or the backport i915's lmem_total_bytes. */
static int intel_lmem_total(struct drm_dev *d, uint64_t *total)
{
    char rel[48];
    uint64_t v;
    int rc = -ENOENT;

    *total = 0;
    if (!d->discrete)
        return -ENOENT;
    if (gs_sysval_at_u64(d->card_fd, "lmem_total_bytes", total) == 0)
        return 0;
    for (int t = 0; t < 4; t++) {
        snprintf(rel, sizeof(rel), "tile%d/physical_vram_size_bytes", t);
        if (gs_sysval_at_u64(d->dev_fd, rel, &v) == 0)
            *total += v, rc = 0;
    }
    return rc;
}

static uint32_t intel_freq_at(struct drm_dev *d, const char *i915_rel, const char *xe_rel, int *rc)
{
    uint64_t v = 0;
    *rc = is_xe(d) ? gs_sysval_at_u64(d->gt_fd, xe_rel, &v) : gs_sysval_at_u64(d->card_fd, i915_rel, &v);
    return (uint32_t)v;
}

static void intel_read_static(struct drm_dev *d, struct gs_static *st)
{
    int rc;

    intel_name(d, st->name, sizeof(st->name));
    gs_static_mark(st, GS_S_NAME, GS_ST_OK);
    snprintf(st->uuid, sizeof(st->uuid), "drm-%s", d->bdf);
    gs_static_mark(st, GS_S_UUID, GS_ST_OK);
    st->integrated = !d->discrete;
    gs_static_mark(st, GS_S_INTEGRATED, GS_ST_OK);
    st->clock_max_graphics_mhz = st->clock_max_sm_mhz = intel_freq_at(d, "gt_RP0_freq_mhz", "freq0/rp0_freq", &rc);
    if (rc == 0) {
        gs_static_mark(st, GS_S_CLOCK_MAX_GRAPHICS, GS_ST_OK);
        gs_static_mark(st, GS_S_CLOCK_MAX_SM, GS_ST_OK);
    }
    st->clock_min_graphics_mhz = intel_freq_at(d, "gt_RPn_freq_mhz", "freq0/rpn_freq", &rc);
    if (rc == 0)
        gs_static_mark(st, GS_S_CLOCK_MIN_GRAPHICS, GS_ST_OK);
    d->lmem_total_rc = intel_lmem_total(d, &d->vram_total);
    d->has_vram_total = d->lmem_total_rc == 0;
    for (size_t r = 0; r < INTEL_NREASONS; r++) {
        char rel[48];
        snprintf(rel, sizeof(rel), is_xe(d) ? "freq0/throttle/reason_%s" : "throttle_reason_%s", intel_reasons[r]);
        if (d->gt_fd >= 0 && faccessat(d->gt_fd, rel, F_OK, 0) == 0)
            d->throttle_supported |= 1ull << r;
    }
    if (d->fd[DF_THROTTLE] >= 0) {
        st->throttle_supported = GS_THROTTLE_SW_POWER_CAP | GS_THROTTLE_SW_THERMAL | GS_THROTTLE_HW_SLOWDOWN;
        gs_static_mark(st, GS_S_THROTTLE_SUPPORTED, GS_ST_OK);
    }
    gs_drm_hwmon_static(d, st);
    if (d->discrete)
        gs_drm_pcie_static(d, st);
}

/* ---- one tick --------------------------------------------------------------------- */

static void intel_freqs(struct drm_dev *d, struct gs_fmask want, struct gs_gpu *g)
{
    uint64_t v;
    int rc;

    if (gs_fmask_has(want, GS_F_CLOCK_GRAPHICS) || gs_fmask_has(want, GS_F_CLOCK_SM)) {
        if ((rc = gs_drm_u64(d, DF_ACT_FREQ, &v)) == 0)
            g->s.clock_graphics_mhz = g->s.clock_sm_mhz = (uint32_t)v;
        gs_drm_mark(d, g, GS_F_CLOCK_GRAPHICS, rc, "act_freq");
        gs_drm_mark(d, g, GS_F_CLOCK_SM, rc, "act_freq");
    }
    if (gs_fmask_has(want, GS_F_CLOCK_GRAPHICS_REQ)) {
        if ((rc = gs_drm_u64(d, DF_CUR_FREQ, &v)) == 0)
            g->s.clock_graphics_req_mhz = (uint32_t)v;
        gs_drm_mark(d, g, GS_F_CLOCK_GRAPHICS_REQ, rc, "cur_freq");
    }
}

/* RC6: the share of the interval the GT slept (idle_residency_ms delta). */
static void intel_rc6(struct drm_dev *d, struct gs_fmask want, struct gs_gpu *g)
{
    uint64_t ms;
    double per_s;
    int rc;

    if (!gs_fmask_has(want, GS_F_RC6))
        return;
    gs_drm_sim_hold(d->ctx);
    rc = gs_drm_u64(d, DF_RC6, &ms);
    bool ok = rc == 0 && gs_drm_rate(&d->rc6, ms, d->ctx->now_ns, &per_s);
    gs_drm_sim_release(d->ctx);
    if (rc != 0) {
        gs_drm_mark(d, g, GS_F_RC6, rc, "rc6_residency_ms");
        return;
    }
    if (!ok) {
        gs_sample_mark(&g->s, GS_F_RC6, GS_ST_NOT_AVAILABLE); /* two readings needed */
        return;
    }
    double pct = per_s / 10.0; /* ms per s -> % */
    g->s.rc6_pct = (uint32_t)(pct > 100 ? 100 : pct + 0.5);
    gs_sample_mark(&g->s, GS_F_RC6, GS_ST_OK);
}

/* The throttle status, and when it is set, which reasons. */
static void intel_throttle(struct drm_dev *d, struct gs_fmask want, struct gs_gpu *g)
{
    uint64_t on = 0, bits = 0;
    int rc;

    if (!gs_fmask_has(want, GS_F_THROTTLE) && !gs_fmask_has(want, GS_F_THROTTLE_VENDOR))
        return;
    rc = gs_drm_u64(d, DF_THROTTLE, &on);
    for (size_t r = 0; rc == 0 && on && r < INTEL_NREASONS; r++) {
        char rel[48];
        uint64_t v;
        if (!(d->throttle_supported & (1ull << r)))
            continue;
        snprintf(rel, sizeof(rel), is_xe(d) ? "freq0/throttle/reason_%s" : "throttle_reason_%s", intel_reasons[r]);
        if (gs_sysval_at_u64(d->gt_fd, rel, &v) == 0 && v)
            bits |= 1ull << r;
    }
    g->s.throttle_vendor = bits;
    g->s.throttle_reasons = 0;
    if (bits & 0x7)                     /* pl1, pl2, pl4 */
        g->s.throttle_reasons |= GS_THROTTLE_SW_POWER_CAP;
    if (bits & 0x8)                     /* thermal */
        g->s.throttle_reasons |= GS_THROTTLE_SW_THERMAL;
    if (bits & (0x10 | 0x40 | 0x80))    /* prochot, VR thermal alert, VR TDC */
        g->s.throttle_reasons |= GS_THROTTLE_HW_SLOWDOWN;
    gs_drm_mark(d, g, GS_F_THROTTLE, rc, "throttle status");
    gs_drm_mark(d, g, GS_F_THROTTLE_VENDOR, rc, "throttle status");
}

/* Device memory: total as read once; used from lmem_avail_bytes, else what
 * the DRM clients hold (every client: only when all of /proc was readable). */
static void intel_memory(struct drm_dev *d, struct gs_fmask want, struct gs_gpu *g)
{
    uint64_t avail;
    int err, rc;

    if (!gs_fmask_has(want, GS_F_MEM_TOTAL) && !gs_fmask_has(want, GS_F_MEM_USED) &&
        !gs_fmask_has(want, GS_F_MEM_FREE))
        return;
    g->s.mem_total_bytes = d->vram_total;
    gs_drm_mark(d, g, GS_F_MEM_TOTAL, d->lmem_total_rc, "device memory size");
    if (!d->has_vram_total) {
        gs_drm_mark(d, g, GS_F_MEM_USED, -ENOENT, "");
        gs_drm_mark(d, g, GS_F_MEM_FREE, -ENOENT, "");
        return;
    }
    if ((rc = gs_drm_u64(d, DF_LMEM_AVAIL, &avail)) == 0) {
        g->s.mem_used_bytes = d->vram_total > avail ? d->vram_total - avail : 0;
    } else {
        const struct gs_drmc_gpu *cg = gs_drm_clients(d, &err);
        rc = !cg ? (err ? err : -EIO) : !gs_drmc_complete(d->ctx->clients) ? -EACCES : 0;
        if (rc == 0)
            g->s.mem_used_bytes = cg->dev_mem_bytes;
    }
    g->s.mem_free_bytes = d->vram_total > g->s.mem_used_bytes ? d->vram_total - g->s.mem_used_bytes : 0;
    gs_drm_mark(d, g, GS_F_MEM_USED, rc, "device memory used");
    gs_drm_mark(d, g, GS_F_MEM_FREE, rc, "device memory used");
}

/* GPU busy: the render or compute engine class, whichever is busier (an
 * Intel GPU has no single busy counter; intel_gpu_top shows the classes). */
static void intel_util(struct drm_dev *d, struct gs_fmask want, struct gs_gpu *g)
{
    if (!gs_fmask_has(want, GS_F_GPU_UTIL))
        return;
    struct gs_fmask eng = gs_fmask_of(GS_F_ENGINE_UTIL);
    if (!gs_fmask_has(want, GS_F_ENGINE_UTIL))
        gs_drm_engines_sample(d, eng, g);
    enum gs_status st = (enum gs_status)g->s.status[GS_F_ENGINE_UTIL];
    uint32_t u = g->s.engine_util_pct[0] > g->s.engine_util_pct[4] ? g->s.engine_util_pct[0] : g->s.engine_util_pct[4];
    g->s.gpu_util_pct = u;
    gs_sample_mark(&g->s, GS_F_GPU_UTIL, st);
    if (!gs_fmask_has(want, GS_F_ENGINE_UTIL))
        gs_sample_mark(&g->s, GS_F_ENGINE_UTIL, GS_ST_NOT_SAMPLED);
}

static void intel_sample(struct drm_dev *d, struct gs_fmask want, struct gs_gpu *g)
{
    intel_freqs(d, want, g);
    intel_rc6(d, want, g);
    intel_throttle(d, want, g);
    intel_memory(d, want, g);
    gs_drm_hwmon_sample(d, want, g);
    if (d->discrete)
        gs_drm_pcie_sample(d, want, g);
    gs_drm_engines_sample(d, want, g);
    intel_util(d, want, g);
}

const struct drm_ops gs_drm_i915 = {
    .driver = "i915",
    .vendor = "Intel",
    .keys = &gs_fdinfo_i915,
    .open = intel_open,
    .read_static = intel_read_static,
    .sample = intel_sample,
};

const struct drm_ops gs_drm_xe = {
    .driver = "xe",
    .vendor = "Intel",
    .keys = &gs_fdinfo_xe,
    .open = intel_open,
    .read_static = intel_read_static,
    .sample = intel_sample,
};
