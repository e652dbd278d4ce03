/* SPDX-License-Identifier: MIT */
/*
 * prom_labels.c - the exporter's label sets, built once per rendering: each GPU's
 * (DCGM's and gpuscope's), each process's, the pods' (from the processes or the
 * kubelet's pod-resources) and the HPC jobs' (hpc_job).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/jobmap.h"
#include "core/vendor.h"
#include "k8s/podres.h"
#include "lib/vec.h"
#include "serve/podmap.h"
#include "serve/prom_render.h"

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

void gs_prom_out_label(struct gs_pbuf *b, const char *name, const char *value)
{
    prom_label_at(b, 0, name, value);
}

/* A label only when its value is not empty (Prometheus: empty = absent). */
void gs_prom_label_nz(struct gs_pbuf *b, const char *name, const char *value)
{
    if (value && *value)
        gs_prom_out_label(b, name, value);
}

void gs_prom_label_u(struct gs_pbuf *b, const char *name, unsigned long long v)
{
    char num[24];
    snprintf(num, sizeof(num), "%llu", v);
    gs_prom_out_label(b, name, num);
}

void gs_prom_proc_pod(struct gs_prom *r, const struct gs_proc *p, struct prom_pod *out)
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
        gs_prom_proc_pod(r, &g->procs[i], &pp);
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
        gs_prom_proc_pod(r, p, &pp);
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
uint64_t gs_prom_pod_value(struct gs_prom *r, const struct gs_gpu *g, const struct prom_podlab *pl,
                           bool memory)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < g->nprocs; i++) {
        const struct gs_proc *p = &g->procs[i];
        struct prom_pod pp;
        gs_prom_proc_pod(r, p, &pp);
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
    gs_prom_label_u(&l->dcgm, "gpu", g->st.index);
    gs_prom_out_label(&l->dcgm, "UUID", g->st.uuid);
    gs_prom_out_label(&l->dcgm, "pci_bus_id", g->st.pci_bus_id);
    snprintf(dev, sizeof(dev), "nvidia%u", g->st.index);
    gs_prom_out_label(&l->dcgm, "device", dev);
    gs_prom_out_label(&l->dcgm, "modelName", g->st.name);
    if (r->o.hostname_label)
        gs_prom_out_label(&l->dcgm, r->o.hostname_label, r->o.hostname ? r->o.hostname : "");
    if (snap->sys.driver_version[0])
        gs_prom_out_label(&l->dcgm, "DCGM_FI_DRIVER_VERSION", snap->sys.driver_version);
    gs_pbuf_reset(&l->sfx);
    l->npl = 0;
    l->pod_values = false;
    if (r->kube_map)
        prom_kube_podlabs(r, g, l);
    else if (prom_gpu_pod(r, g, &pod))
        prom_add_podlab(l, pod.ns, pod.pod, pod.container, NULL);
    prom_job_labsets(r, g, l);
    gs_prom_label_u(&l->own, "gpu", g->st.index);
    gs_prom_out_label(&l->own, "uuid", g->st.uuid);
    if (gs_vendor_is_drm(&g->st)) { /* NVIDIA's series keep their labels (dcgm-exporter's users) */
        char vendor[16];
        size_t n = strlen(g->st.vendor);
        for (size_t c = 0; c <= n && c < sizeof(vendor); c++)
            vendor[c] = (char)(g->st.vendor[c] >= 'A' && g->st.vendor[c] <= 'Z' ? g->st.vendor[c] + 32 : g->st.vendor[c]);
        vendor[sizeof(vendor) - 1] = '\0';
        gs_prom_out_label(&l->own, "vendor", vendor);
        gs_prom_out_label(&l->own, "driver", g->st.driver);
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

    gs_prom_proc_pod(r, p, &pod);
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
    gs_prom_label_u(b, "gpu", g->st.index);
    gs_prom_label_u(b, "pid", p->pid);
    if (gs_proc_has(p, GS_P_MIG)) { /* the MIG instances it runs in */
        gs_prom_label_u(b, "gpu_instance_id", p->gpu_instance_id);
        gs_prom_label_u(b, "compute_instance_id", p->compute_instance_id);
    }
    /* empty labels are left out: Prometheus treats label="" as no label, and
     * per-process series are most of the exposition's bytes */
    gs_prom_label_nz(b, "comm", host ? p->comm : prom_driver_comm(p, comm));
    gs_prom_label_nz(b, "user", gs_proc_has(p, GS_P_USER) ? p->user : NULL);
    gs_prom_label_nz(b, "container", ctr);
    gs_prom_label_nz(b, "pod", pod.pod);
    gs_prom_label_nz(b, "namespace", pod.ns);
    if (r->o.process_cmdline)
        gs_prom_label_nz(b, "cmdline", host ? gs_proc_cmdline(&g->text, p) : NULL);
    gs_pbuf_add(&r->plab, b->data ? b->data : "", b->len);
}

/* Build every label set this rendering needs. Returns 0 or -GS_E_NOMEM. */
int gs_prom_build_labels(struct gs_prom *r, const struct gs_snapshot *snap)
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

/* ---- 3c. pods and HPC jobs for prom_mig.c ------------------------------------------------------- */

void gs_prom_out_proc_pod(struct gs_prom *r, const struct gs_proc *p, const char **ns, const char **pod,
                          const char **container)
{
    struct prom_pod pp;
    gs_prom_proc_pod(r, p, &pp);
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
