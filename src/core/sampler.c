/* SPDX-License-Identifier: MIT */
/*
 * sampler.c - the one place that reads GPUs (see sampler.h). Open: pick a
 * backend from the registry, discover GPUs, read their static facts once,
 * apply the -i selection. Snapshot: one backend pass per selected GPU (each
 * per-GPU call at most once per tick), processes, host facts from /proc.
 *
 * Slow fields (PCIe TX/RX, ~20 ms per call on hardware): GS_SLOW_INLINE reads
 * them in the snapshot (one-shot commands), GS_SLOW_SKIP marks them
 * GS_ST_NOT_SAMPLED, GS_SLOW_THREAD leaves them to a worker thread (slow.c)
 * and copies its latest values with their age, so a snapshot never waits.
 * In GS_SLOW_THREAD, a GPU whose backend gives them without a sampling call
 * (slow_free: NVML's byte counters or GPM, an average over the tick) reads
 * them in its own tick; the worker covers it only until that tick has a rate.
 *
 * After the first snapshot the hot path allocates nothing: the snapshot's
 * arrays and the backend's buffers are kept and reused.
 *
 * Several backends at once (a mixed machine: NVIDIA through NVML, AMD and
 * Intel through DRM): every enabled backend of the registry that finds GPUs
 * is kept, in registry order; their GPUs are numbered one after the other
 * (NVML's first, so CUDA's numbering stands) and each selected GPU remembers
 * which backend reads it (section "several backends" below).
 *
 * A GPU that is lost (or could not be opened) is tried again with a backoff
 * (1 s, doubling to 60 s): a driver reset or a re-seated GPU comes back in
 * the same place, with the same index and UUID (gs_sampler_revive, at the end).
 */
#include "core/sampler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/backend.h"
#include "core/gpusel.h"
#include "core/simwall.h"
#include "core/hostproc.h"
#include "core/pyhook.h"
#include "core/registry.h"
#include "core/slow.h"
#include "lib/clock.h"
#include "lib/roots.h"

#define GS_SAMPLER_MAX_BACKENDS 4

/* One backend that initialised and found GPUs. */
struct gs_sbe {
    const struct gs_backend *be;
    struct gs_bctx *ctx;
    struct gs_bdev *const *devs;     /* every GPU it found (owned by ctx) */
    uint32_t ndevs;
    uint32_t base;                   /* its GPUs' machine-wide indexes start here */
};

struct gs_sampler {
    struct gs_sampler_opts opts;
    struct gs_sbe bes[GS_SAMPLER_MAX_BACKENDS]; /* the backends in use, registry order */
    unsigned nbe;
    struct gs_sysinfo sys;
    uint32_t nall;                   /* GPUs found by all backends together */
    uint32_t nsel;                   /* selected GPUs, in index order */
    struct gs_bdev **devs;           /* nsel */
    const struct gs_sbe **dbe;       /* nsel: the backend that reads devs[i] */
    struct gs_static *st;            /* nsel static facts, read once */
    struct gs_fmask want;            /* GS_F_* per tick */
    struct gs_fmask slow_fields;     /* the slow worker's backend's slow fields among want */
    struct gs_hostproc *hp;          /* NULL without host facts */
    struct gs_slow *slow;            /* GS_SLOW_THREAD worker, or NULL */
    const struct gs_sbe *slow_be;    /* the backend whose slow fields it reads, or NULL */
    uint32_t *slow_slot;             /* nsel: devs[i]'s place in the worker, UINT32_MAX: none */
    bool *slow_free;                 /* nsel: devs[i] gives the slow fields in its own tick */
    uint32_t nslow_free;             /* how many do */
    struct gs_bdev **slow_devs;      /* the worker's GPUs (it borrows the array) */
    struct gs_xid_acc *xid;          /* nsel Xid tallies since open */
    struct gs_pyhook *pyhook;        /* the Python hooks' cache, NULL when off */
    struct gs_err be_warn;           /* a backend that failed while others found GPUs */
    struct gs_revive *revive;        /* nsel: when to try a lost GPU again */
};

/* Retrying a GPU that is down (lost, or never opened). */
struct gs_revive {
    bool down;          /* the latest snapshot could not read it */
    uint32_t delay_ms;  /* backoff: 1 s doubling to 60 s */
    uint64_t next_ns;   /* monotonic time of the next try */
};

#define GS_REVIVE_FIRST_MS 1000
#define GS_REVIVE_MAX_MS 60000

/* Xid events seen on one GPU since the sampler opened. */
struct gs_xid_acc {
    uint64_t count;
    uint32_t last;
    int64_t last_ms;
};

/* ---- several backends ---------------------------------------------------------------------- */

/* Initialise backend b and list its GPUs into a new slot of s->bes.
 * Returns 0 when it found GPUs, else its negative code (err filled). */
static int gs_sampler_try_backend(struct gs_sampler *s, const struct gs_backend *b, struct gs_err *err)
{
    struct gs_backend_opts bo = { s->opts.nvml_lib, gs_proc_root_env(s->opts.proc_root), s->opts.backend_arg,
                                  s->opts.every_tick };
    struct gs_sbe *e = &s->bes[s->nbe];
    int rc = b->init(&e->ctx, &bo, err);

    if (rc < 0)
        return rc;
    e->be = b;
    rc = b->discover(e->ctx, &e->devs, &e->ndevs, err);
    if (rc == 0 && e->ndevs == 0)
        rc = gs_err_set(err, GS_E_NO_DEVICE, "%s: no GPU found", b->name);
    if (rc < 0) {
        b->fini(e->ctx);
        memset(e, 0, sizeof(*e));
        return rc;
    }
    e->base = s->nall;
    s->nall += e->ndevs;
    s->nbe++;
    return 0;
}

/* Every enabled backend that finds GPUs, in registry order. When none does,
 * err is the first (preferred) backend's explanation. A backend that fails
 * for another reason than "not here" while others found GPUs is kept in
 * s->be_warn (gs_sampler_describe says it). */
static int gs_sampler_backends(struct gs_sampler *s, struct gs_err *err)
{
    const char *filter = getenv("GPUSCOPE_BACKENDS");
    const struct gs_backend *b;
    int first = gs_err_set(err, GS_E_USAGE, "no GPU backend enabled by GPUSCOPE_BACKENDS='%s'",
                           filter ? filter : "");
    bool have_first = false;

    if (s->opts.backend) { /* the command's own backend (the fleet): that one alone */
        gs_err_clear(err);
        return gs_sampler_try_backend(s, s->opts.backend, err);
    }
    for (unsigned i = 0; (b = gs_registry_get(i)) != NULL && s->nbe < GS_SAMPLER_MAX_BACKENDS; i++) {
        if (b->abi != GS_BACKEND_ABI || !gs_registry_enabled(b, filter))
            continue;
        struct gs_err e2;
        int r = gs_sampler_try_backend(s, b, have_first ? &e2 : err);
        if (r == 0)
            continue;
        if (!have_first) {
            first = r;
            have_first = true;
        } else if (r != -GS_E_NO_LIBRARY && r != -GS_E_NO_DEVICE && !s->be_warn.code) {
            s->be_warn = e2;
        }
    }
    if (s->nbe == 0)
        return first;
    if (have_first && first != -GS_E_NO_LIBRARY && first != -GS_E_NO_DEVICE && !s->be_warn.code)
        s->be_warn = *err;
    gs_err_clear(err);
    return 0;
}

/* The backend slot and device of machine-wide GPU k (0 <= k < nall). */
static const struct gs_sbe *gs_sampler_gpu_be(const struct gs_sampler *s, uint32_t k, struct gs_bdev **dev)
{
    for (unsigned b = 0; b < s->nbe; b++) {
        const struct gs_sbe *e = &s->bes[b];
        if (k >= e->base && k < e->base + e->ndevs) {
            *dev = e->devs[k - e->base];
            return e;
        }
    }
    *dev = NULL;
    return NULL;
}

/* Static facts of machine-wide GPU k into g: machine-wide index, and the
 * vendor when the backend did not say. */
static void gs_sampler_read_static(const struct gs_sbe *e, struct gs_bdev *dev, struct gs_gpu *g)
{
    e->be->read_static(dev, g);
    g->st.index = e->base + dev->index;
    if (!gs_static_has(&g->st, GS_S_VENDOR) && e->be->vendor) {
        snprintf(g->st.vendor, sizeof(g->st.vendor), "%s", e->be->vendor);
        snprintf(g->st.driver, sizeof(g->st.driver), "%s", e->be->driver ? e->be->driver : e->be->name);
        gs_static_mark(&g->st, GS_S_VENDOR, GS_ST_OK);
    }
}

/* Static facts of every GPU found, then the -i selection; fills devs/dbe/st. */
static int gs_sampler_select(struct gs_sampler *s, struct gs_err *err)
{
    struct gs_gpu *tmp = calloc(s->nall, sizeof(*tmp));
    uint32_t *sel = calloc(s->nall, sizeof(*sel));
    int rc = -GS_E_NOMEM;

    s->devs = calloc(s->nall, sizeof(*s->devs));
    s->dbe = calloc(s->nall, sizeof(*s->dbe));
    s->st = calloc(s->nall, sizeof(*s->st));
    if (!tmp || !sel || !s->devs || !s->dbe || !s->st) {
        gs_err_set(err, GS_E_NOMEM, "out of memory");
        goto out_free;
    }
    for (uint32_t k = 0; k < s->nall; k++) {
        struct gs_bdev *dev;
        const struct gs_sbe *e = gs_sampler_gpu_be(s, k, &dev);
        if (s->opts.want_static || s->opts.only_ids)
            gs_sampler_read_static(e, dev, &tmp[k]);
        else
            tmp[k].st.index = e->base + dev->index;
    }
    rc = gs_gpusel(s->opts.only_ids, tmp, s->nall, sel, &s->nsel, err);
    for (uint32_t i = 0; rc == 0 && i < s->nsel; i++) {
        s->dbe[i] = gs_sampler_gpu_be(s, sel[i], &s->devs[i]);
        s->st[i] = tmp[sel[i]].st;
    }
out_free:
    free(tmp);
    free(sel);
    return rc;
}

/* Machine facts: the first backend's (NVML's driver and library), the others'
 * names appended ("nvml,drm"), simulated when any backend is. */
static void gs_sampler_sysinfo(struct gs_sampler *s)
{
    memset(&s->sys, 0, sizeof(s->sys));
    for (unsigned b = 0; b < s->nbe; b++) {
        const struct gs_sbe *e = &s->bes[b];
        struct gs_sysinfo one;
        memset(&one, 0, sizeof(one));
        if (e->be->system_info)
            e->be->system_info(e->ctx, &one);
        if (!one.backend[0])
            snprintf(one.backend, sizeof(one.backend), "%s", e->be->name);
        if (b == 0) {
            s->sys = one;
            continue;
        }
        size_t n = strlen(s->sys.backend);
        snprintf(s->sys.backend + n, sizeof(s->sys.backend) - n, ",%s", one.backend);
        if (one.simulated && !s->sys.simulated) {
            s->sys.simulated = true;
            snprintf(s->sys.sim_scenario, sizeof(s->sys.sim_scenario), "%s", one.sim_scenario);
        }
    }
    if (s->be_warn.code)
        snprintf(s->sys.warning, sizeof(s->sys.warning), "%.199s", s->be_warn.msg);
    if (gethostname(s->sys.hostname, sizeof(s->sys.hostname)) != 0)
        s->sys.hostname[0] = '\0';
    s->sys.hostname[sizeof(s->sys.hostname) - 1] = '\0';
}

/* The slow-field worker: for the first backend with slow fields among want,
 * over its selected GPUs (s->slow_slot maps them). */
static int gs_sampler_slow_start(struct gs_sampler *s)
{
    struct gs_bdev **devs = s->slow_devs = calloc(s->nsel ? s->nsel : 1, sizeof(*devs));
    uint32_t n = 0;

    s->slow_slot = calloc(s->nsel ? s->nsel : 1, sizeof(*s->slow_slot));
    s->slow_free = calloc(s->nsel ? s->nsel : 1, sizeof(*s->slow_free));
    if (!devs || !s->slow_slot || !s->slow_free)
        return -GS_E_NOMEM;
    for (unsigned b = 0; b < s->nbe && !s->slow_be; b++)
        if (gs_fmask_any(gs_fmask_and(s->bes[b].be->slow_fields, s->want)))
            s->slow_be = &s->bes[b];
    if (s->slow_be)
        s->slow_fields = gs_fmask_and(s->slow_be->be->slow_fields, s->want);
    for (uint32_t i = 0; i < s->nsel; i++) {
        s->slow_slot[i] = UINT32_MAX;
        if (s->slow_be && s->dbe[i] == s->slow_be) {
            s->slow_slot[i] = n;
            devs[n++] = s->devs[i];
            /* decided once per GPU, here: no per-refresh retries of a refused path */
            if (s->opts.slow == GS_SLOW_THREAD && s->slow_be->be->slow_free && gs_fmask_any(s->slow_fields))
                s->slow_free[i] = s->slow_be->be->slow_free(s->devs[i], s->want);
            s->nslow_free += s->slow_free[i];
        }
    }
    if (s->opts.slow == GS_SLOW_THREAD && n && gs_fmask_any(s->slow_fields))
        return gs_slow_start(&s->slow, s->slow_be->be, devs, n, s->slow_fields, s->opts.slow_interval_ms);
    return 0;
}

/* Host facts and the slow-field worker, as the options ask. */
static int gs_sampler_helpers(struct gs_sampler *s, struct gs_err *err)
{
    const char *root = gs_proc_root_env(s->opts.proc_root);

    if (s->opts.want_procs && s->opts.want_host && gs_hostproc_open(&s->hp, root) < 0)
        s->hp = NULL; /* host facts are a bonus: processes still show, marked not visible */
    if (s->hp && gs_pyhook_open(&s->pyhook, (enum gs_pyhook_mode)s->opts.pyhook) < 0)
        s->pyhook = NULL; /* the hooks' figures are a bonus too */
    if (s->hp && s->opts.once)
        gs_hostproc_once(s->hp, s->opts.host_want);
    if (gs_sampler_slow_start(s) < 0) {
        gs_err_set(err, GS_E_INTERNAL, "cannot start the thread that reads PCIe throughput");
        gs_err_hint(err, "the process may be at its thread or memory limit (ulimit -u, the cgroup's pids.max)");
        return -GS_E_INTERNAL;
    }
    return 0;
}

int gs_sampler_open(struct gs_sampler **out, const struct gs_sampler_opts *opts, struct gs_err *err)
{
    static const struct gs_sampler_opts defaults = GS_SAMPLER_OPTS_INIT;
    struct gs_sampler *s = calloc(1, sizeof(*s));
    int rc;

    *out = NULL;
    gs_err_clear(err);
    if (!s)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    s->opts = opts ? *opts : defaults;
    s->want = s->opts.want_none              ? GS_FMASK_NONE
              : gs_fmask_any(s->opts.want) ? gs_fmask_and(s->opts.want, gs_fmask_all())
                                           : gs_fmask_default();
    rc = gs_sampler_backends(s, err);
    if (rc < 0)
        goto out_free;
    gs_sampler_sysinfo(s);
    rc = gs_sampler_select(s, err);
    if (rc == 0)
        rc = gs_sampler_helpers(s, err);
    if (rc == 0 && !(s->xid = calloc(s->nsel ? s->nsel : 1, sizeof(*s->xid))))
        rc = gs_err_set(err, GS_E_NOMEM, "out of memory");
    if (rc == 0 && !(s->revive = calloc(s->nsel ? s->nsel : 1, sizeof(*s->revive))))
        rc = gs_err_set(err, GS_E_NOMEM, "out of memory");
    if (rc < 0)
        goto out_free;
    *out = s;
    return 0;

out_free:
    gs_sampler_close(s);
    return rc;
}

void gs_sampler_close(struct gs_sampler *s)
{
    if (!s)
        return;
    gs_slow_stop(s->slow);
    if (s->hp)
        gs_hostproc_close(s->hp);
    gs_pyhook_close(s->pyhook);
    for (unsigned b = 0; b < s->nbe; b++)
        s->bes[b].be->fini(s->bes[b].ctx);
    free(s->devs);
    free(s->dbe);
    free(s->slow_devs);
    free(s->slow_slot);
    free(s->slow_free);
    free(s->st);
    free(s->xid);
    free(s->revive);
    free(s);
}

/* ---- lost GPUs coming back ---------------------------------------------------------------- */

/* After a snapshot: note which GPUs are down, and when to try them again. */
static void gs_sampler_note_down(struct gs_sampler *s, const struct gs_snapshot *snap, uint64_t now_ns)
{
    for (uint32_t i = 0; i < s->nsel; i++) {
        struct gs_revive *r = &s->revive[i];
        bool down = snap->gpus[i].state != GS_GPU_OK;
        if (down && !r->down) {
            r->delay_ms = GS_REVIVE_FIRST_MS;
            r->next_ns = now_ns + (uint64_t)r->delay_ms * 1000000u;
        }
        r->down = down;
    }
}

/* Before a snapshot: try the GPUs that are down and due; one that answers
 * again gets its static facts read again (same slot, index and UUID: its
 * series go on). */
static void gs_sampler_revive(struct gs_sampler *s, uint64_t now_ns)
{
    for (uint32_t i = 0; i < s->nsel; i++) {
        struct gs_revive *r = &s->revive[i];
        const struct gs_sbe *e = s->dbe[i];
        if (!r->down || now_ns < r->next_ns || !e->be->revive)
            continue;
        if (e->be->revive(s->devs[i]) < 0) {
            r->delay_ms = r->delay_ms * 2 > GS_REVIVE_MAX_MS ? GS_REVIVE_MAX_MS : r->delay_ms * 2;
            r->next_ns = now_ns + (uint64_t)r->delay_ms * 1000000u;
            continue;
        }
        struct gs_gpu tmp;
        memset(&tmp, 0, sizeof(tmp));
        gs_sampler_read_static(e, s->devs[i], &tmp);
        s->st[i] = tmp.st;
        r->down = false;
    }
}

/* Make snap hold nsel GPUs, keeping its arrays when the size already fits. */
static int gs_snapshot_size(struct gs_snapshot *snap, uint32_t n)
{
    if (snap->gpus && snap->ngpus == n)
        return 0;
    gs_snapshot_release(snap);
    snap->gpus = calloc(n ? n : 1, sizeof(*snap->gpus));
    if (!snap->gpus)
        return -GS_E_NOMEM;
    snap->ngpus = n;
    return 0;
}

/* Drain one backend's events into snap->events from *keep on (selected GPUs
 * only; the event's GPU becomes its machine-wide index) and tally Xids. */
static void gs_sampler_be_events(struct gs_sampler *s, const struct gs_sbe *e, struct gs_snapshot *snap,
                                 uint32_t *keep)
{
    uint32_t dropped = 0, at = *keep;
    int n = e->be->events(e->ctx, snap->events + at, GS_MAX_EVENTS - at, &dropped);

    for (int k = 0; k < n; k++) {
        struct gs_event ev = snap->events[at + k];
        for (uint32_t i = 0; i < s->nsel; i++) {
            if (s->dbe[i] != e || s->devs[i]->index != ev.gpu)
                continue;
            ev.gpu += e->base;
            if (ev.kind == GS_EV_XID) {
                s->xid[i].count++;
                s->xid[i].last = (uint32_t)ev.data;
                s->xid[i].last_ms = ev.time_ms;
            }
            snap->events[(*keep)++] = ev;
            break;
        }
    }
    snap->events_dropped += dropped;
}

/* Every backend's events since the previous snapshot. One call per backend
 * per tick when nothing happened. */
static void gs_sampler_events(struct gs_sampler *s, struct gs_snapshot *snap)
{
    uint32_t keep = 0;

    snap->nevents = 0;
    snap->events_dropped = 0;
    if (!gs_fmask_has(s->want, GS_F_XID))
        return;
    for (unsigned b = 0; b < s->nbe && keep < GS_MAX_EVENTS; b++)
        if (s->bes[b].be->events)
            gs_sampler_be_events(s, &s->bes[b], snap, &keep);
    snap->nevents = keep;
}

/* Tell every backend that a snapshot begins (caches valid for one tick). */
static void gs_sampler_tick(struct gs_sampler *s, uint64_t now_ns)
{
    for (unsigned b = 0; b < s->nbe; b++)
        if (s->bes[b].be->tick)
            s->bes[b].be->tick(s->bes[b].ctx, now_ns);
}

/* The GPU's own tick answered every slow field (a rate, an error, a loss): not "not yet", and
 * not "not supported" (then the worker's call may still have them). */
static bool gs_sampler_slow_answered(const struct gs_sampler *s, const struct gs_sample *smp)
{
    GS_FMASK_FOREACH(f, s->slow_fields)
        if (smp->status[f] == GS_ST_NOT_AVAILABLE || smp->status[f] == GS_ST_NOT_SAMPLED ||
            smp->status[f] == GS_ST_NOT_SUPPORTED)
            return false;
    return true;
}

/* One GPU: sample, slow fields, processes, host facts. Returns the backend's code. */
static int gs_sampler_gpu(struct gs_sampler *s, uint32_t i, struct gs_gpu *g, uint64_t now_ns)
{
    struct gs_bdev *dev = s->devs[i];
    const struct gs_backend *be = s->dbe[i]->be;
    struct gs_fmask want = s->want;
    int rc, prc = 0;

    if (s->opts.slow != GS_SLOW_INLINE && s->dbe[i] == s->slow_be && !s->slow_free[i])
        want = gs_fmask_minus(want, s->slow_fields);
    g->st = s->st[i];
    rc = be->sample(dev, want, g);
    /* Xids come from the event set, so a GPU that just fell off the bus
     * still reports the Xid 79 that announced it. */
    if (gs_sample_has(&g->s, GS_F_XID) || s->xid[i].count) {
        gs_sample_mark(&g->s, GS_F_XID, GS_ST_OK);
        g->s.xid_count = s->xid[i].count;
        g->s.xid_last = s->xid[i].last;
        g->s.xid_last_ms = s->xid[i].last_ms;
    }
    if (s->slow && s->slow_slot[i] != UINT32_MAX && !gs_slow_retire(s->slow, s->slow_slot[i], s->slow_free[i] &&
                                                                    gs_sampler_slow_answered(s, &g->s)))
        gs_slow_copy(s->slow, s->slow_slot[i], &g->s, now_ns);
    g->nprocs = 0;
    g->text.len = 0;
    g->procs_status = rc == -GS_E_GPU_LOST ? GS_ST_GPU_LOST : GS_ST_NOT_SAMPLED;
    g->procs_age_ms = 0;
    if (s->opts.want_procs && be->processes && rc != -GS_E_GPU_LOST)
        prc = be->processes(dev, g);
    for (uint32_t k = 0; s->hp && k < g->nprocs; k++)
        gs_hostproc_fill(s->hp, &g->text, &g->procs[k]);
    return rc < 0 ? rc : prc;
}

int gs_sampler_snapshot(struct gs_sampler *s, struct gs_snapshot *snap, struct gs_err *err)
{
    int worst = 0, failed = -1;

    gs_err_clear(err);
    if (gs_snapshot_size(snap, s->nsel) < 0)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    snap->mono_ns = gs_clock_mono_ns();
    clock_gettime(CLOCK_REALTIME, &snap->wall);
    gs_simwall_apply(s->sys.simulated, snap->mono_ns, &snap->wall);
    snap->sys = s->sys;
    gs_sampler_revive(s, snap->mono_ns);
    gs_sampler_events(s, snap);
    gs_sampler_tick(s, snap->mono_ns);
    if (s->hp)
        gs_hostproc_begin(s->hp, snap->mono_ns, (int64_t)snap->wall.tv_sec);
    for (uint32_t i = 0; i < s->nsel; i++) {
        int rc = gs_sampler_gpu(s, i, &snap->gpus[i], snap->mono_ns);
        if (rc < 0 && (failed < 0 || (rc == -GS_E_GPU_LOST && worst != -GS_E_GPU_LOST))) {
            worst = rc == -GS_E_GPU_LOST ? rc : -GS_E_BACKEND;
            failed = (int)i;
        }
    }
    if (s->hp)
        gs_hostproc_end(s->hp);
    gs_pyhook_snapshot(s->pyhook, snap);
    gs_sampler_note_down(s, snap, snap->mono_ns);
    if (failed >= 0 && s->dbe[failed]->be->explain_gpu) {
        s->dbe[failed]->be->explain_gpu(s->devs[failed], &snap->gpus[failed], err);
        err->code = -worst;
    }
    snap->duration_ns = gs_clock_mono_ns() - snap->mono_ns;
    return worst;
}

void gs_sampler_host_focus(struct gs_sampler *s, const uint32_t *pids, uint32_t n)
{
    if (s->hp)
        gs_hostproc_focus(s->hp, pids, n);
}

void gs_sampler_describe(const struct gs_sampler *s, void (*line)(void *arg, const char *text),
                         void *arg)
{
    char buf[600];

    for (unsigned b = 0; b < s->nbe; b++) {
        const struct gs_sbe *e = &s->bes[b];
        uint32_t nsel = 0;
        for (uint32_t i = 0; i < s->nsel; i++)
            nsel += s->dbe[i] == e;
        snprintf(buf, sizeof(buf), "backend -> %s (%u GPUs found, %u selected)", e->be->name, e->ndevs, nsel);
        line(arg, buf);
    }
    if (s->be_warn.code) {
        snprintf(buf, sizeof(buf), "backend not used -> %s", s->be_warn.msg);
        line(arg, buf);
    }
    snprintf(buf, sizeof(buf), "slow fields -> %s",
             s->opts.slow == GS_SLOW_THREAD   ? "worker thread"
             : s->opts.slow == GS_SLOW_INLINE ? "read inline"
                                              : "skipped");
    if (s->opts.slow == GS_SLOW_THREAD && s->nslow_free)
        snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
                 " (PCIe rates in the tick, from GPM or byte counters: %u GPU%s)", s->nslow_free,
                 s->nslow_free == 1 ? "" : "s");
    line(arg, buf);
    for (unsigned b = 0; b < s->nbe; b++)
        if (s->bes[b].be->describe)
            s->bes[b].be->describe(s->bes[b].ctx, line, arg);
}
