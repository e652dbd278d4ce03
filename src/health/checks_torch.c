/* SPDX-License-Identifier: MIT */
/*
 * checks_torch.c - what PyTorch's CUDA caching allocator says about a process,
 * from gpuscope's Python hook (docs/PYHOOK.md), where NVML sees only a total:
 *   proc.torch_oom            the allocator raised out-of-memory errors;
 *   proc.torch_fragmentation  it retried allocations after freeing its cache, or
 *                             holds much more than the live tensors, in split
 *                             blocks that larger requests cannot use;
 *   proc.torch_growth         the live tensors (allocated, not the cache) grow
 *                             steadily: a leak in the program, not in the cache.
 * The advice names PYTORCH_CUDA_ALLOC_CONF as the process has it.
 */
#include "health/health_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t to_mib(uint64_t b)
{
    uint64_t m = b >> 20;
    return m > UINT32_MAX ? UINT32_MAX : (uint32_t)m;
}

static uint32_t sat32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static struct tpoint *tp_at(const struct hproc *p, uint32_t i)
{
    return &p->torch->ring[(p->torch->head + i) % TORCH_RING];
}

void ht_add(struct hproc *p, const struct gs_proc *gp, int64_t t_ms)
{
    if (!p->torch && !(p->torch = calloc(1, sizeof(*p->torch))))
        return;
    struct htorch *ht = p->torch;
    struct tpoint *pt;
    if (ht->count && tp_at(p, ht->count - 1)->t_ms == t_ms)
        pt = tp_at(p, ht->count - 1);
    else if (ht->count < TORCH_RING)
        pt = tp_at(p, ht->count++);
    else {
        pt = tp_at(p, 0);
        ht->head = (ht->head + 1) % TORCH_RING;
    }
    *pt = (struct tpoint){ t_ms, to_mib(gp->torch_allocated_bytes), to_mib(gp->torch_reserved_bytes),
                           to_mib(gp->torch_inactive_split_bytes), sat32(gp->torch_alloc_retries), sat32(gp->torch_ooms) };
    if (strncmp(ht->alloc_conf, gp->torch_alloc_conf, sizeof(ht->alloc_conf) - 1))
        snprintf(ht->alloc_conf, sizeof(ht->alloc_conf), "%.63s", gp->torch_alloc_conf);
}

/* The usual next step for the allocator, given what the process already sets. */
static void alloc_advice(const struct hproc *p, char *dst, size_t cap)
{
    const char *split = strstr(p->torch->alloc_conf, "max_split_size_mb:");
    if (strstr(p->torch->alloc_conf, "expandable_segments:True"))
        hf_set(dst, cap, "PYTORCH_CUDA_ALLOC_CONF is already expandable_segments:True: lower the peak instead "
               "(smaller batches, activation checkpointing), and release what is kept alive");
    else if (split)
        hf_set(dst, cap, "lower max_split_size_mb (PYTORCH_CUDA_ALLOC_CONF=%s now), e.g. to half, or try "
               "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PyTorch 2.1+), before the process starts",
               p->torch->alloc_conf);
    else
        hf_set(dst, cap, "start the process with PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128 (or "
               "expandable_segments:True on PyTorch 2.1+); keep tensor shapes steady; call torch.cuda.empty_cache() "
               "only between phases");
}

static void figures(const struct tpoint *l, const struct hproc *p, char *dst, size_t cap)
{
    hf_set(dst, cap, "allocated %u MiB, reserved %u MiB (cache %u MiB, %u MiB of it in inactive split blocks), "
           "%u allocation retries, %u OOMs; PYTORCH_CUDA_ALLOC_CONF=%s", l->allocated_mib, l->reserved_mib,
           l->reserved_mib - (l->allocated_mib < l->reserved_mib ? l->allocated_mib : l->reserved_mib), l->inactive_mib,
           l->retries, l->ooms, p->torch->alloc_conf[0] ? p->torch->alloc_conf : "(unset)");
}

static void check_oom(const struct gs_health *h, const struct hproc *p, int32_t idx, struct gs_findings *out)
{
    const struct tpoint *l = tp_at(p, p->torch->count - 1);
    (void)h;
    if (!l->ooms)
        return;
    struct gs_finding *f = hf_new(out, GS_SEV_CRITICAL, idx, p->pid, "proc.torch_oom",
                                  "GPU %d: process %u (%s) hit %u CUDA out-of-memory errors in PyTorch", idx, p->pid,
                                  p->name, l->ooms);
    f->value = l->ooms;
    figures(l, p, f->evidence, sizeof(f->evidence));
    hf_set(f->cause, sizeof(f->cause), "a request larger than what was free: the job needs more memory than the GPU "
           "has, or fragmentation left free memory only in pieces too small (%u MiB inactive split)", l->inactive_mib);
    alloc_advice(p, f->action, sizeof(f->action));
}

static void check_fragmentation(const struct gs_health *h, const struct hproc *p, int32_t idx, struct gs_findings *out)
{
    const struct tpoint *first = tp_at(p, 0), *l = tp_at(p, p->torch->count - 1);
    uint32_t cache = l->reserved_mib > l->allocated_mib ? l->reserved_mib - l->allocated_mib : 0;
    bool retries = l->retries > first->retries || (p->torch->count == 1 && l->retries);
    bool bloated = l->reserved_mib >= h->cfg.torch_frag_min_mib &&
                   cache >= h->cfg.torch_frag_cache_share * l->reserved_mib &&
                   l->inactive_mib >= h->cfg.torch_frag_split_share * l->reserved_mib;
    if (!retries && !bloated)
        return;
    struct gs_finding *f = hf_new(out, GS_SEV_WARNING, idx, p->pid, "proc.torch_fragmentation",
                                  "GPU %d: process %u (%s): PyTorch's allocator is fragmented (%s)", idx, p->pid,
                                  p->name, retries ? "allocation retries" : "reserved far above allocated");
    f->value = retries ? l->retries : cache;
    figures(l, p, f->evidence, sizeof(f->evidence));
    if (retries)
        snprintf(f->evidence + strlen(f->evidence), sizeof(f->evidence) - strlen(f->evidence),
                 "; retries went from %u to %u in the window", first->retries, l->retries);
    hf_set(f->cause, sizeof(f->cause), "the caching allocator splits its segments for requests of varying sizes; "
           "the pieces left over are too small for later large requests, so it frees its cache and retries (slow) "
           "or runs out of memory with memory free");
    alloc_advice(p, f->action, sizeof(f->action));
}

/* allocated (live tensors) grows steadily over the window, in both halves */
static void check_growth(const struct gs_health *h, const struct hproc *p, int32_t idx, struct gs_findings *out)
{
    double t[TORCH_RING], m[TORCH_RING];
    size_t n = 0;
    for (uint32_t i = 0; i < p->torch->count; i++) {
        const struct tpoint *pt = tp_at(p, i);
        t[n] = (double)(pt->t_ms - tp_at(p, 0)->t_ms) / 1000.0;
        m[n++] = pt->allocated_mib;
    }
    double thr = h->cfg.torch_growth_mib_per_s;
    if (n < 8 || t[n - 1] < h->cfg.leak_min_s || (m[n - 1] - m[0]) / t[n - 1] < thr * 0.5)
        return;
    struct gs_linreg all, a, b;
    if (!gs_linreg(t, m, n, &all) || all.slope < thr || all.r2 < h->cfg.leak_min_r2 ||
        !gs_linreg(t, m, n / 2, &a) || !gs_linreg(t + n / 2, m + n / 2, n - n / 2, &b) || a.slope < thr / 2 ||
        b.slope < thr / 2)
        return;
    const struct tpoint *l = tp_at(p, p->torch->count - 1);
    struct gs_finding *f = hf_new(out, GS_SEV_WARNING, idx, p->pid, "proc.torch_growth",
                                  "GPU %d: process %u (%s): live PyTorch tensors grow %.1f MiB/s", idx, p->pid,
                                  p->name, all.slope);
    f->value = all.slope;
    hf_set(f->evidence, sizeof(f->evidence), "allocated %.0f -> %.0f MiB over %.0f s (slope %.1f MiB/s, R^2 %.2f, "
           "threshold %.0f MiB/s); reserved now %u MiB", m[0], m[n - 1], all.span, all.slope, all.r2, thr,
           l->reserved_mib);
    hf_set(f->cause, sizeof(f->cause), "the program keeps references to tensors on the GPU (e.g. appending losses "
           "without .item() or .detach(), a growing cache or list of outputs): a leak in the program, not in "
           "the allocator's cache");
    hf_set(f->action, sizeof(f->action), "look for tensors kept across steps (accumulate loss.item(), detach "
           "what is stored); torch.cuda.memory._record_memory_history() and a snapshot show who allocates; "
           "`gpuscope pyhook stacks %u` shows where it is now", p->pid);
}

void hc_torch(struct gs_health *h, const struct hproc *p, struct gs_findings *out)
{
    const struct hgpu *g = &h->gpus[p->gpu]; /* p->gpu is the snapshot slot; findings carry the index */
    int32_t idx = (int32_t)g->st.index;
    if (!p->torch || !p->torch->count || tp_at(p, p->torch->count - 1)->t_ms < h->now_ms - 10000)
        return; /* no recent figures: the hook went away */
    check_oom(h, p, idx, out);
    check_fragmentation(h, p, idx, out);
    check_growth(h, p, idx, out);
}
