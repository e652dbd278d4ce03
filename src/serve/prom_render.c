/* SPDX-License-Identifier: MIT */
/*
 * prom_render.c - rendering the metric families: the field-driven tables of
 * prom_tables.c, and the few families that need code (throttle reasons,
 * fans, processes, info, exporter health). Contents:
 *   2. family headers and sample lines (text 0.0.4 vs OpenMetrics)
 *   3. label sets (per GPU, per process, pod labels)
 *   3b. pods from the kubelet: label sets per sharing pod, per-pod values, pod info
 *   4. families driven by tables, then the hand-written ones
 *   5. gs_prom_render()
 */
#include "serve/prom.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/jobmap.h"
#include "core/vendor.h"
#include "k8s/podres.h"
#include "lib/vec.h"
#include "serve/podmap.h"
#include "serve/prom_int.h"
#include "version.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the renderer ------------------------------------------------------------------- */

/* One set of pod labels on a GPU's DCGM series (strings borrowed from the
 * kubelet's map or the podmap, valid for one rendering). */
struct prom_podlab {
    const char *ns, *pod;
    const char *container; /* NULL: not one container */
    const char *vgpu;      /* replica of a shared GPU (--kubernetes-virtual-gpus), or NULL */
    size_t off;            /* its labels in prom_gpu_labels.sfx ("container=...,namespace=...,pod=...") */
    const char *job;       /* hpc_job (an HPC job on the GPU), or NULL; ns and pod NULL in a set of a job alone */
};

struct prom_gpu_labels {
    struct gs_pbuf dcgm; /* gpu="0",UUID=...,DCGM_FI_DRIVER_VERSION="...": the labels before the pods' */
    struct gs_pbuf own;  /* gpu="0",uuid="..." */
    struct gs_pbuf sfx;  /* each pod label set, NUL-terminated, back to back */
    struct prom_podlab *pl; /* npl pod label sets: a DCGM series per set; none: one series without */
    unsigned npl;
    size_t plcap;
    bool pod_values;     /* per-pod GPU_UTIL / FB_USED can be told from the processes (virtual GPUs) */
    char pjob[GS_JOBMAP_JOBS_MAX][12]; /* the processes' Slurm jobs, as hpc_job values (no mapping dir) */
};

struct gs_prom {
    struct gs_prom_opts o;
    struct prom_gpu_labels *gl; /* glcap entries */
    size_t glcap;
    struct gs_pbuf tmp;         /* one process's label set while it is built */
    struct gs_pbuf plab;        /* all process label strings, back to back */
    size_t *poff;               /* poff[k] .. poff[k+1]: labels of process k */
    size_t poffcap;
    /* during one render */
    struct gs_pbuf *out;
    enum gs_prom_format fmt;
    const struct gs_k8s_map *kube_map; /* pods from the kubelet, or NULL: from processes */
    const struct gs_prom_jobs *jobs;   /* HPC jobs (self->jobs) */
    struct prom_mig *mig;       /* MIG GPU instances' label sets (prom_mig.c) */
};

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

/* name="value", after a ',' if the label set that starts at b[start] has labels already */
static void prom_label_at(struct gs_pbuf *b, size_t start, const char *name, const char *value)
{
    if (b->len > start)
        gs_pbuf_addc(b, ',');
    gs_pbuf_adds(b, name);
    gs_pbuf_add(b, "=\"", 2);
    gs_prom_escape_label(b, value);
    gs_pbuf_addc(b, '"');
}

static void prom_label(struct gs_pbuf *b, const char *name, const char *value)
{
    prom_label_at(b, 0, name, value);
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

/* ---- 3b. pods from the kubelet ------------------------------------------------------------ */

/* Add a label set to l: container (if one), hpc_job (if one), namespace and pod (if
 * a pod), vgpu (if shared), in dcgm-exporter's order (attributes sorted by name).
 * Out of memory fails l->sfx. */
static void prom_add_labset(struct prom_gpu_labels *l, const char *ns, const char *pod, const char *ctr,
                            const char *vgpu, const char *job)
{
    struct prom_podlab *pl = gs_vec_grow(l->pl, &l->plcap, (size_t)l->npl + 1, sizeof(*pl));
    if (!pl) {
        l->sfx.failed = true;
        return;
    }
    l->pl = pl;
    struct prom_podlab *p = &l->pl[l->npl++];
    *p = (struct prom_podlab){ ns, pod, ctr && *ctr ? ctr : NULL, vgpu, l->sfx.len, job };
    size_t start = l->sfx.len;
    if (p->container)
        prom_label_at(&l->sfx, start, "container", p->container);
    if (job)
        prom_label_at(&l->sfx, start, "hpc_job", job);
    if (pod) {
        prom_label_at(&l->sfx, start, "namespace", ns);
        prom_label_at(&l->sfx, start, "pod", pod);
    }
    if (vgpu)
        prom_label_at(&l->sfx, start, "vgpu", vgpu);
    gs_pbuf_add(&l->sfx, "", 1); /* NUL: each set is a string of its own */
}

static void prom_add_podlab(struct prom_gpu_labels *l, const char *ns, const char *pod, const char *ctr,
                            const char *vgpu)
{
    prom_add_labset(l, ns, pod, ctr, vgpu, NULL);
}

/* One label set per job on g, as dcgm-exporter copies each series per job; with
 * pod label sets too, each pod's set once per job. */
static void prom_job_labsets(struct gs_prom *r, const struct gs_gpu *g, struct prom_gpu_labels *l)
{
    const char *jobs[GS_JOBMAP_JOBS_MAX];
    unsigned nj = gs_prom_out_jobs(r, g, UINT32_MAX, jobs, l->pjob), npods = l->npl;
    if (!nj)
        return;
    if (!npods) {
        for (unsigned k = 0; k < nj; k++)
            prom_add_labset(l, NULL, NULL, NULL, NULL, jobs[k]);
        return;
    }
    struct prom_podlab *pods = malloc(npods * sizeof(*pods));
    if (!pods) {
        l->sfx.failed = true;
        return;
    }
    memcpy(pods, l->pl, npods * sizeof(*pods));
    gs_pbuf_reset(&l->sfx);
    l->npl = 0;
    for (unsigned i = 0; i < npods; i++)
        for (unsigned k = 0; k < nj; k++)
            prom_add_labset(l, pods[i].ns, pods[i].pod, pods[i].container, pods[i].vgpu, jobs[k]);
    free(pods);
}

/* The processes on g and the pods they belong to: can a value per pod be told
 * (every process visible, and each one's pod known or known to be none)? */
static bool prom_pods_known(struct gs_prom *r, const struct gs_gpu *g)
{
    if (g->procs_status != GS_ST_OK)
        return false;
    for (uint32_t i = 0; i < g->nprocs; i++) {
        const struct gs_proc *p = &g->procs[i];
        struct prom_pod pp;
        if (!gs_proc_has(p, GS_P_COMM))
            return false; /* a PID /proc does not show (no hostPID): its pod is unknown */
        if (!gs_proc_has(p, GS_P_POD) || !p->pod_uid[0])
            continue;     /* a process outside Kubernetes */
        prom_proc_pod(r, p, &pp);
        if (!pp.pod)
            return false; /* in a pod whose name the node's log directories do not give */
    }
    return true;
}

/* g's pod label sets from the kubelet, as dcgm-exporter makes them: the device's
 * allocations (by UUID, or "nvidia<index>" with --kubernetes-gpu-id-type=device-name);
 * without virtual GPUs only the last one the kubelet listed, as dcgm-exporter's map
 * keeps it; with them each one, with its replica as vgpu. */
static void prom_kube_podlabs(struct gs_prom *r, const struct gs_gpu *g, struct prom_gpu_labels *l)
{
    char dev[32];
    const char *key = g->st.uuid;
    unsigned n;
    if (r->o.gpu_id_device_name) {
        snprintf(dev, sizeof(dev), "nvidia%u", g->st.index);
        key = dev;
    }
    const struct gs_k8s_alloc *a = gs_k8s_find(r->kube_map, key, &n);
    if (!n)
        return;
    if (!r->o.virtual_gpus) {
        prom_add_podlab(l, a[n - 1].ns, a[n - 1].pod, a[n - 1].container, NULL);
        return;
    }
    for (unsigned i = 0; i < n; i++)
        prom_add_podlab(l, a[i].ns, a[i].pod, a[i].container, a[i].vgpu);
    l->pod_values = prom_pods_known(r, g);
}

/* The sum over pod (ns, pod)'s processes on g of field: SM utilization in %, or
 * memory in MiB (each process's bytes / 1 MiB, as dcgm-exporter adds them). */
static uint64_t prom_pod_value(struct gs_prom *r, const struct gs_gpu *g, const struct prom_podlab *pl,
                               bool memory)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < g->nprocs; i++) {
        const struct gs_proc *p = &g->procs[i];
        struct prom_pod pp;
        prom_proc_pod(r, p, &pp);
        if (!pp.pod || strcmp(pp.pod, pl->pod) || strcmp(pp.ns, pl->ns))
            continue;
        if (memory && gs_proc_has(p, GS_P_GPU_MEM))
            sum += p->gpu_mem_bytes / (1024 * 1024);
        else if (!memory && gs_proc_has(p, GS_P_SM_UTIL))
            sum += p->sm_util_pct;
    }
    return sum;
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
    gs_pbuf_reset(&l->sfx);
    l->npl = 0;
    l->pod_values = false;
    if (r->kube_map)
        prom_kube_podlabs(r, g, l);
    else if (prom_gpu_pod(r, g, &pod))
        prom_add_podlab(l, pod.ns, pod.pod, pod.container, NULL);
    prom_job_labsets(r, g, l);
    prom_label_u(&l->own, "gpu", g->st.index);
    prom_label(&l->own, "uuid", g->st.uuid);
    if (gs_vendor_is_drm(&g->st)) { /* NVIDIA's series keep their labels (dcgm-exporter's users) */
        char vendor[16];
        size_t n = strlen(g->st.vendor);
        for (size_t c = 0; c <= n && c < sizeof(vendor); c++)
            vendor[c] = (char)(g->st.vendor[c] >= 'A' && g->st.vendor[c] <= 'Z' ? g->st.vendor[c] + 32 : g->st.vendor[c]);
        vendor[sizeof(vendor) - 1] = '\0';
        prom_label(&l->own, "vendor", vendor);
        prom_label(&l->own, "driver", g->st.driver);
    }
}

/* The comm label of a process /proc cannot show (another PID namespace, exited):
 * from the driver's name for it, as the kernel makes comm: the base name of
 * the executable, 15 bytes at most. Only the first word, so that arguments
 * (which can hold secrets) never get in. */
static const char *prom_driver_comm(const struct gs_proc *p, char out[16])
{
    if (!gs_proc_has(p, GS_P_NAME) || !p->name[0])
        return NULL;
    size_t word = strcspn(p->name, " \t");
    const char *base = p->name;
    for (size_t i = 0; i < word; i++)
        if (p->name[i] == '/')
            base = p->name + i + 1;
    size_t n = (size_t)(p->name + word - base);
    if (!n)
        return NULL;
    if (n > 15)
        n = 15;
    memcpy(out, base, n);
    out[n] = '\0';
    return out;
}

/* Append process p's label set to r->plab. */
static void prom_proc_labels(struct gs_prom *r, const struct gs_gpu *g, const struct gs_proc *p)
{
    struct gs_pbuf *b = &r->tmp;
    struct prom_pod pod;
    char shortid[16], comm[16];
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
    if (gs_proc_has(p, GS_P_MIG)) { /* the MIG instances it runs in */
        prom_label_u(b, "gpu_instance_id", p->gpu_instance_id);
        prom_label_u(b, "compute_instance_id", p->compute_instance_id);
    }
    /* empty labels are left out: Prometheus treats label="" as no label, and
     * per-process series are most of the exposition's bytes */
    prom_label_nz(b, "comm", host ? p->comm : prom_driver_comm(p, comm));
    prom_label_nz(b, "user", gs_proc_has(p, GS_P_USER) ? p->user : NULL);
    prom_label_nz(b, "container", ctr);
    prom_label_nz(b, "pod", pod.pod);
    prom_label_nz(b, "namespace", pod.ns);
    if (r->o.process_cmdline)
        prom_label_nz(b, "cmdline", host ? gs_proc_cmdline(&g->text, p) : NULL);
    gs_pbuf_add(&r->plab, b->data ? b->data : "", b->len);
}

/* Build every label set this rendering needs. Returns 0 or -GS_E_NOMEM. */
static int prom_build_labels(struct gs_prom *r, const struct gs_snapshot *snap)
{
    size_t nprocs = 0;
    if (snap->ngpus > r->glcap) {
        size_t old = r->glcap;
        struct prom_gpu_labels *gl = gs_vec_grow(r->gl, &r->glcap, snap->ngpus, sizeof(*gl));
        if (!gl)
            return -GS_E_NOMEM;
        for (size_t i = old; i < r->glcap; i++) { /* every entry up to glcap is released */
            memset(&gl[i], 0, sizeof(gl[i]));
            gs_pbuf_init(&gl[i].dcgm);
            gs_pbuf_init(&gl[i].own);
            gs_pbuf_init(&gl[i].sfx);
        }
        r->gl = gl;
    }
    for (uint32_t i = 0; i < snap->ngpus; i++)
        nprocs += snap->gpus[i].nprocs;
    size_t *po = gs_vec_grow(r->poff, &r->poffcap, nprocs + 1, sizeof(*po));
    if (!po)
        return -GS_E_NOMEM;
    r->poff = po;
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
        if (!gs_pbuf_ok(&r->gl[i].dcgm) || !gs_pbuf_ok(&r->gl[i].own) || !gs_pbuf_ok(&r->gl[i].sfx))
            return -GS_E_NOMEM;
    if (gs_prom_mig_labels(r, r->mig, snap) < 0)
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

/* A DCGM family's samples of one GPU: one per pod label set (none: one without pod
 * labels). With virtual GPUs, GPU_UTIL and FB_USED are dcgm-exporter's per-pod
 * values instead: the device's series without pod labels, then each pod's share
 * from its processes, where that can be told (prom_pods_known). */
static void prom_dcgm_samples(struct gs_prom *r, const struct gs_gpu *g, const struct prom_gpu_labels *l,
                              const struct prom_fam *f, double v, enum prom_fmt fmt)
{
    bool util = !strcmp(f->name, "DCGM_FI_DEV_GPU_UTIL"), mem = !strcmp(f->name, "DCGM_FI_DEV_FB_USED");
    if (!l->npl || (r->o.virtual_gpus && r->kube_map && (util || mem))) {
        prom_sample(r, f->name, &l->dcgm, NULL, v, fmt);
        if (!l->npl || !l->pod_values)
            return;
        for (unsigned k = 0; k < l->npl; k++)
            prom_sample(r, f->name, &l->dcgm, l->sfx.data + l->pl[k].off,
                        (double)prom_pod_value(r, g, &l->pl[k], mem), PF_INT);
        return;
    }
    for (unsigned k = 0; k < l->npl; k++)
        prom_sample(r, f->name, &l->dcgm, l->sfx.data + l->pl[k].off, v, fmt);
}

/* A family read from a table row, over all GPUs; header only if some GPU has a value. */
static void prom_table_family(struct gs_prom *r, const struct gs_snapshot *snap,
                              const struct prom_desc *d, bool is_static, bool drm_only)
{
    bool started = false;
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        const void *base;
        /* DCGM names stay NVIDIA's; AMD and Intel have the same readings under gpuscope_* */
        if ((d->fam.dcgm && gs_vendor_is_drm(&g->st)) || (drm_only && !gs_vendor_is_drm(&g->st)))
            continue;
        if (is_static) {
            if (!gs_static_has(&g->st, (enum gs_sfield)d->field))
                continue;
            base = &g->st;
        } else {
            if (d->fam.dcgm && g->state == GS_GPU_OK && gs_prom_mig_split(g)) { /* per GPU instance */
                bool have = gs_sample_has(&g->s, (enum gs_field)d->field);
                gs_prom_mig_family(r, r->mig, i, g, d, have, have ? prom_raw(&g->s, d->off, d->num) * d->scale : 0,
                                   &started);
                continue;
            }
            if (g->state != GS_GPU_OK || !gs_sample_has(&g->s, (enum gs_field)d->field))
                continue;
            base = &g->s;
        }
        if (!started)
            prom_header(r, &d->fam);
        started = true;
        double v = prom_raw(base, d->off, d->num) * d->scale;
        if (d->fam.dcgm)
            prom_dcgm_samples(r, g, &r->gl[i], &d->fam, v, (enum prom_fmt)d->fmt);
        else
            prom_sample(r, d->fam.name, &r->gl[i].own, NULL, v, (enum prom_fmt)d->fmt);
    }
}

static void prom_tables(struct gs_prom *r, const struct gs_snapshot *snap)
{
    for (size_t t = 0; t < gs_prom_ntables; t++)
        for (size_t i = 0; i < gs_prom_tables[t].n; i++)
            prom_table_family(r, snap, &gs_prom_tables[t].v[i], gs_prom_tables[t].is_static,
                              gs_prom_tables[t].drm_only);
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
static void prom_xid_labels(struct gs_pbuf *b, const struct prom_gpu_labels *l, const struct prom_podlab *pl,
                            uint32_t xid)
{
    char code[16];
    gs_pbuf_reset(b);
    gs_pbuf_add(b, l->dcgm.data ? l->dcgm.data : "", l->dcgm.len);
    if (pl && pl->container)
        prom_label(b, "container", pl->container);
    snprintf(code, sizeof(code), "%u", xid);
    prom_label(b, "err_code", code);
    prom_label(b, "err_msg", gs_prom_xid_text(xid));
    if (pl && pl->job)
        prom_label(b, "hpc_job", pl->job);
    if (pl && pl->pod) {
        prom_label(b, "namespace", pl->ns);
        prom_label(b, "pod", pl->pod);
    }
    if (pl && pl->vgpu)
        prom_label(b, "vgpu", pl->vgpu);
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
        const struct prom_gpu_labels *l = &r->gl[i];
        for (unsigned k = 0; k < (l->npl ? l->npl : 1); k++) {
            prom_xid_labels(&r->tmp, l, l->npl ? &l->pl[k] : NULL, last);
            prom_sample(r, f.name, &r->tmp, NULL, last, PF_INT);
        }
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

/* gpuscope_reading_age_seconds{field_group}: how old, at the sample's time,
 * the readings handed on from an earlier tick are (the backend's read
 * schedule, the PCIe worker); 0 when read in this sample. One series per GPU
 * and group that has a value, so the set of series does not flicker. */
#define PROM_AGE_END 0xff
static void prom_reading_ages(struct gs_prom *r, const struct gs_snapshot *snap)
{
    static const struct prom_fam f = {
        "gpuscope_reading_age_seconds",
        "Age at the sample's time of readings handed on from an earlier sample (slow-changing "
        "readings are read every 5 s), by field group; 0: read in this sample.",
        PT_GAUGE, false, "seconds" };
    static const struct {
        const char *name;
        uint8_t fields[8];
    } groups[] = {
        { "bar1", { GS_F_BAR1_TOTAL, GS_F_BAR1_USED, GS_F_BAR1_FREE, PROM_AGE_END } },
        { "fan", { GS_F_FAN_SPEED, PROM_AGE_END } },
        { "power_limits", { GS_F_POWER_LIMIT, GS_F_POWER_ENFORCED, PROM_AGE_END } },
        { "pcie_link", { GS_F_PCIE_GEN, GS_F_PCIE_WIDTH, PROM_AGE_END } },
        { "pcie_replay", { GS_F_PCIE_REPLAY, PROM_AGE_END } },
        { "pcie_throughput", { GS_F_PCIE_TX, GS_F_PCIE_RX, PROM_AGE_END } },
        { "ecc", { GS_F_ECC_MODE, GS_F_ECC_VOL_CORR, GS_F_ECC_VOL_UNCORR, GS_F_ECC_AGG_CORR,
                   GS_F_ECC_AGG_UNCORR, PROM_AGE_END } },
        { "retired_pages", { GS_F_RETIRED_SBE, GS_F_RETIRED_DBE, GS_F_RETIRED_PENDING, PROM_AGE_END } },
        { "remapped_rows", { GS_F_REMAP_CORR, GS_F_REMAP_UNCORR, GS_F_REMAP_PENDING, GS_F_REMAP_FAILED,
                             PROM_AGE_END } },
        { "modes", { GS_F_PERSISTENCE, GS_F_COMPUTE_MODE, GS_F_MIG_MODE, GS_F_DISPLAY_ACTIVE,
                     GS_F_DISPLAY_MODE, PROM_AGE_END } },
    };
    char extra[48];
    bool started = false;

    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        if (g->state != GS_GPU_OK)
            continue;
        for (size_t k = 0; k < sizeof(groups) / sizeof(groups[0]); k++) {
            uint32_t age = 0;
            bool any = false;
            for (size_t j = 0; j < 8 && groups[k].fields[j] != PROM_AGE_END; j++) {
                enum gs_field fld = (enum gs_field)groups[k].fields[j];
                if (!gs_sample_has(&g->s, fld))
                    continue;
                any = true;
                if (gs_sample_age_ms(&g->s, fld) > age)
                    age = gs_sample_age_ms(&g->s, fld);
            }
            if (!any)
                continue;
            if (!started)
                prom_header(r, &f);
            started = true;
            snprintf(extra, sizeof(extra), "field_group=\"%s\"", groups[k].name);
            prom_sample(r, f.name, &r->gl[i].own, extra, age / 1000.0, PF_G);
        }
    }
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
    /* framework memory: PyTorch's caching allocator, from gpuscope's Python hook (docs/PYHOOK.md) */
    { { "gpuscope_process_torch_allocated_bytes", "Memory of live PyTorch tensors on the GPU (allocator's allocated).",
        PT_GAUGE, false, "bytes" },
      GS_P_TORCH, POFF(torch_allocated_bytes), PN_U64, PF_INT },
    { { "gpuscope_process_torch_reserved_bytes", "GPU memory PyTorch's caching allocator holds: allocated plus its cache.",
        PT_GAUGE, false, "bytes" },
      GS_P_TORCH, POFF(torch_reserved_bytes), PN_U64, PF_INT },
    { { "gpuscope_process_torch_inactive_split_bytes",
        "Cached memory in split blocks that larger requests cannot use (fragmentation).", PT_GAUGE, false, "bytes" },
      GS_P_TORCH, POFF(torch_inactive_split_bytes), PN_U64, PF_INT },
    { { "gpuscope_process_torch_max_allocated_bytes", "Peak of PyTorch's allocated memory (since start or a reset).",
        PT_GAUGE, false, "bytes" },
      GS_P_TORCH, POFF(torch_max_allocated_bytes), PN_U64, PF_INT },
    { { "gpuscope_process_torch_alloc_retries_total",
        "Allocations that failed, freed the allocator's cache and were retried.", PT_COUNTER, false, NULL },
      GS_P_TORCH, POFF(torch_alloc_retries), PN_U64, PF_INT },
    { { "gpuscope_process_torch_ooms_total", "Out-of-memory errors PyTorch's allocator raised.", PT_COUNTER, false,
        NULL },
      GS_P_TORCH, POFF(torch_ooms), PN_U64, PF_INT },
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

/* gpuscope_gpu_pod_info{gpu,uuid,namespace,pod,container[,vgpu],source} 1: every pod
 * holding each GPU, whichever labels the DCGM series carry (on a shared GPU without
 * virtual GPUs they name one pod; this names all). From the kubelet when its map is
 * in use, else from the GPU's processes. */
static void prom_pod_info_row(struct gs_prom *r, const struct prom_gpu_labels *l, const char *ns, const char *pod,
                              const char *ctr, const char *vgpu, const char *source, bool *started)
{
    static const struct prom_fam f = { "gpuscope_gpu_pod_info",
                                       "A Kubernetes container holding the GPU (value 1), from the kubelet's "
                                       "pod-resources or else from the GPU's processes (source).",
                                       PT_INFO, false, NULL };
    struct gs_pbuf *b = &r->tmp;
    if (!*started)
        prom_header(r, &f);
    *started = true;
    gs_pbuf_reset(b);
    prom_label(b, "namespace", ns);
    prom_label(b, "pod", pod);
    prom_label_nz(b, "container", ctr);
    prom_label_nz(b, "vgpu", vgpu);
    prom_label(b, "source", source);
    prom_sample(r, f.name, &l->own, b->data, 1, PF_INT);
}

static void prom_pod_info(struct gs_prom *r, const struct gs_snapshot *snap)
{
    bool started = false;
    char dev[32];
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        const struct prom_gpu_labels *l = &r->gl[i];
        if (r->kube_map) {
            unsigned n;
            snprintf(dev, sizeof(dev), "nvidia%u", g->st.index);
            const struct gs_k8s_alloc *a = gs_k8s_find(r->kube_map, r->o.gpu_id_device_name ? dev : g->st.uuid, &n);
            for (unsigned k = 0; k < n; k++)
                prom_pod_info_row(r, l, a[k].ns, a[k].pod, a[k].container, a[k].vgpu, "kubelet", &started);
            for (uint32_t c = 0; gs_prom_mig_split(g) && c < g->nmig; c++) { /* its MIG devices' (area 10c) */
                bool first = !c || g->mig[c - 1].gpu_instance_id != g->mig[c].gpu_instance_id;
                snprintf(dev, sizeof(dev), "nvidia%u/gi%u", g->st.index, g->mig[c].gpu_instance_id);
                for (int key = first ? 0 : 1; key < 2; key++) { /* GKE's name once per GPU instance */
                    a = gs_k8s_find(r->kube_map, key ? g->mig[c].uuid : dev, &n);
                    for (unsigned k = 0; k < n; k++)
                        prom_pod_info_row(r, l, a[k].ns, a[k].pod, a[k].container, a[k].vgpu, "kubelet", &started);
                }
            }
            continue;
        }
        for (uint32_t j = 0; j < g->nprocs; j++) { /* each (pod, container) once */
            struct prom_pod pp, pq;
            prom_proc_pod(r, &g->procs[j], &pp);
            bool dup = !pp.pod;
            for (uint32_t q = 0; q < j && !dup; q++) {
                prom_proc_pod(r, &g->procs[q], &pq);
                dup = pq.pod && !strcmp(pq.pod, pp.pod) && !strcmp(pq.ns, pp.ns) &&
                      !strcmp(pq.container ? pq.container : "", pp.container ? pp.container : "");
            }
            if (!dup)
                prom_pod_info_row(r, l, pp.ns, pp.pod, pp.container, NULL, "processes", &started);
        }
    }
}

/* gpuscope_kubelet_*: the pod-resources lookup's health and the age of the map in use. */
static void prom_kube_self(struct gs_prom *r, const struct gs_prom_kube *k)
{
    static const struct prom_fam fams[] = {
        { "gpuscope_kubelet_up", "Whether the latest List call to the kubelet's pod-resources socket succeeded.",
          PT_GAUGE, false, NULL },
        { "gpuscope_kubelet_refreshes_total", "List calls made to the kubelet's pod-resources socket.",
          PT_COUNTER, false, NULL },
        { "gpuscope_kubelet_refresh_errors_total",
          "List calls that failed (or found a socket named by --pod-resources-kubelet-socket absent).", PT_COUNTER,
          false, NULL },
        { "gpuscope_kubelet_refresh_duration_seconds", "How long the latest List call took.", PT_GAUGE, false,
          "seconds" },
        { "gpuscope_kubelet_refresh_cpu_seconds_total", "CPU time spent on List calls, decoding included.",
          PT_COUNTER, false, "seconds" },
        { "gpuscope_kubelet_pod_map_age_seconds",
          "Age of the pod map in use (the last good List answer), at the latest sample.", PT_GAUGE, false,
          "seconds" },
        { "gpuscope_kubelet_pods", "Pods holding NVIDIA devices in the pod map in use.", PT_GAUGE, false, NULL },
    };
    const double v[] = { k->up, (double)k->refreshes, (double)k->errors, k->duration_s, k->cpu_s, k->map_age_s,
                         gs_k8s_npods(k->map) };
    if (!k->on)
        return;
    for (size_t i = 0; i < NELEM(fams); i++) {
        if (i >= 5 && !k->map)
            break; /* no map: no age, no pods (not 0) */
        prom_header(r, &fams[i]);
        prom_sample(r, fams[i].name, NULL, NULL, v[i], i == 0 || i == 6 ? PF_INT : PF_G);
    }
}

/* ---- 4b. what prom_drm.c and prom_mig.c render with ------------------------------------------------------ */

void gs_prom_fam_header(struct gs_prom *r, const struct prom_fam *f)
{
    prom_header(r, f);
}

void gs_prom_fam_sample(struct gs_prom *r, const char *name, const struct gs_pbuf *labels, const char *extra,
                        double v, enum prom_fmt fmt)
{
    prom_sample(r, name, labels, extra, v, fmt);
}

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
    int rc = prom_build_labels(r, snap);
    if (rc < 0)
        return rc;
    r->out = out;
    r->fmt = fmt;
    prom_tables(r, snap);
    gs_prom_mig_render(r, r->mig, snap); /* DCGM_FI_PROF_*, gpuscope_mig_* */
    prom_xid_gauge(r, snap, self);
    prom_xid_counters(r, snap, self);
    prom_health(r, snap, self);
    prom_throttle(r, snap);
    prom_fans(r, snap);
    prom_gpu_health(r, snap);
    prom_reading_ages(r, snap);
    prom_gpu_info(r, snap);
    prom_procs(r, snap);
    gs_prom_drm(r, snap);
    prom_pod_info(r, snap);
    prom_host_info(r, snap);
    prom_self(r, self);
    prom_kube_self(r, &self->kube);
    r->out = NULL;
    r->kube_map = NULL;
    r->jobs = NULL;
    return gs_pbuf_ok(out) ? 0 : -GS_E_NOMEM;
}

/* ---- 6. services for prom_mig.c (MIG GPU instances and profiling, area 10c) ---------------------- */

void gs_prom_out_label(struct gs_pbuf *b, const char *name, const char *value)
{
    prom_label(b, name, value);
}

const struct gs_prom_opts *gs_prom_out_opts(const struct gs_prom *r)
{
    return &r->o;
}

void gs_prom_out_dcgm(struct gs_prom *r, uint32_t i, const struct gs_gpu *g, const struct prom_fam *f, double v,
                      uint8_t fmt)
{
    prom_dcgm_samples(r, g, &r->gl[i], f, v, (enum prom_fmt)fmt);
}

const struct gs_k8s_map *gs_prom_out_kube_map(const struct gs_prom *r)
{
    return r->kube_map;
}

const struct gs_pbuf *gs_prom_out_gpu_labels(const struct gs_prom *r, uint32_t i, bool dcgm)
{
    return dcgm ? &r->gl[i].dcgm : &r->gl[i].own;
}

void gs_prom_out_proc_pod(struct gs_prom *r, const struct gs_proc *p, const char **ns, const char **pod,
                          const char **container)
{
    struct prom_pod pp;
    prom_proc_pod(r, p, &pp);
    *ns = pp.ns;
    *pod = pp.pod;
    *container = pp.container;
}

/* g's HPC jobs (gi UINT32_MAX: the whole GPU, else its GPU instance gi): with
 * --hpc-job-mapping-dir its file's (dcgm-exporter's hpc.go: named by the GPU's index,
 * "<gpu>.<gi>" for an instance), else the Slurm jobs of the processes' cgroups there,
 * ascending (their text in pjob). Returns how many are in jobs[]. */
unsigned gs_prom_out_jobs(const struct gs_prom *r, const struct gs_gpu *g, uint32_t gi, const char **jobs,
                          char (*pjob)[12])
{
    unsigned n = 0;
    if (r->jobs && r->jobs->dir_on) {
        const struct gs_jobmap_gpu *e = gs_jobmap_find(r->jobs->map, g->st.index, gi);
        for (unsigned k = 0; e && k < e->njobs && k < GS_JOBMAP_JOBS_MAX; k++)
            jobs[n++] = e->jobs[k];
        return n;
    }
    uint32_t ids[GS_JOBMAP_JOBS_MAX];
    for (uint32_t i = 0; i < g->nprocs; i++) {
        const struct gs_proc *p = &g->procs[i];
        if (!gs_proc_has(p, GS_P_SLURM) || !p->slurm_job)
            continue;
        if (gi != UINT32_MAX && (!gs_proc_has(p, GS_P_MIG) || p->gpu_instance_id != gi))
            continue;
        unsigned k = 0;
        while (k < n && ids[k] < p->slurm_job)
            k++;
        if ((k < n && ids[k] == p->slurm_job) || n == GS_JOBMAP_JOBS_MAX)
            continue;
        memmove(ids + k + 1, ids + k, (n - k) * sizeof(ids[0]));
        ids[k] = p->slurm_job;
        n++;
    }
    for (unsigned k = 0; k < n; k++) {
        snprintf(pjob[k], sizeof(pjob[k]), "%u", ids[k]);
        jobs[k] = pjob[k];
    }
    return n;
}
