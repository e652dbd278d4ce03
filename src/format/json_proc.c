/* SPDX-License-Identifier: MIT */
/*
 * json_proc.c - one process of a snapshot as JSON (docs/JSON.md, "processes"):
 * its identity and readings, MIG instances, host facts (user, command line,
 * container, pod, Slurm job), and framework memory from the Python hook.
 */
#include <string.h>

#include "core/pyhook.h"
#include "format/format.h" /* GS_JSON_REDACT_CMDLINE */
#include "format/json_int.h"

/* ---- processes ---------------------------------------------------------------------------- */

static const char *visibility_code(uint8_t vis)
{
    switch (vis) {
    case GS_HOST_VISIBLE:
        return "visible";
    case GS_HOST_NOT_VISIBLE:
        return "not_visible";
    case GS_HOST_EXITED:
        return "exited";
    case GS_HOST_NO_PERMISSION:
        return "no_permission";
    default:
        return "unknown";
    }
}

static void proc_types(struct gs_jw *w, uint32_t type)
{
    gs_jw_arr(w);
    if (type & GS_PROC_COMPUTE)
        gs_jw_str(w, "compute");
    if (type & GS_PROC_GRAPHICS)
        gs_jw_str(w, "graphics");
    if (type & GS_PROC_MPS)
        gs_jw_str(w, "mps");
    gs_jw_end(w);
}

#define PST(f) (gs_proc_has(p, f) ? GS_ST_OK : GS_ST_NOT_AVAILABLE)

static void json_proc_host(struct jgrp *top, const struct gs_text *t, const struct gs_proc *p, unsigned flags)
{
    struct jgrp h = jgroup(top, "host");
    /* host facts missing because /proc could not show the process say why */
    const char *why = p->host_vis == GS_HOST_VISIBLE ? NULL : visibility_code(p->host_vis);

    GS_JW_KEY(h.w, "visibility");
    gs_jw_str(h.w, visibility_code(p->host_vis));
    jput_why(&h, "user", PST(GS_P_USER), why, JS(p->user));
    jput_why(&h, "uid", PST(GS_P_USER), why, JI(p->uid));
    jput_why(&h, "command", PST(GS_P_COMM), why, JS(p->comm));
    if (flags & GS_JSON_REDACT_CMDLINE)
        jput_why(&h, "cmdline", GS_ST_NOT_AVAILABLE, "redacted", JNONE);
    else
        jput_why(&h, "cmdline", PST(GS_P_COMM), why, JS(gs_proc_cmdline(t, p)));
    jput_why(&h, "cpu_pct", PST(GS_P_CPU), why, JR(p->cpu_pct));
    jput_why(&h, "rss_bytes", PST(GS_P_RSS), why, JI(p->rss_bytes));
    jput_why(&h, "start_time_unix", PST(GS_P_START), why, JI(p->start_time));
    jput_why(&h, "age_s", PST(GS_P_START), why, JI(p->age_s));
    jput_why(&h, "ppid", PST(GS_P_PARENT), why, JI(p->ppid));
    jput_why(&h, "pgid", PST(GS_P_PARENT), why, JI(p->pgid));
    /* valid but empty: not in a container / pod -> null without a reason */
    jput_why(&h, "container_id", PST(GS_P_CONTAINER), why, JSN(p->container_id));
    jput_why(&h, "container_runtime", PST(GS_P_CONTAINER), why, JSN(p->container_runtime));
    jput_why(&h, "pod_uid", PST(GS_P_POD), why, JSN(p->pod_uid));
    /* the Slurm job and step its cgroup names; null without a reason: in no job */
    if (gs_proc_has(p, GS_P_SLURM) && !p->slurm_job) {
        GS_JW_KEY(h.w, "slurm_job");
        gs_jw_null(h.w);
    } else {
        jput_why(&h, "slurm_job", PST(GS_P_SLURM), why, JI(p->slurm_job));
    }
    jput_why(&h, "slurm_step", PST(GS_P_SLURM), why, JSN(p->slurm_step));
    gs_jw_end(h.w);
}

/* PyTorch's caching allocator, from gpuscope's Python hook (docs/PYHOOK.md): "pyhook" says
 * whether the process has it and why "torch" is null ("none": no hook, a real none). */
static void json_proc_torch(struct jgrp *top, const struct gs_proc *p)
{
    struct gs_jw *w = top->w;
    enum gs_pyhook_state st = gs_proc_has(p, GS_P_PYHOOK) || p->pyhook_state == GS_PYHOOK_ST_ERROR
                                  ? (enum gs_pyhook_state)p->pyhook_state : GS_PYHOOK_ST_NONE;

    GS_JW_KEY(w, "pyhook");
    gs_jw_str(w, gs_pyhook_state_name(st));
    if (!gs_proc_has(p, GS_P_TORCH)) {
        if (st == GS_PYHOOK_ST_ERROR) {
            jput(top, "torch", GS_ST_ERROR, JNONE);
        } else {
            GS_JW_KEY(w, "torch");
            gs_jw_null(w);
        }
        return;
    }
    uint64_t cache = p->torch_reserved_bytes > p->torch_allocated_bytes
                         ? p->torch_reserved_bytes - p->torch_allocated_bytes : 0;
    struct jgrp t = jgroup(top, "torch");
    jput(&t, "allocated_bytes", GS_ST_OK, JI(p->torch_allocated_bytes));
    jput(&t, "reserved_bytes", GS_ST_OK, JI(p->torch_reserved_bytes));
    jput(&t, "cache_bytes", GS_ST_OK, JI(cache));
    jput(&t, "inactive_split_bytes", GS_ST_OK, JI(p->torch_inactive_split_bytes));
    jput(&t, "max_allocated_bytes", GS_ST_OK, JI(p->torch_max_allocated_bytes));
    jput(&t, "max_reserved_bytes", GS_ST_OK, JI(p->torch_max_reserved_bytes));
    jput(&t, "alloc_retries", GS_ST_OK, JI(p->torch_alloc_retries));
    jput(&t, "ooms", GS_ST_OK, JI(p->torch_ooms));
    jput(&t, "alloc_conf", GS_ST_OK, JSN(p->torch_alloc_conf));
    jput(&t, "age_ms", GS_ST_OK, JI(p->pyhook_age_ms));
    gs_jw_end(w);
}

/* A process's MIG placement: instance IDs, and its MIG device when listed (area 10c). */
static void json_proc_mig(struct gs_jw *w, const struct gs_gpu *d, const struct gs_proc *p)
{
    GS_JW_KEY(w, "mig");
    if (p->gpu_instance_id == UINT32_MAX) {
        gs_jw_null(w);
        return;
    }
    const struct gs_mig *m = d && p->mig_index < d->nmig ? &d->mig[p->mig_index] : NULL;
    gs_jw_obj(w);
    GS_JW_KEY(w, "gpu_instance_id");
    gs_jw_int(w, p->gpu_instance_id);
    GS_JW_KEY(w, "compute_instance_id");
    gs_jw_int(w, p->compute_instance_id);
    GS_JW_KEY(w, "device_index");
    if (m)
        gs_jw_int(w, m->index);
    else
        gs_jw_null(w);
    GS_JW_KEY(w, "uuid");
    if (m)
        gs_jw_str_or_null(w, m->uuid);
    else
        gs_jw_null(w);
    gs_jw_end(w);
}

/* One process object; its reasons go into l after the GPU's (and are dropped after). */
void gs_json_proc(struct gs_jw *w, struct jlist *l, const struct gs_gpu *d, const struct gs_proc *p, unsigned flags)
{
    struct jgrp g = {w, l, "", 0};
    size_t from = l->n;

    gs_jw_obj(w);
    GS_JW_KEY(w, "pid");
    gs_jw_int(w, p->pid);
    GS_JW_KEY(w, "type");
    proc_types(w, p->type);
    jput(&g, "name", PST(GS_P_NAME), JS(p->name));
    jput(&g, "gpu_memory_bytes", PST(GS_P_GPU_MEM), JI(p->gpu_mem_bytes));
    jput(&g, "sm_util_pct", PST(GS_P_SM_UTIL), JI(p->sm_util_pct));
    jput(&g, "memory_util_pct", PST(GS_P_MEM_UTIL), JI(p->mem_util_pct));
    jput(&g, "encoder_util_pct", PST(GS_P_ENC_UTIL), JI(p->enc_util_pct));
    jput(&g, "decoder_util_pct", PST(GS_P_DEC_UTIL), JI(p->dec_util_pct));
    json_proc_mig(w, d, p);
    json_proc_host(&g, &d->text, p, flags);
    json_proc_torch(&g, p);
    gs_json_proc_drm(&g, d, p);
    gs_json_unav_write(w, l, from);
    gs_jw_end(w);
}

