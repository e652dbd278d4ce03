/* SPDX-License-Identifier: MIT */
/*
 * prom_render.c - the exporter's renderer: its state, family headers and sample
 * lines (text 0.0.4 vs OpenMetrics), gs_prom_render() calling the families in
 * their order, and the services prom_drm.c and prom_mig.c render with. The label
 * sets are prom_labels.c's; the families prom_fams.c's (GPUs) and prom_procs.c's
 * (processes, pods, node, exporter); prom_render.h says what they share.
 */
#include "serve/prom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "serve/prom_render.h"

/* ---- the renderer ------------------------------------------------------------------- */

struct gs_prom *gs_prom_new(const struct gs_prom_opts *opts)
{
    struct gs_prom *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->o = *opts;
    gs_pbuf_init(&r->plab);
    if (!(r->mig = gs_prom_mig_new())) {
        free(r);
        return NULL;
    }
    return r;
}

void gs_prom_free(struct gs_prom *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->glcap; i++) {
        gs_pbuf_release(&r->gl[i].dcgm);
        gs_pbuf_release(&r->gl[i].own);
        gs_pbuf_release(&r->gl[i].sfx);
        free(r->gl[i].pl);
    }
    free(r->gl);
    gs_prom_mig_free(r->mig);
    gs_pbuf_release(&r->plab);
    gs_pbuf_release(&r->tmp);
    free(r->poff);
    free(r);
}

/* ---- 2. headers and samples ----------------------------------------------------------- */

void gs_prom_fam_header(struct gs_prom *r, const struct prom_fam *f)
{
    struct gs_pbuf *b = r->out;
    if (r->fmt == GS_PROM_TEXT) {
        gs_pbuf_addf(b, "# HELP %s ", f->name);
        gs_prom_escape_help(b, f->help, r->fmt);
        gs_pbuf_addf(b, "\n# TYPE %s %s\n", f->name,
                     f->type == PT_COUNTER ? "counter" : "gauge");
        return;
    }
    /* OpenMetrics: family name without the _total / _info sample suffix. A
     * counter is one only where its samples can be named family + "_total"
     * without renaming them (gpuscope's counters, and a DCGM name that ends in
     * _total); DCGM's usual names (..._CONSUMPTION, ..._VOL_TOTAL) cannot, and
     * "counter" with a bare sample name is not OpenMetrics: strict parsers
     * (prometheus_client) reject the whole scrape. Those are "unknown". */
    size_t n = strlen(f->name);
    const char *type = "gauge";
    bool total = n > 6 && !strcmp(f->name + n - 6, "_total");
    if (f->type == PT_COUNTER && !total) {
        type = "unknown";
    } else if (f->type == PT_COUNTER) {
        type = "counter";
        n -= strlen("_total");
    } else if (f->type == PT_INFO) {
        type = "info";
        n -= strlen("_info");
    }
    gs_pbuf_addf(b, "# TYPE %.*s %s\n", (int)n, f->name, type);
    if (f->unit)
        gs_pbuf_addf(b, "# UNIT %.*s %s\n", (int)n, f->name, f->unit);
    gs_pbuf_addf(b, "# HELP %.*s ", (int)n, f->name);
    gs_prom_escape_help(b, f->help, r->fmt);
    gs_pbuf_addc(b, '\n');
}

void gs_prom_value(struct gs_pbuf *b, double v, enum prom_fmt fmt)
{
    if (fmt == PF_INT) {
        long long i = (long long)v;
        if (i < 0)
            gs_pbuf_addc(b, '-');
        gs_pbuf_addu(b, (uint64_t)(i < 0 ? -i : i));
    } else if (fmt == PF_PCT && v >= 0 && v < 1e15) {
        uint64_t pct = (uint64_t)v;
        gs_pbuf_addu(b, pct / 100);
        if (pct % 100) {
            char frac[4] = { '.', (char)('0' + pct % 100 / 10), (char)('0' + pct % 10), '\0' };
            if (frac[2] == '0')
                frac[2] = '\0';
            gs_pbuf_adds(b, frac);
        }
    } else if (fmt == PF_PCT) {
        gs_prom_add_double(b, v / 100);
    } else if (fmt == PF_F6)
        gs_pbuf_addf(b, "%f", v);
    else
        gs_prom_add_double(b, v);
}

/* name{labels[,extra]} value\n; labels/extra may be NULL or empty. */
void gs_prom_fam_sample(struct gs_prom *r, const char *name, const struct gs_pbuf *labels,
                        const char *extra, double v, enum prom_fmt fmt)
{
    struct gs_pbuf *b = r->out;
    bool has_l = labels && labels->len, has_x = extra && *extra;
    gs_pbuf_adds(b, name);
    if (has_l || has_x) {
        gs_pbuf_addc(b, '{');
        if (has_l)
            gs_pbuf_add(b, labels->data, labels->len);
        if (has_l && has_x)
            gs_pbuf_addc(b, ',');
        if (has_x)
            gs_pbuf_adds(b, extra);
        gs_pbuf_addc(b, '}');
    }
    gs_pbuf_addc(b, ' ');
    gs_prom_value(b, v, fmt);
    gs_pbuf_addc(b, '\n');
}

double gs_prom_raw(const void *base, uint16_t off, uint8_t num)
{
    const char *p = (const char *)base + off;
    if (num == PN_U32)
        return *(const uint32_t *)(const void *)p;
    if (num == PN_I32)
        return *(const int32_t *)(const void *)p;
    return (double)*(const uint64_t *)(const void *)p;
}

/* ---- 4b. what prom_drm.c and prom_mig.c render with ------------------------------------------------------ */

const struct gs_pbuf *gs_prom_own_labels(const struct gs_prom *r, uint32_t i)
{
    return &r->gl[i].own;
}

const struct gs_pbuf *gs_prom_proc_labelset(struct gs_prom *r, size_t k)
{
    gs_pbuf_reset(&r->tmp);
    gs_pbuf_add(&r->tmp, r->plab.data + r->poff[k], r->poff[k + 1] - r->poff[k]);
    return &r->tmp;
}
/* ---- 5. the whole rendering ---------------------------------------------------------------- */

int gs_prom_render(struct gs_prom *r, struct gs_pbuf *out, const struct gs_snapshot *snap,
                   const struct gs_prom_self *self, enum gs_prom_format fmt)
{
    r->kube_map = self->kube.map;
    r->jobs = &self->jobs;
    int rc = gs_prom_build_labels(r, snap);
    if (rc < 0)
        return rc;
    r->out = out;
    r->fmt = fmt;
    gs_prom_render_tables(r, snap);
    gs_prom_mig_render(r, r->mig, snap); /* DCGM_FI_PROF_*, gpuscope_mig_* */
    gs_prom_render_gpu(r, snap, self); /* Xid, health, throttle, fans, up, ages, info */
    gs_prom_render_procs(r, snap);
    gs_prom_drm(r, snap);
    gs_prom_render_node(r, snap, self); /* pod info, host info, the exporter's own */
    r->out = NULL;
    r->kube_map = NULL;
    r->jobs = NULL;
    return gs_pbuf_ok(out) ? 0 : -GS_E_NOMEM;
}

/* ---- 6. services for prom_mig.c (MIG GPU instances and profiling, area 10c) ---------------------- */

const struct gs_prom_opts *gs_prom_out_opts(const struct gs_prom *r)
{
    return &r->o;
}

const struct gs_k8s_map *gs_prom_out_kube_map(const struct gs_prom *r)
{
    return r->kube_map;
}

const struct gs_pbuf *gs_prom_out_gpu_labels(const struct gs_prom *r, uint32_t i, bool dcgm)
{
    return dcgm ? &r->gl[i].dcgm : &r->gl[i].own;
}
