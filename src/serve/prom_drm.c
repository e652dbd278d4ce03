/* SPDX-License-Identifier: MIT */
/*
 * prom_drm.c - the exporter's hand-written families for AMD and Intel GPUs
 * (docs/SERVE.md "AMD and Intel GPUs"): busy per engine class, the hwmon
 * temperature limits per sensor, and per process the engines and GTT memory.
 * The field-driven ones are in prom_tables.c (drm_* tables). None of these
 * exist for NVIDIA GPUs, whose DCGM and gpuscope_* series stay as they are.
 */
#include <stdio.h>

#include "core/vendor.h"
#include "serve/pbuf.h"
#include "serve/prom_int.h"

static void drm_engines(struct gs_prom *r, const struct gs_snapshot *snap)
{
    static const struct prom_fam f = { "gpuscope_engine_utilization_ratio",
                                       "Fraction of time an engine class was busy (DRM fdinfo of the clients "
                                       "gpuscope sees; 1 = every engine of the class).",
                                       PT_GAUGE, false, "ratio" };
    bool started = false;
    char extra[64];

    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        if (g->state != GS_GPU_OK || !gs_sample_has(&g->s, GS_F_ENGINE_UTIL))
            continue;
        for (uint32_t e = 0; e < g->st.engine_count && e < GS_MAX_ENGINES; e++) {
            if (!started)
                gs_prom_fam_header(r, &f);
            started = true;
            snprintf(extra, sizeof(extra), "engine=\"%s\"", g->st.engine_name[e]);
            gs_prom_fam_sample(r, f.name, gs_prom_own_labels(r, i), extra, g->s.engine_util_pct[e], PF_PCT);
        }
    }
}

static void drm_temp_limits(struct gs_prom *r, const struct gs_snapshot *snap)
{
    static const struct prom_fam f = { "gpuscope_temperature_limit_celsius",
                                       "hwmon temperature limits: crit (the GPU slows down) and emergency "
                                       "(it shuts down), per sensor.",
                                       PT_GAUGE, false, "celsius" };
    static const char *const sensor[3] = { "gpu", "junction", "memory" };
    bool started = false;
    char extra[64];

    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_static *st = &snap->gpus[i].st;
        const int32_t crit[3] = { st->temp_crit_c, st->temp_junction_crit_c, st->temp_mem_crit_c };
        const int32_t emerg[3] = { st->temp_emerg_c, st->temp_junction_emerg_c, st->temp_mem_emerg_c };
        if (!gs_vendor_is_drm(st))
            continue;
        for (int s = 0; s < 3; s++) {
            for (int k = 0; k < 2; k++) {
                int32_t v = k ? emerg[s] : crit[s];
                if (!v || !gs_static_has(st, k ? GS_S_TEMP_EMERG : GS_S_TEMP_CRIT))
                    continue;
                if (!started)
                    gs_prom_fam_header(r, &f);
                started = true;
                snprintf(extra, sizeof(extra), "sensor=\"%s\",limit=\"%s\"", sensor[s], k ? "emergency" : "crit");
                gs_prom_fam_sample(r, f.name, gs_prom_own_labels(r, i), extra, v, PF_INT);
            }
        }
    }
}

static void drm_proc_engines(struct gs_prom *r, const struct gs_snapshot *snap)
{
    static const struct prom_fam fe = { "gpuscope_process_engine_utilization_ratio",
                                        "Fraction of time the process kept an engine class busy (DRM fdinfo).",
                                        PT_GAUGE, false, "ratio" };
    static const struct prom_fam fg = { "gpuscope_process_gtt_memory_bytes",
                                        "The process's GPU buffers in system memory (GTT, system regions).",
                                        PT_GAUGE, false, "bytes" };
    bool started_e = false, started_g = false;
    char extra[64];
    size_t k = 0;

    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        for (uint32_t j = 0; j < g->nprocs; j++, k++) {
            const struct gs_proc *p = &g->procs[j];
            if (gs_proc_has(p, GS_P_ENGINE_UTIL)) {
                for (uint32_t e = 0; e < g->st.engine_count && e < GS_MAX_ENGINES; e++) {
                    if (!started_e)
                        gs_prom_fam_header(r, &fe);
                    started_e = true;
                    snprintf(extra, sizeof(extra), "engine=\"%s\"", g->st.engine_name[e]);
                    gs_prom_fam_sample(r, fe.name, gs_prom_proc_labelset(r, k), extra, p->engine_util_pct[e],
                                       PF_PCT);
                }
            }
        }
    }
    k = 0;
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        for (uint32_t j = 0; j < g->nprocs; j++, k++) {
            const struct gs_proc *p = &g->procs[j];
            if (!gs_proc_has(p, GS_P_GTT_MEM))
                continue;
            if (!started_g)
                gs_prom_fam_header(r, &fg);
            started_g = true;
            gs_prom_fam_sample(r, fg.name, gs_prom_proc_labelset(r, k), NULL, (double)p->gtt_mem_bytes, PF_INT);
        }
    }
}

void gs_prom_drm(struct gs_prom *r, const struct gs_snapshot *snap)
{
    drm_engines(r, snap);
    drm_temp_limits(r, snap);
    drm_proc_engines(r, snap);
}
