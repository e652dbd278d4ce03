/* SPDX-License-Identifier: MIT */
/*
 * prom_procs.c - the exporter's per-process families (gpuscope_process_*), and the
 * node's: gpuscope_gpu_pod_info, gpuscope_host_info, the exporter's own health
 * and the kubelet pod-resources lookup's.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "k8s/podres.h"
#include "serve/prom_render.h"
#include "version.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

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

void gs_prom_render_procs(struct gs_prom *r, const struct gs_snapshot *snap)
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
                    gs_prom_fam_header(r, &d->fam);
                started = true;
                gs_pbuf_adds(b, d->fam.name);
                gs_pbuf_addc(b, '{');
                gs_pbuf_add(b, r->plab.data + r->poff[k], r->poff[k + 1] - r->poff[k]);
                gs_pbuf_add(b, "} ", 2);
                gs_prom_value(b, gs_prom_raw(p, d->off, d->num), (enum prom_fmt)d->fmt);
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
    gs_prom_out_label(b, "hostname", r->o.hostname ? r->o.hostname : sys->hostname);
    gs_prom_out_label(b, "backend", sys->backend);
    gs_prom_out_label(b, "driver_version", sys->driver_version);
    gs_prom_out_label(b, "nvml_version", sys->nvml_version);
    gs_prom_out_label(b, "cuda_driver_version", cuda);
    gs_prom_out_label(b, "simulated", sys->simulated ? "true" : "false");
    gs_prom_fam_header(r, &f);
    gs_prom_fam_sample(r, f.name, b, NULL, 1, PF_INT);
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
        gs_prom_fam_header(r, &fams[i]);
        if (i == 0)
            gs_prom_fam_sample(r, fams[i].name, NULL, "version=\"" GS_VERSION "\"", 1, PF_INT);
        else
            gs_prom_fam_sample(r, fams[i].name, NULL, NULL, v[i], i == 5 ? PF_F6 : PF_G);
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
        gs_prom_fam_header(r, &f);
    *started = true;
    gs_pbuf_reset(b);
    gs_prom_out_label(b, "namespace", ns);
    gs_prom_out_label(b, "pod", pod);
    gs_prom_label_nz(b, "container", ctr);
    gs_prom_label_nz(b, "vgpu", vgpu);
    gs_prom_out_label(b, "source", source);
    gs_prom_fam_sample(r, f.name, &l->own, b->data, 1, PF_INT);
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
            gs_prom_proc_pod(r, &g->procs[j], &pp);
            bool dup = !pp.pod;
            for (uint32_t q = 0; q < j && !dup; q++) {
                gs_prom_proc_pod(r, &g->procs[q], &pq);
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
        gs_prom_fam_header(r, &fams[i]);
        gs_prom_fam_sample(r, fams[i].name, NULL, NULL, v[i], i == 0 || i == 6 ? PF_INT : PF_G);
    }
}

void gs_prom_render_node(struct gs_prom *r, const struct gs_snapshot *snap, const struct gs_prom_self *self)
{
    prom_pod_info(r, snap);
    prom_host_info(r, snap);
    prom_self(r, self);
    prom_kube_self(r, &self->kube);
}
