/* SPDX-License-Identifier: MIT */
/*
 * prom_mig.c - the exporter's MIG GPU instances and profiling metrics.
 *
 * As dcgm-exporter in its default device mode (-d f): a GPU with MIG GPU
 * instances is exported per GPU instance, not as a whole, and its DCGM
 * series carry GPU_I_PROFILE ("1g.10gb") and GPU_I_ID after modelName; gpu,
 * UUID, device and modelName stay the parent GPU's. The value of a field is
 * what DCGM gives for a GPU-instance entity: framebuffer figures are the
 * instance's, profiling activity is the instance's (its DCGM fields live at
 * the GPU instance level), every GPU-level field is the parent's (DCGM
 * translates those to the parent GPU), and GPU-level profiling fields
 * (PCIe, NVLink bytes) have no value on an instance.
 *
 * Pod labels of an instance series come, as dcgm-exporter's, from the
 * kubelet's allocations of the instance's devices ("MIG-<uuid>" of any of its
 * compute instances, or GKE's "nvidia<gpu>/gi<id>"): the last one listed, or
 * with --kubernetes-virtual-gpus one series per allocation with its vgpu
 * label (FB_USED then per pod from its processes in the instance). Without
 * the kubelet they come from the processes running in the instance.
 *
 * Also here: the DCGM_FI_PROF_* families of whole GPUs, and gpuscope's own
 * gpuscope_mig_* families (identity, memory, processes of each MIG device).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/jobmap.h"
#include "k8s/podres.h"
#include "lib/vec.h"
#include "serve/pbuf.h"
#include "serve/prom.h"
#include "serve/prom_int.h"

/* One pod label set of a GPU instance's series (strings borrowed for one rendering). */
struct prom_gipod {
    const char *ns, *pod;    /* NULL in a set of an HPC job alone */
    size_t off;              /* its labels in prom_gi.sfx: "[container=..,][hpc_job=..,]namespace=..,pod=..[,vgpu=..]" */
    const char *ctr, *vgpu, *job;
};

/* One GPU instance of the snapshot: where it is and its label sets. */
struct prom_gi {
    uint32_t gpu;            /* snapshot slot of its GPU */
    uint32_t mig;            /* g->mig[] index of its first compute instance */
    struct gs_pbuf dcgm;     /* gpu,UUID,...,modelName,GPU_I_PROFILE,GPU_I_ID,Hostname,driver */
    struct gs_pbuf own;      /* gpu,uuid,gpu_instance_id */
    struct gs_pbuf sfx;      /* the pod label sets, NUL-terminated, back to back */
    struct prom_gipod *pl;   /* npl sets: a DCGM series per set; none: one series without */
    unsigned npl;
    size_t plcap;
    bool pod_values;         /* virtual GPUs: FB_USED per pod can be told from the processes */
    char pjob[GS_JOBMAP_JOBS_MAX][12]; /* the processes' Slurm jobs, as hpc_job values (no mapping dir) */
};

struct prom_mig {
    struct prom_gi *gi;
    uint32_t n;
    size_t cap;
    struct gs_pbuf tmp;      /* one pod label set while it is built */
};

struct prom_mig *gs_prom_mig_new(void)
{
    struct prom_mig *m = calloc(1, sizeof(struct prom_mig));
    if (m)
        gs_pbuf_init(&m->tmp);
    return m;
}

void gs_prom_mig_free(struct prom_mig *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->cap; i++) {
        gs_pbuf_release(&m->gi[i].dcgm);
        gs_pbuf_release(&m->gi[i].own);
        gs_pbuf_release(&m->gi[i].sfx);
        free(m->gi[i].pl);
    }
    gs_pbuf_release(&m->tmp);
    free(m->gi);
    free(m);
}

bool gs_prom_mig_split(const struct gs_gpu *g)
{
    return g->s.status[GS_F_MIG_DEVICES] == GS_ST_OK && g->nmig > 0;
}

static void prom_label_n(struct gs_pbuf *b, const char *name, unsigned long long v)
{
    char num[24];
    snprintf(num, sizeof(num), "%llu", v);
    gs_prom_out_label(b, name, num);
}

/* Add a label set to e, in dcgm-exporter's order (container, hpc_job, namespace, pod, vgpu). */
static void prom_gi_addset(struct prom_mig *m, struct prom_gi *e, const char *ns, const char *pod, const char *ctr,
                           const char *vgpu, const char *job)
{
    struct prom_gipod *pl = gs_vec_grow(e->pl, &e->plcap, (size_t)e->npl + 1, sizeof(*pl));
    if (!pl) {
        e->sfx.failed = true;
        return;
    }
    e->pl = pl;
    e->pl[e->npl++] = (struct prom_gipod){ ns, pod, e->sfx.len, ctr, vgpu, job };
    gs_pbuf_reset(&m->tmp);
    if (ctr && *ctr)
        gs_prom_out_label(&m->tmp, "container", ctr);
    if (job)
        gs_prom_out_label(&m->tmp, "hpc_job", job);
    if (pod) {
        gs_prom_out_label(&m->tmp, "namespace", ns);
        gs_prom_out_label(&m->tmp, "pod", pod);
    }
    if (vgpu)
        gs_prom_out_label(&m->tmp, "vgpu", vgpu);
    gs_pbuf_add(&e->sfx, m->tmp.data ? m->tmp.data : "", m->tmp.len);
    gs_pbuf_add(&e->sfx, "", 1);
    if (!gs_pbuf_ok(&m->tmp))
        e->sfx.failed = true;
}

static void prom_gi_addpod(struct prom_mig *m, struct prom_gi *e, const char *ns, const char *pod, const char *ctr,
                           const char *vgpu)
{
    prom_gi_addset(m, e, ns, pod, ctr, vgpu, NULL);
}

/* One label set per HPC job on the instance (its mapping file "<gpu>.<gi>", or its
 * processes' Slurm jobs), each pod's set once per job. */
static void prom_gi_jobs(struct gs_prom *r, struct prom_mig *m, const struct gs_gpu *g, uint32_t gi,
                         struct prom_gi *e)
{
    const char *jobs[GS_JOBMAP_JOBS_MAX];
    unsigned nj = gs_prom_out_jobs(r, g, gi, jobs, e->pjob), npods = e->npl;
    if (!nj)
        return;
    struct prom_gipod *pods = npods ? malloc(npods * sizeof(*pods)) : NULL;
    if (npods && !pods) {
        e->sfx.failed = true;
        return;
    }
    if (npods)
        memcpy(pods, e->pl, npods * sizeof(*pods));
    gs_pbuf_reset(&e->sfx);
    e->npl = 0;
    for (unsigned i = 0; i < (npods ? npods : 1); i++)
        for (unsigned k = 0; k < nj; k++)
            prom_gi_addset(m, e, npods ? pods[i].ns : NULL, npods ? pods[i].pod : NULL,
                           npods ? pods[i].ctr : NULL, npods ? pods[i].vgpu : NULL, jobs[k]);
    free(pods);
}

/* The pod every Kubernetes process of GPU instance gi belongs to, if exactly one
 * (as for a whole GPU: dcgm-exporter labels a device with the pod it is allocated to). */
static void prom_gi_proc_pod(struct gs_prom *r, struct prom_mig *m, const struct gs_gpu *g, uint32_t gi,
                             struct prom_gi *e)
{
    const char *ns = NULL, *pod = NULL, *ctr = NULL;
    bool same_ctr = true;
    for (uint32_t k = 0; k < g->nprocs; k++) {
        const char *n2, *p2, *c2;
        if (!gs_proc_has(&g->procs[k], GS_P_MIG) || g->procs[k].gpu_instance_id != gi)
            continue;
        gs_prom_out_proc_pod(r, &g->procs[k], &n2, &p2, &c2);
        if (!p2)
            continue;
        if (pod && (strcmp(p2, pod) || strcmp(n2, ns)))
            return; /* two pods: no pod labels */
        if (pod && (!c2 || !ctr || strcmp(c2, ctr)))
            same_ctr = false;
        if (!pod)
            ns = n2, pod = p2, ctr = c2;
    }
    if (pod)
        prom_gi_addpod(m, e, ns, pod, same_ctr ? ctr : NULL, NULL);
}

/* Can each pod's share of the instance's memory be told from its processes (every one of
 * them visible, and its pod known or known to be none)? */
static bool prom_gi_pods_known(struct gs_prom *r, const struct gs_gpu *g, uint32_t gi)
{
    if (g->procs_status != GS_ST_OK)
        return false;
    for (uint32_t k = 0; k < g->nprocs; k++) {
        const struct gs_proc *p = &g->procs[k];
        const char *ns, *pod, *ctr;
        if (!gs_proc_has(p, GS_P_MIG) || p->gpu_instance_id != gi)
            continue;
        if (!gs_proc_has(p, GS_P_COMM))
            return false;
        if (!gs_proc_has(p, GS_P_POD) || !p->pod_uid[0])
            continue;
        gs_prom_out_proc_pod(r, p, &ns, &pod, &ctr);
        if (!pod)
            return false;
    }
    return true;
}

#define PROM_GI_MAX_ALLOCS 64 /* allocations of one GPU instance's devices looked at */

static int prom_alloc_seq(const void *a, const void *b)
{
    const struct gs_k8s_alloc *x = *(const struct gs_k8s_alloc *const *)a, *y = *(const struct gs_k8s_alloc *const *)b;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The instance's pod label sets from the kubelet: the allocations of its MIG devices' UUIDs
 * and of GKE's "nvidia<gpu>/gi<id>", in the kubelet's order. */
static void prom_gi_kube_pods(struct gs_prom *r, struct prom_mig *m, const struct gs_k8s_map *map,
                              const struct gs_gpu *g, const struct gs_mig *mi, struct prom_gi *e)
{
    const struct gs_k8s_alloc *v[PROM_GI_MAX_ALLOCS];
    unsigned nv = 0, n;
    char gke[48];
    for (uint32_t c = 0; c <= g->nmig; c++) {
        const char *key = gke;
        if (c == g->nmig)
            snprintf(gke, sizeof(gke), "nvidia%u/gi%u", g->st.index, mi->gpu_instance_id);
        else if (g->mig[c].gpu_instance_id != mi->gpu_instance_id)
            continue;
        else
            key = g->mig[c].uuid;
        const struct gs_k8s_alloc *a = gs_k8s_find(map, key, &n);
        for (unsigned k = 0; k < n && nv < PROM_GI_MAX_ALLOCS; k++)
            v[nv++] = &a[k];
    }
    if (!nv)
        return;
    qsort(v, nv, sizeof(v[0]), prom_alloc_seq);
    if (!gs_prom_out_opts(r)->virtual_gpus) {
        prom_gi_addpod(m, e, v[nv - 1]->ns, v[nv - 1]->pod, v[nv - 1]->container, NULL);
        return;
    }
    for (unsigned k = 0; k < nv; k++)
        prom_gi_addpod(m, e, v[k]->ns, v[k]->pod, v[k]->container, v[k]->vgpu);
    e->pod_values = prom_gi_pods_known(r, g, mi->gpu_instance_id);
}

static void prom_gi_labels(struct gs_prom *r, struct prom_mig *m, const struct gs_snapshot *snap,
                           const struct gs_gpu *g, const struct gs_mig *mi, struct prom_gi *e)
{
    const struct gs_prom_opts *o = gs_prom_out_opts(r);
    char dev[32];

    gs_pbuf_reset(&e->dcgm);
    gs_pbuf_reset(&e->own);
    prom_label_n(&e->dcgm, "gpu", g->st.index);
    gs_prom_out_label(&e->dcgm, "UUID", g->st.uuid);
    gs_prom_out_label(&e->dcgm, "pci_bus_id", g->st.pci_bus_id);
    snprintf(dev, sizeof(dev), "nvidia%u", g->st.index);
    gs_prom_out_label(&e->dcgm, "device", dev);
    gs_prom_out_label(&e->dcgm, "modelName", g->st.name);
    gs_prom_out_label(&e->dcgm, "GPU_I_PROFILE", mi->profile);
    prom_label_n(&e->dcgm, "GPU_I_ID", mi->gpu_instance_id);
    if (o->hostname_label)
        gs_prom_out_label(&e->dcgm, o->hostname_label, o->hostname ? o->hostname : "");
    if (snap->sys.driver_version[0])
        gs_prom_out_label(&e->dcgm, "DCGM_FI_DRIVER_VERSION", snap->sys.driver_version);
    gs_pbuf_reset(&e->sfx);
    e->npl = 0;
    e->pod_values = false;
    const struct gs_k8s_map *map = gs_prom_out_kube_map(r);
    if (map)
        prom_gi_kube_pods(r, m, map, g, mi, e);
    else
        prom_gi_proc_pod(r, m, g, mi->gpu_instance_id, e);
    prom_gi_jobs(r, m, g, mi->gpu_instance_id, e);
    prom_label_n(&e->own, "gpu", g->st.index);
    gs_prom_out_label(&e->own, "uuid", g->st.uuid);
    prom_label_n(&e->own, "gpu_instance_id", mi->gpu_instance_id);
}

static int prom_mig_grow(struct prom_mig *m, uint32_t need)
{
    if (need <= m->cap)
        return 0;
    size_t old = m->cap;
    struct prom_gi *v = gs_vec_grow(m->gi, &m->cap, need, sizeof(*v));
    if (!v)
        return -GS_E_NOMEM;
    for (size_t i = old; i < m->cap; i++) { /* every entry up to cap is released */
        memset(&v[i], 0, sizeof(v[i]));
        gs_pbuf_init(&v[i].dcgm);
        gs_pbuf_init(&v[i].own);
        gs_pbuf_init(&v[i].sfx);
    }
    m->gi = v;
    return 0;
}

int gs_prom_mig_labels(struct gs_prom *r, struct prom_mig *m, const struct gs_snapshot *snap)
{
    m->n = 0;
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        uint32_t first[GS_MAX_MIG];
        if (g->state != GS_GPU_OK || !gs_prom_mig_split(g))
            continue;
        unsigned n = gs_gpu_gpu_instances(g, first);
        if (prom_mig_grow(m, m->n + n) < 0)
            return -GS_E_NOMEM;
        for (unsigned k = 0; k < n; k++) {
            struct prom_gi *e = &m->gi[m->n++];
            e->gpu = i;
            e->mig = first[k];
            prom_gi_labels(r, m, snap, g, &g->mig[first[k]], e);
            if (!gs_pbuf_ok(&e->dcgm) || !gs_pbuf_ok(&e->own) || !gs_pbuf_ok(&e->sfx))
                return -GS_E_NOMEM;
        }
    }
    return 0;
}

/* ---- DCGM families on GPU instances ---------------------------------------------------------------- */

#define MIB (1.0 / 1048576.0)

/* The value of field f on one GPU instance, as DCGM gives it for a GPU_I entity. */
static bool prom_gi_value(const struct gs_mig *mi, uint8_t field, bool have, double parent, double *v)
{
    switch (field) {
    case GS_F_MEM_USED:
    case GS_F_MEM_FREE:
        if (mi->mem_status != GS_ST_OK)
            return false;
        *v = (double)(field == GS_F_MEM_USED ? mi->mem_used_bytes : mi->mem_free_bytes) * MIB;
        return true;
    case GS_F_MEM_RESERVED:
    case GS_F_MEM_TOTAL:
        return false; /* not read per instance */
    default:
        *v = parent;  /* a GPU-level field: the parent's */
        return have;
    }
}

/* The sum over pod pl's processes in GPU instance gi of their memory in MiB (each one's
 * bytes / 1 MiB, as dcgm-exporter adds them). */
static uint64_t prom_gi_pod_mib(struct gs_prom *r, const struct gs_gpu *g, uint32_t gi, const struct prom_gipod *pl)
{
    uint64_t sum = 0;
    for (uint32_t k = 0; k < g->nprocs; k++) {
        const struct gs_proc *p = &g->procs[k];
        const char *ns, *pod, *ctr;
        if (!gs_proc_has(p, GS_P_MIG) || p->gpu_instance_id != gi || !gs_proc_has(p, GS_P_GPU_MEM))
            continue;
        gs_prom_out_proc_pod(r, p, &ns, &pod, &ctr);
        if (pod && pl->pod && !strcmp(pod, pl->pod) && !strcmp(ns, pl->ns))
            sum += p->gpu_mem_bytes / (1024 * 1024);
    }
    return sum;
}

/* One DCGM family's samples on GPU instance e: one per pod label set (none: one without).
 * With virtual GPUs, FB_USED is the instance's series without pod labels, then each pod's
 * share from its processes, where that can be told (as prom_fams.c does for a GPU). */
static void prom_gi_samples(struct gs_prom *r, const struct gs_gpu *g, const struct prom_gi *e, const char *name,
                            uint8_t field, double v, uint8_t fmt)
{
    const struct gs_mig *mi = &g->mig[e->mig];
    if (!e->npl || (gs_prom_out_opts(r)->virtual_gpus && gs_prom_out_kube_map(r) && field == GS_F_MEM_USED)) {
        gs_prom_fam_sample(r, name, &e->dcgm, NULL, v, (enum prom_fmt)fmt);
        for (unsigned k = 0; e->npl && e->pod_values && k < e->npl; k++)
            gs_prom_fam_sample(r, name, &e->dcgm, e->sfx.data + e->pl[k].off,
                               (double)prom_gi_pod_mib(r, g, mi->gpu_instance_id, &e->pl[k]), PF_INT);
        return;
    }
    for (unsigned k = 0; k < e->npl; k++)
        gs_prom_fam_sample(r, name, &e->dcgm, e->sfx.data + e->pl[k].off, v, (enum prom_fmt)fmt);
}

void gs_prom_mig_family(struct gs_prom *r, struct prom_mig *m, uint32_t i, const struct gs_gpu *g,
                        const struct prom_desc *d, bool have, double parent, bool *started)
{
    for (uint32_t k = 0; k < m->n; k++) {
        double v;
        if (m->gi[k].gpu != i || !prom_gi_value(&g->mig[m->gi[k].mig], d->field, have, parent, &v))
            continue;
        if (!*started)
            gs_prom_fam_header(r, &d->fam);
        *started = true;
        prom_gi_samples(r, g, &m->gi[k], d->fam.name, d->field, v, d->fmt);
    }
}

/* ---- profiling and gpuscope_mig_* families ------------------------------------------------------------ */

/* DCGM_FI_PROF_<k>: whole GPUs from their sample, split GPUs per GPU instance. */
static void prom_prof_family(struct gs_prom *r, struct prom_mig *m, const struct gs_snapshot *snap, unsigned k)
{
    const struct gs_prof_info *pi = gs_prof_info((enum gs_prof)k);
    const struct prom_fam f = { pi->dcgm, pi->help, PT_GAUGE, true, NULL };
    uint8_t fmt = pi->bytes_per_s ? PF_INT : PF_F6; /* DCGM: int64 bytes/s, double ratios */
    bool started = false;

    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        if (g->state != GS_GPU_OK)
            continue;
        if (!gs_prom_mig_split(g)) {
            if (!gs_sample_has(&g->s, GS_F_PROF_FIRST + k))
                continue;
            if (!started)
                gs_prom_fam_header(r, &f);
            started = true;
            gs_prom_out_dcgm(r, i, g, &f, g->s.prof[k], fmt);
            continue;
        }
        for (uint32_t e = 0; e < m->n; e++) {
            const struct gs_mig *mi = &g->mig[m->gi[e].mig];
            if (m->gi[e].gpu != i || mi->prof_status[k] != GS_ST_OK)
                continue;
            if (!started)
                gs_prom_fam_header(r, &f);
            started = true;
            prom_gi_samples(r, g, &m->gi[e], f.name, (uint8_t)(GS_F_PROF_FIRST + k), mi->prof[k], fmt);
        }
    }
}

/* gpuscope_mig_device_info and gpuscope_mig_processes per MIG device (compute instance). */
static void prom_mig_devices(struct gs_prom *r, const struct gs_snapshot *snap)
{
    static const struct prom_fam info = { "gpuscope_mig_device_info",
                                          "A MIG device (value 1): its index, UUID, GPU and compute instance IDs and profiles.",
                                          PT_INFO, false, NULL };
    static const struct prom_fam procs = { "gpuscope_mig_processes",
                                           "Processes running in the MIG device in the latest sample.", PT_GAUGE,
                                           false, NULL };
    const struct prom_fam *fams[2] = { &info, &procs };
    struct gs_pbuf b;
    gs_pbuf_init(&b);
    for (int f = 0; f < 2; f++) {
        bool started = false;
        for (uint32_t i = 0; i < snap->ngpus; i++) {
            const struct gs_gpu *g = &snap->gpus[i];
            if (g->state != GS_GPU_OK || !gs_prom_mig_split(g) || (f == 1 && g->procs_status != GS_ST_OK))
                continue;
            for (uint32_t k = 0; k < g->nmig; k++) {
                const struct gs_mig *mi = &g->mig[k];
                gs_pbuf_reset(&b);
                gs_pbuf_add(&b, gs_prom_out_gpu_labels(r, i, false)->data, gs_prom_out_gpu_labels(r, i, false)->len);
                prom_label_n(&b, "gpu_instance_id", mi->gpu_instance_id);
                prom_label_n(&b, "compute_instance_id", mi->compute_instance_id);
                if (f == 0) {
                    prom_label_n(&b, "mig_device", mi->index);
                    gs_prom_out_label(&b, "mig_uuid", mi->uuid);
                    gs_prom_out_label(&b, "profile", mi->profile);
                    gs_prom_out_label(&b, "compute_instance_profile", mi->ci_profile);
                }
                if (!started)
                    gs_prom_fam_header(r, fams[f]);
                started = true;
                gs_prom_fam_sample(r, fams[f]->name, &b, NULL, f == 0 ? 1 : mi->nprocs, PF_INT);
            }
        }
    }
    gs_pbuf_release(&b);
}

/* gpuscope_mig_memory_{total,used,free}_bytes per GPU instance. */
static void prom_mig_memory(struct gs_prom *r, struct prom_mig *m, const struct gs_snapshot *snap)
{
    static const struct prom_fam fams[3] = {
        { "gpuscope_mig_memory_total_bytes", "Memory of the MIG GPU instance.", PT_GAUGE, false, "bytes" },
        { "gpuscope_mig_memory_used_bytes", "Used memory of the MIG GPU instance.", PT_GAUGE, false, "bytes" },
        { "gpuscope_mig_memory_free_bytes", "Free memory of the MIG GPU instance.", PT_GAUGE, false, "bytes" },
    };
    for (int f = 0; f < 3; f++) {
        bool started = false;
        for (uint32_t e = 0; e < m->n; e++) {
            const struct gs_mig *mi = &snap->gpus[m->gi[e].gpu].mig[m->gi[e].mig];
            if (mi->mem_status != GS_ST_OK)
                continue;
            if (!started)
                gs_prom_fam_header(r, &fams[f]);
            started = true;
            uint64_t v = f == 0 ? mi->mem_total_bytes : f == 1 ? mi->mem_used_bytes : mi->mem_free_bytes;
            gs_prom_fam_sample(r, fams[f].name, &m->gi[e].own, NULL, (double)v, PF_INT);
        }
    }
}

void gs_prom_mig_render(struct gs_prom *r, struct prom_mig *m, const struct gs_snapshot *snap)
{
    for (unsigned k = 0; k < GS_PROF_COUNT; k++)
        prom_prof_family(r, m, snap, k);
    prom_mig_devices(r, snap);
    prom_mig_memory(r, m, snap);
}
