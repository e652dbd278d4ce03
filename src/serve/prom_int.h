/* SPDX-License-Identifier: MIT */
/*
 * prom_int.h - what the exporter's renderer (prom_render.c and the files
 * prom_render.h lists) and its parts (prom_drm.c, prom_mig.c) share; the
 * metric families themselves are format/prom_tables.h. Not for callers
 * outside src/serve.
 */
#ifndef GS_PROM_INT_H
#define GS_PROM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model.h"
#include "format/prom_tables.h" /* the families, by sampler field */

/* ---- for the AMD and Intel families (prom_drm.c) and MIG (prom_mig.c) -------------- */
struct gs_prom;
struct gs_pbuf;
struct gs_snapshot;
/* The renderer's header and sample lines (prom_render.c's, in the current format). */
void gs_prom_fam_header(struct gs_prom *r, const struct prom_fam *f);
void gs_prom_fam_sample(struct gs_prom *r, const char *name, const struct gs_pbuf *labels, const char *extra,
                        double v, enum prom_fmt fmt);
/* GPU i's gpuscope_* label set, and process k's (k counts over all GPUs' processes). */
const struct gs_pbuf *gs_prom_own_labels(const struct gs_prom *r, uint32_t i);
const struct gs_pbuf *gs_prom_proc_labelset(struct gs_prom *r, size_t k);
/* The hand-written AMD and Intel families: engine busy, hwmon limits, per-process engines. */
void gs_prom_drm(struct gs_prom *r, const struct gs_snapshot *snap);
/* ---- MIG GPU instances and profiling metrics (prom_mig.c, area 10c) -------------------------
 * dcgm-exporter's default device mode (-d f, "flex"): a GPU with MIG GPU instances is exported per
 * GPU instance only, its DCGM series labelled GPU_I_PROFILE and GPU_I_ID (after modelName). */
struct gs_prom;
struct gs_pbuf;
struct prom_mig;
struct prom_mig *gs_prom_mig_new(void);
void gs_prom_mig_free(struct prom_mig *m);
/* Label sets of every GPU instance of snap (call after the GPUs' own). 0 or -GS_E_NOMEM. */
int gs_prom_mig_labels(struct gs_prom *r, struct prom_mig *m, const struct gs_snapshot *snap);
/* True when GPU g's DCGM series are per GPU instance. */
bool gs_prom_mig_split(const struct gs_gpu *g);
/* Table row d on GPU g (snapshot slot i) split into its instances; the parent's value when it has one. */
void gs_prom_mig_family(struct gs_prom *r, struct prom_mig *m, uint32_t i, const struct gs_gpu *g,
                        const struct prom_desc *d, bool have, double parent, bool *started);
/* The DCGM_FI_PROF_* families and gpuscope_mig_* families. */
void gs_prom_mig_render(struct gs_prom *r, struct prom_mig *m, const struct gs_snapshot *snap);

/* Renderer services prom_mig.c uses (prom_render.c, prom_labels.c, prom_fams.c). */
struct gs_prom_opts;
struct gs_k8s_map;
/* headers and samples: gs_prom_fam_header / gs_prom_fam_sample (above) */
void gs_prom_out_label(struct gs_pbuf *b, const char *name, const char *value);
const struct gs_prom_opts *gs_prom_out_opts(const struct gs_prom *r);
const struct gs_pbuf *gs_prom_out_gpu_labels(const struct gs_prom *r, uint32_t i, bool dcgm); /* GPU slot i */
/* GPU slot i's samples of DCGM family f with value v: one per pod label set of the GPU. */
void gs_prom_out_dcgm(struct gs_prom *r, uint32_t i, const struct gs_gpu *g, const struct prom_fam *f, double v,
                      uint8_t fmt);
/* The kubelet's pod map this rendering labels with, or NULL (pods from processes). */
const struct gs_k8s_map *gs_prom_out_kube_map(const struct gs_prom *r);
/* GPU g's HPC jobs for hpc_job (gi UINT32_MAX: the whole GPU, else that GPU instance);
 * the texts of jobs found from processes go in pjob (64 entries). */
unsigned gs_prom_out_jobs(const struct gs_prom *r, const struct gs_gpu *g, uint32_t gi, const char **jobs,
                          char (*pjob)[12]);
/* A process's pod, namespace and container names (NULL when unknown). */
void gs_prom_out_proc_pod(struct gs_prom *r, const struct gs_proc *p, const char **ns, const char **pod,
                          const char **container);

#endif /* GS_PROM_INT_H */
