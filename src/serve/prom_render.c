/* SPDX-License-Identifier: MIT */
/*
 * prom_render.c - rendering the metric families: the field-driven tables of
 * prom_tables.c, and the few families that need code (throttle reasons,
 * fans, processes, info, exporter health). Contents:
 *   2. family headers and sample lines (text 0.0.4 vs OpenMetrics)
 *   3. label sets (per GPU, per process, pod labels)
 *   4. families driven by tables, then the hand-written ones
 *   5. gs_prom_render()
 */
#include "serve/prom.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "serve/podmap.h"
#include "serve/prom_int.h"
#include "version.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the renderer ------------------------------------------------------------------- */

struct prom_gpu_labels {
    struct gs_pbuf dcgm; /* gpu="0",UUID=...,DCGM_FI_DRIVER_VERSION="..."[,container,namespace,pod] */
    struct gs_pbuf own;  /* gpu="0",uuid="..." */
    size_t dcgm_base;    /* length of dcgm before the pod labels */
    const char *ns, *pod, *container; /* the GPU's pod labels (podmap strings), or NULL */
};

struct gs_prom {
    struct gs_prom_opts o;
    struct prom_gpu_labels *gl; /* glcap entries */
    uint32_t glcap;
    struct gs_pbuf tmp;         /* one process's label set while it is built */
    struct gs_pbuf plab;        /* all process label strings, back to back */
    size_t *poff;               /* poff[k] .. poff[k+1]: labels of process k */
    size_t poffcap;
    /* during one render */
    struct gs_pbuf *out;
    enum gs_prom_format fmt;
};

struct gs_prom *gs_prom_new(const struct gs_prom_opts *opts)
{
    struct gs_prom *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->o = *opts;
    gs_pbuf_init(&r->plab);
    return r;
}

void gs_prom_free(struct gs_prom *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->glcap; i++) {
        gs_pbuf_release(&r->gl[i].dcgm);
        gs_pbuf_release(&r->gl[i].own);
    }
    free(r->gl);
    gs_pbuf_release(&r->plab);
    gs_pbuf_release(&r->tmp);
    free(r->poff);
    free(r);
}

/* ---- 2. headers and samples ----------------------------------------------------------- */

static void prom_header(struct gs_prom *r, const struct prom_fam *f)
{
    struct gs_pbuf *b = r->out;
    if (r->fmt == GS_PROM_TEXT) {
        gs_pbuf_addf(b, "# HELP %s ", f->name);
        gs_prom_escape_help(b, f->help, r->fmt);
        gs_pbuf_addf(b, "\n# TYPE %s %s\n", f->name,
                     f->type == PT_COUNTER ? "counter" : "gauge");
        return;
    }
    /* OpenMetrics: family name without the _total / _info sample suffix */
    size_t n = strlen(f->name);
    const char *type = "gauge";
    if (f->type == PT_COUNTER && f->dcgm) {
        type = "unknown"; /* DCGM counter names lack _total; "counter" would be invalid OM */
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

static void prom_value(struct gs_pbuf *b, double v, enum prom_fmt fmt)
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
static void prom_sample(struct gs_prom *r, const char *name, const struct gs_pbuf *labels,
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
    prom_value(b, v, fmt);
    gs_pbuf_addc(b, '\n');
}

/* ---- 3. label sets ---------------------------------------------------------------------- */

static void prom_label(struct gs_pbuf *b, const char *name, const char *value)
{
    if (b->len)
        gs_pbuf_addc(b, ',');
    gs_pbuf_adds(b, name);
    gs_pbuf_add(b, "=\"", 2);
    gs_prom_escape_label(b, value);
    gs_pbuf_addc(b, '"');
}

/* A label only when its value is not empty (Prometheus: empty = absent). */
static void prom_label_nz(struct gs_pbuf *b, const char *name, const char *value)
{
    if (value && *value)
        prom_label(b, name, value);
}

static void prom_label_u(struct gs_pbuf *b, const char *name, unsigned long long v)
{
    char num[24];
    snprintf(num, sizeof(num), "%llu", v);
    prom_label(b, name, num);
}

/* Pod and container names of a process, or NULL. */
struct prom_pod {
    const char *ns, *pod, *container;
};

static void prom_proc_pod(struct gs_prom *r, const struct gs_proc *p, struct prom_pod *out)
{
    memset(out, 0, sizeof(*out));
    if (!r->o.podmap)
        return;
    if (gs_proc_has(p, GS_P_POD) && p->pod_uid[0])
        gs_podmap_pod(r->o.podmap, p->pod_uid, &out->ns, &out->pod);
    if (gs_proc_has(p, GS_P_CONTAINER) && p->container_id[0])
        out->container = gs_podmap_container(r->o.podmap, p->container_id);
}

/* The pod every Kubernetes process on g belongs to, if there is exactly one
 * (dcgm-exporter puts pod/namespace/container on device series only for the
 * pod the GPU is allocated to). container is NULL unless also unique. */
static bool prom_gpu_pod(struct gs_prom *r, const struct gs_gpu *g, struct prom_pod *out)
{
    bool found = false, same_ctr = true;
    memset(out, 0, sizeof(*out));
    for (uint32_t i = 0; i < g->nprocs; i++) {
        struct prom_pod pp;
        prom_proc_pod(r, &g->procs[i], &pp);
        if (!pp.pod)
            continue;
        if (found && (strcmp(pp.pod, out->pod) || strcmp(pp.ns, out->ns)))
            return false;
        if (found && (!pp.container || !out->container || strcmp(pp.container, out->container)))
            same_ctr = false;
        if (!found)
            *out = pp;
        found = true;
    }
    if (!same_ctr)
        out->container = NULL;
    return found;
}

static void prom_gpu_labels(struct gs_prom *r, const struct gs_snapshot *snap, const struct gs_gpu *g,
                            struct prom_gpu_labels *l)
{
    char dev[32];
    struct prom_pod pod;

    gs_pbuf_reset(&l->dcgm);
    gs_pbuf_reset(&l->own);
    prom_label_u(&l->dcgm, "gpu", g->st.index);
    prom_label(&l->dcgm, "UUID", g->st.uuid);
    prom_label(&l->dcgm, "pci_bus_id", g->st.pci_bus_id);
    snprintf(dev, sizeof(dev), "nvidia%u", g->st.index);
    prom_label(&l->dcgm, "device", dev);
    prom_label(&l->dcgm, "modelName", g->st.name);
    if (r->o.hostname_label)
        prom_label(&l->dcgm, r->o.hostname_label, r->o.hostname ? r->o.hostname : "");
    if (snap->sys.driver_version[0])
        prom_label(&l->dcgm, "DCGM_FI_DRIVER_VERSION", snap->sys.driver_version);
    l->dcgm_base = l->dcgm.len;
    l->ns = l->pod = l->container = NULL;
    if (prom_gpu_pod(r, g, &pod)) {
        if (pod.container)
            prom_label(&l->dcgm, "container", pod.container);
        prom_label(&l->dcgm, "namespace", pod.ns);
        prom_label(&l->dcgm, "pod", pod.pod);
        l->ns = pod.ns;
        l->pod = pod.pod;
        l->container = pod.container;
    }
    prom_label_u(&l->own, "gpu", g->st.index);
    prom_label(&l->own, "uuid", g->st.uuid);
}

/* Append process p's label set to r->plab. */
static void prom_proc_labels(struct gs_prom *r, const struct gs_gpu *g, const struct gs_proc *p)
{
    struct gs_pbuf *b = &r->tmp;
    struct prom_pod pod;
    char shortid[16];
    const char *ctr = "";

    prom_proc_pod(r, p, &pod);
    if (pod.container) {
        ctr = pod.container;
    } else if (gs_proc_has(p, GS_P_CONTAINER) && p->container_id[0]) {
        snprintf(shortid, sizeof(shortid), "%.12s", p->container_id);
        ctr = shortid;
    }
    bool host = gs_proc_has(p, GS_P_COMM);
    gs_pbuf_reset(b);
    /* no uuid: (instance, gpu, pid) identifies a process's series, and uuid
     * would be a third of their bytes; gpuscope_gpu_info joins it on gpu */
    prom_label_u(b, "gpu", g->st.index);
    prom_label_u(b, "pid", p->pid);
    /* empty labels are left out: Prometheus treats label="" as no label, and
     * per-process series are most of the exposition's bytes */
    prom_label_nz(b, "comm", host ? p->comm : NULL);
    prom_label_nz(b, "user", gs_proc_has(p, GS_P_USER) ? p->user : NULL);
    prom_label_nz(b, "container", ctr);
    prom_label_nz(b, "pod", pod.pod);
    prom_label_nz(b, "namespace", pod.ns);
    if (r->o.process_cmdline)
        prom_label_nz(b, "cmdline", host ? p->cmdline : NULL);
    gs_pbuf_add(&r->plab, b->data ? b->data : "", b->len);
}

/* Build every label set this rendering needs. Returns 0 or -GS_E_NOMEM. */
static int prom_build_labels(struct gs_prom *r, const struct gs_snapshot *snap)
{
    size_t nprocs = 0;
    if (snap->ngpus > r->glcap) {
        struct prom_gpu_labels *gl = realloc(r->gl, snap->ngpus * sizeof(*gl));
        if (!gl)
            return -GS_E_NOMEM;
        for (uint32_t i = r->glcap; i < snap->ngpus; i++) {
            gs_pbuf_init(&gl[i].dcgm);
            gs_pbuf_init(&gl[i].own);
        }
        r->gl = gl;
        r->glcap = snap->ngpus;
    }
    for (uint32_t i = 0; i < snap->ngpus; i++)
        nprocs += snap->gpus[i].nprocs;
    if (nprocs + 1 > r->poffcap) {
        size_t *po = realloc(r->poff, (nprocs + 1) * sizeof(*po));
        if (!po)
            return -GS_E_NOMEM;
        r->poff = po;
        r->poffcap = nprocs + 1;
    }
    gs_pbuf_reset(&r->plab);
    size_t k = 0;
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        prom_gpu_labels(r, snap, g, &r->gl[i]);
        for (uint32_t j = 0; j < g->nprocs; j++) {
            r->poff[k++] = r->plab.len;
            prom_proc_labels(r, g, &g->procs[j]);
        }
    }
    r->poff[k] = r->plab.len;
    for (uint32_t i = 0; i < snap->ngpus; i++)
        if (!gs_pbuf_ok(&r->gl[i].dcgm) || !gs_pbuf_ok(&r->gl[i].own))
            return -GS_E_NOMEM;
    return gs_pbuf_ok(&r->plab) && gs_pbuf_ok(&r->tmp) ? 0 : -GS_E_NOMEM;
}

/* ---- 4. families ------------------------------------------------------------------------ */

static double prom_raw(const void *base, uint16_t off, uint8_t num)
{
    const char *p = (const char *)base + off;
    if (num == PN_U32)
        return *(const uint32_t *)(const void *)p;
    if (num == PN_I32)
        return *(const int32_t *)(const void *)p;
    return (double)*(const uint64_t *)(const void *)p;
}

/* A family read from a table row, over all GPUs; header only if some GPU has a value. */
static void prom_table_family(struct gs_prom *r, const struct gs_snapshot *snap,
                              const struct prom_desc *d, bool is_static)
{
    bool started = false;
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        const void *base;
        if (is_static) {
            if (!gs_static_has(&g->st, (enum gs_sfield)d->field))
                continue;
            base = &g->st;
        } else {
            if (g->state != GS_GPU_OK || !gs_sample_has(&g->s, (enum gs_field)d->field))
                continue;
            base = &g->s;
        }
        if (!started)
            prom_header(r, &d->fam);
        started = true;
        const struct gs_pbuf *l = d->fam.dcgm ? &r->gl[i].dcgm : &r->gl[i].own;
        prom_sample(r, d->fam.name, l, NULL, prom_raw(base, d->off, d->num) * d->scale,
                    (enum prom_fmt)d->fmt);
    }
}

static void prom_tables(struct gs_prom *r, const struct gs_snapshot *snap)
{
    for (size_t t = 0; t < gs_prom_ntables; t++)
        for (size_t i = 0; i < gs_prom_tables[t].n; i++)
            prom_table_family(r, snap, &gs_prom_tables[t].v[i], gs_prom_tables[t].is_static);
}

/* The latest Xid on GPU index gpu in the tally (0 if none). */
static uint32_t prom_xid_last(const struct gs_prom_self *self, uint32_t gpu)
{
    uint64_t seq = 0;
    uint32_t xid = 0;
    for (uint32_t k = 0; k < self->nxids; k++)
        if (self->xids[k].gpu == gpu && self->xids[k].seq > seq) {
            seq = self->xids[k].seq;
            xid = self->xids[k].xid;
        }
    return xid;
}

/* DCGM's label order: base labels, then attributes sorted by name:
 * container, err_code, err_msg, namespace, pod. */
static void prom_xid_labels(struct gs_pbuf *b, const struct prom_gpu_labels *l, uint32_t xid)
{
    char code[16];
    gs_pbuf_reset(b);
    gs_pbuf_add(b, l->dcgm.data ? l->dcgm.data : "", l->dcgm_base);
    if (l->container)
        prom_label(b, "container", l->container);
    snprintf(code, sizeof(code), "%u", xid);
    prom_label(b, "err_code", code);
    prom_label(b, "err_msg", gs_prom_xid_text(xid));
    if (l->pod) {
        prom_label(b, "namespace", l->ns);
        prom_label(b, "pod", l->pod);
    }
}

/* DCGM_FI_DEV_XID_ERRORS: the last Xid per GPU (0 before the first), as dcgm-exporter's gauge,
 * on every GPU whose events are watched, and on a lost GPU that had one. */
static void prom_xid_gauge(struct gs_prom *r, const struct gs_snapshot *snap, const struct gs_prom_self *self)
{
    static const struct prom_fam f = { "DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error encountered.",
                                       PT_GAUGE, true, NULL };
    bool started = false;
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        uint32_t last = prom_xid_last(self, g->st.index);
        bool watched = g->state == GS_GPU_OK && gs_sample_has(&g->s, GS_F_XID);
        if (watched && g->s.xid_count)
            last = g->s.xid_last; /* the sampler's tally sees every event, even dropped ones */
        if (!watched && !last)
            continue;
        if (!started)
            prom_header(r, &f);
        started = true;
        prom_xid_labels(&r->tmp, &r->gl[i], last);
        prom_sample(r, f.name, &r->tmp, NULL, last, PF_INT);
    }
}

/* gpuscope_xid_errors_total{gpu,uuid,xid}: a counter per Xid code per GPU. */
static void prom_xid_counters(struct gs_prom *r, const struct gs_snapshot *snap, const struct gs_prom_self *self)
{
    static const struct prom_fam f = { "gpuscope_xid_errors_total",
                                       "Xid events the driver reported since the exporter started, by Xid code.",
                                       PT_COUNTER, false, NULL };
    bool started = false;
    char extra[32];
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        for (uint32_t k = 0; k < self->nxids; k++) {
            const struct gs_prom_xid *x = &self->xids[k];
            if (x->gpu != snap->gpus[i].st.index)
                continue;
            if (!started)
                prom_header(r, &f);
            started = true;
            snprintf(extra, sizeof(extra), "xid=\"%u\"", x->xid);
            prom_sample(r, f.name, &r->gl[i].own, extra, (double)x->count, PF_INT);
        }
    }
}

/* gpuscope_health_finding{gpu,uuid,code,severity[,pid]} 1 per active finding of the health
 * engine, and gpuscope_health_findings{severity} counts (every severity, 0 included).
 * Labels carry no free text: the code set is fixed (Xid codes are numbers). */
static void prom_health(struct gs_prom *r, const struct gs_snapshot *snap, const struct gs_prom_self *self)
{
    static const struct prom_fam one = { "gpuscope_health_finding",
                                         "An active finding of the health engine (value 1), as gpuscope doctor "
                                         "reports it: code, severity, GPU and process if any.",
                                         PT_GAUGE, false, NULL };
    static const struct prom_fam cnt = { "gpuscope_health_findings",
                                         "Active findings of the health engine, by severity.", PT_GAUGE, false,
                                         NULL };
    static const char *const sev[] = { "info", "warning", "critical" };
    uint32_t count[3] = { 0, 0, 0 };
    char extra[96];
    if (!self->health_on)
        return;
    for (uint32_t k = 0; k < self->nhealth; k++) {
        const struct gs_prom_health *h = &self->health[k];
        if (h->severity < 1 || h->severity > 3)
            continue;
        if (count[0] + count[1] + count[2] == 0)
            prom_header(r, &one);
        count[h->severity - 1]++;
        gs_pbuf_reset(&r->tmp);
        for (uint32_t i = 0; i < snap->ngpus && h->gpu >= 0; i++)
            if (snap->gpus[i].st.index == (uint32_t)h->gpu) {
                gs_pbuf_add(&r->tmp, r->gl[i].own.data, r->gl[i].own.len);
                break;
            }
        if (h->gpu >= 0 && !r->tmp.len)
            prom_label_u(&r->tmp, "gpu", (unsigned long long)h->gpu);
        prom_label(&r->tmp, "code", h->code);
        prom_label(&r->tmp, "severity", sev[h->severity - 1]);
        if (h->pid)
            prom_label_u(&r->tmp, "pid", h->pid);
        prom_sample(r, one.name, &r->tmp, NULL, 1, PF_INT);
    }
    prom_header(r, &cnt);
    for (int s = 0; s < 3; s++) {
        snprintf(extra, sizeof(extra), "severity=\"%s\"", sev[s]);
        prom_sample(r, cnt.name, NULL, extra, count[s], PF_INT);
    }
}

static void prom_throttle(struct gs_prom *r, const struct gs_snapshot *snap)
{
    static const struct prom_fam f = { "gpuscope_throttle_reason_active",
                                       "Whether a clock event (throttle) reason is active (1) or not (0).",
                                       PT_GAUGE, false, NULL };
    bool started = false;
    char extra[64];
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        if (g->state != GS_GPU_OK || !gs_sample_has(&g->s, GS_F_THROTTLE))
            continue;
        uint64_t supported = gs_static_has(&g->st, GS_S_THROTTLE_SUPPORTED) ? g->st.throttle_supported
                                                                              : ~UINT64_C(0);
        for (size_t t = 0; t < gs_prom_nthrottle_names; t++) {
            if (!(supported & gs_prom_throttle_names[t].bit))
                continue;
            if (!started)
                prom_header(r, &f);
            started = true;
            snprintf(extra, sizeof(extra), "reason=\"%s\"", gs_prom_throttle_names[t].name);
            prom_sample(r, f.name, &r->gl[i].own, extra,
                        (g->s.throttle_reasons & gs_prom_throttle_names[t].bit) ? 1 : 0, PF_INT);
        }
    }
}

static void prom_fans(struct gs_prom *r, const struct gs_snapshot *snap)
{
    static const struct prom_fam f = { "gpuscope_fan_speed_ratio",
                                       "Fan speed as a fraction of its maximum (may exceed 1: intended speed).",
                                       PT_GAUGE, false, "ratio" };
    bool started = false;
    char extra[32];
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        if (g->state != GS_GPU_OK || !gs_sample_has(&g->s, GS_F_FAN_SPEED))
            continue;
        for (uint32_t fan = 0; fan < g->s.fan_count && fan < GS_MAX_FANS; fan++) {
            if (!started)
                prom_header(r, &f);
            started = true;
            snprintf(extra, sizeof(extra), "fan=\"%u\"", fan);
            prom_sample(r, f.name, &r->gl[i].own, extra, g->s.fan_speed_pct[fan], PF_PCT);
        }
    }
}

/* gpuscope_gpu_up, gpuscope_gpu_info, gpuscope_gpu_unavailable_fields, gpuscope_gpu_processes */
static void prom_gpu_health(struct gs_prom *r, const struct gs_snapshot *snap)
{
    static const struct prom_fam up = { "gpuscope_gpu_up",
                                        "Whether the GPU was read in the latest sample (0: lost or failing).",
                                        PT_GAUGE, false, NULL };
    static const struct prom_fam un = { "gpuscope_gpu_unavailable_fields",
                                        "Sample fields without a value in the latest sample, by reason.",
                                        PT_GAUGE, false, NULL };
    static const struct prom_fam np = { "gpuscope_gpu_processes",
                                        "Processes using the GPU in the latest sample.", PT_GAUGE, false,
                                        NULL };
    char extra[48];
    if (!snap->ngpus)
        return;
    prom_header(r, &up);
    for (uint32_t i = 0; i < snap->ngpus; i++)
        prom_sample(r, up.name, &r->gl[i].own, NULL, snap->gpus[i].state == GS_GPU_OK, PF_INT);
    prom_header(r, &un);
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        for (size_t k = 0; k < gs_prom_nstatus_names; k++) {
            unsigned n = 0;
            for (unsigned f = 0; f < GS_F_COUNT; f++)
                n += g->s.status[f] == gs_prom_status_names[k].status;
            snprintf(extra, sizeof(extra), "status=\"%s\"", gs_prom_status_names[k].name);
            prom_sample(r, un.name, &r->gl[i].own, extra, n, PF_INT);
        }
    }
    prom_header(r, &np);
    for (uint32_t i = 0; i < snap->ngpus; i++)
        if (snap->gpus[i].procs_status == GS_ST_OK)
            prom_sample(r, np.name, &r->gl[i].own, NULL, snap->gpus[i].nprocs, PF_INT);
}

static void prom_gpu_info(struct gs_prom *r, const struct gs_snapshot *snap)
{
    static const struct prom_fam f = { "gpuscope_gpu_info",
                                       "Identity of each GPU (value 1): name, PCI bus id, serial, VBIOS, architecture.",
                                       PT_INFO, false, NULL };
    struct gs_pbuf *b = &r->tmp;
    char cc[24] = "";
    if (!snap->ngpus)
        return;
    prom_header(r, &f);
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_static *st = &snap->gpus[i].st;
        gs_pbuf_reset(b);
        prom_label(b, "name", st->name);
        prom_label(b, "pci_bus_id", st->pci_bus_id);
        prom_label(b, "serial", gs_static_has(st, GS_S_SERIAL) ? st->serial : "");
        prom_label(b, "vbios", gs_static_has(st, GS_S_VBIOS) ? st->vbios : "");
        prom_label(b, "architecture", gs_static_has(st, GS_S_ARCH) ? st->arch_name : "");
        cc[0] = '\0';
        if (gs_static_has(st, GS_S_CUDA_CC))
            snprintf(cc, sizeof(cc), "%d.%d", st->cc_major, st->cc_minor);
        prom_label(b, "compute_capability", cc);
        prom_sample(r, f.name, &r->gl[i].own, b->data, 1, PF_INT);
    }
}

/* Per-process families: one row per (GPU, process) with a value. */
struct prom_pfam {
    struct prom_fam fam;
    uint8_t field;   /* GS_P_x */
    uint16_t off;    /* offset in gs_proc */
    uint8_t num;
    uint8_t fmt;     /* PF_INT bytes, PF_PCT ratios */
};

#define POFF(f) ((uint16_t)offsetof(struct gs_proc, f))

static const struct prom_pfam proc_fams[] = {
    { { "gpuscope_process_memory_bytes", "GPU memory used by the process.", PT_GAUGE, false, "bytes" },
      GS_P_GPU_MEM, POFF(gpu_mem_bytes), PN_U64, PF_INT },
    { { "gpuscope_process_sm_utilization_ratio", "Fraction of time the process ran on the SMs.",
        PT_GAUGE, false, "ratio" },
      GS_P_SM_UTIL, POFF(sm_util_pct), PN_U32, PF_PCT },
    { { "gpuscope_process_memory_utilization_ratio",
        "Fraction of time the process used the memory interface.", PT_GAUGE, false, "ratio" },
      GS_P_MEM_UTIL, POFF(mem_util_pct), PN_U32, PF_PCT },
    { { "gpuscope_process_encoder_utilization_ratio", "Fraction of time the process used the encoder.",
        PT_GAUGE, false, "ratio" },
      GS_P_ENC_UTIL, POFF(enc_util_pct), PN_U32, PF_PCT },
    { { "gpuscope_process_decoder_utilization_ratio", "Fraction of time the process used the decoder.",
        PT_GAUGE, false, "ratio" },
      GS_P_DEC_UTIL, POFF(dec_util_pct), PN_U32, PF_PCT },
};

static void prom_procs(struct gs_prom *r, const struct gs_snapshot *snap)
{
    struct gs_pbuf *b = r->out;
    for (size_t f = 0; f < NELEM(proc_fams); f++) {
        const struct prom_pfam *d = &proc_fams[f];
        bool started = false;
        size_t k = 0;
        for (uint32_t i = 0; i < snap->ngpus; i++) {
            const struct gs_gpu *g = &snap->gpus[i];
            for (uint32_t j = 0; j < g->nprocs; j++, k++) {
                const struct gs_proc *p = &g->procs[j];
                if (!gs_proc_has(p, (enum gs_pfield)d->field))
                    continue;
                if (!started)
                    prom_header(r, &d->fam);
                started = true;
                gs_pbuf_adds(b, d->fam.name);
                gs_pbuf_addc(b, '{');
                gs_pbuf_add(b, r->plab.data + r->poff[k], r->poff[k + 1] - r->poff[k]);
                gs_pbuf_add(b, "} ", 2);
                prom_value(b, prom_raw(p, d->off, d->num), (enum prom_fmt)d->fmt);
                gs_pbuf_addc(b, '\n');
            }
        }
    }
}

static void prom_host_info(struct gs_prom *r, const struct gs_snapshot *snap)
{
    static const struct prom_fam f = { "gpuscope_host_info",
                                       "The node (value 1): host name, backend, driver and NVML versions.",
                                       PT_INFO, false, NULL };
    struct gs_pbuf *b = &r->tmp;
    char cuda[24] = "";
    const struct gs_sysinfo *sys = &snap->sys;

    if (sys->cuda_driver_version > 0)
        snprintf(cuda, sizeof(cuda), "%d.%d", sys->cuda_driver_version / 1000,
                 sys->cuda_driver_version % 1000 / 10);
    gs_pbuf_reset(b);
    prom_label(b, "hostname", r->o.hostname ? r->o.hostname : sys->hostname);
    prom_label(b, "backend", sys->backend);
    prom_label(b, "driver_version", sys->driver_version);
    prom_label(b, "nvml_version", sys->nvml_version);
    prom_label(b, "cuda_driver_version", cuda);
    prom_label(b, "simulated", sys->simulated ? "true" : "false");
    prom_header(r, &f);
    prom_sample(r, f.name, b, NULL, 1, PF_INT);
}

static void prom_self(struct gs_prom *r, const struct gs_prom_self *self)
{
    static const struct prom_fam fams[] = {
        { "gpuscope_build_info", "gpuscope's version (value 1).", PT_INFO, false, NULL },
        { "gpuscope_exporter_backend_up", "Whether the latest sample read at least one GPU.", PT_GAUGE,
          false, NULL },
        { "gpuscope_exporter_sample_duration_seconds", "How long the latest sample took.", PT_GAUGE,
          false, "seconds" },
        { "gpuscope_exporter_samples_total", "Samples taken since the exporter started.", PT_COUNTER,
          false, NULL },
        { "gpuscope_exporter_sample_errors_total",
          "Samples in which some GPU or the whole backend failed.", PT_COUNTER, false, NULL },
        { "gpuscope_exporter_last_sample_timestamp_seconds",
          "Unix time of the latest sample that read a GPU.", PT_GAUGE, false, "seconds" },
        { "gpuscope_exporter_events_dropped_total",
          "Driver events (Xid) that arrived faster than the exporter could count them.", PT_COUNTER, false,
          NULL },
    };
    const double v[] = { 1, self->backend_up, self->sample_duration_s, (double)self->samples_total,
                         (double)self->sample_errors_total, self->last_sample_unix_s,
                         (double)self->events_dropped_total };
    for (size_t i = 0; i < NELEM(fams); i++) {
        prom_header(r, &fams[i]);
        if (i == 0)
            prom_sample(r, fams[i].name, NULL, "version=\"" GS_VERSION "\"", 1, PF_INT);
        else
            prom_sample(r, fams[i].name, NULL, NULL, v[i], i == 5 ? PF_F6 : PF_G);
    }
}

/* ---- 5. the whole rendering ---------------------------------------------------------------- */

int gs_prom_render(struct gs_prom *r, struct gs_pbuf *out, const struct gs_snapshot *snap,
                   const struct gs_prom_self *self, enum gs_prom_format fmt)
{
    int rc = prom_build_labels(r, snap);
    if (rc < 0)
        return rc;
    r->out = out;
    r->fmt = fmt;
    prom_tables(r, snap);
    prom_xid_gauge(r, snap, self);
    prom_xid_counters(r, snap, self);
    prom_health(r, snap, self);
    prom_throttle(r, snap);
    prom_fans(r, snap);
    prom_gpu_health(r, snap);
    prom_gpu_info(r, snap);
    prom_procs(r, snap);
    prom_host_info(r, snap);
    prom_self(r, self);
    r->out = NULL;
    return gs_pbuf_ok(out) ? 0 : -GS_E_NOMEM;
}
