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
 *
 * After the first snapshot the hot path allocates nothing: the snapshot's
 * arrays and the backend's buffers are kept and reused.
 */
#include "core/sampler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "core/gpusel.h"
#include "core/hostproc.h"
#include "core/registry.h"
#include "core/slow.h"

struct gs_sampler {
    struct gs_sampler_opts opts;
    const struct gs_backend *be;
    struct gs_bctx *ctx;
    struct gs_sysinfo sys;
    struct gs_bdev *const *alldevs;  /* every GPU the backend found (owned by ctx) */
    uint32_t nall;
    uint32_t nsel;                   /* selected GPUs, in index order */
    struct gs_bdev **devs;           /* nsel */
    struct gs_static *st;            /* nsel static facts, read once */
    uint64_t want;                   /* GS_F_* per tick */
    uint64_t slow_fields;            /* the backend's slow fields among want */
    struct gs_hostproc *hp;          /* NULL without host facts */
    struct gs_slow *slow;            /* GS_SLOW_THREAD worker, or NULL */
    struct gs_xid_acc *xid;          /* nsel Xid tallies since open */
};

/* Xid events seen on one GPU since the sampler opened. */
struct gs_xid_acc {
    uint64_t count;
    uint32_t last;
    int64_t last_ms;
};

static uint64_t gs_mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The first enabled backend that initialises. Errors of the preferred one win. */
static int gs_sampler_backend(struct gs_sampler *s, struct gs_err *err)
{
    const char *filter = getenv("GPUSCOPE_BACKENDS");
    struct gs_backend_opts bo = { s->opts.nvml_lib };
    const struct gs_backend *b;
    int rc = gs_err_set(err, GS_E_USAGE, "no GPU backend enabled by GPUSCOPE_BACKENDS='%s'",
                        filter ? filter : "");

    for (unsigned i = 0; (b = gs_registry_get(i)) != NULL; i++) {
        if (b->abi != GS_BACKEND_ABI || !gs_registry_enabled(b, filter))
            continue;
        struct gs_err e2;
        int r = b->init(&s->ctx, &bo, rc == -GS_E_USAGE ? err : &e2);
        if (r == 0) {
            s->be = b;
            gs_err_clear(err);
            return 0;
        }
        if (rc == -GS_E_USAGE)
            rc = r;
    }
    return rc;
}

/* Static facts of every GPU found, then the -i selection; fills devs/st. */
static int gs_sampler_select(struct gs_sampler *s, struct gs_err *err)
{
    struct gs_gpu *tmp = calloc(s->nall, sizeof(*tmp));
    uint32_t *sel = calloc(s->nall, sizeof(*sel));
    int rc = -GS_E_NOMEM;

    s->devs = calloc(s->nall, sizeof(*s->devs));
    s->st = calloc(s->nall, sizeof(*s->st));
    if (!tmp || !sel || !s->devs || !s->st) {
        gs_err_set(err, GS_E_NOMEM, "out of memory");
        goto out_free;
    }
    for (uint32_t i = 0; i < s->nall; i++)
        if (s->opts.want_static || s->opts.only_ids)
            s->be->read_static(s->alldevs[i], &tmp[i]);
        else
            tmp[i].st.index = s->alldevs[i]->index;
    rc = gs_gpusel(s->opts.only_ids, tmp, s->nall, sel, &s->nsel, err);
    for (uint32_t i = 0; rc == 0 && i < s->nsel; i++) {
        s->devs[i] = s->alldevs[sel[i]];
        s->st[i] = tmp[sel[i]].st;
    }
out_free:
    free(tmp);
    free(sel);
    return rc;
}

static void gs_sampler_sysinfo(struct gs_sampler *s)
{
    memset(&s->sys, 0, sizeof(s->sys));
    if (s->be->system_info)
        s->be->system_info(s->ctx, &s->sys);
    if (gethostname(s->sys.hostname, sizeof(s->sys.hostname)) != 0)
        s->sys.hostname[0] = '\0';
    s->sys.hostname[sizeof(s->sys.hostname) - 1] = '\0';
}

/* Host facts and the slow-field worker, as the options ask. */
static int gs_sampler_helpers(struct gs_sampler *s, struct gs_err *err)
{
    const char *root = s->opts.proc_root ? s->opts.proc_root : getenv("GPUSCOPE_PROC_ROOT");

    if (s->opts.want_procs && s->opts.want_host && gs_hostproc_open(&s->hp, root) < 0)
        s->hp = NULL; /* host facts are a bonus: processes still show, marked not visible */
    if (s->opts.slow == GS_SLOW_THREAD && s->slow_fields &&
        gs_slow_start(&s->slow, s->be, s->devs, s->nsel, s->slow_fields,
                      s->opts.slow_interval_ms) < 0) {
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
    s->want = s->opts.want ? s->opts.want : (UINT64_C(1) << GS_F_COUNT) - 1;
    rc = gs_sampler_backend(s, err);
    if (rc < 0)
        goto out_free;
    s->slow_fields = s->be->slow_fields & s->want;
    gs_sampler_sysinfo(s);
    rc = s->be->discover(s->ctx, &s->alldevs, &s->nall, err);
    if (rc == 0)
        rc = gs_sampler_select(s, err);
    if (rc == 0)
        rc = gs_sampler_helpers(s, err);
    if (rc == 0 && !(s->xid = calloc(s->nsel ? s->nsel : 1, sizeof(*s->xid))))
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
    if (s->be)
        s->be->fini(s->ctx);
    free(s->devs);
    free(s->st);
    free(s->xid);
    free(s);
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

/* Drain the backend's events into snap->events (selected GPUs only) and
 * tally Xids per GPU. One backend call per tick when nothing happened. */
static void gs_sampler_events(struct gs_sampler *s, struct gs_snapshot *snap)
{
    uint32_t dropped = 0, keep = 0;
    int n;

    snap->nevents = 0;
    snap->events_dropped = 0;
    if (!s->be->events || !(s->want & (UINT64_C(1) << GS_F_XID)))
        return;
    n = s->be->events(s->ctx, snap->events, GS_MAX_EVENTS, &dropped);
    for (int k = 0; k < n; k++) {
        const struct gs_event *e = &snap->events[k];
        for (uint32_t i = 0; i < s->nsel; i++) {
            if (s->devs[i]->index != e->gpu)
                continue;
            if (e->kind == GS_EV_XID) {
                s->xid[i].count++;
                s->xid[i].last = (uint32_t)e->data;
                s->xid[i].last_ms = e->time_ms;
            }
            snap->events[keep++] = *e;
            break;
        }
    }
    snap->nevents = keep;
    snap->events_dropped = dropped;
}

/* One GPU: sample, slow fields, processes, host facts. Returns the backend's code. */
static int gs_sampler_gpu(struct gs_sampler *s, uint32_t i, struct gs_gpu *g, uint64_t now_ns)
{
    struct gs_bdev *dev = s->devs[i];
    uint64_t want = s->want;
    int rc, prc = 0;

    if (s->opts.slow != GS_SLOW_INLINE)
        want &= ~s->slow_fields;
    g->st = s->st[i];
    rc = s->be->sample(dev, want, g);
    /* Xids come from the event set, so a GPU that just fell off the bus
     * still reports the Xid 79 that announced it. */
    if (gs_sample_has(&g->s, GS_F_XID) || s->xid[i].count) {
        gs_sample_mark(&g->s, GS_F_XID, GS_ST_OK);
        g->s.xid_count = s->xid[i].count;
        g->s.xid_last = s->xid[i].last;
        g->s.xid_last_ms = s->xid[i].last_ms;
    }
    if (s->slow)
        gs_slow_copy(s->slow, i, &g->s, now_ns);
    g->nprocs = 0;
    g->procs_status = rc == -GS_E_GPU_LOST ? GS_ST_GPU_LOST : GS_ST_NOT_SAMPLED;
    if (s->opts.want_procs && s->be->processes && rc != -GS_E_GPU_LOST)
        prc = s->be->processes(dev, g);
    for (uint32_t k = 0; s->hp && k < g->nprocs; k++)
        gs_hostproc_fill(s->hp, &g->procs[k]);
    return rc < 0 ? rc : prc;
}

int gs_sampler_snapshot(struct gs_sampler *s, struct gs_snapshot *snap, struct gs_err *err)
{
    int worst = 0, failed = -1;

    gs_err_clear(err);
    if (gs_snapshot_size(snap, s->nsel) < 0)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    snap->mono_ns = gs_mono_ns();
    clock_gettime(CLOCK_REALTIME, &snap->wall);
    snap->sys = s->sys;
    gs_sampler_events(s, snap);
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
    if (failed >= 0 && s->be->explain_gpu) {
        s->be->explain_gpu(s->devs[failed], &snap->gpus[failed], err);
        err->code = -worst;
    }
    snap->duration_ns = gs_mono_ns() - snap->mono_ns;
    return worst;
}

void gs_sampler_describe(const struct gs_sampler *s, void (*line)(void *arg, const char *text),
                         void *arg)
{
    char buf[160];

    snprintf(buf, sizeof(buf), "backend -> %s (%u GPUs found, %u selected)", s->be->name, s->nall,
             s->nsel);
    line(arg, buf);
    snprintf(buf, sizeof(buf), "slow fields -> %s",
             s->opts.slow == GS_SLOW_THREAD   ? "worker thread"
             : s->opts.slow == GS_SLOW_INLINE ? "read inline"
                                              : "skipped");
    line(arg, buf);
    if (s->be->describe)
        s->be->describe(s->ctx, line, arg);
}
