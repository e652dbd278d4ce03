/* SPDX-License-Identifier: MIT */
/*
 * nvml_procs.c - the processes on one GPU: the compute, graphics and MPS
 * lists merged by PID (type bits OR-ed), with their GPU memory, then
 * per-process SM/memory/encoder/decoder utilization (ProcessesUtilizationInfo,
 * or the legacy ProcessUtilization where the driver refuses the newer call).
 *
 * Entry sizes come from the symbol bound (nvml_load.c: 16, 24, or the R535
 * 32-byte _v3 records). Buffers live in the device and are reused, so a tick
 * makes one call per list and allocates nothing unless a list outgrew them;
 * INSUFFICIENT_SIZE (the list grew between calls) grows and retries a bounded
 * number of times.
 *
 * The MPS list is asked only where it can hold something (nvml_mps_due): an
 * MPS server owns its clients' CUDA context and is what the compute list of
 * each GPU it serves shows, so without a process there that could be one,
 * the MPS list is empty.
 *
 * Every per-PID match (merging the three lists, utilization samples, the
 * utilization and name caches) goes through a PID -> position hash rebuilt
 * per tick (struct nvml_pmap), so a tick is linear in the number of
 * processes: with 64 per GPU, pairwise searches cost tens of thousands of
 * comparisons per snapshot.
 */
#include <stdio.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend/nvidia/nvml_priv.h"
#include "lib/vec.h"

#define NVML_PROC_ENTRY_MAX 32u  /* largest running-process entry */
#define NVML_UTIL_ENTRY_MAX 40u  /* largest utilization sample */
#define NVML_INITIAL_CAP 64u
#define NVML_MAX_RETRIES 4
#define NVML_UTIL_STALE_US 1500000ull /* older cached samples mean "idle now" */
#define NVML_PMAP_MIN 64u

int gs_nvml_procs_alloc(struct nvml_device *d)
{
    for (int k = 0; k < NVML_PL_COUNT; k++) {
        d->pbuf[k] = calloc(NVML_INITIAL_CAP, NVML_PROC_ENTRY_MAX);
        if (!d->pbuf[k])
            return -GS_E_NOMEM;
        d->pcap[k] = NVML_INITIAL_CAP;
    }
    d->ubuf = calloc(NVML_INITIAL_CAP, NVML_UTIL_ENTRY_MAX);
    d->ucache = calloc(NVML_INITIAL_CAP, sizeof(*d->ucache));
    if (!d->ubuf || !d->ucache)
        return -GS_E_NOMEM;
    d->ucap = d->ucache_cap = NVML_INITIAL_CAP;
    return 0;
}

/* A GPU drops a name it held: the context's index must not point at it any more. */
static void nvml_xname_forget(struct nvml_device *d, const struct nvml_pname *n)
{
    struct nvml_xname *x = &d->ctx->xnames[n->pid % NVML_XNAME_SLOTS];

    if (x->set && x->pid == n->pid && x->name == n->name)
        x->set = false;
    free(n->name);
}

void gs_nvml_procs_free(struct nvml_device *d)
{
    for (int k = 0; k < NVML_PL_COUNT; k++) {
        free(d->pbuf[k]);
        d->pbuf[k] = NULL;
    }
    free(d->ubuf);
    free(d->ucache);
    for (unsigned i = 0; d->names && i < d->names_n; i++)
        nvml_xname_forget(d, &d->names[i]);
    free(d->names);
    free(d->pmap.slot);
    free(d->amap.slot);
    d->ubuf = NULL;
    d->ucache = NULL;
    d->names = NULL;
    d->pmap = d->amap = (struct nvml_pmap){ NULL, 0 };
}

/* NVML answered INSUFFICIENT_SIZE for need entries of size bytes: grow *buf
 * (the gs_vec policy) to twice that and more than it holds now (processes
 * start between the two calls), within the unsigned count NVML takes; 0 or -1. */
static int nvml_grow(unsigned char **buf, unsigned *cap, unsigned need, size_t size)
{
    size_t want = (size_t)need * 2 + 5, c = *cap;
    if (want <= c)
        want = c + 1;
    if (want > UINT_MAX)
        return -1;
    unsigned char *p = gs_vec_grow(*buf, &c, want, size);
    if (!p)
        return -1;
    *buf = p;
    *cap = c > UINT_MAX ? UINT_MAX : (unsigned)c;
    return 0;
}

/* ---- PID maps --------------------------------------------------------------------- */

/* Where the PIDs of an array of records are: record pos's PID is at
 * base + pos * stride + off. */
struct nvml_keys {
    const unsigned char *base;
    size_t stride, off;
};

static uint32_t nvml_key(const struct nvml_keys *k, uint32_t pos)
{
    uint32_t pid;

    memcpy(&pid, k->base + (size_t)pos * k->stride + k->off, sizeof(pid));
    return pid;
}

static unsigned nvml_pmap_home(const struct nvml_pmap *m, uint32_t pid)
{
    return (unsigned)(((uint64_t)pid * UINT64_C(0x9E3779B97F4A7C15)) >> 40) & (m->nslots - 1);
}

/* Position of pid in the records k, or -1. */
static long nvml_pmap_find(const struct nvml_pmap *m, const struct nvml_keys *k, uint32_t pid)
{
    for (unsigned i = nvml_pmap_home(m, pid); m->slot[i]; i = (i + 1) & (m->nslots - 1))
        if (nvml_key(k, m->slot[i] - 1) == pid)
            return (long)m->slot[i] - 1;
    return -1;
}

static void nvml_pmap_put(struct nvml_pmap *m, uint32_t pid, uint32_t pos)
{
    unsigned i = nvml_pmap_home(m, pid);

    while (m->slot[i])
        i = (i + 1) & (m->nslots - 1);
    m->slot[i] = pos + 1;
}

/* Index records 0..n-1 of k, with room for `room` records in all; 0 or -1. */
static int nvml_pmap_build(struct nvml_pmap *m, const struct nvml_keys *k, unsigned n, unsigned room)
{
    unsigned want = NVML_PMAP_MIN;

    while (want / 2 < room && want <= UINT_MAX / 4)
        want *= 2;
    if (want > m->nslots) {
        uint32_t *slot = realloc(m->slot, (size_t)want * sizeof(*slot));
        if (!slot)
            return -1;
        m->slot = slot;
        m->nslots = want;
    }
    memset(m->slot, 0, (size_t)m->nslots * sizeof(*m->slot));
    for (unsigned i = 0; i < n; i++)
        nvml_pmap_put(m, nvml_key(k, i), i);
    return 0;
}

/* Record pos of k was just appended: index it (growing when half full); 0 or -1. */
static int nvml_pmap_add(struct nvml_pmap *m, const struct nvml_keys *k, uint32_t pos)
{
    if ((size_t)(pos + 1) * 2 > m->nslots)
        return nvml_pmap_build(m, k, pos + 1, (pos + 1) * 2);
    nvml_pmap_put(m, nvml_key(k, pos), pos);
    return 0;
}

static struct nvml_keys nvml_proc_keys(const struct gs_gpu *g)
{
    return (struct nvml_keys){ (const unsigned char *)g->procs, sizeof(*g->procs),
                               offsetof(struct gs_proc, pid) };
}

static struct nvml_keys nvml_ucache_keys(const struct nvml_device *d)
{
    return (struct nvml_keys){ (const unsigned char *)d->ucache, sizeof(*d->ucache),
                               offsetof(struct nvml_putil, pid) };
}

static struct nvml_keys nvml_name_keys(const struct nvml_device *d)
{
    return (struct nvml_keys){ (const unsigned char *)d->names, sizeof(*d->names),
                               offsetof(struct nvml_pname, pid) };
}

/* This tick's process of pid on g (d->pmap indexes g->procs), or NULL. */
static struct gs_proc *nvml_find_proc(struct nvml_device *d, struct gs_gpu *g, uint32_t pid)
{
    struct nvml_keys k = nvml_proc_keys(g);
    long pos = nvml_pmap_find(&d->pmap, &k, pid);

    return pos < 0 ? NULL : &g->procs[pos];
}

/* ---- the process lists ------------------------------------------------------------ */

/* Add one raw entry (stride bytes) of list kind to g, merging by PID. */
static int nvml_merge_entry(struct nvml_device *d, struct gs_gpu *g, const unsigned char *e,
                            unsigned stride, enum nvml_plist kind)
{
    static const uint32_t type_bit[] = { GS_PROC_COMPUTE, GS_PROC_GRAPHICS, GS_PROC_MPS };
    unsigned int pid;
    unsigned long long mem;
    struct gs_proc *p;

    memcpy(&pid, e, sizeof(pid));
    memcpy(&mem, e + 8, sizeof(mem));
    p = nvml_find_proc(d, g, pid);
    if (!p) {
        p = gs_gpu_add_proc(g);
        if (!p)
            return -GS_E_NOMEM;
        p->pid = pid;
        struct nvml_keys k = nvml_proc_keys(g);
        if (nvml_pmap_add(&d->pmap, &k, g->nprocs - 1) < 0)
            return -GS_E_NOMEM;
    }
    p->type |= type_bit[kind];
    if (mem != NVML_VALUE_NOT_AVAILABLE_ULL && (!gs_proc_has(p, GS_P_GPU_MEM) || mem > p->gpu_mem_bytes)) {
        p->gpu_mem_bytes = mem;
        gs_proc_set(p, GS_P_GPU_MEM);
    }
    if (stride >= sizeof(nvmlProcessInfo_v2_t)) {
        memcpy(&p->gpu_instance_id, e + 16, sizeof(p->gpu_instance_id));
        memcpy(&p->compute_instance_id, e + 20, sizeof(p->compute_instance_id));
    }
    return 0;
}

/* Merge the entries of list kind that pbuf[kind] holds into g. */
static nvmlReturn_t nvml_merge_plist(struct nvml_device *d, struct gs_gpu *g, enum nvml_plist kind)
{
    unsigned stride = d->ctx->lib.proc_stride[kind], count = d->pn[kind];

    if (gs_gpu_reserve_procs(g, (size_t)g->nprocs + count) < 0) /* one growth, not one per doubling */
        return NVML_ERROR_MEMORY;
    for (unsigned i = 0; i < count && i < d->pcap[kind]; i++)
        if (nvml_merge_entry(d, g, d->pbuf[kind] + (size_t)i * stride, stride, kind) < 0)
            return NVML_ERROR_MEMORY;
    return NVML_SUCCESS;
}

/* One list: call with the capacity we have; on INSUFFICIENT_SIZE grow and retry. */
static nvmlReturn_t nvml_read_plist(struct nvml_device *d, struct gs_gpu *g, enum nvml_plist kind)
{
    const struct nvml_fns *f = &d->ctx->lib.f;
    nvmlDeviceGetRunningProcesses_fn fn = kind == NVML_PL_COMPUTE    ? f->compute_procs
                                          : kind == NVML_PL_GRAPHICS ? f->graphics_procs
                                                                     : f->mps_procs;
    nvmlReturn_t r = NVML_ERROR_INSUFFICIENT_SIZE;
    unsigned count = 0;

    d->pn[kind] = 0;
    if (!fn || d->plist_unsup[kind])
        return d->prc[kind] = NVML_ERROR_NOT_SUPPORTED;
    for (int tries = 0; tries < NVML_MAX_RETRIES && r == NVML_ERROR_INSUFFICIENT_SIZE; tries++) {
        if (tries > 0 && nvml_grow(&d->pbuf[kind], &d->pcap[kind], count, NVML_PROC_ENTRY_MAX) < 0)
            return d->prc[kind] = NVML_ERROR_MEMORY;
        count = d->pcap[kind];
        r = fn(d->handle, &count, d->pbuf[kind]);
    }
    d->prc[kind] = r;
    if (r != NVML_SUCCESS)
        return r;
    d->pn[kind] = count;
    return nvml_merge_plist(d, g, kind);
}

/* The read cadence of the lists. NVML has no event for a process starting or
 * ending, but a new CUDA context always allocates GPU memory and an exit frees
 * it, so the lists are read again when the GPU's used memory (read earlier in
 * this tick) differs from what it was at the last list, when the GPU went from
 * idle to busy or back, when the last list was not a clean answer, and at
 * least once a read period (GPUSCOPE_READ_PERIOD_MS, 5 s), and at the tick after
 * the per-process utilization showed a PID at work that the held list lacks
 * (one that started, e.g., as another of the same size exited). The first read of a
 * context (every one-shot) always lists. In between, the held lists are handed
 * on with their age (gs_gpu.procs_age_ms); per-process utilization is read
 * fresh every tick. */
static bool nvml_plist_due(const struct nvml_device *d, const struct gs_gpu *g)
{
    const struct gs_sample *s = &g->s;
    uint64_t period = d->ctx->sched_period_ns;

    if (!d->plist_ns || !period || s->timestamp_ns < d->plist_ns || s->timestamp_ns - d->plist_ns >= period)
        return true;
    if (!gs_sample_has(s, GS_F_MEM_USED) || !gs_sample_has(s, GS_F_GPU_UTIL))
        return true;
    return s->mem_used_bytes != d->plist_mem_used || (s->gpu_util_pct > 0) != d->plist_busy;
}

/* After the lists were read: hold them when every answer was clean. */
static void nvml_plist_hold(struct nvml_device *d, const struct gs_gpu *g)
{
    const struct gs_sample *s = &g->s;

    d->plist_ns = 0;
    for (int k = 0; k < NVML_PL_COUNT; k++)
        if (d->prc[k] != NVML_SUCCESS && d->prc[k] != NVML_ERROR_NOT_SUPPORTED)
            return;
    if (!gs_sample_has(s, GS_F_MEM_USED) || !gs_sample_has(s, GS_F_GPU_UTIL))
        return;
    d->plist_ns = s->timestamp_ns;
    d->plist_mem_used = s->mem_used_bytes;
    d->plist_busy = s->gpu_util_pct > 0;
}

/* ---- per-process utilization ------------------------------------------------------ */
struct nvml_usample {
    uint32_t pid;
    unsigned long long ts_us;
    uint32_t sm, mem, enc, dec;
};

/* The cached sample of pid (d->amap indexes d->ucache during a tick's
 * utilization pass), added empty when create says so. */
static struct nvml_putil *nvml_ucache_get(struct nvml_device *d, uint32_t pid, bool create)
{
    struct nvml_keys k = nvml_ucache_keys(d);
    long pos = nvml_pmap_find(&d->amap, &k, pid);

    if (pos >= 0)
        return &d->ucache[pos];
    if (!create)
        return NULL;
    struct nvml_putil *uc = gs_vec_grow(d->ucache, &d->ucache_cap, (size_t)d->ucache_n + 1, sizeof(*uc));
    if (!uc)
        return NULL;
    d->ucache = uc;
    struct nvml_putil *u = &d->ucache[d->ucache_n++];
    memset(u, 0, sizeof(*u));
    u->pid = pid;
    k = nvml_ucache_keys(d);
    if (nvml_pmap_add(&d->amap, &k, d->ucache_n - 1) < 0) {
        d->ucache_n--;
        return NULL;
    }
    return u;
}

/* Keep one sample: drop impossible values (> 100 %, seen with zombie processes)
 * and PIDs not in this tick's list; keep the newest per PID. False when the
 * cache could not grow (out of memory): the pass then fails as a whole rather
 * than show that process as idle. */
static bool nvml_take_usample(struct nvml_device *d, struct gs_gpu *g, const struct nvml_usample *u)
{
    struct nvml_putil *c;

    if (u->sm > 100 || u->mem > 100 || u->enc > 100 || u->dec > 100)
        return true;
    if (!nvml_find_proc(d, g, u->pid)) {
        if (u->ts_us > d->util_last_seen)
            d->plist_ns = 0; /* a PID at work the held list lacks: list again at the next tick */
        return true;
    }
    if (u->ts_us > d->util_last_seen)
        d->util_last_seen = u->ts_us;
    c = nvml_ucache_get(d, u->pid, true);
    if (!c)
        return false;
    if (c->ts_us && c->ts_us > u->ts_us)
        return true;
    *c = (struct nvml_putil){ u->pid, u->ts_us, u->sm, u->mem, u->enc, u->dec };
    return true;
}

static nvmlReturn_t nvml_util_info(struct nvml_device *d, struct gs_gpu *g)
{
    nvmlProcessesUtilizationInfo_v1_t info;
    nvmlReturn_t r = NVML_ERROR_INSUFFICIENT_SIZE;

    memset(&info, 0, sizeof(info));

    for (int tries = 0; tries < NVML_MAX_RETRIES && r == NVML_ERROR_INSUFFICIENT_SIZE; tries++) {
        if (tries > 0 && nvml_grow(&d->ubuf, &d->ucap, info.processSamplesCount,
                                   NVML_UTIL_ENTRY_MAX) < 0)
            return NVML_ERROR_MEMORY;
        info.version = nvmlProcessesUtilizationInfo_v1;
        info.processSamplesCount = d->ucap;
        info.lastSeenTimeStamp = d->util_last_seen;
        info.procUtilArray = (nvmlProcessUtilizationInfo_v1_t *)(void *)d->ubuf;
        r = d->ctx->lib.f.proc_util_info(d->handle, &info);
    }
    for (unsigned i = 0; r == NVML_SUCCESS && i < info.processSamplesCount && i < d->ucap; i++) {
        const nvmlProcessUtilizationInfo_v1_t *e = &info.procUtilArray[i];
        struct nvml_usample u = { e->pid, e->timeStamp, e->smUtil, e->memUtil, e->encUtil,
                                  e->decUtil };
        if (!nvml_take_usample(d, g, &u))
            r = NVML_ERROR_MEMORY;
    }
    return r;
}

static nvmlReturn_t nvml_util_legacy(struct nvml_device *d, struct gs_gpu *g)
{
    nvmlProcessUtilizationSample_t *arr = (nvmlProcessUtilizationSample_t *)(void *)d->ubuf;
    nvmlReturn_t r = NVML_ERROR_INSUFFICIENT_SIZE;
    unsigned count = 0;

    for (int tries = 0; tries < NVML_MAX_RETRIES && r == NVML_ERROR_INSUFFICIENT_SIZE; tries++) {
        if (tries > 0 && nvml_grow(&d->ubuf, &d->ucap, count, NVML_UTIL_ENTRY_MAX) < 0)
            return NVML_ERROR_MEMORY;
        arr = (nvmlProcessUtilizationSample_t *)(void *)d->ubuf;
        count = d->ucap;
        r = d->ctx->lib.f.proc_util(d->handle, arr, &count, d->util_last_seen);
    }
    for (unsigned i = 0; r == NVML_SUCCESS && i < count && i < d->ucap; i++) {
        struct nvml_usample u = { arr[i].pid, arr[i].timeStamp, arr[i].smUtil, arr[i].memUtil,
                                  arr[i].encUtil, arr[i].decUtil };
        if (!nvml_take_usample(d, g, &u))
            r = NVML_ERROR_MEMORY;
    }
    return r;
}

/* Give each process its latest sample; no recent sample means idle (0 %).
 * Cache entries of PIDs that left the list are dropped. */
static void nvml_util_apply(struct nvml_device *d, struct gs_gpu *g)
{
    unsigned keep = 0;

    for (uint32_t i = 0; i < g->nprocs; i++) {
        struct gs_proc *p = &g->procs[i];
        const struct nvml_putil *c = nvml_ucache_get(d, p->pid, false);
        bool fresh = c && c->ts_us + NVML_UTIL_STALE_US >= d->util_last_seen;
        p->sm_util_pct = fresh ? c->sm_pct : 0;
        p->mem_util_pct = fresh ? c->mem_pct : 0;
        p->enc_util_pct = fresh ? c->enc_pct : 0;
        p->dec_util_pct = fresh ? c->dec_pct : 0;
        p->valid |= (1u << GS_P_SM_UTIL) | (1u << GS_P_MEM_UTIL) | (1u << GS_P_ENC_UTIL) |
                    (1u << GS_P_DEC_UTIL);
    }
    for (unsigned i = 0; i < d->ucache_n; i++) /* (d->amap is stale from here on) */
        if (nvml_find_proc(d, g, d->ucache[i].pid))
            d->ucache[keep++] = d->ucache[i];
    d->ucache_n = keep;
}

/* Per-process utilization; skipped in MIG mode (NVML does not support it). */
static void nvml_read_putil(struct nvml_device *d, struct gs_gpu *g)
{
    const struct nvml_fns *f = &d->ctx->lib.f;
    nvmlReturn_t r;

    if (d->mig_on || d->putil_unsup || !g->nprocs)
        return;
    struct nvml_keys k = nvml_ucache_keys(d);
    if (nvml_pmap_build(&d->amap, &k, d->ucache_n, d->ucache_n + g->nprocs) < 0) {
        gs_nvml_status(d, g, NVML_ERROR_MEMORY, GS_FMASK_NONE, "process utilization");
        return;
    }
    if (f->proc_util_info && !d->putil_info_unsup) {
        r = nvml_util_info(d, g);
        /* The newer call exists but this GPU or driver refuses it: the
         * legacy one may still answer (and then does from now on). */
        if ((r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND) && f->proc_util) {
            d->putil_info_unsup = true;
            r = nvml_util_legacy(d, g);
        }
    } else if (f->proc_util) {
        r = nvml_util_legacy(d, g);
    } else {
        return;
    }
    if (r == NVML_SUCCESS || r == NVML_ERROR_NOT_FOUND) /* NOT_FOUND: no new samples */
        nvml_util_apply(d, g);
    else if (gs_nvml_status(d, g, r, GS_FMASK_NONE, "process utilization") == GS_ST_NOT_SUPPORTED)
        d->putil_unsup = true;
}

/* ---- process names ------------------------------------------------------------------ */
static const struct nvml_pname *nvml_name_get(struct nvml_device *d, uint32_t pid)
{
    nvmlSystemGetProcessName_fn fn = d->ctx->lib.f.process_name;
    struct nvml_keys k = nvml_name_keys(d);
    long pos = nvml_pmap_find(&d->amap, &k, pid);

    if (pos >= 0)
        return &d->names[pos];
    struct nvml_pname *nv = gs_vec_grow(d->names, &d->names_cap, (size_t)d->names_n + 1, sizeof(*nv));
    if (!nv)
        return NULL;
    d->names = nv;
    k = nvml_name_keys(d);
    struct nvml_pname *n = &d->names[d->names_n++];
    char buf[NVML_PNAME_MAX];
    n->pid = pid;
    n->name = NULL;
    buf[0] = '\0';
    struct nvml_xname *x = &d->ctx->xnames[pid % NVML_XNAME_SLOTS];
    if (x->set && x->pid == pid) { /* another GPU lists it too: the driver already said */
        if (x->name)
            n->name = strdup(x->name);
    } else if (fn(pid, buf, sizeof(buf)) == NVML_SUCCESS && buf[0]) {
        buf[sizeof(buf) - 1] = '\0';
        n->name = strdup(buf); /* out of memory: no name, as if the driver had none */
    }
    if (nvml_pmap_add(&d->amap, &k, d->names_n - 1) < 0) {
        free(n->name);
        d->names_n--; /* asked again next time */
        return NULL;
    }
    if (!x->set) {
        *x = (struct nvml_xname){ pid, true, n->name };
    }
    return n;
}

/* nvidia-smi's process_name: asked of the driver once per PID (a new PID is
 * one nvmlSystemGetProcessName call, then cached while it stays on the GPU).
 * It is what names a process /proc cannot see (other PID namespace). */
static void nvml_read_names(struct nvml_device *d, struct gs_gpu *g)
{
    unsigned keep = 0;

    if (!d->ctx->lib.f.process_name)
        return;
    struct nvml_keys k = nvml_name_keys(d);
    if (nvml_pmap_build(&d->amap, &k, d->names_n, d->names_n + g->nprocs) < 0)
        return; /* out of memory: no driver names this tick */
    for (uint32_t i = 0; i < g->nprocs; i++) {
        const struct nvml_pname *n = nvml_name_get(d, g->procs[i].pid);
        if (n && n->name) {
            struct gs_proc *p = &g->procs[i];
            size_t len = strlen(n->name);
            snprintf(p->name, sizeof(p->name), "%s", n->name);
            if (len >= sizeof(p->name))
                gs_proc_set_long_name(g, p, n->name, len); /* else the first 95 bytes */
            gs_proc_set(p, GS_P_NAME);
        }
    }
    for (unsigned i = 0; i < d->names_n; i++) { /* (d->amap is stale from here on) */
        if (nvml_find_proc(d, g, d->names[i].pid))
            d->names[keep++] = d->names[i];
        else
            nvml_xname_forget(d, &d->names[i]);
    }
    d->names_n = keep;
}

/* ---- the MPS gate ------------------------------------------------------------------ */

#define NVML_MPS_SERVER "nvidia-cuda-mps-server"

/* Could the process of this driver name be an MPS server? One the driver
 * could not name (another PID namespace, gone, no permission) could. */
static bool nvml_may_be_mps_server(const char *name)
{
    if (!name)
        return true;
    const char *base = strrchr(name, '/');
    return strcmp(base ? base + 1 : name, NVML_MPS_SERVER) == 0;
}

/* Does this tick's compute list hold a process that could be an MPS server?
 * Names come from the per-PID cache (a new PID is one nvmlSystemGetProcessName
 * call, which nvml_read_names would make anyway). */
static bool nvml_mps_server_listed(struct nvml_device *d, const struct gs_gpu *g)
{
    if (!d->ctx->lib.f.process_name)
        return true; /* no names at all: cannot tell */
    struct nvml_keys k = nvml_name_keys(d);
    if (nvml_pmap_build(&d->amap, &k, d->names_n, d->names_n + g->nprocs) < 0)
        return true;
    for (uint32_t i = 0; i < g->nprocs; i++) {
        if (!(g->procs[i].type & GS_PROC_COMPUTE))
            continue;
        const struct nvml_pname *n = nvml_name_get(d, g->procs[i].pid);
        if (!n || nvml_may_be_mps_server(n->name))
            return true;
    }
    return false;
}

/* Ask the MPS list at this relist? NVIDIA's MPS docs: the server owns the
 * CUDA context on the GPU and shows in NVML's lists as the active CUDA
 * process, on each GPU it serves, while its clients have MPS contexts. So
 * the MPS list can hold entries only while the compute list holds a server.
 * It is asked when the compute list holds a process that could be one, when
 * its last answer had entries or was not clean, when the compute list's
 * answer this tick was not clean, at the first read of a context, and at
 * least once a read period (GPUSCOPE_READ_PERIOD_MS, 5 s; every relist with 0)
 * as a safety net. */
static bool nvml_mps_due(struct nvml_device *d, const struct gs_gpu *g)
{
    uint64_t period = d->ctx->sched_period_ns, now = g->s.timestamp_ns;

    if (d->plist_unsup[NVML_PL_MPS] || !d->mps_ns || !period || now < d->mps_ns || now - d->mps_ns >= period)
        return true;
    if (d->prc[NVML_PL_MPS] != NVML_SUCCESS || d->pn[NVML_PL_MPS] > 0 || d->prc[NVML_PL_COMPUTE] != NVML_SUCCESS)
        return true;
    return nvml_mps_server_listed(d, g);
}

/* One list of a relist: the MPS list only when due (else an empty, clean answer). */
static nvmlReturn_t nvml_relist(struct nvml_device *d, struct gs_gpu *g, enum nvml_plist kind)
{
    if (kind == NVML_PL_MPS) {
        if (!nvml_mps_due(d, g)) {
            d->pn[kind] = 0;
            return d->prc[kind] = NVML_SUCCESS;
        }
        d->mps_ns = g->s.timestamp_ns ? g->s.timestamp_ns : 1;
    }
    return nvml_read_plist(d, g, kind);
}

int gs_nvml_processes(struct gs_bdev *b, struct gs_gpu *g)
{
    struct nvml_device *d = nvml_dev(b);
    enum gs_status best = GS_ST_NOT_SUPPORTED;

    g->nprocs = 0;
    g->text.len = 0;
    if (d->open_rc != NVML_SUCCESS || atomic_load(&d->lost)) {
        g->procs_status = atomic_load(&d->lost) ? GS_ST_GPU_LOST : GS_ST_ERROR;
        return atomic_load(&d->lost) ? -GS_E_GPU_LOST : -GS_E_BACKEND;
    }
    struct nvml_keys keys = nvml_proc_keys(g);
    if (nvml_pmap_build(&d->pmap, &keys, 0, g->procs_cap) < 0) {
        g->procs_status = gs_nvml_status(d, g, NVML_ERROR_MEMORY, GS_FMASK_NONE, "process list");
        return -GS_E_BACKEND;
    }
    bool relist = nvml_plist_due(d, g);
    for (int k = 0; k < NVML_PL_COUNT && !atomic_load(&d->lost); k++) {
        nvmlReturn_t r = relist                     ? nvml_relist(d, g, (enum nvml_plist)k)
                         : d->prc[k] == NVML_SUCCESS ? nvml_merge_plist(d, g, (enum nvml_plist)k)
                                                     : d->prc[k];
        if (!relist && r != d->prc[k])
            d->plist_ns = 0; /* out of memory replaying it: read it at the next tick */
        enum gs_status st = gs_nvml_status(d, g, r, GS_FMASK_NONE, "process list");
        if (st == GS_ST_NOT_SUPPORTED)
            d->plist_unsup[k] = true;
        if (st == GS_ST_OK || best == GS_ST_NOT_SUPPORTED)
            best = st; /* any list read counts; else the first real error */
    }
    if (atomic_load(&d->lost)) {
        g->procs_status = GS_ST_GPU_LOST;
        g->nprocs = 0;
        return -GS_E_GPU_LOST;
    }
    if (relist)
        nvml_plist_hold(d, g);
    else if (d->plist_ns)
        g->procs_age_ms = (uint32_t)((g->s.timestamp_ns - d->plist_ns) / 1000000u);
    g->procs_status = (uint8_t)best;
    if (best == GS_ST_OK) {
        nvml_read_names(d, g);
        nvml_read_putil(d, g);
        gs_nvml_mig_attribute(d, g);
    }
    return best == GS_ST_ERROR ? -GS_E_BACKEND : 0;
}
