/* SPDX-License-Identifier: MIT */
/*
 * prom_render.h - the exporter renderer's state (struct gs_prom) and what the
 * renderer's files share: prom_render.c (headers, sample lines, the whole
 * rendering), prom_labels.c (label sets, pods, HPC jobs), prom_fams.c (the GPU
 * families) and prom_procs.c (process, pod, node and exporter families).
 * Not for callers outside src/serve.
 */
#ifndef GS_PROM_RENDER_H
#define GS_PROM_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/jobmap.h"
#include "core/model.h"
#include "serve/pbuf.h"
#include "serve/prom.h"
#include "serve/prom_int.h"

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

/* Pod and container names of a process, or NULL. */
struct prom_pod {
    const char *ns, *pod, *container;
};

/* ---- prom_render.c: sample values and what the families read ---------------------- */
/* v in format fmt (PF_INT, PF_PCT: hundredths of a percent as a ratio, PF_F6, PF_G). */
void gs_prom_value(struct gs_pbuf *b, double v, enum prom_fmt fmt);
/* The number of kind num (PN_U32, PN_I32, PN_U64) at base + off. */
double gs_prom_raw(const void *base, uint16_t off, uint8_t num);

/* ---- prom_labels.c: label sets ----------------------------------------------------- */
/* name="value" after a ',' when b has labels (gs_prom_out_label, prom_int.h); _nz: only
 * when value is not empty; _u: a number. */
void gs_prom_label_nz(struct gs_pbuf *b, const char *name, const char *value);
void gs_prom_label_u(struct gs_pbuf *b, const char *name, unsigned long long v);
/* Pod and container names of process p (NULL members: unknown). */
void gs_prom_proc_pod(struct gs_prom *r, const struct gs_proc *p, struct prom_pod *out);
/* The sum over pod label set pl's processes on g: SM utilization in %, or memory in MiB. */
uint64_t gs_prom_pod_value(struct gs_prom *r, const struct gs_gpu *g, const struct prom_podlab *pl, bool memory);
/* Every label set of this rendering (r->gl, r->plab). Returns 0 or -GS_E_NOMEM. */
int gs_prom_build_labels(struct gs_prom *r, const struct gs_snapshot *snap);

/* ---- prom_fams.c: the GPU families --------------------------------------------------- */
/* The families of format/prom_tables.c's tables (sampler fields), over all GPUs. */
void gs_prom_render_tables(struct gs_prom *r, const struct gs_snapshot *snap);
/* Xid, health findings, throttle reasons, fans, GPU health, reading ages, GPU info. */
void gs_prom_render_gpu(struct gs_prom *r, const struct gs_snapshot *snap, const struct gs_prom_self *self);

/* ---- prom_procs.c: process, pod, node and exporter families -------------------------- */
void gs_prom_render_procs(struct gs_prom *r, const struct gs_snapshot *snap);
/* gpuscope_gpu_pod_info, gpuscope_host_info, the exporter's own and the kubelet lookup's. */
void gs_prom_render_node(struct gs_prom *r, const struct gs_snapshot *snap, const struct gs_prom_self *self);

#endif /* GS_PROM_RENDER_H */
