/* SPDX-License-Identifier: MIT */
/*
 * checks_drm.c - the checks that apply to AMD and Intel GPUs beyond the
 * vendor-neutral ones of checks_gpu.c (which already judge their throttle
 * reasons, mapped from gpu_metrics or Intel's throttle files, their edge
 * temperature against hwmon's critical limit, and their PCIe link): the
 * junction and memory temperatures against their own hwmon limits, and
 * amdgpu's RAS counts (uncorrectable errors, retired VRAM pages).
 * Sources: the kernel's Documentation/gpu/amdgpu/thermal.rst (tempN_crit:
 * the GPU slows down; tempN_emergency: it shuts down) and amdgpu_ras.c
 * (ras/<block>_err_count, gpu_vram_bad_pages).
 */
#include <stdio.h>

#include "core/vendor.h"
#include "health/health_priv.h"

struct drm_temp {
    const char *what, *code_near, *code_at;
    int32_t t, crit, emerg;
};

static void temp_check(struct gs_health *h, const struct hgpu *g, const struct drm_temp *c, struct gs_findings *out)
{
    int32_t idx = (int32_t)g->st.index;
    struct gs_finding *f;

    if (c->crit <= 0 || c->t < c->crit - h->cfg.thermal_margin_c)
        return;
    if (c->t >= c->crit)
        f = hf_new(out, GS_SEV_CRITICAL, idx, 0, c->code_at, "GPU %d: %s temperature %d C, at its critical limit",
                   idx, c->what, c->t);
    else
        f = hf_new(out, GS_SEV_WARNING, idx, 0, c->code_near,
                   "GPU %d: %s temperature %d C, %d C from its critical limit", idx, c->what, c->t, c->crit - c->t);
    f->value = c->t;
    if (c->emerg > 0)
        hf_set(f->evidence, sizeof(f->evidence), "%s %d C; hwmon crit %d C (the GPU slows down), emergency %d C "
               "(it shuts down); warning margin %d C", c->what, c->t, c->crit, c->emerg, h->cfg.thermal_margin_c);
    else
        hf_set(f->evidence, sizeof(f->evidence), "%s %d C; hwmon crit %d C (the GPU slows down); warning margin %d C",
               c->what, c->t, c->crit, h->cfg.thermal_margin_c);
    hf_set(f->cause, sizeof(f->cause), "cooling does not keep up: fan curve, blocked airflow, dried thermal paste "
           "or pads (a junction far above the edge temperature points at the die's contact)");
    hf_set(f->action, sizeof(f->action), "check fans (gpuscope top: fan RPM), case airflow and inlet temperature; "
           "compare junction with edge; repaste or replace the pads if the gap keeps growing");
}

static void ras_check(const struct hgpu *g, struct gs_findings *out)
{
    const struct gs_sample *l = &g->last;
    int32_t idx = (int32_t)g->st.index;
    struct gs_finding *f;

    if (gs_sample_has(l, GS_F_RAS) && l->ras_ue_count) {
        f = hf_new(out, GS_SEV_CRITICAL, idx, 0, "ras.uncorrectable", "GPU %d: %llu uncorrectable RAS errors", idx,
                   (unsigned long long)l->ras_ue_count);
        f->value = (double)l->ras_ue_count;
        hf_set(f->evidence, sizeof(f->evidence), "amdgpu ras/*_err_count: %llu uncorrectable, %llu correctable since "
               "the driver loaded", (unsigned long long)l->ras_ue_count, (unsigned long long)l->ras_ce_count);
        hf_set(f->cause, sizeof(f->cause), "an error ECC or parity could not correct (VRAM/HBM, or a GPU block); "
               "the work that touched it got bad data or was stopped");
        hf_set(f->action, sizeof(f->action), "read 'sudo dmesg | grep -i ras' for the block; drain the GPU and "
               "reset it (the faulty page is retired at the next driver load); RMA if it recurs");
    }
    if (gs_sample_has(l, GS_F_RAS_BAD_PAGES) && l->ras_bad_pages) {
        f = hf_new(out, GS_SEV_WARNING, idx, 0, "ras.bad_pages", "GPU %d: %u VRAM pages retired", idx,
                   l->ras_bad_pages);
        f->value = l->ras_bad_pages;
        hf_set(f->evidence, sizeof(f->evidence), "amdgpu ras/gpu_vram_bad_pages lists %u pages", l->ras_bad_pages);
        hf_set(f->cause, sizeof(f->cause), "memory pages that produced uncorrectable errors, taken out of use");
        hf_set(f->action, sizeof(f->action), "watch the count: past amdgpu's bad_page_threshold the driver stops "
               "using the GPU; plan an RMA when it keeps growing");
    }
}

void hc_gpu_drm(struct gs_health *h, const struct hgpu *g, struct gs_findings *out)
{
    const struct gs_sample *l = &g->last;
    const struct gs_static *st = &g->st;

    if (!gs_vendor_is_drm(st) || g->state != GS_GPU_OK)
        return;
    if (gs_static_has(st, GS_S_TEMP_CRIT) && gs_sample_has(l, GS_F_TEMP_JUNCTION)) {
        struct drm_temp c = { "junction", "thermal.junction_near_crit", "thermal.junction_crit",
                              l->temp_junction_c, st->temp_junction_crit_c, st->temp_junction_emerg_c };
        temp_check(h, g, &c, out);
    }
    if (gs_static_has(st, GS_S_TEMP_CRIT) && gs_sample_has(l, GS_F_TEMP_MEM)) {
        struct drm_temp c = { "memory", "thermal.memory_near_crit", "thermal.memory_crit", l->temp_mem_c,
                              st->temp_mem_crit_c, st->temp_mem_emerg_c };
        temp_check(h, g, &c, out);
    }
    ras_check(g, out);
}
