/* SPDX-License-Identifier: MIT */
/*
 * json_mig.c - a GPU's profiling metrics (NVML GPM) and its MIG devices as JSON
 * (docs/JSON.md, "profiling" and "mig_devices").
 */
#include <string.h>

#include "format/json_int.h"

#define SST(f) ((enum gs_status)s->status[f])

/* ---- profiling (GPM) and MIG devices (area 10c) ---------------------------------------------- */

/* Metrics [0, n) of gs_prof: ratios as reals, rates as integers (bytes/s), as DCGM types them. */
static void json_prof_values(struct jgrp *g, const double *v, const uint8_t *st, unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        const struct gs_prof_info *pi = gs_prof_info((enum gs_prof)k);
        gs_json_putn(g, pi->key, strlen(pi->key), (enum gs_status)st[k], NULL,
                     pi->bytes_per_s ? JI(v[k]) : JR(v[k]));
    }
}

void gs_json_profiling(struct jgrp *top, const struct gs_sample *s)
{
    struct jgrp g = jgroup(top, "profiling");
    uint8_t st[GS_PROF_COUNT];
    bool any = false, none = true; /* some metric has a value / none is supported */

    for (unsigned k = 0; k < GS_PROF_COUNT; k++) {
        st[k] = s->status[GS_F_PROF_FIRST + k];
        any |= st[k] == GS_ST_OK;
        none &= st[k] == GS_ST_NOT_SUPPORTED;
    }
    json_prof_values(&g, s->prof, st, GS_PROF_COUNT);
    jput(&g, "interval_ms", any ? GS_ST_OK : none ? GS_ST_NOT_SUPPORTED : GS_ST_NOT_AVAILABLE,
         JI(s->prof_interval_ns / 1000000u));
    gs_jw_end(g.w);
}

/* One MIG device object, with its own "unavailable" map (reasons from index l->n on). */
static void json_mig_device(struct gs_jw *w, struct jlist *l, const struct gs_mig *m)
{
    struct jgrp g = {w, l, "", 0};
    size_t from = l->n;
    enum gs_status at = (enum gs_status)m->attr_status, ms = (enum gs_status)m->mem_status;

    gs_jw_obj(w);
    GS_JW_KEY(w, "index");
    gs_jw_int(w, m->index);
    GS_JW_KEY(w, "uuid");
    gs_jw_str_or_null(w, m->uuid);
    GS_JW_KEY(w, "name");
    gs_jw_str_or_null(w, m->name);
    GS_JW_KEY(w, "gpu_instance_id");
    gs_jw_int(w, m->gpu_instance_id);
    GS_JW_KEY(w, "compute_instance_id");
    gs_jw_int(w, m->compute_instance_id);
    GS_JW_KEY(w, "profile");
    gs_jw_str_or_null(w, m->profile);
    GS_JW_KEY(w, "compute_instance_profile");
    gs_jw_str_or_null(w, m->ci_profile);
    jput(&g, "gpu_instance_slices", at, JI(m->gi_slices));
    jput(&g, "compute_instance_slices", at, JI(m->ci_slices));
    jput(&g, "sm_count", at, JI(m->sm_count));
    struct jgrp e = jgroup(&g, "engines");
    jput(&e, "copy", at, JI(m->copy_engines));
    jput(&e, "decoder", at, JI(m->decoders));
    jput(&e, "encoder", at, JI(m->encoders));
    jput(&e, "jpeg", at, JI(m->jpeg_engines));
    jput(&e, "ofa", at, JI(m->ofa_engines));
    gs_jw_end(w);
    struct jgrp mem = jgroup(&g, "memory");
    jput(&mem, "total_bytes", ms, JI(m->mem_total_bytes));
    jput(&mem, "used_bytes", ms, JI(m->mem_used_bytes));
    jput(&mem, "free_bytes", ms, JI(m->mem_free_bytes));
    gs_jw_end(w);
    struct jgrp pr = jgroup(&g, "profiling");
    json_prof_values(&pr, m->prof, m->prof_status, GS_PROF_FIRST_RATE); /* activity: per instance */
    gs_jw_end(w);
    GS_JW_KEY(w, "process_count");
    gs_jw_int(w, m->nprocs);
    gs_json_unav_write(w, l, from);
    gs_jw_end(w);
}

void gs_json_mig_devices(struct jgrp *top, const struct gs_gpu *d)
{
    const struct gs_sample *s = &d->s;

    if (SST(GS_F_MIG_DEVICES) != GS_ST_OK) {
        jput(top, "mig_devices", SST(GS_F_MIG_DEVICES), JNONE);
        return;
    }
    GS_JW_KEY(top->w, "mig_devices");
    gs_jw_arr(top->w);
    for (uint32_t i = 0; i < d->nmig && i < GS_MAX_MIG; i++)
        json_mig_device(top->w, top->unavail, &d->mig[i]);
    gs_jw_end(top->w);
}

