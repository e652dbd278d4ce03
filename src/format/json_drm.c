/* SPDX-License-Identifier: MIT */
/*
 * json_drm.c - the "drm" object of AMD and Intel GPUs and their processes in
 * gpuscope.snapshot/1 (docs/JSON.md "AMD and Intel GPUs"): what the kernel's
 * DRM drivers tell that NVML's fields do not (GTT and CPU-visible VRAM, the
 * junction temperature and the hwmon limits, fan RPM, voltage, the requested
 * clock, RC6, busy per engine class, RAS counts, the driver's throttle bits).
 * Absent for NVIDIA GPUs, whose schema it leaves as it was.
 */
#include "core/vendor.h"
#include "format/json_int.h"

#define SST(f) ((enum gs_status)s->status[f])
#define TST(f) ((enum gs_status)st->status[f])
/* A hwmon limit: known (its static status) or absent (0: the file is not there). */
#define LIMIT(v, f) ((v) ? TST(f) : GS_ST_NOT_SUPPORTED)

/* {"gfx": 20, "compute": 40, ...} in the GPU's engine order. */
static void engines(struct gs_jw *w, const struct gs_static *st, const uint16_t *pct16, const uint32_t *pct32)
{
    gs_jw_obj(w);
    for (uint32_t e = 0; e < st->engine_count && e < GS_MAX_ENGINES; e++) {
        gs_jw_key(w, st->engine_name[e]); /* the driver table's names: plain ASCII */
        gs_jw_int(w, pct16 ? pct16[e] : pct32[e]);
    }
    gs_jw_end(w);
}

static void drm_memory_temp(struct jgrp *top, const struct gs_gpu *d)
{
    const struct gs_sample *s = &d->s;
    const struct gs_static *st = &d->st;
    struct jgrp m = gs_json_group(top, "memory", "drm.memory");

    gs_json_int(&m, "gtt_total_bytes", SST(GS_F_MEM_GTT), (int64_t)s->gtt_total_bytes);
    gs_json_int(&m, "gtt_used_bytes", SST(GS_F_MEM_GTT), (int64_t)s->gtt_used_bytes);
    gs_json_int(&m, "visible_vram_total_bytes", SST(GS_F_MEM_VIS), (int64_t)s->vis_vram_total_bytes);
    gs_json_int(&m, "visible_vram_used_bytes", SST(GS_F_MEM_VIS), (int64_t)s->vis_vram_used_bytes);
    gs_jw_end(m.w);

    struct jgrp t = gs_json_group(top, "temperature", "drm.temperature");
    gs_json_int(&t, "junction_c", SST(GS_F_TEMP_JUNCTION), s->temp_junction_c);
    gs_json_int(&t, "crit_c", LIMIT(st->temp_crit_c, GS_S_TEMP_CRIT), st->temp_crit_c);
    gs_json_int(&t, "emergency_c", LIMIT(st->temp_emerg_c, GS_S_TEMP_EMERG), st->temp_emerg_c);
    gs_json_int(&t, "junction_crit_c", LIMIT(st->temp_junction_crit_c, GS_S_TEMP_CRIT), st->temp_junction_crit_c);
    gs_json_int(&t, "junction_emergency_c", LIMIT(st->temp_junction_emerg_c, GS_S_TEMP_EMERG),
                st->temp_junction_emerg_c);
    gs_json_int(&t, "memory_crit_c", LIMIT(st->temp_mem_crit_c, GS_S_TEMP_CRIT), st->temp_mem_crit_c);
    gs_json_int(&t, "memory_emergency_c", LIMIT(st->temp_mem_emerg_c, GS_S_TEMP_EMERG), st->temp_mem_emerg_c);
    gs_jw_end(t.w);
}

static void drm_throttle(struct jgrp *top, const struct gs_gpu *d)
{
    const struct gs_sample *s = &d->s;
    struct jgrp t = gs_json_group(top, "throttle", "drm.throttle");
    const char *name;
    int pos = 0;

    gs_json_int(&t, "mask", SST(GS_F_THROTTLE_VENDOR), (int64_t)s->throttle_vendor);
    if (gs_json_key_ok(&t, "active", SST(GS_F_THROTTLE_VENDOR))) {
        gs_jw_arr(t.w);
        while ((name = gs_vendor_throttle_bit(&d->st, s->throttle_vendor, &pos)) != NULL)
            gs_jw_str(t.w, name);
        gs_jw_end(t.w);
    }
    gs_jw_end(t.w);
}

void gs_json_gpu_drm(struct jgrp *top, const struct gs_gpu *d)
{
    const struct gs_sample *s = &d->s;
    const struct gs_static *st = &d->st;

    if (!gs_vendor_is_drm(st))
        return;
    struct jgrp g = gs_json_group(top, "drm", "drm");
    gs_json_bool(&g, "integrated", TST(GS_S_INTEGRATED), st->integrated);
    drm_memory_temp(&g, d);
    gs_json_int(&g, "fan_rpm", SST(GS_F_FAN_RPM), s->fan_rpm);
    gs_json_int(&g, "fan_min_rpm", TST(GS_S_FAN_RPM_RANGE), st->fan_min_rpm);
    gs_json_int(&g, "fan_max_rpm", TST(GS_S_FAN_RPM_RANGE), st->fan_max_rpm);
    gs_json_int(&g, "voltage_gfx_mv", SST(GS_F_VOLTAGE_GFX), s->voltage_gfx_mv);
    gs_json_int(&g, "graphics_requested_mhz", SST(GS_F_CLOCK_GRAPHICS_REQ), s->clock_graphics_req_mhz);
    gs_json_int(&g, "min_graphics_mhz", TST(GS_S_CLOCK_MIN_GRAPHICS), st->clock_min_graphics_mhz);
    gs_json_int(&g, "rc6_pct", SST(GS_F_RC6), s->rc6_pct);
    if (gs_json_key_ok(&g, "engines_pct", SST(GS_F_ENGINE_UTIL)))
        engines(g.w, st, NULL, s->engine_util_pct);
    struct jgrp r = gs_json_group(&g, "ras", "drm.ras");
    gs_json_int(&r, "uncorrectable", SST(GS_F_RAS), (int64_t)s->ras_ue_count);
    gs_json_int(&r, "correctable", SST(GS_F_RAS), (int64_t)s->ras_ce_count);
    gs_json_int(&r, "bad_pages", SST(GS_F_RAS_BAD_PAGES), s->ras_bad_pages);
    gs_jw_end(r.w);
    drm_throttle(&g, d);
    gs_jw_end(g.w);
}

#define PST(f) (gs_proc_has(p, f) ? GS_ST_OK : GS_ST_NOT_AVAILABLE)

void gs_json_proc_drm(struct jgrp *top, const struct gs_gpu *d, const struct gs_proc *p)
{
    if (!gs_vendor_is_drm(&d->st))
        return;
    struct jgrp g = gs_json_group(top, "drm", "drm");
    if (gs_json_key_ok(&g, "engines_pct", PST(GS_P_ENGINE_UTIL)))
        engines(g.w, &d->st, p->engine_util_pct, NULL);
    gs_json_int(&g, "gtt_memory_bytes", PST(GS_P_GTT_MEM), (int64_t)p->gtt_mem_bytes);
    gs_json_int(&g, "clients", PST(GS_P_DRM_CLIENTS), p->drm_clients);
    gs_jw_end(g.w);
}
