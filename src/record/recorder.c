/* SPDX-License-Identifier: MIT */
/*
 * recorder.c - `gpuscope record`: sample every interval and write each tick to
 * the store. The database may fail (full disk, read-only, locked, corrupt):
 * the recorder says so once, naming the file and what to do, keeps sampling,
 * retries every tick (reopening when it could not open), and notes the gap.
 * With --annotate-fifo, lines written to a FIFO between ticks become marks.
 */
#include "record/record.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/pyhook.h"
#include "core/sampler.h"
#include "lib/clock.h"
#include "record/rw.h"

static volatile sig_atomic_t rec_stop, rec_hup;

static void rec_on_signal(int sig)
{
    if (sig == SIGHUP)
        rec_hup = 1; /* never a stop: a Restart=on-failure unit would leave no recorder */
    else
        rec_stop = 1;
}

static void rec_signals(void)
{
    struct sigaction sa = { 0 };
    sa.sa_handler = rec_on_signal; /* no SA_RESTART: the sleep ends at once */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

void gs_clock_file_write(const char *path, double t_s)
{
    char tmp[1100];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    fprintf(f, "%.3f\n", t_s);
    if (fclose(f) == 0)
        rename(tmp, path);
}

#ifdef GS_TESTING
/* Test hook, in test builds only (GS_TESTING, see the Makefile):
 * GPUSCOPE_RECORD_FAULT="full:FROM-TO" makes the database full (SQLite's own
 * SQLITE_FULL, via max_page_count) during ticks FROM..TO. */
static void fault_full(struct gs_store *st, uint64_t tick)
{
    const char *f = getenv("GPUSCOPE_RECORD_FAULT");
    unsigned long a, b;
    gs_store_debug_full(st, f && sscanf(f, "full:%lu-%lu", &a, &b) == 2 && tick >= a && tick <= b);
}
#else
static void fault_full(struct gs_store *st, uint64_t tick)
{
    (void)st;
    (void)tick;
}
#endif

struct rec {
    const struct gs_record_opts *o;
    struct gs_store_opts so;
    struct gs_store *st;
    char path[1024];
    char last_msg[384];          /* the last failure printed (printed once until it changes) */
    uint64_t lost;               /* ticks not written since the last good one */
    int64_t lost_since;
    int64_t next_proc_ms, next_maint_ms, next_open_ms;
    struct gs_annot annot;       /* --annotate-fifo (fd -1 when not asked for) */
    int64_t tick_t;              /* the latest tick's time (stamps annotations on a virtual clock) */
    struct gs_rw_cfg rwcfg;      /* --remote-write (url NULL: none) */
    struct gs_rw *rw;            /* its sender thread */
};

static void rec_complain(struct rec *r, const struct gs_err *e)
{
    if (!strcmp(r->last_msg, e->msg))
        return;
    snprintf(r->last_msg, sizeof(r->last_msg), "%s", e->msg);
    gs_err_print(e);
    fprintf(stderr, "gpuscope record: still sampling; retrying every tick\n");
}

static int rec_open(struct rec *r, int64_t t, struct gs_err *err)
{
    if (r->st)
        return 0;
    if (t < r->next_open_ms)
        return -GS_E_IO;
    r->next_open_ms = t + 5000;
    int rc = gs_store_open(&r->st, &r->so, err);
    if (rc < 0)
        return rc;
    gs_store_event(r->st, t, -1, "recorder_start", getpid(), r->so.interval_ms, NULL, err);
    return 0;
}

static void rec_tick(struct rec *r, uint64_t tick, int64_t t, const struct gs_snapshot *snap)
{
    struct gs_err err = { 0 };
    if (rec_open(r, t, &err) < 0) {
        if (err.code == GS_E_USAGE) /* another recorder: not something to retry */
            rec_stop = 2;
        if (err.code)
            rec_complain(r, &err);
        if (!r->lost++)
            r->lost_since = t;
        return;
    }
    bool procs = t >= r->next_proc_ms;
    fault_full(r->st, tick);
    if (gs_store_write_tick(r->st, t, snap, procs, &err) < 0) {
        rec_complain(r, &err);
        if (!r->lost++)
            r->lost_since = t;
        if ((err.code == GS_E_IO || err.code == GS_E_PERMISSION) && strstr(err.msg, "malformed")) {
            gs_store_close(r->st); /* corrupt under us: reopen later */
            r->st = NULL;
        }
        return;
    }
    if (procs)
        r->next_proc_ms = t + r->o->proc_interval_ms;
    gs_rw_notify(r->rw);
    if (r->lost) {
        fprintf(stderr, "gpuscope record: writing to %s again (%llu ticks were not stored)\n", r->path,
                (unsigned long long)r->lost);
        gs_store_note_gap(r->st, r->lost_since, r->lost, r->last_msg, &err);
        r->lost = 0;
        r->last_msg[0] = '\0';
    }
    if (t >= r->next_maint_ms) {
        if (gs_store_maintain(r->st, t, &err) < 0)
            rec_complain(r, &err);
        r->next_maint_ms = t + 60000;
    }
}

/* A line from the annotation FIFO: a mark at the time it was read (the tick's time on a virtual clock). */
static void rec_on_line(void *ctx, const char *line)
{
    struct rec *r = ctx;
    struct gs_err err = { 0 };
    int64_t t = r->o->step_ms ? r->tick_t : gs_now_ms();
    if (!r->st) {
        fprintf(stderr, "gpuscope record: annotation '%s' not stored: the database is not open\n", line);
        return;
    }
    if (gs_store_event(r->st, t, -1, "mark", 0, 0, line, &err) < 0)
        rec_complain(r, &err);
}

/* SIGHUP: there is no configuration to reload; say so, and try a database
 * that could not be opened again at once rather than in up to 5 s. */
static void rec_on_hup(struct rec *r)
{
    rec_hup = 0;
    fprintf(stderr, "gpuscope record: SIGHUP: nothing to reload; still recording into %s%s\n", r->path,
            r->st ? "" : " (retrying the database now)");
    r->next_open_ms = 0;
}

static void rec_sleep_until(struct rec *r, uint64_t deadline_ns)
{
    struct timespec ts = { (time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u) };
    if (rec_hup) /* it came while sampling or writing: no sleep of ours was interrupted */
        rec_on_hup(r);
    if (r->annot.fd < 0) {
        while (!rec_stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            if (rec_hup)
                rec_on_hup(r);
        return;
    }
    for (uint64_t now = gs_clock_mono_ns(); !rec_stop && now < deadline_ns; now = gs_clock_mono_ns()) {
        gs_annot_poll(&r->annot, (int)((deadline_ns - now + 999999) / 1000000), rec_on_line, r);
        if (rec_hup)
            rec_on_hup(r);
    }
}

static int rec_loop(struct rec *r, struct gs_sampler *s, struct gs_err *err)
{
    const struct gs_record_opts *o = r->o;
    struct gs_snapshot snap;
    gs_snapshot_init(&snap);
    uint64_t next = gs_clock_mono_ns();
    int64_t start = o->start_ms ? o->start_ms : gs_now_ms();
    for (uint64_t tick = 0; !rec_stop && (!o->ticks || tick < o->ticks); tick++) {
        if (o->clock_file)
            gs_clock_file_write(o->clock_file, (double)(tick * (uint64_t)o->step_ms) / 1000.0);
        struct gs_err serr = { 0 };
        int rc = gs_sampler_snapshot(s, &snap, &serr);
        if (rc < 0 && rc != -GS_E_GPU_LOST && rc != -GS_E_BACKEND)
            rec_complain(r, &serr);
        int64_t t = o->step_ms ? start + (int64_t)tick * o->step_ms
                               : (int64_t)snap.wall.tv_sec * 1000 + snap.wall.tv_nsec / 1000000;
        r->tick_t = t;
        if (rc >= 0 || rc == -GS_E_GPU_LOST || rc == -GS_E_BACKEND)
            rec_tick(r, tick, t, &snap);
        if (o->step_ms && !o->interval_given) {
            if (r->annot.fd >= 0)
                gs_annot_poll(&r->annot, 0, rec_on_line, r);
            continue;
        }
        next += (uint64_t)o->interval_ms * 1000000u;
        uint64_t now = gs_clock_mono_ns();
        if (next < now)
            next = now; /* fell behind (a slow tick): do not burst */
        rec_sleep_until(r, next);
    }
    if (r->annot.fd >= 0) /* lines written before the stop */
        gs_annot_poll(&r->annot, 0, rec_on_line, r);
    if (r->st) {
        int64_t t = o->step_ms ? start + (int64_t)o->ticks * o->step_ms : gs_now_ms();
        gs_store_finish(r->st, t, err);
    }
    gs_snapshot_release(&snap);
    return rec_stop == 2 ? -GS_E_USAGE : 0;
}

/* --remote-write URL / --remote-write-config FILE: the sender's settings, before anything is recorded. */
static int rec_rw_config(struct rec *r, struct gs_err *err)
{
    const struct gs_record_opts *o = r->o;
    gs_rw_cfg_init(&r->rwcfg);
    if (!o->rw_url && !o->rw_config)
        return 0;
    if (o->rw_config && gs_rw_cfg_load(&r->rwcfg, o->rw_config, err) < 0)
        return -err->code;
    if (o->rw_url) {
        free(r->rwcfg.url);
        if (!(r->rwcfg.url = strdup(o->rw_url)))
            return gs_err_set(err, GS_E_NOMEM, "out of memory");
    }
    if (o->rw_max_batch)
        r->rwcfg.max_samples = o->rw_max_batch;
    const char *u = r->rwcfg.url;
    if (!u)
        return gs_err_set(err, GS_E_PARSE, "remote write: no URL: pass --remote-write URL or put url: in %s",
                          o->rw_config);
    if (strncmp(u, "http://", 7) && strncmp(u, "https://", 8))
        return gs_err_set(err, GS_E_PARSE, "remote write: '%s' is not an http:// or https:// URL", u);
    return 0;
}

int gs_record_run(const struct gs_record_opts *o, struct gs_err *err)
{
    struct rec r = { .o = o, .annot = { .fd = -1 } };
    rec_signals(); /* before anything slow: a SIGHUP during start-up must not end the recorder either */
    if (rec_rw_config(&r, err) < 0) {
        gs_rw_cfg_free(&r.rwcfg);
        return -err->code;
    }
    if (o->annotate_fifo && gs_annot_open(&r.annot, o->annotate_fifo, err) < 0) {
        gs_rw_cfg_free(&r.rwcfg);
        return -err->code;
    }
    if (o->db)
        snprintf(r.path, sizeof(r.path), "%s", o->db);
    else if (gs_store_default_path(r.path, sizeof(r.path)) < 0)
        return gs_err_set(err, GS_E_USAGE, "no default database location ($HOME unset): pass --db FILE");
    r.so = (struct gs_store_opts){ .path = r.path, .writer = true, .keep_full_ms = o->keep_full_ms,
                                   .keep_rollup_ms = o->keep_rollup_ms, .max_size_bytes = o->max_size_bytes,
                                   .interval_ms = o->interval_ms, .virtual_time = o->step_ms > 0, .first_t_ms = o->start_ms };
    /* A second recorder is refused before anything else happens. */
    if (gs_store_open(&r.st, &r.so, err) < 0) {
        if (err->code == GS_E_USAGE) {
            gs_annot_close(&r.annot);
            gs_rw_cfg_free(&r.rwcfg);
            return -err->code;
        }
        gs_err_print(err);
        fprintf(stderr, "gpuscope record: sampling anyway; retrying the database every 5 s\n");
        snprintf(r.last_msg, sizeof(r.last_msg), "%s", err->msg);
        gs_err_clear(err);
    } else {
        gs_store_event(r.st, o->start_ms ? o->start_ms : gs_now_ms(), -1, "recorder_start", getpid(),
                       o->interval_ms, NULL, err);
    }
    struct gs_sampler_opts so = GS_SAMPLER_OPTS_INIT;
    so.slow = o->step_ms ? GS_SLOW_INLINE : GS_SLOW_THREAD;
    so.slow_interval_ms = o->interval_ms;
    so.only_ids = o->only_ids;
    so.pyhook = GS_PYHOOK_ASYNC; /* PyTorch's figures, stored with the process samples */
    struct gs_sampler *s = NULL;
    int orc = gs_sampler_open(&s, &so, err);
    if (orc == 0 && r.rwcfg.url &&
        gs_rw_start(&r.rw, &r.rwcfg, r.path, o->start_ms ? o->start_ms : gs_now_ms(), o->quiet, err) < 0) {
        gs_sampler_close(s);
        orc = -err->code;
    }
    if (orc < 0) {
        gs_store_close(r.st);
        gs_annot_close(&r.annot);
        gs_rw_cfg_free(&r.rwcfg);
        return -err->code;
    }
    if (!o->quiet)
        fprintf(stderr, "gpuscope record: recording every %.3g s into %s (Ctrl-C stops)\n",
                o->interval_ms / 1000.0, r.path);
    int rc = rec_loop(&r, s, err);
    gs_rw_stop(r.rw, o->rw_drain_ms); /* what is queued, for up to --remote-write-drain */
    gs_rw_cfg_free(&r.rwcfg);
    gs_sampler_close(s);
    gs_store_close(r.st);
    gs_annot_close(&r.annot);
    if (rc == -GS_E_USAGE && !err->code)
        gs_err_set(err, GS_E_USAGE, "%s", r.last_msg);
    return rc;
}

uint64_t gs_record_estimate_bytes(uint32_t ngpus, uint32_t nprocs, const struct gs_record_opts *o,
                                  uint64_t *full_bytes, uint64_t *rollup_bytes, uint64_t *proc_bytes)
{
    /* Measured by tests/unit/test_record.c and bench/record.sh (docs/RECORD.md): bytes per
     * GPU-sample, GPU-minute rollup, process sample, process-minute rollup (per GPU). */
    const double b_sample = 40, b_rollup = 94, b_psample = 24, b_prollup = 42;
    double keep_full_s = (o->keep_full_ms ? o->keep_full_ms : GS_STORE_KEEP_FULL_MS) / 1000.0;
    double keep_roll_s = (o->keep_rollup_ms ? o->keep_rollup_ms : GS_STORE_KEEP_ROLLUP_MS) / 1000.0;
    double iv = (o->interval_ms ? o->interval_ms : 1000) / 1000.0;
    double piv = (o->proc_interval_ms ? o->proc_interval_ms : 5000) / 1000.0;
    double roll_s = keep_roll_s > keep_full_s ? keep_roll_s : keep_full_s; /* rollups start with the samples */
    *full_bytes = (uint64_t)(ngpus * keep_full_s / iv * b_sample);
    *rollup_bytes = (uint64_t)(ngpus * roll_s / 60 * b_rollup);
    *proc_bytes = (uint64_t)(nprocs * keep_full_s / piv * b_psample + nprocs * roll_s / 60 * b_prollup);
    uint64_t total = *full_bytes + *rollup_bytes + *proc_bytes;
    if (o->max_size_bytes && total > o->max_size_bytes)
        total = o->max_size_bytes;
    return total;
}
